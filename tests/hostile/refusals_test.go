package hostile

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// TestAbsoluteNoteNameIsRefused: create_note {"name": "/etc/passwd"} is
// refused like "../" (it created notes/etc/passwd.md), through MCP and
// the CLI.
func TestAbsoluteNoteNameIsRefused(t *testing.T) {
	t.Parallel()
	r := fixtures.NewRepo(t)
	r.Commit("base", map[string]string{"README.md": "# demo\n"})
	r.MustGloss("init", "--no-mcp")
	replies := mcpLines(t, r,
		call(1, "create_note", map[string]any{"name": "/etc/passwd", "content": "x"}),
		call(2, "create_note", map[string]any{"name": "/etc/passwd", "folder": "notes", "content": "x"}),
		call(3, "create_note", map[string]any{"name": "//srv/x", "content": "x"}),
	)
	for i, line := range replies {
		if !strings.Contains(line, `"isError":true`) {
			t.Errorf("create_note %d accepted an absolute name: %.300s", i+1, line)
		}
	}
	if out, err := r.Gloss("note", "create", "/etc/passwd", "-m", "x"); err == nil {
		t.Errorf("note create /etc/passwd was accepted: %s", out)
	}
	for _, p := range []string{".gloss/notebook/notes/etc", ".gloss/notebook/etc", ".gloss/notebook/notes/srv", ".gloss/notebook/srv"} {
		if _, err := os.Stat(r.Path(p)); err == nil {
			t.Errorf("%s was created", p)
		}
	}
}

// TestRejectedPatchLeavesNoTranscript: a patch_block aimed at a file that
// is not a .noma document (a.go, README.md) is refused and leaves no
// untracked <file>.patches beside it; a document's own rejected ops are
// still recorded, as the protocol says.
func TestRejectedPatchLeavesNoTranscript(t *testing.T) {
	t.Parallel()
	r := fixtures.NewRepo(t)
	r.Commit("base", map[string]string{
		"a.go":          "package a\n",
		"README.md":     "# demo\n\nText. {#p1}\n",
		"doc/plan.noma": "---\nnoma: \"0.1\"\ntitle: Plan\n---\n\n# Plan {#plan}\n\nText. {#p1}\n",
	})
	r.MustGloss("init", "--no-mcp")
	bad := map[string]any{"op": "delete_block", "id": "nope"}
	replies := mcpLines(t, r,
		call(1, "patch_block", map[string]any{"file": "a.go", "op": bad}),
		call(2, "patch_block", map[string]any{"file": "README.md", "op": bad}),
		call(3, "patch_block_list", map[string]any{"file": "a.go", "ops": []any{bad}}),
		call(4, "patch_block", map[string]any{"file": "doc/plan.noma", "op": bad}),
	)
	byID := repliesByID(t, replies)
	for id := 1; id <= 3; id++ {
		if !strings.Contains(byID[id], `"isError":true`) {
			t.Errorf("patch %d on a file that is no document was not refused: %.300s", id, byID[id])
		}
	}
	if _, err := r.Gloss("doc", "patch", "a.go", "--op", `{"op":"delete_block","id":"nope"}`); err == nil {
		t.Error("doc patch a.go was accepted")
	}
	if st := r.Git("status", "--porcelain", "--untracked-files=all"); strings.Contains(st, "a.go.patches") || strings.Contains(st, "README.md.patches") {
		t.Errorf("a rejected patch left a transcript beside a file that is no document:\n%s", st)
	}
	if !strings.Contains(byID[4], `target_missing`) {
		t.Errorf("the document's rejected op: %.300s", byID[4])
	}
	if _, err := os.Stat(r.Path("doc/plan.noma.patches")); err != nil {
		t.Errorf("the document's rejected op was not recorded: %v", err)
	}
}

// repliesByID indexes MCP replies by their (numeric) id: a server answers
// in the order its calls finish.
func repliesByID(t *testing.T, replies []string) map[int]string {
	t.Helper()
	out := map[int]string{}
	for _, line := range replies {
		var resp struct {
			ID int `json:"id"`
		}
		if err := json.Unmarshal([]byte(line), &resp); err != nil {
			t.Fatalf("reply %.200s: %v", line, err)
		}
		out[resp.ID] = line
	}
	return out
}
