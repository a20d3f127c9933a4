package setup_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/setup"
)

// A project that already uses agents: Claude Code settings with the team's
// own hooks and permissions, hand formatted; Gemini settings on one line;
// an AGENTS.md without a final newline; and a git hook of another tool.
var agentProject = map[string]string{
	".claude/settings.json": `{
    "permissions": { "allow": ["Bash(npm test)", "Read(./src/**)"], "deny": ["Read(./.env)"] },
    "hooks": {
        "PreToolUse": [
            { "matcher": "Bash", "hooks": [ { "type": "command", "command": "./scripts/check-bash.sh" } ] }
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]
    },
    "model": "opus"
}
`,
	".gemini/settings.json": `{"theme":"GitHub","context":{"fileName":["AGENTS.md","GEMINI.md"]}}`,
	".mcp.json":             "{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"other-server\"}\n  }\n}\n",
	"AGENTS.md":             "# How we work\n\nRun `make test` before pushing.",
}

func writeProject(t *testing.T, fx *fixtures.Repo, files map[string]string) {
	t.Helper()
	for p, c := range files {
		fx.Write(p, c)
	}
}

// tree reads every file under dir except .git, by relative path.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		data, err := os.ReadFile(p)
		out[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffTrees(t *testing.T, want, got map[string]string) {
	t.Helper()
	for p, w := range want {
		g, ok := got[p]
		switch {
		case !ok:
			t.Errorf("%s is gone", p)
		case g != w:
			t.Errorf("%s changed:\n%s\nwant the original bytes:\n%s", p, g, w)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s left behind", p)
		}
	}
}

type settings struct {
	Hooks map[string][]struct {
		Matcher string `json:"matcher"`
		Command string `json:"command"` // Cursor's layout
		Hooks   []struct {
			Type    string `json:"type"`
			Command string `json:"command"`
		} `json:"hooks"`
	} `json:"hooks"`
	Permissions map[string][]string `json:"permissions"`
	Version     int                 `json:"version"`
}

func readSettings(t *testing.T, fx *fixtures.Repo, rel string) settings {
	t.Helper()
	var s settings
	if err := json.Unmarshal([]byte(fx.Read(rel)), &s); err != nil {
		t.Fatalf("%s no longer parses: %v\n%s", rel, err, fx.Read(rel))
	}
	return s
}

// commands lists every hook command for event, in either layout.
func (s settings) commands(event string) []string {
	var out []string
	for _, g := range s.Hooks[event] {
		if g.Command != "" {
			out = append(out, g.Command)
		}
		for _, h := range g.Hooks {
			out = append(out, h.Command)
		}
	}
	return out
}

func TestAgentInstallKeepsTheProjectsFilesAndUninstallGivesTheBytesBack(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)
	writeProject(t, fx, agentProject)
	if err := os.WriteFile(fx.Path(".git/hooks/post-commit"), []byte(otherHook), 0o755); err != nil {
		t.Fatal(err)
	}
	before := tree(t, fx.Dir)

	out := fx.MustGloss("init", "--agents=all")
	for _, want := range []string{"agent  claude", "agent  gemini", "agent  codex", "agent  cursor", "/hooks in Codex", "trusted folder"} {
		if !strings.Contains(out, want) {
			t.Errorf("init --agents=all does not say %q:\n%s", want, out)
		}
	}

	claude := readSettings(t, fx, ".claude/settings.json")
	if got := claude.commands("PreToolUse"); len(got) != 2 || got[0] != "./scripts/check-bash.sh" || got[1] != "git gloss agent hook --agent claude PreToolUse" {
		t.Errorf("Claude PreToolUse hooks = %q, want the team's then gloss's", got)
	}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PostToolUse"} {
		if got := claude.commands(ev); len(got) != 1 || got[0] != setup.HookCommand("claude", ev) {
			t.Errorf("Claude %s hooks = %q", ev, got)
		}
	}
	if got := claude.commands("Stop"); len(got) != 1 || got[0] != "say done" {
		t.Errorf("the team's Stop hook changed: %q", got)
	}
	if claude.Hooks["PreToolUse"][1].Matcher != "Edit|MultiEdit|Write|NotebookEdit" {
		t.Errorf("gloss's PreToolUse matcher = %q", claude.Hooks["PreToolUse"][1].Matcher)
	}
	if len(claude.Permissions["allow"]) != 2 || len(claude.Permissions["deny"]) != 1 {
		t.Errorf("permissions changed: %v", claude.Permissions)
	}
	// The team's part of the file is byte for byte what it was.
	orig := agentProject[".claude/settings.json"]
	if got := fx.Read(".claude/settings.json"); !strings.HasPrefix(got, orig[:strings.Index(orig, "check-bash.sh")]) {
		t.Errorf("the text before gloss's entries changed:\n%s", got)
	}

	gemini := readSettings(t, fx, ".gemini/settings.json")
	if got := gemini.commands("AfterTool"); len(got) != 1 || gemini.Hooks["AfterTool"][0].Matcher != "read_file|write_file|replace" {
		t.Errorf("Gemini AfterTool = %q (matcher %q)", got, gemini.Hooks["AfterTool"][0].Matcher)
	}
	if gemini.commands("BeforeTool") != nil {
		t.Error("Gemini BeforeTool installed: its output cannot reach the model")
	}
	codex := readSettings(t, fx, ".codex/hooks.json")
	if got := codex.commands("PreToolUse"); len(got) != 1 || !strings.Contains(codex.Hooks["PreToolUse"][0].Matcher, "apply_patch") {
		t.Errorf("Codex PreToolUse = %q", got)
	}
	cursor := readSettings(t, fx, ".cursor/hooks.json")
	if cursor.Version != 1 || len(cursor.commands("afterFileEdit")) != 1 {
		t.Errorf("Cursor hooks.json = %s", fx.Read(".cursor/hooks.json"))
	}
	for _, f := range []string{"AGENTS.md", "CLAUDE.md"} {
		got := fx.Read(f)
		if strings.Count(got, setup.InstructionsBegin) != 1 || !strings.Contains(got, "gloss_annotate") || !strings.HasSuffix(got, setup.InstructionsEnd+"\n") {
			t.Errorf("%s has no gloss block:\n%s", f, got)
		}
	}
	if got := fx.Read("AGENTS.md"); !strings.HasPrefix(got, agentProject["AGENTS.md"]+"\n\n") {
		t.Errorf("AGENTS.md: the team's text changed:\n%s", got)
	}

	// Idempotent, through either door.
	installed := tree(t, fx.Dir)
	for _, args := range [][]string{{"agent", "install", "--agent", "all", "--json"}, {"init", "--agents=all", "--json"}} {
		out := fx.MustGloss(args...)
		if strings.Contains(out, `"added"`) || strings.Contains(out, `"updated"`) || strings.Contains(out, `"installed"`) {
			t.Errorf("%v changed something: %s", args, out)
		}
		diffTrees(t, installed, tree(t, fx.Dir))
	}
	st := fx.MustGloss("agent", "status", "--json")
	var status setup.AgentStatusResult
	if err := json.Unmarshal([]byte(st), &status); err != nil {
		t.Fatal(err)
	}
	for _, a := range status.Agents {
		if !a.Global && (!a.Current || len(a.Events) == 0) {
			t.Errorf("agent status: %+v", a)
		}
	}

	// A real commit still runs the other tool's hook and gloss's.
	fx.Commit("work", map[string]string{"a.txt": "a\n"})
	if log := fx.Read(".git/other-tool.log"); !strings.Contains(log, "other tool ran") {
		t.Errorf("chained hook did not run: %q", log)
	}
	before["a.txt"] = "a\n"

	fx.MustGloss("uninstall")
	after := tree(t, fx.Dir)
	delete(after, ".gloss/") // the notebook scaffold is the scaffold test's business
	for p := range after {
		if strings.HasPrefix(p, ".gloss/") {
			delete(after, p)
		}
	}
	diffTrees(t, before, after)
	if got := fx.Read(".git/hooks/post-commit"); got != otherHook {
		t.Errorf("the other tool's git hook was not restored: %q", got)
	}
}

