package atomicfile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gloss-dev/gloss/atomicfile"
)

func TestWriteReplacesWholeFileAndLeavesNoTemporaries(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "f.json")
	for _, content := range []string{"first version, longer", "second"} {
		if err := atomicfile.Write(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(p); string(got) != content {
			t.Errorf("content = %q, want %q", got, content)
		}
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v", st.Mode())
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}
