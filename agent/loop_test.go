package agent_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/why"
)

// The planted secret: a GitHub personal access token's shape (ghp_ and 36
// characters), random enough for gitleaks' github-pat rule. It is fake.
const plantedToken = "ghp_R8xk2PqLm9ZtW4vYc7NbH3sJd6FgA1eUo5Ti"

const baseFile = `package lib

import "strings"

// Parse trims its input.
func Parse(s string) string {
	return strings.TrimSpace(s)
}

// Other is left alone.
func Other() int {
	return 1
}
`

const (
	oldText    = "\treturn strings.TrimSpace(s)\n"
	newText    = "\tt := strings.TrimSpace(s)\n\tif t == \"\" {\n\t\treturn \"\"\n\t}\n\treturn strings.ToLower(t)\n"
	constraint = "Parse must return the empty string for blank input"
	patchText  = "*** Begin Patch\n*** Update File: lib/parse.go\n@@ func Parse(s string) string {\n-\treturn strings.TrimSpace(s)\n+\tt := strings.TrimSpace(s)\n+\tif t == \"\" {\n+\t\treturn \"\"\n+\t}\n+\treturn strings.ToLower(t)\n }\n*** End Patch\n"
)

// script is one agent's session, as fixture files under testdata/<agent>.
type script struct {
	agent, model string
	start        string // session start event
	prompt       string // prompt event
	model1       string // an event that only names the model (Gemini BeforeModel)
	pre          string // the event that delivers a file's records before it is edited
	post         string // the event after the edit
	// silent: the agent reads no context from its hooks (Copilot CLI):
	// records reach it through MCP and AGENTS.md, its hooks only capture.
	silent bool
}

var scripts = []script{
	{agent: "claude", model: "claude-sonnet-4-5-20250929", start: "SessionStart", prompt: "UserPromptSubmit", pre: "PreToolUse", post: "PostToolUse"},
	{agent: "codex", model: "gpt-5-codex", start: "SessionStart", prompt: "UserPromptSubmit", pre: "PreToolUse", post: "PostToolUse"},
	{agent: "gemini", model: "gemini-2.5-pro", start: "SessionStart", prompt: "BeforeAgent", model1: "BeforeModel", pre: "AfterTool.read_file", post: "AfterTool.replace"},
	{agent: "cursor", model: "claude-4.5-sonnet", start: "sessionStart", prompt: "beforeSubmitPrompt", pre: "postToolUse.Read", post: "afterFileEdit"},
	{agent: "opencode", model: "anthropic/claude-sonnet-4-5", start: "session.created", prompt: "chat.message", pre: "tool.execute.after+read", post: "tool.execute.after+edit"},
	{agent: "copilot", start: "sessionStart", prompt: "userPromptSubmitted", post: "postToolUse", silent: true}, // its payloads name no model
}

// eventOf is the agent's event a fixture name stands for: the name up to
// the first "." ("AfterTool.read_file"), or for OpenCode, whose event names
// hold dots, up to "+" ("tool.execute.after+read").
func eventOf(agentName, name string) string {
	sep := "."
	if agentName == "opencode" {
		sep = "+"
	}
	e, _, _ := strings.Cut(name, sep)
	return e
}

// payload fills a fixture's placeholders.
func payload(t *testing.T, agentName, name string, vars map[string]string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", agentName, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for k, v := range vars {
		enc, _ := json.Marshal(v)
		s = strings.ReplaceAll(s, "{{"+k+"}}", string(enc[1:len(enc)-1]))
	}
	if strings.Contains(s, "{{") {
		t.Fatalf("%s/%s: unfilled placeholder in %s", agentName, name, s)
	}
	return []byte(s)
}

// hook runs `git gloss agent hook` and returns its stdout; it must exit 0
// and write nothing on stderr.
func hook(t *testing.T, fx *fixtures.Repo, env []string, agentName, event string, in []byte) []byte {
	t.Helper()
	cmd := fx.Command(fixtures.Binary(t), "agent", "hook", "--agent", agentName, event)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("agent hook %s %s: %v\nstderr: %s", agentName, event, err, stderr.String())
	}
	return stdout.Bytes()
}

