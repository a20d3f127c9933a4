package hostile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gloss-dev/gloss/fixtures"
)

// What stored text may hold to attack a reader's terminal: retitle it,
// clear it, plant a link, hide text behind CR and backspace, ring it, and
// C1 controls. Each piece names itself so a leak is easy to spot.
const termAttack = "\x1b]0;PWNED-TITLE\x07 \x1b[2J\x1b[H \x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\ safe\rHIDDEN\b\b\x07 \u009b31m \x1bP+q\x1b\\ end"

// terminalWorld is a repository whose records hold termAttack in every
// field a human view prints: an annotation's intent and constraint, an
// agent's prompt, model name and session id, a commit subject, a task and
// a note.
func terminalWorld(t *testing.T) (*fixtures.Repo, string, string) {
	t.Helper()
	r := fixtures.NewRepo(t)
	r.Commit("base", map[string]string{"a.go": "package a\n\nfunc A() int {\n\treturn 1\n}\n"})
	r.MustGloss("init", "--no-mcp")
	r.MustGloss("agent", "install", "--agent", "claude")
	// An agent session: the session id, the model (from the transcript) and
	// the prompt hold the attack.
	session := "sess-" + termAttack
	transcript := filepath.Join(t.TempDir(), "t.jsonl")
	model, _ := json.Marshal(map[string]any{"type": "assistant", "message": map[string]any{"model": "model-" + termAttack}})
	if err := os.WriteFile(transcript, append(model, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	agentHook := func(event string, fields map[string]any) {
		fields["session_id"], fields["transcript_path"], fields["cwd"], fields["hook_event_name"] = session, transcript, r.Dir, event
		in, _ := json.Marshal(fields)
		cmd := r.Command(fixtures.Binary(t), "agent", "hook", "--agent", "claude", event)
		cmd.Stdin = bytes.NewReader(in)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("agent hook %s: %v\n%s", event, err, out)
		}
	}
	agentHook("SessionStart", map[string]any{"source": "startup"})
	agentHook("UserPromptSubmit", map[string]any{"prompt": "make A return two " + termAttack})
	r.Write("a.go", "package a\n\nfunc A() int {\n\treturn 2\n}\n")
	agentHook("PostToolUse", map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": r.Path("a.go"), "old_string": "return 1", "new_string": "return 2"}, "tool_response": map[string]any{}})
	r.MustGloss("annotate", "--file", "a.go", "--anchor", "A", "--intent", "intent "+termAttack, "--constraint", "constraint "+termAttack)
	r.Git("add", "a.go")
	r.Git("commit", "-q", "-m", "subject "+termAttack)
	var task struct {
		ID string `json:"spec_id"`
	}
	if err := json.Unmarshal([]byte(r.MustGloss("task", "add", "--json", "task "+termAttack, "-c", "criterion "+termAttack)), &task); err != nil {
		t.Fatal(err)
	}
	r.MustGloss("note", "create", "evil", "--title", "note "+termAttack, "-m", "body "+termAttack)
	return r, task.ID, "notes/evil.md"
}

// sgr is the one control sequence a human view may print: gloss's own
// colours, with --color always.
var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// controls lists the control characters in out that are not line feed or
// tab (after taking away SGR sequences when colour is allowed).
func controls(out string, colour bool) []string {
	if colour {
		out = sgr.ReplaceAllString(out, "")
	}
	var found []string
	for i, r := range out {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || (r == utf8.RuneError) {
			found = append(found, fmt.Sprintf("%q at %d", r, i))
		}
	}
	return found
}

// TestHumanViewsStripControlSequences is issue 28's point 6: every human
// view of stored text (read, blame, history, summary, task list/show,
// note list/show, log, agent status), with and without colour, prints no
// control sequence but gloss's own colours, and still prints the text.
func TestHumanViewsStripControlSequences(t *testing.T) {
	t.Parallel()
	r, task, note := terminalWorld(t)
	views := [][]string{
		{"read", "a.go"},
		{"read", "a.go", "--anchor", "A"},
		{"blame", "a.go"},
		{"history", "a.go"},
		{"summary", "a.go"},
		{"task", "list"},
		{"task", "show", task},
		{"note", "list"},
		{"note", "show", note},
		{"log", "-n", "2"},
		{"agent", "status"},
		{"status"},
	}
	for _, v := range views {
		for _, colour := range []string{"never", "always"} {
			args := append([]string{"--color", colour}, v...)
			cmd := r.Command(fixtures.Binary(t), args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Errorf("%v: %v\n%s", args, err, stderr.String())
				continue
			}
			for name, out := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String()} {
				if bad := controls(out, colour == "always"); len(bad) > 0 {
					t.Errorf("%v: %s holds %d control character(s) (%v):\n%q", args, name, len(bad), bad[:min(len(bad), 6)], out)
				}
			}
			if !strings.Contains(stdout.String(), "end") && v[0] != "status" && v[0] != "agent" {
				t.Errorf("%v: the stored text itself is gone:\n%s", args, stdout.String())
			}
		}
	}
	// Machines still get the bytes as stored: JSON escapes them.
	if out := r.MustGloss("read", "a.go", "--json"); !strings.Contains(out, `\u001b]0;PWNED-TITLE`) {
		t.Errorf("read --json lost the stored text:\n%.400s", out)
	}
}
