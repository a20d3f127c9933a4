// Package agente2e runs real coding agents' CLIs, installed from the npm
// registry (package.json and the committed lockfile, npm ci), in real git
// repositories where `git gloss init --agents` ran, offline: the model is a
// scripted stand-in for its API on loopback (fake-anthropic.mjs). The
// agent's own hook machinery calls the real git-gloss; the test checks the
// payloads it sent and what reached the model.
package agente2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
)

// The CEO's bar: "the real binary can run a whole session offline against
// a small scripted stand-in for its model API on loopback".

func moduleDir() string { return filepath.Join(fixtures.ModuleRoot(), "tests", "agent-e2e") }

var npmOnce sync.Once

// agentBinary installs the pinned agent packages if needed (npm ci, once
// per test process) and returns the executable name. Without node the
// tests cannot run at all; CI installs node with scripts/deps.sh.
func agentBinary(t *testing.T, name string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the agent end-to-end tests need it (scripts/deps.sh installs it)")
	}
	bin := filepath.Join(moduleDir(), "node_modules", ".bin", name)
	npmOnce.Do(func() {
		if _, err := os.Stat(bin); err == nil {
			return
		}
		npm := exec.Command("npm", "ci", "--no-audit", "--no-fund")
		npm.Dir = moduleDir()
		if out, err := npm.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in tests/agent-e2e: %v\n%s", err, out)
		}
	})
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s is not installed (npm ci in tests/agent-e2e): %v", name, err)
	}
	return bin
}

// fakeAPI starts a scripted model API stand-in (server: fake-anthropic.mjs
// or fake-gemini.mjs) and returns its base URL and the file it logs
// requests to.
func fakeAPI(t *testing.T, server string, script any) (baseURL, logFile string) {
	t.Helper()
	dir := t.TempDir()
	logFile = filepath.Join(dir, "requests.jsonl")
	scriptFile := filepath.Join(dir, "script.json")
	data, _ := json.Marshal(script)
	if err := os.WriteFile(scriptFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join(moduleDir(), server), logFile, scriptFile)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	var port int
	if _, serr := fmt.Sscanf(line, "listening %d", &port); err != nil || serr != nil {
		t.Fatalf("fake API did not start: %q %v", line, err)
	}
	return fmt.Sprintf("http://127.0.0.1:%d", port), logFile
}

// teeShim is put first on PATH as git-gloss: it runs the real binary and
// keeps, for every `agent hook` call, the payload the agent wrote and the
// answer gloss gave, so the test sees both sides of the exchange.
const teeShim = `#!/bin/sh
if [ "$1" = agent ] && [ "$2" = hook ]; then
  f="$GLOSS_E2E_DUMP/$(date +%s%N).$4.$5"
  tee "$f.in.json" | "$GLOSS_E2E_REAL" "$@" > "$f.out"
  status=$?
  cat "$f.out"
  exit $status
fi
exec "$GLOSS_E2E_REAL" "$@"
`

// exchange is one hook call: the event, the payload and gloss's answer.
type exchange struct {
	event   string
	payload map[string]any
	answer  string
}

func exchanges(t *testing.T, dir string) []exchange {
	t.Helper()
	ins, _ := filepath.Glob(filepath.Join(dir, "*.in.json"))
	sort.Strings(ins)
	var out []exchange
	for _, in := range ins {
		var e exchange
		// <time>.<agent>.<event>.in.json; OpenCode's event names hold dots.
		parts := strings.SplitN(strings.TrimSuffix(filepath.Base(in), ".in.json"), ".", 3)
		e.event = parts[2]
		data, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &e.payload); err != nil {
			t.Fatalf("%s: the agent's payload is not JSON: %v\n%s", in, err, data)
		}
		ans, _ := os.ReadFile(strings.TrimSuffix(in, ".in.json") + ".out")
		e.answer = string(ans)
		out = append(out, e)
	}
	return out
}

const constraint = "greet() must print exactly one line per call: the log parser counts lines"