// contextOf reads the delivered text from an agent's documented answer.
func contextOf(t *testing.T, agentName, event string, out []byte) string {
	t.Helper()
	if len(bytes.TrimSpace(out)) == 0 {
		return ""
	}
	var v struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
		AdditionalContext string `json:"additional_context"`
		Context           string `json:"context"` // gloss's OpenCode plugin
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%s %s answered invalid JSON: %v\n%s", agentName, event, err, out)
	}
	if agentName == "cursor" {
		return v.AdditionalContext
	}
	if agentName == "opencode" {
		return v.Context
	}
	if want := eventOf(agentName, event); v.HookSpecificOutput.HookEventName != want {
		t.Errorf("%s %s: hookEventName %q", agentName, event, v.HookSpecificOutput.HookEventName)
	}
	return v.HookSpecificOutput.AdditionalContext
}

func lineOf(t *testing.T, content, text string) int {
	t.Helper()
	for i, l := range strings.Split(content, "\n") {
		if strings.Contains(l, text) {
			return i + 1
		}
	}
	t.Fatalf("%q not in %s", text, content)
	return 0
}

// decidedEarlier is a repository where Parse's constraint was recorded
// by an older commit that changed only its doc comment, and the line the
// agents edit was written by a later commit that recorded nothing: the
// decision reaches them only because it binds to the function, not to
// the lines its commit changed (issue 26).
func decidedEarlier(t *testing.T) *fixtures.Repo {
	t.Helper()
	fx := fixtures.NewRepo(t)
	fx.MustGloss("init")
	// The time budget is TestHookNeverFailsTheAgent's business: here a
	// prompt that outruns 1.5 s on a loaded machine would lose its summary.
	fx.Write(".gloss/config.toml", "[agent]\ntimeout_ms = 30000\n")
	first := strings.Replace(strings.Replace(baseFile, "// Parse trims its input.", "// Parse trims.", 1), "strings.TrimSpace(s)", `strings.Trim(s, " ")`, 1)
	fx.Commit("lib: add Parse", map[string]string{"lib/parse.go": first})
	fx.MustGloss("annotate", "--file", "lib/parse.go", "--anchor", "Parse", "--constraint", constraint, "--author-kind", "human")
	fx.Commit("lib: say what Parse trims", map[string]string{"lib/parse.go": strings.Replace(first, "// Parse trims.", "// Parse trims its input.", 1)})
	fx.Commit("lib: trim every space", map[string]string{"lib/parse.go": baseFile})
	blame := fx.Git("blame", "-s", "lib/parse.go")
	if !strings.Contains(blame, "return strings.TrimSpace(s)") || fx.Git("rev-list", "--count", "HEAD") != "3" {
		t.Fatalf("the history is not as this test needs it:\n%s", blame)
	}
	return fx
}