func TestAgentInstallLeavesAnUnparseableFileAloneAndSaysWhere(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)
	broken := "{\n  \"hooks\": {\n    \"Stop\": [],\n  }\n}\n"
	fx.Write(".claude/settings.json", broken)
	fx.Write(".gemini/settings.json", "{}\n")

	out, err := fx.Gloss("agent", "install", "--agent", "claude,gemini")
	if err == nil {
		t.Fatalf("agent install succeeded over a broken settings.json:\n%s", out)
	}
	if code := fixtures.ExitCode(err); code != 2 {
		t.Errorf("exit code %d, want 2 (usage)", code)
	}
	if !strings.Contains(out, "left "+fx.Path(".claude/settings.json")+" untouched") || !strings.Contains(out, "line 4, column 3") {
		t.Errorf("the message does not say which file and where:\n%s", out)
	}
	if fx.Read(".claude/settings.json") != broken {
		t.Error("the broken file was modified")
	}
	if got := readSettings(t, fx, ".gemini/settings.json").commands("SessionStart"); len(got) != 1 {
		t.Errorf("the other agent was not installed: %s", fx.Read(".gemini/settings.json"))
	}
	// Uninstall removes what was installed and still leaves the broken file alone.
	fx.MustGloss("agent", "uninstall")
	if fx.Read(".gemini/settings.json") != "{}\n" || fx.Read(".claude/settings.json") != broken {
		t.Errorf("after uninstall: gemini %q, claude %q", fx.Read(".gemini/settings.json"), fx.Read(".claude/settings.json"))
	}
}

