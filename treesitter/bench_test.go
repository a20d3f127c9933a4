package treesitter

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkOutlineGo outlines a 400-line Go file, as the post-commit hook
// does for each changed file.
func BenchmarkOutlineGo(b *testing.B) {
	var src strings.Builder
	src.WriteString("package p\n\n")
	for i := 0; src.Len() < 400*25; i++ {
		fmt.Fprintf(&src, "// F%d does a thing.\nfunc F%d(x int) int {\n\tif x > %d {\n\t\treturn x\n\t}\n\treturn x + 1\n}\n\n", i, i, i)
	}
	data := []byte(src.String())
	for b.Loop() {
		if len(Outline("f.go", data)) == 0 {
			b.Fatal("no anchors")
		}
	}
}
