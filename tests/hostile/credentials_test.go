package hostile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// TestCredentialsInPromptsReachNoObject is issue 28's done-when for
// redaction: 50 kinds of realistic credentials, each pasted into a prompt
// through Claude Code's hooks, answered by an edit, committed (the
// post-commit hook writes the region record with the prompt as intent, and
// the session record) and synced to a bare remote, with the team sharing
// sessions ([sync] sessions = true). No credential may reach any git
// object on the clone or the remote, nor the session state under the git
// dir; the prompts' other words still do (the intent is kept, redacted).
func TestCredentialsInPromptsReachNoObject(t *testing.T) {
	t.Parallel()
	corpus := fixtures.Credentials()
	if len(corpus) < 40 {
		t.Fatalf("%d kinds of credentials, want at least 40", len(corpus))
	}
	remote := fixtures.NewBare(t)
	s := fixtures.NewRepo(t)
	s.Commit("base", map[string]string{"a.go": "package a\n\nfunc A() int {\n\treturn 0\n}\n"})
	s.Git("push", "-q", remote, "main")
	r := fixtures.Clone(t, remote)
	r.MustGloss("init", "--no-mcp")
	r.MustGloss("agent", "install", "--agent", "claude")
	r.Git("config", "gloss.hookTimeout", "5m")
	r.Write(".gloss/config.toml", "[agent]\ntimeout_ms = 120000\n\n[sync]\nsessions = true\n")
	r.Git("add", ".gloss/config.toml")
	r.Git("commit", "-q", "-m", "team settings")
	hook := func(event string, fields map[string]any) {
		fields["session_id"], fields["cwd"], fields["hook_event_name"] = "s-credentials", r.Dir, event
		in, _ := json.Marshal(fields)
		cmd := r.Command(fixtures.Binary(t), "agent", "hook", "--agent", "claude", event)
		cmd.Stdin = bytes.NewReader(in)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("agent hook %s: %v\n%s", event, err, out)
		}
	}
	hook("SessionStart", map[string]any{"source": "startup"})
	for i, c := range corpus {
		hook("UserPromptSubmit", map[string]any{"prompt": c.Prompt})
		old := fmt.Sprintf("return %d\n", i)
		next := fmt.Sprintf("return %d\n", i+1)
		r.Write("a.go", "package a\n\nfunc A() int {\n\t"+next+"}\n")
		hook("PostToolUse", map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": r.Path("a.go"), "old_string": old, "new_string": next}, "tool_response": map[string]any{}})
		r.Git("commit", "-q", "-am", fmt.Sprintf("step %d", i+1))
	}
	r.Git("push", "-q", "origin", "main")
	r.MustGloss("sync")
	// The records exist and carry the prompts, redacted.
	dump := exportOf(t, r)
	if n := strings.Count(dump, "[REDACTED:"); n < len(corpus) {
		t.Errorf("%d redaction marks in the notes, want at least %d (one per prompt)", n, len(corpus))
	}
	if !strings.Contains(dump, "the migration fails against postgres://admin:[REDACTED:") {
		t.Errorf("the intent lost the prompt's words:\n%.2000s", dump)
	}
	if remoteRefs := gitCmd(t, remote, "for-each-ref", "refs/notes/gloss/sessions"); remoteRefs.Run() != nil {
		t.Fatal("for-each-ref on the remote")
	}
	leaked := 0
	for _, c := range corpus {
		// A summary is cut at 240 bytes: a credential cut in half is
		// still a leak, so its first 16 characters count too.
		probe := c.Secret[:min(len(c.Secret), 16)]
		var where []string
		for name, dir := range map[string]string{"clone": r.Dir, "remote": remote} {
			all := gitCmd(t, dir, "cat-file", "--batch-all-objects", "--batch")
			data, err := all.Output()
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), probe) {
				where = append(where, name+"'s objects")
			}
		}
		if stateHolds(t, r, probe) {
			where = append(where, "the clone's state under its git dir")
		}
		if len(where) > 0 {
			leaked++
			t.Errorf("%s: the credential is in %v", c.Kind, where)
		}
	}
	t.Logf("%d kinds of credentials through hooks, commits and a sync: %d reached a git object or the session state", len(corpus), leaked)
}
