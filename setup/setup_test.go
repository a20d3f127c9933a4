package setup_test

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/setup"
)

func newRepo(t *testing.T) *fixtures.Repo {
	fixtures.Binary(t) // hooks need git-gloss on PATH
	fx := fixtures.NewRepo(t)
	fx.Commit("first", map[string]string{"README": "hi\n"})
	return fx
}

const otherHook = `#!/bin/sh
echo "other tool ran with $# args" >> "$(git rev-parse --git-dir)/other-tool.log"
`

func TestInitChainsExistingHookAndKeepsOtherMCPServers(t *testing.T) {
	fx := newRepo(t)
	hook := fx.Path(".git/hooks/post-commit")
	if err := os.WriteFile(hook, []byte(otherHook), 0o755); err != nil {
		t.Fatal(err)
	}
	fx.Write(".mcp.json", `{
  "mcpServers": {
    "other": {"command": "other-server", "args": ["--flag"]},
    "another": {"command": "x", "env": {"K": "v"}}
  },
  "someSetting": true
}`)
	origMCP := fx.Read(".mcp.json")

	out := fx.MustGloss("init")
	if !strings.Contains(out, "gloss is set up") {
		t.Errorf("init output:\n%s", out)
	}
	// The other tool's hook still runs, through the chain, on a real commit.
	fx.Commit("second", map[string]string{"a.txt": "a\n"})
	if log := fx.Read(".git/other-tool.log"); !strings.Contains(log, "other tool ran with 0 args") {
		t.Errorf("chained hook did not run: %q", log)
	}
	if hl := fx.Read(".git/gloss/hooks.log"); !strings.Contains(hl, "post-commit") || !strings.Contains(hl, " ok") {
		t.Errorf("gloss hook did not run: %q", hl)
	}

	var mcp map[string]any
	if err := json.Unmarshal([]byte(fx.Read(".mcp.json")), &mcp); err != nil {
		t.Fatalf(".mcp.json no longer parses: %v", err)
	}
	servers := mcp["mcpServers"].(map[string]any)
	for _, name := range []string{"other", "another", "gloss"} {
		if servers[name] == nil {
			t.Errorf("server %q missing after init: %v", name, servers)
		}
	}
	if mcp["someSetting"] != true {
		t.Error("unrelated key lost")
	}
	gloss := servers["gloss"].(map[string]any)
	if gloss["command"] != "git-gloss" {
		t.Errorf("gloss entry = %v", gloss)
	}

	// Idempotent: a second init changes nothing.
	before := snapshot(t, fx)
	out = fx.MustGloss("init", "--json")
	if strings.Contains(out, `"installed"`) || strings.Contains(out, `"added"`) {
		t.Errorf("second init changed something: %s", out)
	}
	if after := snapshot(t, fx); after != before {
		t.Errorf("second init changed files or config:\nbefore %s\nafter  %s", before, after)
	}

	// Uninstall removes exactly what init added.
	fx.MustGloss("uninstall")
	if got := fx.Read(".git/hooks/post-commit"); got != otherHook {
		t.Errorf("original hook not restored: %q", got)
	}
	if _, err := os.Stat(fx.Path(".git/hooks/pre-push")); !os.IsNotExist(err) {
		t.Errorf("pre-push shim left behind: %v", err)
	}
	var after map[string]any
	if err := json.Unmarshal([]byte(fx.Read(".mcp.json")), &after); err != nil {
		t.Fatal(err)
	}
	var orig map[string]any
	_ = json.Unmarshal([]byte(origMCP), &orig)
	if a, b := mustJSON(after), mustJSON(orig); a != b {
		t.Errorf(".mcp.json after uninstall = %s, want %s", a, b)
	}
	for _, key := range []string{"notes.rewriteRef", "notes.displayRef", "gloss.setupVersion"} {
		if v, err := fx.GitErr("config", "--get-all", key); err == nil {
			t.Errorf("%s still set: %s", key, v)
		}
	}
}

