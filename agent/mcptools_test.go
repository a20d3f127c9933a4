package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/toolsets"
)

// toolsCase is a repository set up one way, an agent, and what its
// session brief, a prompt that brings a note and the delivery before an
// edit must say.
type toolsCase struct {
	name  string
	agent string
	noMCP bool              // init without registering gloss's MCP server
	team  string            // .gloss/config.toml's [mcp]
	files map[string]string // written after init (a path under ~ goes to the fixture's home)
	stage []string          // files to git add (a tracked .noma)
	// server is how the agent's client starts gloss's MCP server (the
	// args after "mcp"), nil when it does not: the hooks must then name
	// no tool at all.
	server        []string
	want, wantNot []string
}

const (
	// slowMachine gives the hooks more than their 1.5 s, so that a loaded
	// test machine does not turn an answer into the timeout's silence.
	slowMachine  = "[agent]\ntimeout_ms = 30000\n"
	deployNote   = "# Deploy\n\nRun make deploy from the release branch; the deploy token lives in the vault.\n"
	deployPrompt = "How do I deploy from the release branch?"
)

var toolsCases = []toolsCase{
	{
		name: "the team turns the notebook off", agent: "claude",
		team:   "[mcp]\ntoolsets = [\"core\", \"annotations\", \"specs\"]\n",
		server: []string{},
		want: []string{"gloss_read", "`git gloss note search WORDS`", "`git gloss note show PATH`",
			`add "notebook" to toolsets under [mcp] in .gloss/config.toml`, "git gloss mcp install --toolsets default,notebook"},
		wantNot: []string{"read_note", "search_notes", "enable_toolset"},
	},
	{
		// Tasks, a tracked .noma and notes are more than the default's
		// budget holds: tasks is on, documents and the notebook are one
		// enable_toolset away.
		name: "the default's budget leaves the notebook out", agent: "claude",
		files:  map[string]string{".gloss/tasks/2026-01-01-001-abc.md": "---\nstatus: pending\n---\n# Do the thing\n", "design.noma": "# Design\n"},
		stage:  []string{"design.noma"},
		server: []string{},
		want: []string{"task_ready", "`git gloss note search WORDS`", "`git gloss note show PATH`",
			`call enable_toolset with {"toolset":"notebook"}`},
		wantNot: []string{"read_note", "search_notes", "[mcp]"},
	},
	{
		name: "the notebook is on", agent: "claude",
		server:  []string{},
		want:    []string{"gloss_read {path, anchor}", "search_notes", "read_note {path}", `gloss_read {"path":"lib/parse.go"}`},
		wantNot: []string{"enable_toolset", "[mcp]", "`git gloss note search WORDS`"},
	},
	{
		// init registers gloss for Claude Code; Gemini CLI has no entry.
		name: "no gloss MCP entry for the agent", agent: "gemini",
		want:    []string{"`git gloss read FILE`", "`git gloss annotate`", "`git gloss note search WORDS`", "`git gloss note show PATH`", "More: `git gloss read lib/parse.go`."},
		wantNot: []string{"enable_toolset", "[mcp]", "mcp install"},
	},
	{
		name: "Claude Code without any gloss entry", agent: "claude", noMCP: true,
		want:    []string{"`git gloss read FILE`", "`git gloss note show PATH`"},
		wantNot: []string{"enable_toolset", "[mcp]"},
	},
	{
		name: "Gemini CLI's entry names its toolsets", agent: "gemini",
		files:  map[string]string{".gemini/settings.json": `{"mcpServers": {"gloss": {"command": "git-gloss", "args": ["mcp", "--toolsets", "core,annotations"]}}}`},
		server: []string{"--toolsets", "core,annotations"},
		want: []string{"gloss_read {path, anchor}", "`git gloss note show PATH`",
			"`--toolsets core,annotations,notebook` in the args of gloss's server in .gemini/settings.json"},
		wantNot: []string{"read_note", "search_notes", "list_affected_specs"},
	},
	{
		name: "Codex's entry is read-only with dynamic toolsets", agent: "codex",
		files:  map[string]string{".codex/config.toml": "[mcp_servers.gloss]\ncommand = \"git-gloss\"\nargs = [\"mcp\", \"--read-only\", \"--dynamic-toolsets\"]\n"},
		server: []string{"--read-only", "--dynamic-toolsets"},
		want: []string{"`git gloss read FILE`", "`git gloss annotate`",
			`call enable_toolset with {"toolset":"annotations"}, then with {"toolset":"notebook"}`},
		wantNot: []string{"gloss_annotate", "read_note"},
	},
	{
		name: "Codex's entry is turned off", agent: "codex",
		files:   map[string]string{".codex/config.toml": "[mcp_servers.gloss]\ncommand = \"git-gloss\"\nargs = [\"mcp\"]\nenabled = false\n"},
		want:    []string{"`git gloss read FILE`", "`git gloss note show PATH`"},
		wantNot: []string{"enable_toolset", "[mcp]"},
	},
	{
		// Claude Code's user scope, when the repository has no .mcp.json.
		name: "the user's own Claude Code entry", agent: "claude", noMCP: true,
		files:  map[string]string{"~/.claude.json": `{"mcpServers": {"gloss-dev": {"type": "stdio", "command": "/usr/local/bin/git-gloss", "args": ["mcp", "--toolsets=core,annotations"]}}}`},
		server: []string{"--toolsets=core,annotations"},
		want:   []string{"gloss_read", "`git gloss mcp install --toolsets core,annotations,notebook --global`"},
	},
	{
		// Its local scope (its entry for this project in ~/.claude.json)
		// wins over the repository's .mcp.json.
		name: "Claude Code's local scope wins", agent: "claude",
		files:   map[string]string{"~/.claude.json": `{"projects": {"{{ROOT}}": {"mcpServers": {"gloss": {"command": "git-gloss", "args": ["mcp", "--toolsets", "core"]}}}}}`},
		server:  []string{"--toolsets", "core"},
		want:    []string{"`git gloss read FILE`", "More: `git gloss read lib/parse.go`.", "in the args of gloss's server in ~/.claude.json"},
		wantNot: []string{"gloss_read", "read_note"},
	},
}