// annotatedRepo is a real repository set up with init --agents=<agent>,
// where greet in main.go carries a constraint recorded by an older commit
// that changed only greet's doc comment; the line the agent edits was
// written by a later commit that recorded nothing. The constraint reaches
// the model only because a decision binds to its function, not to the
// lines its commit changed (issue 26).
func annotatedRepo(t *testing.T, agent string) *fixtures.Repo {
	t.Helper()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("first", map[string]string{"main.go": "package main\n\n// greet greets.\nfunc greet() {\n\tprintln(\"hi\")\n}\n\nfunc main() { greet() }\n"})
	fx.MustGloss("init", "--no-mcp", "--agents="+agent)
	fx.MustGloss("annotate", "--file", "main.go", "--anchor", "greet", "--constraint", constraint)
	fx.Commit("greet: say what it prints", map[string]string{"main.go": "package main\n\n// greet prints one greeting.\nfunc greet() {\n\tprintln(\"hi\")\n}\n\nfunc main() { greet() }\n"})
	fx.Commit("greet says hello", map[string]string{"main.go": "package main\n\n// greet prints one greeting.\nfunc greet() {\n\tprintln(\"hello\")\n}\n\nfunc main() { greet() }\n"})
	return fx
}

// agentEnv is the environment an agent runs in: the fixture's (isolated
// HOME and git config), the tee shim first on PATH in front of the real
// git-gloss, and the folder the shim dumps exchanges to.
func agentEnv(t *testing.T, fx *fixtures.Repo) (env []string, dump string) {
	t.Helper()
	real := fixtures.Binary(t)
	shimDir, dump := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(shimDir, "git-gloss"), []byte(teeShim), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, kv := range fx.Env {
		if !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	sep := string(os.PathListSeparator)
	return append(env,
		"PATH="+shimDir+sep+filepath.Dir(real)+sep+"/usr/local/bin:/usr/bin:/bin",
		"GLOSS_E2E_REAL="+real, "GLOSS_E2E_DUMP="+dump,
	), dump
}

// checkExchanges checks what every hook call carried: its own event name,
// the run's session, the repository as working directory, and an answer
// that is JSON or nothing. It returns how often each event ran.
func checkExchanges(t *testing.T, ex []exchange, session, dir string) map[string]int {
	t.Helper()
	seen := map[string]int{}
	for _, e := range ex {
		seen[e.event]++
		if e.payload["hook_event_name"] != e.event {
			t.Errorf("%s payload names event %v", e.event, e.payload["hook_event_name"])
		}
		if e.payload["session_id"] != session {
			t.Errorf("%s payload session %v, the run's is %s", e.event, e.payload["session_id"], session)
		}
		if cwd, _ := e.payload["cwd"].(string); resolve(cwd) != resolve(dir) {
			t.Errorf("%s payload cwd %q, want the repository %q", e.event, cwd, dir)
		}
		if a := strings.TrimSpace(e.answer); a != "" && !json.Valid([]byte(a)) {
			t.Errorf("gloss answered %s with something other than JSON: %q", e.event, a)
		}
	}
	return seen
}

// runAgentCLI runs an agent's CLI (argv) in dir with env, for at most 90
// seconds, and returns its standard output; what names the run in the log
// and in a failure, which shows its standard error too.
func runAgentCLI(t *testing.T, what, dir string, env []string, argv ...string) []byte {
	t.Helper()
	return runAgentCLIFor(t, 90*time.Second, what, dir, env, argv...)
}

// runAgentCLIFor is runAgentCLI with another time limit.
func runAgentCLIFor(t *testing.T, limit time.Duration, what, dir string, env []string, argv ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	// PWD too: the environment is given whole, so exec does not set it, and
	// an agent that reads it (OpenCode) would work in the test's folder.
	cmd.Dir, cmd.Env = dir, append(slices.Clip(env), "PWD="+dir)
	start := time.Now()
	out, err := cmd.Output()
	t.Logf("%s took %v", what, time.Since(start).Round(time.Millisecond))
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("%s: %v\n%s\n%s", what, err, out, stderr)
	}
	return out
}

