package agent_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// TestHookNeverFailsTheAgent feeds the hook what a broken or hostile agent
// could send, and injects failures inside it: every time it exits 0,
// prints nothing and logs what happened.
func TestHookNeverFailsTheAgent(t *testing.T) {
	t.Parallel()
	bin := fixtures.TestSwitches(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("base", map[string]string{"a.go": "package a\n"})
	huge := `{"session_id":"s","cwd":"` + fx.Dir + `","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"a.go","content":"` + strings.Repeat("x", 33<<20) + `"}}`
	cases := []struct {
		name, agent, event, in string
		env                    []string
	}{
		{"malformed JSON", "claude", "PreToolUse", `{"session_id": "s", "tool_input": {`, nil},
		{"not an object", "gemini", "AfterTool", `[1,2,3]`, nil},
		{"empty input", "codex", "SessionStart", ``, nil},
		{"binary garbage", "cursor", "afterFileEdit", "\x00\xff\xfe{", nil},
		{"unknown event", "claude", "SomethingNew", `{"session_id":"s"}`, nil},
		{"unknown agent", "vim", "SessionStart", `{"session_id":"s"}`, nil},
		{"huge payload", "claude", "PostToolUse", huge, nil},
		{"path outside the repository", "claude", "PreToolUse", `{"session_id":"s","cwd":"` + fx.Dir + `","tool_name":"Edit","tool_input":{"file_path":"/etc/passwd","old_string":"root","new_string":"x"}}`, nil},
		{"path into .git", "claude", "PostToolUse", `{"session_id":"s","cwd":"` + fx.Dir + `","tool_name":"Write","tool_input":{"file_path":".git/config","content":"x"}}`, nil},
		{"a repository that does not use gloss", "claude", "SessionStart", `{"session_id":"s","cwd":"` + fx.Dir + `"}`, nil},
		{"an edit where nothing is recorded", "claude", "PreToolUse", `{"session_id":"s","cwd":"` + fx.Dir + `","tool_name":"Edit","tool_input":{"file_path":"a.go","old_string":"package a","new_string":"package b"}}`, nil},
		{"panic inside", "claude", "SessionStart", `{"session_id":"s","cwd":"` + fx.Dir + `"}`, []string{"GLOSS_AGENT_FAULT=panic"}},
		{"error inside", "claude", "SessionStart", `{"session_id":"s","cwd":"` + fx.Dir + `"}`, []string{"GLOSS_AGENT_FAULT=error"}},
		{"over the time budget", "claude", "SessionStart", `{"session_id":"s","cwd":"` + fx.Dir + `"}`, []string{"GLOSS_AGENT_FAULT=sleep"}},
	}
	for _, c := range cases {
		cmd := fx.Command(bin, "agent", "hook", "--agent", c.agent, c.event)
		cmd.Env = append(cmd.Env, c.env...)
		cmd.Stdin = strings.NewReader(c.in)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil || stdout.Len() > 0 || stderr.Len() > 0 {
			t.Errorf("%s: err %v, stdout %q, stderr %q", c.name, err, stdout.String(), stderr.String())
		}
	}
	log, err := os.ReadFile(filepath.Join(fx.Dir, ".git", "gloss", "agent.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"error: claude PreToolUse payload", "ignored", "unknown agent", "larger than", "injected panic", "injected failure", "timed out"} {
		if !bytes.Contains(log, []byte(want)) {
			t.Errorf("agent.log lacks %q:\n%s", want, log)
		}
	}
	if bytes.Contains(log, []byte("xxxxxxxx")) {
		t.Error("agent.log holds payload content")
	}
	if data, _ := os.ReadFile(filepath.Join(fx.Dir, ".git", "gloss", "agent", "pending.jsonl")); len(data) > 0 {
		t.Errorf("paths outside the working tree were captured: %s", data)
	}

	// Outside any repository: nothing to say, nowhere to log, still exit 0.
	cmd := fx.Command(bin, "agent", "hook", "--agent", "claude", "SessionStart")
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader(`{"session_id":"s","cwd":"` + cmd.Dir + `"}`)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("outside a repository: %v %q", err, out)
	}
}
