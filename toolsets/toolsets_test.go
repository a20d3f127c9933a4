package toolsets_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/runenv"
	"github.com/gloss-dev/gloss/toolsets"
)

func TestParseArgs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want toolsets.Options
	}{
		{[]string{"mcp"}, toolsets.Options{}},
		{[]string{"mcp", "--toolsets", "default, tasks,,notebook"}, toolsets.Options{Toolsets: []string{"default", "tasks", "notebook"}}},
		{[]string{"mcp", "serve", "--toolsets=all", "--read-only"}, toolsets.Options{Toolsets: []string{"all"}, ReadOnly: true}},
		{[]string{"mcp", "--dynamic-toolsets", "--output-schemas=true", "--read-only=false"}, toolsets.Options{Dynamic: true, OutputSchemas: true}},
		{[]string{"mcp", "--verbose", "--toolsets"}, toolsets.Options{}}, // a flag without its value names nothing
	} {
		if got := toolsets.ParseArgs(c.args); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseArgs(%q) = %+v, want %+v", c.args, got, c.want)
		}
	}
}

func openRepo(t *testing.T, fx *fixtures.Repo) *gitops.Repo {
	t.Helper()
	repo, err := gitops.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	return repo
}

// FindServer reads each agent's MCP configuration as the agent does: the
// most binding scope first, an entry found by its name or its command, an
// entry the user turned off is none. (HOME is the process's: not
// parallel.)
func TestFindServer(t *testing.T) {
	fx := fixtures.NewRepo(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CODEX_HOME", "")
	repo := openRepo(t, fx)
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(fx.Dir, name)
		if rest, ok := strings.CutPrefix(name, "~/"); ok {
			p = filepath.Join(home, rest)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(content, "ROOT", fx.Dir)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	remove := func(names ...string) {
		for _, n := range names {
			p := filepath.Join(fx.Dir, n)
			if rest, ok := strings.CutPrefix(n, "~/"); ok {
				p = filepath.Join(home, rest)
			}
			_ = os.Remove(p)
		}
	}
	expect := func(client, label, file, scope string, toolsetsWant ...string) {
		t.Helper()
		srv := toolsets.FindServer(repo, client)
		switch {
		case file == "" && srv != nil:
			t.Errorf("%s: found %+v, want none", label, srv)
		case file == "":
		case srv == nil:
			t.Errorf("%s: found none, want the entry in %s", label, file)
		case srv.File != file || srv.Scope != scope || !slices.Equal(srv.Options.Toolsets, toolsetsWant):
			t.Errorf("%s: found %+v, want %s (%s) with toolsets %v", label, srv, file, scope, toolsetsWant)
		}
	}
	entry := func(list string) string {
		return `{"command": "git-gloss", "args": ["mcp", "--toolsets", "` + list + `"]}`
	}

	expect("claude", "nothing registered", "", "")
	write("~/.claude.json", `{"mcpServers": {"gloss": `+entry("user")+`}}`)
	expect("claude", "user scope", "~/.claude.json", toolsets.ScopeUser, "user")
	write(".mcp.json", `{"mcpServers": {"other": {"command": "npx"}, "gloss": `+entry("project")+`}}`)
	expect("claude", "project over user", ".mcp.json", toolsets.ScopeProject, "project")
	write("~/.claude.json", `{"projects": {"ROOT": {"mcpServers": {"gloss": `+entry("local")+`}}}, "mcpServers": {"gloss": `+entry("user")+`}}`)
	expect("claude", "local over project", "~/.claude.json", toolsets.ScopeLocal, "local")
	write("~/.claude.json", `{"projects": {"ROOT": {"disabledMcpjsonServers": ["gloss"]}}}`)
	expect("claude", "project entry disabled in ~/.claude.json", "", "")
	write("~/.claude.json", `{}`)
	write(".claude/settings.local.json", `{"disabledMcpjsonServers": ["gloss"]}`)
	expect("claude", "project entry disabled in the project's settings", "", "")
	remove(".claude/settings.local.json")
	write(".mcp.json", `{"mcpServers": {"memory": {"command": "/opt/bin/git", "args": ["gloss", "mcp", "--read-only"]}}}`)
	if srv := toolsets.FindServer(repo, "claude"); srv == nil || !srv.Options.ReadOnly {
		t.Errorf("an entry under another name, found by its command: %+v", srv)
	}
	write(".mcp.json", `{"mcpServers": {"gloss": not json`)
	expect("claude", "a broken .mcp.json", "", "")
	remove(".mcp.json")
	// A committed .mcp.json that is a link into .git is not read.
	write(".git/evil.json", `{"mcpServers": {"gloss": `+entry("evil")+`}}`)
	if err := os.Symlink(".git/evil.json", filepath.Join(fx.Dir, ".mcp.json")); err != nil {
		t.Fatal(err)
	}
	expect("claude", "a .mcp.json linked into .git", "", "")
	remove(".mcp.json")

	write("~/.cursor/mcp.json", `{"mcpServers": {"gloss": `+entry("cursor-user")+`}}`)
	expect("cursor", "Cursor's user file", "~/.cursor/mcp.json", toolsets.ScopeUser, "cursor-user")
	write(".cursor/mcp.json", `{"mcpServers": {"gloss": `+entry("cursor")+`}}`)
	expect("cursor", "Cursor's project file", ".cursor/mcp.json", toolsets.ScopeProject, "cursor")

	write(".gemini/settings.json", `{"mcpServers": {"gloss": `+entry("gemini")+`}}`)
	expect("gemini", "Gemini CLI's project settings", ".gemini/settings.json", toolsets.ScopeProject, "gemini")
	write("~/.gemini/settings.json", `{"mcp": {"excluded": ["gloss"]}}`)
	expect("gemini", "excluded in the user's settings", "", "")
	write("~/.gemini/settings.json", `{"mcp": {"allowed": ["github"]}}`)
	expect("gemini", "not among the allowed", "", "")
	write("~/.gemini/settings.json", `{"mcp": {"allowed": ["gloss"]}}`)
	expect("gemini", "allowed", ".gemini/settings.json", toolsets.ScopeProject, "gemini")

	write("~/.codex/config.toml", "[mcp_servers.gloss]\ncommand = \"git-gloss\"\nargs = [\"mcp\", \"--toolsets\", \"codex-user\"]\n")
	expect("codex", "Codex's user config", "~/.codex/config.toml", toolsets.ScopeUser, "codex-user")
	codexHome := t.TempDir()
	t.Setenv("CODEX_HOME", codexHome)
	expect("codex", "CODEX_HOME without a config", "", "")
	write(".codex/config.toml", "model = \"gpt-5\"\n[mcp_servers.gloss]\ncommand = \"git-gloss\"\nargs = [\"mcp\", \"--toolsets\", \"codex\"]\n")
	expect("codex", "Codex's project config", ".codex/config.toml", toolsets.ScopeProject, "codex")
	write(".codex/config.toml", "[mcp_servers.gloss]\ncommand = \"git-gloss\"\nargs = [\"mcp\"]\nenabled = false\n")
	expect("codex", "enabled = false", "", "")

	expect("vim", "an agent gloss does not know", "", "")
}

// Select applies the rules: the server's flags, else the team's list (a
// name this binary lacks skipped with a warning), else the repository's
// default within the budget.
func TestSelect(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewRepo(t)
	repo := openRepo(t, fx)
	sel, err := toolsets.Select(repo, toolsets.Options{})
	if err != nil || sel.Source != toolsets.SourceDefault || !sel.Has("gloss_read") || sel.Has("search_notes") || sel.Dynamic {
		t.Errorf("default: %+v %v", sel, err)
	}
	fx.Write(".gloss/config.toml", "[mcp]\ntoolsets = [\"core\", \"notebook\", \"from-the-future\"]\n")
	sel, err = toolsets.Select(repo, toolsets.Options{})
	if err != nil || sel.Source != toolsets.SourceTeam || sel.Has("gloss_read") || !sel.Has("search_notes") || len(sel.Warnings) != 1 {
		t.Errorf("team: %+v %v", sel, err)
	}
	if _, err := toolsets.Select(repo, toolsets.Options{Toolsets: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), `unknown toolset "nope"`) {
		t.Errorf("an unknown toolset in --toolsets: %v", err)
	}
	sel, _ = toolsets.Select(repo, toolsets.Options{Toolsets: []string{"all"}, ReadOnly: true})
	if sel.Source != toolsets.SourceFlag || !sel.Has("gloss_read") || sel.Has("gloss_annotate") || sel.Has("enable_toolset") {
		t.Errorf("--toolsets all --read-only: %+v", sel)
	}
	sel, _ = toolsets.Select(repo, toolsets.Options{Dynamic: true})
	if !sel.Has("enable_toolset") || !sel.Has("gloss_status") || sel.Has("gloss_read") {
		t.Errorf("--dynamic-toolsets: %+v", sel)
	}
	why, how := sel.Off([]string{"annotations", "notebook"}, nil)
	if why != "off in this session" || how != `call enable_toolset with {"toolset":"annotations"}, then with {"toolset":"notebook"}` {
		t.Errorf("Off under --dynamic-toolsets: %q, %q", why, how)
	}
	if toolsets.Check([]string{"default", "all", "tasks"}) != nil || toolsets.Check([]string{"tasks", "nope"}) == nil {
		t.Error("Check")
	}
}

// What Off tells a person to run or edit follows where the entry is.
func TestOffNamesTheEntryToChange(t *testing.T) {
	t.Parallel()
	flag := toolsets.Selection{Source: toolsets.SourceFlag}
	for _, c := range []struct {
		srv  toolsets.Server
		want string
	}{
		{toolsets.Server{Client: "claude", File: ".mcp.json", Scope: toolsets.ScopeProject, Options: toolsets.Options{Toolsets: []string{"core"}}},
			"add it with `git gloss mcp install --toolsets core,notebook`"},
		{toolsets.Server{Client: "claude", File: "~/.claude.json", Scope: toolsets.ScopeUser, Options: toolsets.Options{Toolsets: []string{"core"}}},
			"`git gloss mcp install --toolsets core,notebook --global`"},
		{toolsets.Server{Client: "cursor", File: ".cursor/mcp.json", Scope: toolsets.ScopeProject, Options: toolsets.Options{Toolsets: []string{"core"}}},
			"`git gloss mcp install --toolsets core,notebook --client cursor`"},
		{toolsets.Server{Client: "codex", File: ".codex/config.toml", Scope: toolsets.ScopeProject, Options: toolsets.Options{Toolsets: []string{"core"}}},
			"`--toolsets core,notebook` in the args of gloss's server in .codex/config.toml"},
	} {
		why, how := flag.Off([]string{"notebook"}, &c.srv)
		if why != "left out by the --toolsets of gloss's server in "+c.srv.File || !strings.Contains(how, c.want) {
			t.Errorf("%s %s: %q, %q; want %q", c.srv.Client, c.srv.Scope, why, how, c.want)
		}
	}
}

// What a hook pays to know the session's tools: find the agent's entry
// and apply the rules. On GLOSS_BENCH_REPO (a real clone) when set, else
// on a repository that uses tasks, documents and the notebook (every rule
// 3 test runs).
func BenchmarkFindServerAndSelect(b *testing.B) {
	dir := os.Getenv(runenv.BenchRepo)
	if dir == "" {
		fx := fixtures.NewRepo(b)
		fx.MustGloss("init")
		fx.Write(".gloss/notebook/notes/deploy.md", "# Deploy\n")
		fx.Write(".gloss/tasks/2026-01-01-001-abc.md", "---\nstatus: pending\n---\n# Do the thing\n")
		fx.Write("design.noma", "# Design\n")
		fx.Git("add", "design.noma")
		dir = fx.Dir
	}
	repo, err := gitops.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer repo.Close()
	for b.Loop() {
		var opts toolsets.Options
		if srv := toolsets.FindServer(repo, "claude"); srv != nil {
			opts = srv.Options
		}
		if _, err := toolsets.Select(repo, opts); err != nil {
			b.Fatal(err)
		}
	}
}