// checkPending checks that the agent's edits wait in the capture store.
func checkPending(t *testing.T, fx *fixtures.Repo, agent, session string, files ...string) {
	t.Helper()
	pending, err := os.ReadFile(fx.Path(".git/gloss/agent/pending.jsonl"))
	if err != nil {
		t.Fatalf("no pending capture after the agent's edits: %v", err)
	}
	want := []string{`"agent":"` + agent + `"`, session}
	for _, f := range files {
		want = append(want, `"file":"`+f+`"`)
	}
	for _, w := range want {
		if !strings.Contains(string(pending), w) {
			t.Errorf("pending capture lacks %s:\n%s", w, pending)
		}
	}
}

func TestClaudeCodeRunsGlossHooksOffline(t *testing.T) {
	t.Parallel()
	claude := agentBinary(t, "claude")
	fx := annotatedRepo(t, "claude")

	env, dump := agentEnv(t, fx)
	mainGo, note := fx.Path("main.go"), fx.Path("notes/hello.txt")
	baseURL, apiLog := fakeAPI(t, "fake-anthropic.mjs", map[string]any{
		"steps": []map[string]any{
			{"name": "Edit", "input": map[string]any{"file_path": mainGo, "old_string": "\tprintln(\"hello\")\n", "new_string": "\tprintln(\"hello, world\")\n"}},
			{"name": "Write", "input": map[string]any{"file_path": note, "content": "written by the agent\n"}},
		},
		"final": "Done.",
	})

	out := runAgentCLI(t, "claude -p", fx.Dir, append(env,
		"ANTHROPIC_BASE_URL="+baseURL, "ANTHROPIC_API_KEY=sk-ant-test-not-a-key",
		// Documented switches: no telemetry, error reports, updates or other
		// traffic besides the model API.
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
	), claude, "-p", "Make greet say hello, world and leave a note", "--output-format", "json", "--permission-mode", "acceptEdits")
	var result struct {
		IsError bool   `json:"is_error"`
		Subtype string `json:"subtype"`
		Result  string `json:"result"`
		Session string `json:"session_id"`
	}
	if err := json.Unmarshal(out, &result); err != nil || result.IsError || result.Subtype != "success" {
		t.Fatalf("claude -p result: %v\n%s", err, out)
	}
	if got := fx.Read("main.go"); !strings.Contains(got, "hello, world") {
		t.Fatalf("the agent's edit did not land:\n%s", got)
	}

	// Every installed event reached git gloss agent hook with the
	// documented payload, from one session, in this repository.
	ex := exchanges(t, dump)
	seen := checkExchanges(t, ex, result.Session, fx.Dir)
	for ev, n := range map[string]int{"SessionStart": 1, "UserPromptSubmit": 1, "PreToolUse": 2, "PostToolUse": 2} {
		if seen[ev] != n {
			t.Errorf("%s ran %d times, want %d (all: %v)", ev, seen[ev], n, seen)
		}
	}
	var pre *exchange
	for i, e := range ex {
		if e.event == "PreToolUse" && e.payload["tool_name"] == "Edit" {
			pre = &ex[i]
		}
	}
	if pre == nil {
		t.Fatalf("no PreToolUse for the Edit of main.go: %v", seen)
	}
	if in, _ := pre.payload["tool_input"].(map[string]any); in["file_path"] != mainGo {
		t.Errorf("PreToolUse tool_input = %v", pre.payload["tool_input"])
	}

	checkLoop(t, fx, "claude", result.Session, "PreToolUse", pre.answer, apiLog)
}

// checkLoop checks the rest of an agent's session through gloss's hooks:
// the constraint recorded on greet was in the hook's answer (event) and
// reached the model; the lines the agent wrote wait under the git dir for
// the next commit, with the session and the agent; and the commit records
// the agent's line as the agent's, by a model, with no human author.
func checkLoop(t *testing.T, fx *fixtures.Repo, agent, session, event, answer, apiLog string) {
	t.Helper()
	if !strings.Contains(answer, "exactly one line per call") {
		t.Errorf("%s answer does not carry the constraint on greet: %q", event, answer)
	}
	api, err := os.ReadFile(apiLog)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(api), "exactly one line per call") {
		t.Errorf("the constraint never reached the model (requests in %s)", apiLog)
	}
	checkPending(t, fx, agent, session, "main.go", "notes/hello.txt")
	fx.Git("add", "-A")
	fx.Git("commit", "-q", "-m", "greet the world")
	checkAgentAuthored(t, fx.MustGloss("read", "main.go", "--json"), agent)
}

