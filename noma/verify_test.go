package noma

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConformanceCorpus(t *testing.T) {
	root := filepath.Join("..", "fixtures", "noma-conformance")
	rep, err := Verify(root, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Fixtures {
		if f.Status != "PASS" {
			t.Errorf("%s %s: %s", f.Status, f.Name, f.Reason)
		}
	}
	if rep.Total != 40 || rep.Passed != 40 {
		t.Errorf("summary: %s", strings.Join(rep.Lines()[len(rep.Lines())-1:], ""))
	}
}

// TestFixtureChecks pins each check of a fixture on its own: whether it
// ran (its expected file is there and readable) and its failure.
func TestFixtureChecks(t *testing.T) {
	const src = "# Intro {aliases=\"start\"}\n\n::note{id=\"c1\"}\nx\n::\n"
	doc, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	type check func(dir, src string, doc *Node) (bool, string)
	cases := []struct {
		name   string
		check  check
		files  map[string]string
		ran    bool
		reason string
	}{
		{"ids: no expected file", checkIDs, nil, false, ""},
		{"ids: unreadable", checkIDs, map[string]string{"expected.ids.json": "{"}, false, "expected.ids.json: unexpected end of JSON input"},
		{"ids: same set", checkIDs, map[string]string{"expected.ids.json": `{"canonical": ["intro", "c1"], "aliases": {"intro": ["start"]}}`}, true, ""},
		{"ids: other set", checkIDs, map[string]string{"expected.ids.json": `{"canonical": ["c1"]}`}, true, `ids mismatch: got ["c1","intro"], expected ["c1"]`},
		{"ids: other aliases", checkIDs, map[string]string{"expected.ids.json": `{"canonical": ["c1", "intro"], "aliases": {"intro": []}}`}, true, "aliases mismatch for intro"},
		{"diagnostics: same set", checkDiagnostics, map[string]string{"expected.diagnostics.json": `[]`}, true, ""},
		{"diagnostics: other set", checkDiagnostics, map[string]string{"expected.diagnostics.json": `[{"code": "x", "severity": "error"}]`}, true, `diagnostics mismatch: got [], expected ["error:x"]`},
		{"roundtrip: no expected file", checkRoundtrip, nil, false, ""},
		{"roundtrip: same text", checkRoundtrip, map[string]string{"expected.roundtrip.noma": src}, true, ""},
		{"roundtrip: other text", checkRoundtrip, map[string]string{"expected.roundtrip.noma": "x\n"}, true, "roundtrip mismatch: got " + fmt.Sprintf("%q", src)},
		{"spans: same, unknown id skipped", checkSpans, map[string]string{"expected.spans.json": `{"c1": {"startLine": 3, "endLine": 5}, "zz": {"startLine": 1, "endLine": 1}}`}, true, ""},
		{"spans: other", checkSpans, map[string]string{"expected.spans.json": `{"c1": {"startLine": 3, "endLine": 4}}`}, true, `span mismatch for "c1": got [3, 5], expected [3, 4]`},
		{"patch: none", checkPatch, nil, false, ""},
		{"patch: no expected outcome", checkPatch, map[string]string{"patch.json": `{"op": "rename_id", "from": "c1", "to": "c2"}`}, false, ""},
		{"patch: the expected error", checkPatch, map[string]string{"patch.json": `{"op": "rename_id", "from": "c1", "to": "intro"}`, "expected.error.json": `{"code": "id_conflict"}`}, true, ""},
		{"patch: another error", checkPatch, map[string]string{"patch.json": `{"op": "rename_id", "from": "zz", "to": "c2"}`, "expected.error.json": `{"code": "id_conflict"}`}, true, `error code mismatch: got "target_missing", expected "id_conflict"`},
		{"patch: no error", checkPatch, map[string]string{"patch.json": `{"op": "rename_id", "from": "c1", "to": "c2"}`, "expected.error.json": `{"code": "id_conflict"}`}, true, `expected PatchError("id_conflict"), but patch succeeded`},
		{"patch: the expected text", checkPatch, map[string]string{"patch.json": `{"op": "rename_id", "from": "c1", "to": "c2"}`, "expected.post.noma": strings.Replace(src, "c1", "c2", 1)}, true, ""},
		{"patch: other text", checkPatch, map[string]string{"patch.json": `{"op": "rename_id", "from": "c1", "to": "c2"}`, "expected.post.noma": src}, true, "patch output mismatch: got " + fmt.Sprintf("%q", strings.Replace(src, "c1", "c2", 1)) + "\n--- expected ---\n" + fmt.Sprintf("%q", src)},
	}
	for _, c := range cases {
		dir := t.TempDir()
		for name, data := range c.files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ran, reason := c.check(dir, src, doc)
		if ran != c.ran || reason != c.reason {
			t.Errorf("%s: ran %v, reason %q; want %v, %q", c.name, ran, reason, c.ran, c.reason)
		}
	}
}
