package noma

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchDoc is the reference's benchmark shape: 1,000 blocks, 250 times a
// heading, a paragraph, a claim and its evidence (about 3,000 lines).
func benchDoc() string {
	var b strings.Builder
	for i := 0; i < 250; i++ {
		fmt.Fprintf(&b, "## Section %d\n\nParagraph %d with a link to [[c%d]] and some words to make it a realistic length.\n\n", i, i, i)
		fmt.Fprintf(&b, "::claim{id=\"c%d\" confidence=0.5}\nClaim number %d about the market.\n::\n\n", i, i)
		fmt.Fprintf(&b, "::evidence{for=\"c%d\"}\nEvidence for claim %d from a survey.\n::\n\n", i, i)
	}
	return b.String()
}

func benchOps(b *testing.B, n int) []Op {
	ops := make([]Op, n)
	for i := range ops {
		var err *PatchError
		ops[i], err = OpFromMap(map[string]any{"op": "update_attribute", "id": fmt.Sprintf("c%d", i*2%250), "key": "confidence", "value": 0.9})
		if err != nil {
			b.Fatal(err)
		}
	}
	return ops
}

func BenchmarkParse1000(b *testing.B) {
	src := benchDoc()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidate1000(b *testing.B) {
	doc, _ := Parse(benchDoc())
	for b.Loop() {
		if ds := Validate(doc, ValidateOptions{}); len(ds) != 0 {
			b.Fatal(ds)
		}
	}
}

func BenchmarkRender1000(b *testing.B) {
	doc, _ := Parse(benchDoc())
	for b.Loop() {
		Render(doc)
	}
}

func BenchmarkPatch1Op1000(b *testing.B) {
	src := benchDoc()
	ops := benchOps(b, 1)
	for b.Loop() {
		if _, err := ApplySource(src, ops); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPatchList100 is a 100-op list (update_attribute) on the
// 1,000-block document.
func BenchmarkPatchList100(b *testing.B) {
	src := benchDoc()
	ops := benchOps(b, 100)
	for b.Loop() {
		if _, err := ApplySource(src, ops); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPatchList100Structural mixes ops that change the line
// structure (each forces a re-parse before the next op).
func BenchmarkPatchList100Structural(b *testing.B) {
	src := benchDoc()
	ops := make([]Op, 100)
	for i := range ops {
		ops[i], _ = OpFromMap(map[string]any{"op": "replace_body", "id": fmt.Sprintf("c%d", i), "content": "New body\nover two lines."})
	}
	for b.Loop() {
		if _, err := ApplySource(src, ops); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStorePatchList100 is the whole patch_block_list path: read,
// pre- and post-validation, atomic write and 100 transcript records.
func BenchmarkStorePatchList100(b *testing.B) {
	dir := b.TempDir()
	src := benchDoc()
	st, err := OpenStore(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ops := benchOps(b, 100)
	for b.Loop() {
		b.StopTimer()
		if err := os.WriteFile(filepath.Join(dir, "d.noma"), []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
		_ = os.Remove(filepath.Join(dir, "d.noma.patches"))
		b.StartTimer()
		res, err := st.Patch(PatchRequest{File: "d.noma", Ops: ops})
		if err != nil || !res.OK {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkStorePatchOne is one patch_block on a small document: lock,
// journal, transcript append and atomic write, each synced.
func BenchmarkStorePatchOne(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "d.noma"), []byte("# Doc\n\n::claim{id=\"c1\" n=\"0\"}\nText.\n::\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	st, err := OpenStore(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	i := 0
	for b.Loop() {
		i++
		var o Op
		if err := o.UnmarshalJSON(fmt.Appendf(nil, `{"op":"update_attribute","id":"c1","key":"n","value":"%d"}`, i)); err != nil {
			b.Fatal(err)
		}
		res, err := st.Patch(PatchRequest{File: "d.noma", Ops: []Op{o}})
		if err != nil || !res.OK {
			b.Fatal(res, err)
		}
	}
}
