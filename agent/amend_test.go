package agent_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/why"
)

// TestAmendTakesTheAgentsLines: lines an agent wrote and a person adds to
// the last commit with --amend are attributed by post-rewrite, and the
// session record lands on the amended commit.
func TestAmendTakesTheAgentsLines(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.MustGloss("init")
	fx.Commit("base", map[string]string{"a.go": "package a\n\nfunc F() int {\n\treturn 1\n}\n"})
	fx.Commit("other", map[string]string{"other.txt": "x\n"})
	fx.Write("a.go", "package a\n\nfunc F() int {\n\tx := 2\n\treturn x\n}\n")
	in := `{"session_id":"am","cwd":"` + fx.Dir + `","hook_event_name":"PostToolUse","model":"gpt-5-codex","tool_name":"Edit","tool_input":{"file_path":"a.go","old_string":"\treturn 1\n","new_string":"\tx := 2\n\treturn x\n"}}`
	hook(t, fx, nil, "codex", "PostToolUse", []byte(in))
	fx.Git("commit", "-q", "-a", "--amend", "--no-edit")
	var res why.ReadResult
	if err := json.Unmarshal([]byte(fx.MustGloss("read", "a.go", "--lines", "4:5", "--json")), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Regions) == 0 || res.Regions[0].Author.Kind != "agent" || res.Regions[0].Author.Model != "gpt-5-codex" {
		t.Errorf("after an amend: %+v", res.Regions)
	}
	if n := fx.Git("notes", "--ref", "gloss/sessions", "show", "HEAD"); !strings.Contains(n, `"session":"am"`) {
		t.Errorf("session record on the amended commit: %q", n)
	}
}