func snapshot(t *testing.T, fx *fixtures.Repo) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(fx.Git("config", "--local", "--list"))
	for _, p := range []string{".mcp.json", ".git/hooks/post-commit", ".git/hooks/pre-push", ".git/hooks/post-rewrite", ".git/hooks/post-commit.gloss-chained"} {
		data, _ := os.ReadFile(fx.Path(p))
		b.WriteString("\n--" + p + "\n" + string(data))
	}
	return b.String()
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestInitRefusesUnparseableMCPConfig(t *testing.T) {
	fx := newRepo(t)
	broken := "{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\",}\n  }\n}\n"
	fx.Write(".mcp.json", broken)
	out, err := fx.Gloss("init")
	if err == nil {
		t.Fatalf("init succeeded on a broken .mcp.json:\n%s", out)
	}
	if !strings.Contains(out, "refusing to rewrite") || !strings.Contains(out, "line 3") {
		t.Errorf("unclear message: %s", out)
	}
	if fx.Read(".mcp.json") != broken {
		t.Error("broken .mcp.json was modified")
	}
	// Refused before changing anything: no hook, no config.
	if setup.IsShim(fx.Path(".git/hooks/post-commit")) {
		t.Error("init installed hooks before refusing the broken .mcp.json")
	}
	if cfg, _ := fx.GitErr("config", "--get-all", "notes.displayRef"); strings.Contains(cfg, "gloss") {
		t.Error("init set config before refusing the broken .mcp.json")
	}
	// --no-mcp still works, and hooks get installed.
	fx.MustGloss("init", "--no-mcp")
	if !setup.IsShim(fx.Path(".git/hooks/post-commit")) {
		t.Error("hooks not installed with --no-mcp")
	}
}

