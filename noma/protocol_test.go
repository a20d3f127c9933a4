package noma

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPatchTarget pins what a patch request is refused before anything is
// locked or recorded, and the document it otherwise patches.
func TestPatchTarget(t *testing.T) {
	st := newStore(t, map[string]string{"d.noma": doc1, "a.go": "package a\n", "book.noma.yml": "title: B\n", "README.md": "# R\n"})
	if err := os.Symlink("README.md", filepath.Join(st.Dir(), "r.noma")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		req     PatchRequest
		want    string // the document, or a part of the refusal
		refused bool
	}{
		{"a document", PatchRequest{File: "d.noma"}, "d.noma", false},
		{"a document by an absolute path", PatchRequest{File: filepath.Join(st.Dir(), "d.noma")}, "d.noma", false},
		{"a missing document is not refused yet", PatchRequest{File: "new.noma"}, "new.noma", false},
		{"a link to another kind of file", PatchRequest{File: "r.noma"}, "r.noma resolves to README.md, which is not the same kind of file", true},
		{"a book manifest", PatchRequest{File: "book.noma.yml"}, "book.noma.yml: book manifests are not patchable (unsupported_op)", true},
		{"not a document", PatchRequest{File: "a.go"}, "is not a Noma document: patches apply to .noma files", true},
		{"outside the tree", PatchRequest{File: "../x.noma"}, "leads outside the allowed directory", true},
		{"malformed expected_sha", PatchRequest{File: "d.noma", ExpectedSHA: "xyz"}, "expected_sha must be 8 hex digits", true},
		{"malformed base_sha256", PatchRequest{File: "d.noma", BaseSHA256: "abc"}, "base_sha256 must be 64 hex digits", true},
		{"malformed base_hash", PatchRequest{File: "d.noma", BaseHash: "zz"}, "base_hash must be 8 to 64 hex digits", true},
		{"malformed parent_op_id", PatchRequest{File: "d.noma", ParentOpID: "nope"}, "parent_op_id must be a UUID", true},
	}
	for _, c := range cases {
		rel, err := st.patchTarget(&c.req)
		switch {
		case c.refused && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %q, %v; want refused with %q", c.name, rel, err, c.want)
		case !c.refused && (err != nil || rel != c.want):
			t.Errorf("%s: %q, %v; want %q", c.name, rel, err, c.want)
		}
	}
}

// TestApplyOps pins the apply stage: the hashes before the first op and
// after each op but the last, or the op that failed and its error code.
func TestApplyOps(t *testing.T) {
	cases := []struct {
		name   string
		ops    string // a JSON list of ops
		failed int    // the op that fails; -1 for none
		code   string
	}{
		{"one op", `[{"op":"replace_body","id":"c1","content":"z"}]`, -1, ""},
		{"three ops", `[{"op":"replace_body","id":"c1","content":"z"},{"op":"rename_id","from":"c1","to":"c2"},{"op":"delete_block","id":"c2"}]`, -1, ""},
		{"a noop", `[{"op":"replace_body","id":"c1","content":"body"}]`, -1, ""},
		{"the second op fails", `[{"op":"replace_body","id":"c1","content":"z"},{"op":"delete_block","id":"zz"}]`, 1, CodeTargetMissing},
		{"an op that did not decode fails as such", `[{"op":"replace_body","id":"c1","content":"z"},{"op":"bogus_op"}]`, 1, CodeUnsupportedOp},
	}
	for _, c := range cases {
		ops, opErrs, err := DecodeOps([]byte(c.ops))
		if err != nil {
			t.Fatal(err)
		}
		pre := sha(doc1)
		steps, failed, err := applyOps(NewPatcher(doc1), ops, opErrs, pre)
		if c.failed >= 0 {
			if err == nil || failed != c.failed || code(err) != c.code {
				t.Errorf("%s: failed %d with %v; want op %d with %s", c.name, failed, err, c.failed, c.code)
			}
			continue
		}
		// the hash before each op, as applying the ops before it gives
		var want []string
		for i := range ops {
			text, err := ApplySource(doc1, ops[:i])
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, sha(text))
		}
		if err != nil || !slices.Equal(steps, want) || want[0] != pre {
			t.Errorf("%s: steps %q, %v; want %q", c.name, steps, err, want)
		}
	}
}