func TestAgentInstallGlobalWritesTheUsersFilesOnly(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)
	home := envValue(fx, "HOME")
	userSettings := "{\n\t\"theme\": \"dark\",\n\t\"hooks\": {\n\t\t\"Notification\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send claude\"}]}]\n\t}\n}"
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(userSettings), 0o600); err != nil {
		t.Fatal(err)
	}
	repoBefore := tree(t, fx.Dir)

	fx.MustGloss("agent", "install", "--global", "--agent", "claude", "--agent", "codex")
	data, err := os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s settings
	if err := json.Unmarshal(data, &s); err != nil || len(s.Hooks["PreToolUse"]) != 1 || len(s.Hooks["Notification"]) != 1 {
		t.Fatalf("~/.claude/settings.json after install --global: %v\n%s", err, data)
	}
	if st, _ := os.Stat(filepath.Join(home, ".claude", "settings.json")); st.Mode().Perm() != 0o600 {
		t.Errorf("the user's file mode changed to %v", st.Mode().Perm())
	}
	if _, err := os.Stat(filepath.Join(home, ".codex", "hooks.json")); err != nil {
		t.Errorf("~/.codex/hooks.json not written: %v", err)
	}
	diffTrees(t, repoBefore, tree(t, fx.Dir)) // no AGENTS.md, no project files

	fx.MustGloss("uninstall")
	if data, _ := os.ReadFile(filepath.Join(home, ".claude", "settings.json")); string(data) != userSettings {
		t.Errorf("~/.claude/settings.json after uninstall:\n%s\nwant:\n%s", data, userSettings)
	}
	if _, err := os.Stat(filepath.Join(home, ".codex")); !os.IsNotExist(err) {
		t.Errorf("~/.codex that gloss created is left behind: %v", err)
	}
}

// What the user adds next to gloss's entries stays when gloss goes; an
// older gloss entry is brought up to date in place.
func TestAgentUninstallKeepsWhatTheUserAddedToGlosssEntries(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)
	fx.MustGloss("agent", "install", "--agent", "claude")
	if _, err := os.Stat(fx.Path("AGENTS.md")); err != nil {
		t.Fatalf("AGENTS.md not created: %v", err)
	}
	// The user adds a handler to gloss's SessionStart group, a hook of
	// their own, and text under the gloss block of CLAUDE.md.
	text := fx.Read(".claude/settings.json")
	text = strings.Replace(text, `"command": "git gloss agent hook --agent claude SessionStart",`, `"command": "git gloss agent hook --agent claude SessionStart",
            "timeout": 10
          },
          {
            "type": "command",
            "command": "echo mine",`, 1)
	text = strings.Replace(text, `"timeout": 10
          }
        ]
      }
    ],
    "UserPromptSubmit"`, `"timeout": 10
          }
        ]
      }
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "echo stop"}]}],
    "UserPromptSubmit"`, 1)
	fx.Write(".claude/settings.json", text)
	if _, err := fx.Gloss("agent", "status"); err != nil {
		t.Fatalf("status over the user's edit: %v", err)
	}
	fx.Write("CLAUDE.md", fx.Read("CLAUDE.md")+"\nOur own rule.\n")

	fx.MustGloss("uninstall")
	s := readSettings(t, fx, ".claude/settings.json")
	if got := s.commands("SessionStart"); len(got) != 1 || got[0] != "echo mine" {
		t.Errorf("SessionStart after uninstall = %q, want the user's handler only", got)
	}
	if got := s.commands("Stop"); len(got) != 1 {
		t.Errorf("the user's Stop hook = %q", got)
	}
	for _, ev := range []string{"PreToolUse", "PostToolUse", "UserPromptSubmit"} {
		if _, ok := s.Hooks[ev]; ok {
			t.Errorf("%s (created by gloss, now empty) left behind:\n%s", ev, fx.Read(".claude/settings.json"))
		}
	}
	if got := fx.Read("CLAUDE.md"); strings.Contains(got, "gloss:begin") || strings.TrimSpace(got) != "Our own rule." {
		t.Errorf("CLAUDE.md after uninstall = %q", got)
	}
	if _, err := os.Stat(fx.Path("AGENTS.md")); !os.IsNotExist(err) {
		t.Errorf("AGENTS.md that gloss created is left behind: %v", err)
	}
}