func TestInitHonoursCoreHooksPathAndWorktrees(t *testing.T) {
	fx := newRepo(t)
	hooksDir := filepath.Join(t.TempDir(), "my-hooks") // outside the working tree
	fx.Git("config", "core.hooksPath", hooksDir)
	if err := os.MkdirAll(hooksDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hooksDir, "pre-push"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	fx.MustGloss("init", "--no-mcp")
	for _, h := range setup.Hooks {
		if !setup.IsShim(filepath.Join(hooksDir, h)) {
			t.Errorf("%s not installed in core.hooksPath", h)
		}
	}
	if _, err := os.Stat(filepath.Join(hooksDir, "pre-push.gloss-chained")); err != nil {
		t.Errorf("existing hook not chained: %v", err)
	}
	if _, err := os.Stat(fx.Path(".git/hooks/post-commit")); err == nil {
		t.Error("hook written to .git/hooks although core.hooksPath is set")
	}
	fx.Commit("with hooksPath", map[string]string{"x": "x\n"})
	if hl := fx.Read(".git/gloss/hooks.log"); !strings.Contains(hl, "post-commit") {
		t.Errorf("hook in core.hooksPath did not run: %q", hl)
	}
}

// teamHook logs its own name to team.log in the git dir.
const teamHook = `#!/bin/sh
echo "team $(basename "$0")" >> "$(git rev-parse --git-dir)/team.log"
`

// A hooks folder tracked in git (husky) is the team's: init must not
// write to it, the next commit -a must not carry gloss into it, and the
// team's hooks must keep running.
func TestInitLeavesATrackedHooksFolderAlone(t *testing.T) {
	fx := newRepo(t)
	for _, h := range []string{"pre-commit", "post-commit", "commit-msg"} {
		fx.Write(".husky/"+h, teamHook)
		if err := os.Chmod(fx.Path(".husky/"+h), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fx.Git("add", ".husky")
	fx.Git("commit", "-q", "--no-verify", "-m", "team hooks")
	fx.Git("config", "core.hooksPath", ".husky")

	out := fx.MustGloss("init", "--no-mcp")
	if st := fx.Git("status", "--porcelain", "--untracked-files=all", "--", ":!.gloss"); st != "" {
		t.Fatalf("init changed the working tree:\n%s\ninit said:\n%s", st, out)
	}
	fx.Write("README", "changed\n")
	fx.Git("commit", "-a", "-q", "-m", "work")
	if changed := fx.Git("diff", "--name-only", "HEAD~1", "HEAD"); strings.TrimSpace(changed) != "README" {
		t.Errorf("commit -a carried more than the user's change:\n%s", changed)
	}
	if log := fx.Read(".git/team.log"); strings.Count(log, "team pre-commit") != 1 || strings.Count(log, "team commit-msg") != 1 || strings.Count(log, "team post-commit") != 1 {
		t.Errorf("the team's hooks did not each run once: %q", log)
	}
	if hl := fx.Read(".git/gloss/hooks.log"); !strings.Contains(hl, "post-commit") {
		t.Errorf("gloss's post-commit did not run: %q", hl)
	}
	if again := fx.MustGloss("init", "--no-mcp", "--json"); strings.Contains(again, `"installed"`) || strings.Contains(again, `"updated"`) {
		t.Errorf("second init changed hooks: %s", again)
	}

	fx.MustGloss("uninstall")
	if got := strings.TrimSpace(fx.Git("config", "core.hooksPath")); got != ".husky" {
		t.Errorf("core.hooksPath after uninstall = %q, want .husky", got)
	}
	if _, err := os.Stat(fx.Path(".git/gloss/hooks")); !os.IsNotExist(err) {
		t.Errorf("gloss's hooks folder left behind: %v", err)
	}
	if st := fx.Git("status", "--porcelain", "--untracked-files=all", "--", ":!.gloss"); st != "" {
		t.Errorf("uninstall changed the working tree:\n%s", st)
	}
}

// gloss's own clone commits gloss shims in .githooks: init finds them and
// installs nothing (gloss would run twice).
func TestInitAcceptsTrackedGlossShims(t *testing.T) {
	fx := newRepo(t)
	for _, h := range setup.Hooks {
		fx.Write(".githooks/"+h, setup.RepoShim(h))
		if err := os.Chmod(fx.Path(".githooks/"+h), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fx.Git("add", ".githooks")
	fx.Git("commit", "-q", "--no-verify", "-m", "shims")
	fx.Git("config", "core.hooksPath", ".githooks")
	out := fx.MustGloss("init", "--no-mcp", "--json")
	if strings.Contains(out, `"installed"`) || !strings.Contains(out, `"tracked"`) {
		t.Errorf("init over tracked gloss shims: %s", out)
	}
	if got := strings.TrimSpace(fx.Git("config", "core.hooksPath")); got != ".githooks" {
		t.Errorf("core.hooksPath = %q", got)
	}
	fx.Commit("one", map[string]string{"o": "o\n"})
	if hl := fx.Read(".git/gloss/hooks.log"); strings.Count(hl, "post-commit") != 1 {
		t.Errorf("post-commit ran %d times, want once: %q", strings.Count(hl, "post-commit"), hl)
	}
}

func TestInitFromLinkedWorktree(t *testing.T) {
	fx := newRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	fx.Git("worktree", "add", "-q", "-b", "feature", wt)
	w := &fixtures.Repo{T: t, Dir: wt, Env: fx.Env}
	w.MustGloss("init", "--no-mcp")
	if !setup.IsShim(fx.Path(".git/hooks/post-commit")) {
		t.Fatal("init from a worktree did not install into the shared hooks directory")
	}
	w.Commit("in worktree", map[string]string{"w.txt": "w\n"})
	fx.Commit("in main checkout", map[string]string{"m.txt": "m\n"})
	if hl := fx.Read(".git/gloss/hooks.log"); strings.Count(hl, "post-commit") != 2 {
		t.Errorf("hooks did not run in both checkouts: %q", hl)
	}
}

func TestInitAddsFetchRefspecsButNeverPush(t *testing.T) {
	fx := newRepo(t)
	bare := fixtures.NewBare(t)
	fx.Git("remote", "add", "origin", bare)
	fx.Git("remote", "add", "backup", bare)
	fx.MustGloss("init", "--no-mcp")
	cfg := fx.Git("config", "--get-regexp", `^remote\.`)
	for _, want := range []string{
		"remote.origin.fetch +refs/notes/gloss/*:refs/notes/remotes/origin/gloss/*",
		"remote.backup.fetch +refs/notes/gloss/*:refs/notes/remotes/backup/gloss/*",
		"remote.origin.fetch +refs/heads/*:refs/remotes/origin/*",
	} {
		if !strings.Contains(cfg, want) {
			t.Errorf("missing %q in\n%s", want, cfg)
		}
	}
	if strings.Contains(cfg, ".push") || strings.Contains(cfg, "+refs/notes/gloss/*:refs/notes/gloss/*") {
		t.Errorf("init added a push refspec or a forced fetch into the live ref:\n%s", cfg)
	}
	// A plain push still pushes the branch.
	fx.Commit("more", map[string]string{"b": "b\n"})
	fx.Git("push", "-q", "origin", "main")
	if got := fx.Git("ls-remote", bare, "refs/heads/main"); !strings.HasPrefix(got, fx.Git("rev-parse", "HEAD")) {
		t.Errorf("branch not pushed: %s", got)
	}
}

func TestMCPInstallClientsAndGlobal(t *testing.T) {
	fx := newRepo(t)
	fx.MustGloss("mcp", "install", "--client", "cursor")
	fx.MustGloss("mcp", "install", "--client", "vscode")
	var cursor, vscode map[string]map[string]any
	if err := json.Unmarshal([]byte(fx.Read(".cursor/mcp.json")), &cursor); err != nil {
		t.Fatal(err)
	}
	if cursor["mcpServers"]["gloss"] == nil {
		t.Errorf("cursor config: %v", cursor)
	}
	if err := json.Unmarshal([]byte(fx.Read(".vscode/mcp.json")), &vscode); err != nil {
		t.Fatal(err)
	}
	if vscode["servers"]["gloss"] == nil {
		t.Errorf("vscode config: %v", vscode)
	}
	fx.MustGloss("mcp", "install", "--client", "claude", "--global")
	home := ""
	for _, kv := range fx.Env {
		if strings.HasPrefix(kv, "HOME=") {
			home = strings.TrimPrefix(kv, "HOME=")
		}
	}
	global, err := os.ReadFile(filepath.Join(home, ".claude.json"))
	if err != nil || !strings.Contains(string(global), `"gloss"`) {
		t.Errorf("global claude config: %s, %v", global, err)
	}
	fx.MustGloss("uninstall")
	for _, p := range []string{".cursor", ".vscode"} {
		if _, err := os.Stat(fx.Path(p)); !os.IsNotExist(err) {
			t.Errorf("%s left behind by uninstall", p)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".claude.json")); !os.IsNotExist(err) {
		t.Errorf("global file created by gloss left behind")
	}
}

var updateShims = flag.Bool("update-shims", false, "rewrite .githooks/* from setup.Shim")

// gloss's own clone runs the shims in .githooks; they must be exactly what
// init installs, plus the fallback to the clone's bin/git-gloss. After changing the shims or the hook list, run
//
//	go test ./setup -run CommittedShims -update-shims
func TestCommittedShimsMatchGenerated(t *testing.T) {
	dir := filepath.Join(fixtures.ModuleRoot(), ".githooks")
	for _, h := range setup.Hooks {
		p := filepath.Join(dir, h)
		if *updateShims {
			if err := os.WriteFile(p, []byte(setup.RepoShim(h)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != setup.RepoShim(h) {
			t.Errorf(".githooks/%s differs from setup.RepoShim(%q); run go test ./setup -run CommittedShims -update-shims", h, h)
		}
	}
}

// withoutGloss returns fx's environment with a PATH that has git and sh
// but no git-gloss.
func withoutGloss(t *testing.T, fx *fixtures.Repo) *fixtures.Repo {
	t.Helper()
	c := *fx
	c.Env = nil
	for _, kv := range fx.Env {
		if !strings.HasPrefix(kv, "PATH=") {
			c.Env = append(c.Env, kv)
		}
	}
	c.Env = append(c.Env, "PATH=/usr/bin:/bin")
	if out, err := c.Run("sh", "-c", "command -v git-gloss"); err == nil {
		t.Skipf("git-gloss is installed system-wide at %s", out)
	}
	return &c
}

func TestShimSaysOncePerCommitWhenGlossIsMissing(t *testing.T) {
	fx := newRepo(t)
	fx.MustGloss("init", "--no-mcp")
	bare := withoutGloss(t, fx)
	out, err := bare.GitErr("commit", "--allow-empty", "-m", "without git-gloss")
	if err != nil {
		t.Fatalf("commit failed without git-gloss: %v\n%s", err, out)
	}
	if n := strings.Count(out, "gloss: this commit is not annotated: git-gloss is not on PATH"); n != 1 {
		t.Errorf("want exactly one line saying the commit is not annotated, got %d in:\n%s", n, out)
	}
}

func TestRepoShimsFallBackToTheClonesBinary(t *testing.T) {
	fx := newRepo(t)
	for _, h := range setup.Hooks {
		data, err := os.ReadFile(filepath.Join(fixtures.ModuleRoot(), ".githooks", h))
		if err != nil {
			t.Fatal(err)
		}
		fx.Write(".githooks/"+h, string(data))
		if err := os.Chmod(fx.Path(".githooks/"+h), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fx.Git("config", "core.hooksPath", ".githooks")
	bin, err := os.ReadFile(fixtures.Binary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(fx.Path("bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fx.Path("bin/git-gloss"), bin, 0o755); err != nil {
		t.Fatal(err)
	}
	fx.Write(".gitignore", "/bin/\n")
	out, err := withoutGloss(t, fx).GitErr("commit", "--allow-empty", "-m", "dogfood")
	if err != nil {
		t.Fatalf("commit: %v\n%s", err, out)
	}
	if strings.Contains(out, "not annotated") {
		t.Errorf("the clone's bin/git-gloss was not used: %s", out)
	}
	if hl := fx.Read(".git/gloss/hooks.log"); !strings.Contains(hl, "post-commit") {
		t.Errorf("post-commit did not run through bin/git-gloss: %q", hl)
	}
}

func TestUninstallGivesBackTheMCPConfigBytes(t *testing.T) {
	for _, tc := range []struct{ name, file string }{
		{"hand formatted", "{\n    \"someSetting\" : true,\n\t\"mcpServers\":{ \"other\":{\"command\":\"other-server\",\"args\":[\"--flag\"]},\n      \"another\": {\"command\": \"x\",   \"env\": {\"K\": \"v\"}}   },\n  \"z\": [1,2,3]\n}"},
		{"servers on lines", "{\n  \"mcpServers\": {\n    \"other\": {\n      \"command\": \"o\"\n    }\n  }\n}\n"},
		{"no servers key", "{\"theme\":\"dark\"}\n"},
		{"empty servers", "{ \"mcpServers\": {} }"},
		{"empty object", "{}"},
		{"no file", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newRepo(t)
			if tc.file != "" {
				fx.Write(".mcp.json", tc.file)
			}
			fx.MustGloss("init")
			var cfg struct {
				MCPServers map[string]map[string]any `json:"mcpServers"`
			}
			if err := json.Unmarshal([]byte(fx.Read(".mcp.json")), &cfg); err != nil || cfg.MCPServers["gloss"]["command"] != "git-gloss" {
				t.Fatalf("after init: %v\n%s", err, fx.Read(".mcp.json"))
			}
			fx.MustGloss("uninstall")
			data, err := os.ReadFile(fx.Path(".mcp.json"))
			switch {
			case tc.file == "" && !os.IsNotExist(err):
				t.Errorf(".mcp.json that init created left behind: %q", data)
			case tc.file != "" && string(data) != tc.file:
				t.Errorf(".mcp.json after init and uninstall:\n%s\nwant the original bytes:\n%s", data, tc.file)
			}
		})
	}
}

func TestUninstallRemovesOnlyTheUntouchedNotebookScaffold(t *testing.T) {
	fx := newRepo(t)
	fx.MustGloss("init", "--no-mcp", "--notebook")
	if _, err := os.Stat(fx.Path(".gloss/notebook/index.md")); err != nil {
		t.Fatalf("init did not scaffold the notebook: %v", err)
	}
	fx.Write(".gloss/notebook/notes/mine.md", "# mine\n")
	fx.MustGloss("uninstall")
	if got := fx.Read(".gloss/notebook/notes/mine.md"); got != "# mine\n" {
		t.Errorf("user's note changed: %q", got)
	}
	for _, p := range []string{".gloss/notebook/index.md", ".gloss/notebook/kits", ".gloss/notebook/diagrams"} {
		if _, err := os.Stat(fx.Path(p)); !os.IsNotExist(err) {
			t.Errorf("%s left behind: %v", p, err)
		}
	}

	// Nothing left of the scaffold when nobody touched it.
	fx2 := newRepo(t)
	fx2.MustGloss("init", "--no-mcp", "--notebook")
	fx2.MustGloss("uninstall")
	if _, err := os.Stat(fx2.Path(".gloss")); !os.IsNotExist(err) {
		t.Errorf(".gloss left behind by init then uninstall: %v", err)
	}

	// A changed index and a committed scaffold are the team's.
	fx3 := newRepo(t)
	fx3.MustGloss("init", "--no-mcp", "--notebook")
	fx3.Git("add", ".gloss/notebook/kits")
	fx3.Git("commit", "-q", "--no-verify", "-m", "keep kits")
	fx3.Write(".gloss/notebook/index.md", "# our notebook\n")
	fx3.MustGloss("uninstall")
	if got := fx3.Read(".gloss/notebook/index.md"); got != "# our notebook\n" {
		t.Errorf("changed index.md: %q", got)
	}
	if _, err := os.Stat(fx3.Path(".gloss/notebook/kits/.gitkeep")); err != nil {
		t.Errorf("committed scaffold removed: %v", err)
	}
}

// Right after init, before any annotation exists, git log and git show
// print no warning about gloss's notes ref (issue 20 item 6): init sets
// no notes.displayRef to a ref that does not exist yet.
func TestNoNotesWarningRightAfterInit(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)
	fx.MustGloss("init", "--no-mcp")
	for _, args := range [][]string{{"log", "-1"}, {"show", "--stat", "HEAD"}, {"log", "--oneline"}} {
		cmd := fx.Command("git", args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		if stderr.Len() > 0 {
			t.Errorf("git %v warns right after init:\n%s", args, stderr.String())
		}
	}
}

// TestReinitTakesBackTheDisplayRefAnEarlierInitSet: setups before v3 set
// notes.displayRef to the annotations ref, so every git log printed raw
// JSON records. Init no longer sets it, and running it again removes the
// one an earlier init recorded in its manifest; one the user set is kept.
func TestReinitTakesBackTheDisplayRefAnEarlierInitSet(t *testing.T) {
	t.Parallel()
	const ref = "refs/notes/gloss/annotations"
	for _, byGloss := range []bool{true, false} {
		fx := newRepo(t)
		fx.MustGloss("init", "--no-mcp")
		if v, err := fx.GitErr("config", "--get-all", "notes.displayRef"); err == nil {
			t.Fatalf("init set notes.displayRef = %s", v)
		}
		// What a v2 init left: the value, and (when gloss set it) its
		// manifest entry.
		fx.Git("config", "--add", "notes.displayRef", ref)
		fx.Git("config", "gloss.setupVersion", "2")
		if byGloss {
			path := fx.Path(".git/gloss/install.json")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			cfg, _ := m["config"].([]any)
			m["config"] = append(cfg, map[string]any{"key": "notes.displayRef", "value": ref, "action": "added"})
			data, _ = json.Marshal(m)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if st := fx.MustGloss("status", "--json"); !strings.Contains(st, "notes.displayRef makes git log print raw gloss JSON") {
			t.Errorf("status gives no hint about notes.displayRef: %s", st)
		}
		out := fx.MustGloss("init", "--no-mcp", "--json")
		v, err := fx.GitErr("config", "--get-all", "notes.displayRef")
		switch {
		case byGloss && err == nil:
			t.Errorf("re-init kept the notes.displayRef an earlier init set: %s", v)
		case byGloss && !strings.Contains(out, `{"key":"notes.displayRef","value":"refs/notes/gloss/annotations","action":"removed"}`):
			t.Errorf("re-init does not report the removal: %s", out)
		case !byGloss && strings.TrimSpace(v) != ref:
			t.Errorf("re-init removed a notes.displayRef the user set (%v): %q", err, v)
		}
		if data, _ := os.ReadFile(fx.Path(".git/gloss/install.json")); strings.Contains(string(data), "displayRef") {
			t.Errorf("manifest still lists notes.displayRef: %s", data)
		}
	}
}

// The shims start no program but git-gloss: each process is paid on every
// commit. Run with a PATH that holds git-gloss and git alone, the prepare-commit-msg
// shim decides from the shell alone that gloss has no work (no squash, no
// AI-Share trailer in the team file) and starts nothing; when the team file
// names the trailer it asks git-gloss (hooks.log says it ran).
func TestShimsStartNoOtherProgram(t *testing.T) {
	fx := newRepo(t)
	fx.MustGloss("init", "--no-mcp")
	shell, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() // git-gloss and the git it runs: no dirname, no grep
	for name, target := range map[string]string{"git-gloss": fixtures.Binary(t), "git": git} {
		if err := os.Symlink(target, filepath.Join(path, name)); err != nil {
			t.Fatal(err)
		}
	}
	ran := func() bool {
		t.Helper()
		before, _ := os.ReadFile(fx.Path(".git/gloss/hooks.log"))
		// The fixture's environment (a coverage build keeps its
		// GOCOVERDIR) with that PATH.
		cmd := fx.Command(shell, ".git/hooks/prepare-commit-msg", ".git/COMMIT_EDITMSG", "message")
		cmd.Env = append(slices.DeleteFunc(slices.Clone(cmd.Env), func(kv string) bool { return strings.HasPrefix(kv, "PATH=") }), "PATH="+path)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("prepare-commit-msg: %v\n%s", err, out)
		}
		after, _ := os.ReadFile(fx.Path(".git/gloss/hooks.log"))
		return strings.Count(string(after), "prepare-commit-msg") > strings.Count(string(before), "prepare-commit-msg")
	}
	if ran() {
		t.Error("no team file: the shim started git-gloss")
	}
	fx.Write(".gloss/config.toml", strings.Repeat("# a team's notes\n", 50)+"[review]\nai_share_trailer = true\n")
	if !ran() {
		t.Error("the team file turns the trailer on: the shim did not start git-gloss")
	}
	fx.Write(".gloss/config.toml", "[review]\n")
	if ran() {
		t.Error("a team file without the trailer: the shim started git-gloss")
	}
	// Too long to read in the shell: git-gloss decides (and, finding
	// nothing to do, writes nothing); the shim still says nothing.
	fx.Write(".gloss/config.toml", strings.Repeat("# a team's notes\n", 3000))
	ran()
}