// TestScriptedSessionEndToEnd drives a whole session of each supported
// agent through `git gloss agent hook` with the documented payloads:
// session start, a prompt holding a secret, the delivery before an edit
// of a function whose constraint an older commit recorded on other lines
// (decidedEarlier), the edit, its capture, a person changing
// one of the agent's lines, the commit. Then read shows the agent's lines
// authored by the agent and model and the person's line not, and the
// secret is nowhere in git or in gloss's state.
func TestScriptedSessionEndToEnd(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	for _, sc := range scripts {
		t.Run(sc.agent, func(t *testing.T) {
			t.Parallel()
			fx := decidedEarlier(t)

			transcript := filepath.Join(t.TempDir(), "transcript.jsonl")
			tr := `{"type":"user","message":{"role":"user","content":"hi"}}` + "\n" +
				`{"type":"assistant","message":{"role":"assistant","model":"` + sc.model + `","content":[]}}` + "\n"
			if err := os.WriteFile(transcript, []byte(tr), 0o600); err != nil {
				t.Fatal(err)
			}
			vars := map[string]string{
				"SESSION": "sess-" + sc.agent, "TRANSCRIPT": transcript, "ROOT": fx.Dir, "MODEL": sc.model,
				"PROMPT": "Make Parse handle blank input. The deploy token is " + plantedToken + " if you need it.",
				"FILE":   "lib/parse.go", "OLD": oldText, "NEW": newText, "PATCH": patchText,
			}
			run := func(event string) string {
				return contextOf(t, sc.agent, event, hook(t, fx, nil, sc.agent, eventOf(sc.agent, event), payload(t, sc.agent, event, vars)))
			}

			// init registers gloss's MCP server for Claude Code only: the
			// other agents are pointed at the command.
			if brief := run(sc.start); sc.silent && brief != "" {
				t.Errorf("%s reads no hook output, yet gloss answered %q", sc.agent, brief)
			} else if !sc.silent && (!strings.Contains(brief, "annotated commits") || !strings.Contains(brief, "git gloss read FILE") ||
				strings.Contains(brief, "gloss_read") != (sc.agent == "claude")) {
				t.Errorf("session brief = %q", brief)
			}
			if got := run(sc.prompt); got != "" {
				t.Errorf("prompt without a notebook delivered %q", got)
			}
			if sc.model1 != "" {
				run(sc.model1)
			}
			if sc.pre != "" {
				got := run(sc.pre)
				if !strings.Contains(got, constraint) || !strings.Contains(got, "lib/parse.go") {
					t.Errorf("pre-edit context lacks the constraint: %q", got)
				}
				if tokens := (len(got) + 3) / 4; tokens > 800 {
					t.Errorf("pre-edit context is %d tokens, over the 800 budget", tokens)
				}
				if again := run(sc.pre); strings.Contains(again, constraint) {
					t.Errorf("the same record was delivered twice in one session: %q", again)
				}
				if sc.agent == "claude" {
					// After a compaction the agent has lost it: it comes again.
					compact := bytes.Replace(payload(t, sc.agent, sc.start, vars), []byte(`"startup"`), []byte(`"compact"`), 1)
					hook(t, fx, nil, sc.agent, sc.start, compact)
					if again := run(sc.pre); !strings.Contains(again, constraint) {
						t.Errorf("after a compaction the record was not delivered again: %q", again)
					}
				}
			}

			// The agent edits the file, then the hook captures it.
			fx.Write("lib/parse.go", strings.Replace(baseFile, oldText, newText, 1))
			if got := run(sc.post); got != "" {
				t.Errorf("post-edit answered %q", got)
			}
			pending := fx.MustGloss("agent", "hook", "--agent", sc.agent, "Nothing") // unknown event: nothing
			if pending != "" {
				t.Errorf("unknown event answered %q", pending)
			}

			// A person rewrites one of the agent's lines before committing.
			fx.Write("lib/parse.go", strings.Replace(fx.Read("lib/parse.go"), "strings.ToLower(t)", "strings.ToUpper(t)", 1))
			fx.Git("commit", "-q", "-a", "-m", "lib: blank input")

			content := fx.Read("lib/parse.go")
			agentLine := lineOf(t, content, `if t == "" {`)
			humanLine := lineOf(t, content, "strings.ToUpper(t)")
			readAt := func(line int) why.ReadResult {
				out := fx.MustGloss("read", "lib/parse.go", "--lines", fmt.Sprintf("%d:%d", line, line), "--json")
				var res why.ReadResult
				if err := json.Unmarshal([]byte(out), &res); err != nil {
					t.Fatalf("read: %v\n%s", err, out)
				}
				return res
			}
			found := false
			for _, r := range readAt(agentLine).Regions {
				if r.Author.Kind == "agent" && r.Author.Name == sc.agent && r.Author.Model == sc.model {
					found = true
					if !strings.Contains(r.Intent, "Make Parse handle blank input") || !strings.Contains(r.Intent, "[REDACTED:") {
						t.Errorf("agent region intent = %q, want the redacted prompt summary", r.Intent)
					}
				}
			}
			if !found {
				t.Errorf("no region of line %d authored by %s/%s: %+v", agentLine, sc.agent, sc.model, readAt(agentLine).Regions)
			}
			for _, r := range readAt(humanLine).Regions {
				if r.Author.Kind == "agent" {
					t.Errorf("the line a person rewrote is credited to the agent: %+v", r)
				}
			}
			if n := fx.Git("notes", "--ref", "gloss/sessions", "show", "HEAD"); !strings.Contains(n, `"agent":"`+sc.agent+`"`) || !strings.Contains(n, "[REDACTED:") {
				t.Errorf("session record = %s", n)
			}
			assertNowhere(t, fx, plantedToken)
			if st := filepath.Join(fx.Dir, ".git", "gloss", "agent", "pending.jsonl"); fileExists(st) {
				data, _ := os.ReadFile(st)
				t.Errorf("the commit took every captured line, yet the store holds %s", data)
			}
		})
	}
}

// assertNowhere fails when s is in any git object (commits, trees, blobs
// of the code and of every notes ref) or any file under the git dir.
func assertNowhere(t *testing.T, fx *fixtures.Repo, s string) {
	t.Helper()
	cmd := fx.Command("git", "cat-file", "--batch-all-objects", "--batch")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte(s)) {
		t.Errorf("the secret is in a git object")
	}
	_ = filepath.Walk(filepath.Join(fx.Dir, ".git"), func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil && bytes.Contains(data, []byte(s)) {
			t.Errorf("the secret is stored in %s", p)
		}
		return nil
	})
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