// The session brief, the prompt that brings a note and the delivery
// before an edit name an MCP tool only where the agent's session has it —
// checked against the tools/list of the real server started as the
// agent's entry starts it — and otherwise the command, with how to turn
// the toolset on; with no gloss entry for the agent, commands only.
func TestHooksNameOnlyToolsTheSessionHas(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	for _, c := range toolsCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fx := fixtures.NewRepo(t)
			if c.noMCP {
				fx.MustGloss("init", "--no-mcp")
			} else {
				fx.MustGloss("init")
			}
			fx.Write("lib/parse.go", baseFile)
			fx.MustGloss("annotate", "--file", "lib/parse.go", "--anchor", "Parse", "--constraint", constraint, "--author-kind", "human")
			fx.Commit("lib: add Parse", nil)
			fx.Write(".gloss/notebook/notes/deploy.md", deployNote)
			fx.Write(".gloss/config.toml", slowMachine+c.team)
			home := filepath.Join(filepath.Dir(fx.Dir), "home")
			for name, content := range c.files {
				content = strings.ReplaceAll(content, "{{ROOT}}", fx.Dir)
				if rest, ok := strings.CutPrefix(name, "~/"); ok {
					if err := os.WriteFile(filepath.Join(home, rest), []byte(content), 0o600); err != nil {
						t.Fatal(err)
					}
					continue
				}
				fx.Write(name, content)
			}
			for _, f := range c.stage {
				fx.Git("add", f)
			}

			said := sessionTexts(t, fx, c.agent)
			all := strings.Join(said, "\n")
			if said[1] == "" {
				t.Fatalf("the prompt brought no note:\n%s", all)
			}
			for _, w := range c.want {
				if !strings.Contains(all, w) {
					t.Errorf("the hooks do not say %q:\n%s", w, all)
				}
			}
			for _, w := range c.wantNot {
				if strings.Contains(all, w) {
					t.Errorf("the hooks say %q:\n%s", w, all)
				}
			}
			var listed []string
			if c.server != nil {
				listed = listTools(t, fx, c.server)
			}
			for _, tool := range namedTools(all) {
				if !slices.Contains(listed, tool) {
					t.Errorf("the hooks name %s, which the session's server (args %q) does not list %v:\n%s", tool, c.server, listed, all)
				}
			}
		})
	}
}