// checkAgentAuthored checks that read --json shows a region written by the
// agent (kind agent, its name, a model).
func checkAgentAuthored(t *testing.T, read, agent string) {
	t.Helper()
	for _, want := range []string{`"kind":"agent"`, `"name":"` + agent + `"`, `"model":"`} {
		if !strings.Contains(read, want) {
			t.Errorf("read --json after the commit lacks %s:\n%s", want, read)
		}
	}
}

func resolve(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// notebook is a small Jupyter notebook (nbformat 4.5, cells with ids) as
// Jupyter writes it.
const notebook = `{
 "cells": [
  {
   "cell_type": "code",
   "execution_count": null,
   "id": "c1",
   "metadata": {},
   "outputs": [],
   "source": [
    "x = 1\n",
    "print(x)"
   ]
  }
 ],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 5
}
`

// Claude Code's NotebookEdit is in the matcher gloss installs: the real
// CLI's edit of a cell is captured as the agent's lines, and the commit
// records them as the agent's.
func TestClaudeCodeNotebookEditIsCaptured(t *testing.T) {
	t.Parallel()
	claude := agentBinary(t, "claude")
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("first", map[string]string{"analysis.ipynb": notebook})
	fx.MustGloss("init", "--no-mcp", "--agents=claude")
	env, dump := agentEnv(t, fx)
	nb := fx.Path("analysis.ipynb")
	baseURL, _ := fakeAPI(t, "fake-anthropic.mjs", map[string]any{
		"steps": []map[string]any{
			{"name": "Read", "input": map[string]any{"file_path": nb}},
			{"name": "NotebookEdit", "input": map[string]any{"notebook_path": nb, "cell_id": "c1", "new_source": "x = 2\nprint(x * 21)", "edit_mode": "replace"}},
		},
		"final": "Done.",
	})
	runAgentCLI(t, "claude -p", fx.Dir, append(env,
		"ANTHROPIC_BASE_URL="+baseURL, "ANTHROPIC_API_KEY=sk-ant-test-not-a-key",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
	), claude, "-p", "Make the notebook print 42", "--output-format", "json", "--permission-mode", "acceptEdits")
	if got := fx.Read("analysis.ipynb"); !strings.Contains(got, "x * 21") {
		t.Fatalf("the agent's NotebookEdit did not land:\n%s", got)
	}
	var post *exchange
	ex := exchanges(t, dump)
	for i, e := range ex {
		if e.event == "PostToolUse" && e.payload["tool_name"] == "NotebookEdit" {
			post = &ex[i]
		}
	}
	if post == nil {
		t.Fatalf("no PostToolUse for NotebookEdit")
	}
	// With -v, the payload as the CLI sent it (agent/testdata/claude/notebook).
	raw, _ := json.Marshal(post.payload)
	t.Logf("PostToolUse NotebookEdit payload: %s", raw)
	checkPending(t, fx, "claude", post.payload["session_id"].(string), "analysis.ipynb")
	fx.Git("add", "-A")
	fx.Git("commit", "-q", "-m", "the notebook prints 42")
	blame := fx.MustGloss("blame", "analysis.ipynb", "--json")
	for _, want := range []string{"x = 2", "print(x * 21)"} {
		if !agentLine(blame, want) {
			t.Errorf("the notebook line %q is not the agent's in blame:\n%s", want, blame)
		}
	}
}

// agentLine reports whether blame --json gives the line holding text to an
// AI contributor.
func agentLine(blameJSON, text string) bool {
	var b struct {
		Lines []struct {
			Text        string `json:"text"`
			Contributor struct {
				Type string `json:"type"`
			} `json:"contributor"`
		} `json:"lines"`
	}
	if json.Unmarshal([]byte(blameJSON), &b) != nil {
		return false
	}
	for _, l := range b.Lines {
		if strings.Contains(l.Text, text) {
			return l.Contributor.Type == "ai"
		}
	}
	return false
}
