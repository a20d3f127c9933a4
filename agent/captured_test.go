package agent_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/capture"
	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
)

// The real CLIs' payloads (agent/testdata/<agent>/captured, recorded by
// tests/agent-e2e from Claude Code 2.1.332, Codex 0.169.0 and Gemini CLI
// 0.61.0) replayed through the hook: every one is answered (or not) in
// the agent's format without a failure, and the edits are captured line
// for line. The session they record: main.go's println("hi") gains a
// second line (Claude: and a comment), and notes/hello.txt is written.
func TestCapturedPayloadsReplay(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	const before = "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"
	after := map[string]string{
		"claude": "package main\n\nfunc main() {\n\t// Greet twice: the demo needs two lines.\n\tprintln(\"hi\")\n\tprintln(\"hi again\")\n}\n",
		"codex":  "package main\n\nfunc main() {\n\tprintln(\"hi\")\n\tprintln(\"hi again\")\n}\n",
		"gemini": "package main\n\nfunc main() {\n\tprintln(\"hi\")\n\tprintln(\"hi again\")\n}\n",
	}
	for _, name := range []string{"claude", "codex", "gemini"} {
		dir := filepath.Join("testdata", name, "captured")
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		// In the order the agent sent them.
		rank := func(f string) int {
			for i, ev := range []string{"SessionStart", "UserPromptSubmit", "BeforeAgent", "BeforeModel", "PreToolUse", "AfterTool", "PostToolUse", "Stop", "SessionEnd"} {
				if strings.HasPrefix(filepath.Base(f), ev) {
					return i
				}
			}
			return 99
		}
		sort.SliceStable(files, func(i, j int) bool { return rank(files[i]) < rank(files[j]) })
		if len(files) == 0 {
			t.Logf("no captured payloads for %s", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fx := fixtures.NewRepo(t)
			fx.Commit("base", map[string]string{"main.go": before})
			fx.Write("main.go", after[name])
			fx.Write("notes/hello.txt", "hello from the agent\n")
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				var probe struct {
					Event string `json:"hook_event_name"`
				}
				if err := json.Unmarshal(data, &probe); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				data = bytes.ReplaceAll(data, []byte("/tmp/gloss-capture/repo"), []byte(fx.Dir))
				out := hook(t, fx, nil, name, probe.Event, data)
				if len(out) > 0 && !json.Valid(out) {
					t.Errorf("%s: answer is not JSON: %s", f, out)
				}
			}
			repo := openRepo(t, fx)
			edits, err := capture.PendingEdits(repo)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]string{}
			for _, e := range edits {
				content := strings.Split(fx.Read(e.File), "\n")
				for _, r := range e.Lines {
					for l := r.Start; l <= r.End; l++ {
						got[e.File] = append(got[e.File], strings.TrimSpace(content[l-1]))
					}
				}
				if e.Model == "" && name != "claude" {
					t.Errorf("%s: no model on %+v", name, e)
				}
			}
			wantMain := []string{`println("hi again")`}
			if name == "claude" {
				wantMain = []string{"// Greet twice: the demo needs two lines.", `println("hi again")`}
			}
			if strings.Join(got["main.go"], "|") != strings.Join(wantMain, "|") {
				t.Errorf("main.go captured %q, want %q", got["main.go"], wantMain)
			}
			if strings.Join(got["notes/hello.txt"], "|") != "hello from the agent" {
				t.Errorf("notes/hello.txt captured %q", got["notes/hello.txt"])
			}
		})
	}
}

func openRepo(t *testing.T, fx *fixtures.Repo) *gitops.Repo {
	t.Helper()
	repo, err := gitops.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(repo.Close)
	return repo
}