func TestAgentInstallRefreshesAnOlderEntry(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)
	orig := "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]}\n    ]\n  }\n}\n"
	fx.Write(".claude/settings.json", orig)
	fx.MustGloss("agent", "install", "--agent", "claude")
	// An older gloss listened to Read as well.
	fx.Write(".claude/settings.json", strings.Replace(fx.Read(".claude/settings.json"), `"Edit|MultiEdit|Write|NotebookEdit"`, `"Read|Edit|Write"`, 1))
	out := fx.MustGloss("agent", "install", "--agent", "claude", "--json")
	if !strings.Contains(out, `"action":"updated"`) {
		t.Errorf("install over an older entry: %s", out)
	}
	if strings.Contains(fx.Read(".claude/settings.json"), "Read|Edit") {
		t.Error("the older matcher is still there")
	}
	fx.MustGloss("uninstall")
	if got := fx.Read(".claude/settings.json"); got != orig {
		t.Errorf("after uninstall:\n%s\nwant:\n%s", got, orig)
	}
}

func TestInitAgentsFlagTakesNoSeparateValue(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)
	out := fx.MustGloss("init", "--agents", "--no-mcp")
	if !strings.Contains(out, "agent  claude") || strings.Contains(out, "agent  codex") {
		t.Errorf("init --agents (default: Claude Code, nothing else in use):\n%s", out)
	}
	if _, err := fx.Gloss("init", "--agents=vim"); err == nil {
		t.Error("init --agents=vim accepted")
	}
	plain := newRepo(t)
	if out := plain.MustGloss("init", "--no-mcp"); !strings.Contains(out, "Next:") || !strings.Contains(out, "git gloss agent install") {
		t.Errorf("init does not point at agent install:\n%s", out)
	}
	if _, err := os.Stat(plain.Path(".claude")); !os.IsNotExist(err) {
		t.Error("init without --agents wrote agent hooks")
	}
}

func envValue(fx *fixtures.Repo, key string) string {
	for _, kv := range fx.Env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// The manifest is shared by a repository's worktrees: what install wrote in
// a linked worktree is taken out of that worktree, whichever one runs
// uninstall.
func TestAgentUninstallFromAnotherWorktree(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	fx.Git("worktree", "add", "-q", "-b", "feature", wt)
	w := &fixtures.Repo{T: t, Dir: wt, Env: fx.Env}
	w.Write("AGENTS.md", "# feature branch rules\n")
	w.MustGloss("agent", "install", "--agent", "claude")
	if _, err := os.Stat(filepath.Join(wt, ".claude", "settings.json")); err != nil {
		t.Fatalf("not installed in the worktree: %v", err)
	}
	fx.MustGloss("uninstall")
	if got := w.Read("AGENTS.md"); got != "# feature branch rules\n" {
		t.Errorf("the worktree's AGENTS.md after uninstall from the main checkout: %q", got)
	}
	for _, p := range []string{".claude", "CLAUDE.md"} {
		if _, err := os.Stat(filepath.Join(wt, p)); !os.IsNotExist(err) {
			t.Errorf("%s left in the worktree: %v", p, err)
		}
	}
}