// sessionTexts runs the agent's session start, a prompt that matches the
// note and the delivery before an edit of Parse, and returns what each
// delivered.
func sessionTexts(t *testing.T, fx *fixtures.Repo, agentName string) []string {
	t.Helper()
	sc := scripts[slices.IndexFunc(scripts, func(s script) bool { return s.agent == agentName })]
	vars := map[string]string{
		"SESSION": "sess-tools", "TRANSCRIPT": filepath.Join(t.TempDir(), "none.jsonl"), "ROOT": fx.Dir, "MODEL": sc.model,
		"PROMPT": deployPrompt, "FILE": "lib/parse.go", "OLD": oldText, "NEW": newText, "PATCH": patchText,
	}
	run := func(event string) string {
		return contextOf(t, sc.agent, event, hook(t, fx, nil, sc.agent, strings.Split(event, ".")[0], payload(t, sc.agent, event, vars)))
	}
	return []string{run(sc.start), run(sc.prompt), run(sc.pre)}
}

// namedTools are the gloss MCP tools a text names.
func namedTools(text string) []string {
	var out []string
	for _, tool := range toolsets.Tools() {
		if regexp.MustCompile(`\b` + tool.Name + `\b`).MatchString(text) {
			out = append(out, tool.Name)
		}
	}
	return out
}

// listTools starts gloss's MCP server with args in the repository and
// returns what its tools/list names.
func listTools(t *testing.T, fx *fixtures.Repo, args []string) []string {
	t.Helper()
	s := fx.StartMCP(args...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.Session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// The word on how to get the notebook's tools comes once a session, with
// a note: a second prompt that brings the same note again says nothing,
// and one that brings another note does not repeat it.
func TestNotebookToolsHintOncePerSession(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.MustGloss("init")
	fx.Write(".gloss/config.toml", slowMachine+"[mcp]\ntoolsets = [\"core\", \"annotations\", \"specs\"]\n")
	fx.Write(".gloss/notebook/notes/deploy.md", deployNote)
	fx.Write(".gloss/notebook/notes/rollback.md", "# Rollback\n\nTo roll back a release, revert the tag and redeploy the previous build.\n")
	prompt := func(text string) string {
		vars := map[string]string{"SESSION": "sess-hint", "TRANSCRIPT": "", "ROOT": fx.Dir, "MODEL": "m", "PROMPT": text}
		return contextOf(t, "claude", "UserPromptSubmit", hook(t, fx, nil, "claude", "UserPromptSubmit", payload(t, "claude", "UserPromptSubmit", vars)))
	}
	const hint = `add "notebook" to toolsets under [mcp]`
	if got := prompt(deployPrompt); !strings.Contains(got, "notes/deploy.md") || !strings.Contains(got, hint) {
		t.Fatalf("first prompt: %q", got)
	}
	if got := prompt(deployPrompt); got != "" {
		t.Errorf("the same note again: %q", got)
	}
	if got := prompt("How do I roll back a release?"); !strings.Contains(got, "notes/rollback.md") || strings.Contains(got, hint) {
		t.Errorf("another note: %q", got)
	}
}

// A repository with nothing recorded yet: the brief's word on how to
// record names gloss_annotate only where the session has it.
func TestEmptyBriefNamesOnlyToolsTheSessionHas(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	for _, c := range []struct{ team, want, wantNot string }{
		{"", "record why with gloss_annotate", "`git gloss annotate`"},
		{"[mcp]\ntoolsets = [\"core\"]\n", "record why with `git gloss annotate`", "gloss_annotate"},
	} {
		fx := fixtures.NewRepo(t)
		fx.MustGloss("init")
		fx.Write(".gloss/config.toml", slowMachine+c.team)
		vars := map[string]string{"SESSION": "sess-empty", "TRANSCRIPT": "", "ROOT": fx.Dir, "MODEL": "m"}
		brief := contextOf(t, "claude", "SessionStart", hook(t, fx, nil, "claude", "SessionStart", payload(t, "claude", "SessionStart", vars)))
		if !strings.Contains(brief, c.want) || strings.Contains(brief, c.wantNot) {
			t.Errorf("team %q: brief = %q, want %q and not %q", c.team, brief, c.want, c.wantNot)
		}
	}
}
