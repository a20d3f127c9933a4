// Package hostile tries, through both front doors (the CLI and MCP), the
// attacks a committed file can carry: symlinks into .git, committed
// config pointing a store into .git, sidecars that are links. Each attack
// must be refused by the one resolver, leave every byte under .git and
// outside the working tree as it was, and run no injected command.
package hostile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// snapshot hashes every file, link and mode under dir. skip names
// subtrees (relative, slash-separated) that are gloss's own state.
func snapshot(t *testing.T, dir string, skip ...string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		for _, s := range skip {
			if rel == s {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			lines = append(lines, rel+" -> "+target)
		case d.IsDir():
			lines = append(lines, rel+"/")
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			lines = append(lines, rel+" "+info.Mode().String()+" "+hex.EncodeToString(sum[:]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// diffLines names what changed between two snapshots.
func diffLines(a, b string) []string {
	seen := map[string]int{}
	for _, l := range strings.Split(a, "\n") {
		seen[l]--
	}
	for _, l := range strings.Split(b, "\n") {
		seen[l]++
	}
	var out []string
	for l, n := range seen {
		if n != 0 {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

// world is a repository set up by gloss with a hostile commit in it, an
// MCP session on it, and a directory outside it that nothing may touch.
type world struct {
	t       *testing.T
	repo    *fixtures.Repo
	mcp     *fixtures.MCPSession
	outside string
	gitSum  string
	outSum  string
}

// gitSkip is gloss's own state under .git (locks and caches), which is
// allowed to change; everything else there is not.
var gitSkip = []string{"gloss"}

func newWorld(t *testing.T, files map[string]string, links map[string]string) *world {
	t.Helper()
	r := fixtures.NewRepo(t)
	r.Commit("base", map[string]string{"README.md": "# demo\n"})
	r.MustGloss("init")
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", "gloss init")
	for p, c := range files {
		r.Write(p, c)
	}
	for link, target := range links {
		if err := os.MkdirAll(filepath.Dir(r.Path(link)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, r.Path(link)); err != nil {
			t.Fatal(err)
		}
	}
	r.Git("add", "-A")
	r.Git("commit", "-qm", "hostile content")
	outside := filepath.Join(filepath.Dir(r.Dir), "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.noma"), []byte("# Secret\n\nkeep out\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, repo: r, outside: outside}
	w.mcp = r.StartMCP("--toolsets", "all")
	w.gitSum = snapshot(t, r.Path(".git"), gitSkip...)
	w.outSum = snapshot(t, outside)
	return w
}

// cli runs an attack through the CLI; it must fail.
func (w *world) cli(name string, args ...string) {
	w.t.Helper()
	out, err := w.repo.Gloss(args...)
	if err == nil {
		w.t.Errorf("%s: CLI accepted `git gloss %s`:\n%s", name, strings.Join(args, " "), out)
	}
	w.intact(name + " (CLI)")
}

// tool runs an attack through MCP; it must be refused (an error result,
// a protocol error, or a Noma refusal that wrote nothing).
func (w *world) tool(name, tool string, args any) {
	w.t.Helper()
	res, err := w.mcp.CallErr(tool, args)
	if err == nil && !res.IsError {
		w.t.Errorf("%s: MCP %s accepted: %s", name, tool, res.Text)
	}
	w.intact(name + " (MCP)")
}

// intact checks that nothing under .git (but gloss's own state) and
// nothing outside the working tree changed, and that git still works.
func (w *world) intact(name string) {
	w.t.Helper()
	if got := snapshot(w.t, w.repo.Path(".git"), gitSkip...); got != w.gitSum {
		w.t.Errorf("%s: .git changed: %v", name, diffLines(w.gitSum, got))
		w.gitSum = got
	}
	if got := snapshot(w.t, w.outside); got != w.outSum {
		w.t.Errorf("%s: a file outside the repository changed", name)
		w.outSum = got
	}
	if out, err := w.repo.GitErr("status", "--porcelain"); err != nil {
		w.t.Fatalf("%s: git no longer works: %v %s", name, err, out)
	}
}

// noInjectedCommand makes a real commit and checks that nothing the
// attacks tried to plant ran.
func (w *world) noInjectedCommand() {
	w.t.Helper()
	w.repo.Commit("after the attacks", map[string]string{"after.txt": "x\n"})
	if _, err := os.Stat(w.repo.Path("PWNED")); err == nil {
		w.t.Fatal("an injected command ran on commit")
	}
}

func op(v string) map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(v), &m); err != nil {
		panic(err)
	}
	return m
}

// A committed symlink gitlink -> .git. Patching, reading or logging
// anything through it is refused, through both doors.
func TestSymlinkIntoGitDir(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil, map[string]string{"gitlink": ".git"})
	r := w.repo

	// The attack is real: on a plain copy of the hook, the op applies.
	hook, err := os.ReadFile(r.Path(".git/hooks/post-commit"))
	if err != nil {
		t.Fatal(err)
	}
	r.Write("probe.noma", string(hook))
	ids := w.mcp.Call("list_ids", map[string]any{"file": "probe.noma"})
	var list struct{ IDs []string }
	if err := json.Unmarshal([]byte(ids.Text), &list); err != nil || len(list.IDs) == 0 {
		t.Fatalf("the hook shim has no block id to aim at: %s %v", ids.Text, err)
	}
	inject := `{"op":"add_block","parent":"` + list.IDs[0] + `","content":"::note{id=\"pwn\"}\ntouch PWNED\n::"}`
	if res := w.mcp.Call("patch_block", map[string]any{"file": "probe.noma", "op": op(inject)}); !strings.Contains(res.Text, `"ok":true`) {
		t.Fatalf("the injection does not apply to a plain file, so the test would prove nothing: %s", res.Text)
	}
	r.Git("add", "-A")
	r.Git("commit", "-qm", "probe")
	w.gitSum = snapshot(t, r.Path(".git"), gitSkip...)

	abs := r.Path("gitlink/hooks/post-commit")
	for _, target := range []string{"gitlink/hooks/post-commit", abs, "./gitlink/../gitlink/hooks/post-commit"} {
		w.cli("patch hook "+target, "doc", "patch", target, "--op", inject)
		w.tool("patch hook "+target, "patch_block", map[string]any{"file": target, "op": op(inject)})
	}
	reject := `{"op":"delete_block","id":"nope"}`
	w.cli("patch config", "doc", "patch", "gitlink/config", "--op", reject)
	w.tool("patch config", "patch_block", map[string]any{"file": "gitlink/config", "op": op(reject)})
	w.tool("patch list config", "patch_block_list", map[string]any{"file": "gitlink/config", "ops": []any{op(reject)}})
	for _, verb := range []string{"read", "ids", "check", "log", "replay"} {
		w.cli("doc "+verb, "doc", verb, "gitlink/config")
	}
	for _, tool := range []string{"read_doc", "list_ids", "validate_doc", "transcript_read"} {
		w.tool(tool, tool, map[string]any{"file": "gitlink/config"})
	}
	w.cli("read", "read", "gitlink/config")
	w.tool("gloss_read", "gloss_read", map[string]any{"path": "gitlink/config"})
	w.cli("ops file", "doc", "patch", "probe.noma", "--ops", "gitlink/config")
	w.cli("spec validate", "spec", "validate", "gitlink/config")
	w.noInjectedCommand()
}

// A transcript that is a link into .git: a patch, even a rejected one,
// would append JSON to .git/config and break every git command.
func TestTranscriptLinkIntoGitDir(t *testing.T) {
	t.Parallel()
	doc := "# Doc\n\n::claim{id=\"c1\"}\nText.\n::\n"
	w := newWorld(t, map[string]string{"docs/z.noma": doc}, map[string]string{"docs/z.noma.patches": "../.git/config"})
	ok := `{"op":"update_attribute","id":"c1","key":"confidence","value":0.5}`
	bad := `{"op":"delete_block","id":"nope"}`
	for _, o := range []string{ok, bad} {
		w.cli("patch", "doc", "patch", "docs/z.noma", "--op", o)
		w.tool("patch", "patch_block", map[string]any{"file": "docs/z.noma", "op": op(o)})
	}
	w.cli("log", "doc", "log", "docs/z.noma")
	w.tool("transcript", "transcript_read", map[string]any{"file": "docs/z.noma"})
	if got := w.repo.Read("docs/z.noma"); got != doc {
		t.Errorf("the document changed although its transcript could not be written:\n%s", got)
	}
	// A transcript linked to another file of the tree is refused as well:
	// records never land in a file that is not the document's own.
	w.repo.Write("other.noma", doc)
	if err := os.Symlink("../README.md", w.repo.Path("docs/y.noma.patches")); err != nil {
		t.Fatal(err)
	}
	w.repo.Write("docs/y.noma", doc)
	w.cli("patch via link to README", "doc", "patch", "docs/y.noma", "--op", ok)
	if got := w.repo.Read("README.md"); got != "# demo\n" {
		t.Errorf("README.md got transcript records: %q", got)
	}
	w.noInjectedCommand()
}

// Committed config can name any folder: the notebook, the tasks and the
// snapshot must still never land in .git.
func TestCommittedConfigPointsIntoGitDir(t *testing.T) {
	t.Parallel()
	w := newWorld(t, map[string]string{
		".gloss/config.toml": "[notebook]\npath = \"gitlink/gloss\"\n",
	}, map[string]string{
		"gitlink":                          ".git",
		".gloss/reconciliation_state.json": "../.git/hooks/pre-push",
	})
	w.tool("update_note", "update_note", map[string]any{"path": "install.json", "content": "{}"})
	w.tool("create_note", "create_note", map[string]any{"name": "pwn", "content": "x"})
	w.cli("note create", "note", "create", "pwn", "-m", "x")
	w.cli("note list", "note", "list")
	w.cli("spec snapshot", "spec", "snapshot")
	w.tool("snapshot_state", "snapshot_state", map[string]any{})
	w.noInjectedCommand()
}

// A task folder that is a link into .git would turn `task add` into a new
// branch ref.
func TestTaskFolderLinkIntoGitDir(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil, map[string]string{".gloss/tasks": "../.git/refs/heads"})
	w.cli("task add", "task", "add", "pwn")
	w.tool("task_add", "task_add", map[string]any{"description": "pwn"})
	w.cli("task list", "task", "list")
	w.noInjectedCommand()
}

// A fresh clone of a hostile repository: init must not scaffold the
// notebook into .git nor write .mcp.json through a link into it.
func TestInitInHostileClone(t *testing.T) {
	t.Parallel()
	src := fixtures.NewRepo(t)
	src.Commit("base", map[string]string{
		"README.md":          "# demo\n",
		".gloss/config.toml": "[notebook]\npath = \"gitlink/refs/heads\"\n",
	})
	for link, target := range map[string]string{"gitlink": ".git", ".mcp.json": ".git/hooks/pre-commit"} {
		if err := os.Symlink(target, src.Path(link)); err != nil {
			t.Fatal(err)
		}
	}
	src.Git("add", "-A")
	src.Git("commit", "-qm", "hostile")
	bare := fixtures.NewBare(t)
	src.Git("push", "-q", bare, "main")
	c := fixtures.Clone(t, bare)
	heads := snapshot(t, c.Path(".git/refs/heads"))
	_, _ = c.Gloss("init")
	if got := snapshot(t, c.Path(".git/refs/heads")); got != heads {
		t.Errorf("init wrote into .git/refs/heads: %v", diffLines(heads, got))
	}
	if data, err := os.ReadFile(c.Path(".git/hooks/pre-commit")); err == nil && strings.Contains(string(data), "mcpServers") {
		t.Errorf("init wrote .mcp.json through a link into .git/hooks/pre-commit")
	}
	if out, err := c.GitErr("status"); err != nil {
		t.Fatalf("git broken after init: %v %s", err, out)
	}
}

// In a clone whose own files make part of the setup unsafe, init sets up
// the rest, says what it skipped and exits 0 — never an error after half
// the setup — and uninstall then takes back everything it did. Each case
// is a clone of its own: a client file linked into .git or a directory,
// .gloss linked into .git or out of the repository, the notebook folder
// linked into .git, a team hooks folder (core.hooksPath) linked out of the
// repository.
func TestInitSkipsWhatIsUnsafeAndFinishesTheRest(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	cases := []struct {
		name    string
		links   map[string]string
		files   map[string]string
		hooks   string // core.hooksPath to set in the clone
		skipped string
	}{
		{name: "mcp into .git", links: map[string]string{".mcp.json": ".git/hooks/pre-commit"}, skipped: "mcp claude"},
		{name: "mcp is a folder", files: map[string]string{".mcp.json/x": ""}, skipped: "mcp claude"},
		{name: ".gloss into .git", links: map[string]string{".gloss": ".git"}, skipped: "notebook"},
		{name: ".gloss outside", links: map[string]string{".gloss": outside}, skipped: "notebook"},
		{name: "notebook into .git", links: map[string]string{".gloss/notebook": "../.git/refs/heads"}, skipped: "notebook"},
		{name: "hooks outside", links: map[string]string{".githooks": outside}, hooks: ".githooks"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := fixtures.NewRepo(t)
			src.Commit("base", map[string]string{"README.md": "# demo\n"})
			for p, c := range tc.files {
				src.Write(p, c)
			}
			for link, target := range tc.links {
				if err := os.MkdirAll(filepath.Dir(src.Path(link)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, src.Path(link)); err != nil {
					t.Fatal(err)
				}
			}
			src.Git("add", "-A")
			src.Git("commit", "-qm", "hostile")
			bare := fixtures.NewBare(t)
			src.Git("push", "-q", bare, "main")
			c := fixtures.Clone(t, bare)
			if tc.hooks != "" {
				c.Git("config", "core.hooksPath", tc.hooks)
			}
			heads := snapshot(t, c.Path(".git/refs/heads"))
			outSum := snapshot(t, outside)
			// --notebook: the notebook scaffold is one of the things
			// a hostile clone may make unsafe.
			out, err := c.Gloss("init", "--json", "--notebook")
			if err != nil {
				t.Fatalf("init failed after changing things: %v\n%s", err, out)
			}
			var res struct {
				Hooks   []struct{ Action string }
				Skipped []struct{ What, Reason string }
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if len(res.Hooks) == 0 {
				t.Errorf("the hooks were not set up: %s", out)
			}
			if tc.skipped != "" && (len(res.Skipped) != 1 || res.Skipped[0].What != tc.skipped || res.Skipped[0].Reason == "") {
				t.Errorf("skipped %+v, want %s with its reason", res.Skipped, tc.skipped)
			}
			if got := snapshot(t, c.Path(".git/refs/heads")); got != heads {
				t.Errorf("init wrote into .git/refs/heads: %v", diffLines(heads, got))
			}
			if got := snapshot(t, outside); got != outSum {
				t.Errorf("init wrote outside the repository: %v", diffLines(outSum, got))
			}
			if data, err := os.ReadFile(c.Path(".git/hooks/pre-commit")); err == nil && strings.Contains(string(data), "mcpServers") {
				t.Errorf("init wrote .mcp.json through a link into .git/hooks/pre-commit")
			}
			// What init did, uninstall takes back: it was all recorded.
			c.MustGloss("uninstall")
			if cfg, _ := c.GitErr("config", "--get-regexp", "gloss|notes\\.(rewriteRef|displayRef)|core\\.hookspath"); strings.Contains(cfg, "refs/notes/gloss") || strings.Contains(cfg, ".git/gloss/hooks") {
				t.Errorf("config left after uninstall:\n%s", cfg)
			}
			for _, h := range []string{"post-commit", "pre-push"} {
				if data, err := os.ReadFile(c.Path(".git/hooks/" + h)); err == nil && strings.Contains(string(data), "gloss") {
					t.Errorf("hook %s left after uninstall", h)
				}
			}
		})
	}
}

// A symlinked task file is listed with a problem, like a file whose
// frontmatter does not parse, and never stops the other task commands;
// a note name with a NUL byte is refused, not rewritten.
func TestOddFilesAndNamesAreReportedNotFatal(t *testing.T) {
	t.Parallel()
	w := newWorld(t, map[string]string{"elsewhere.md": "---\nstatus: pending\n---\n# Linked\n"},
		map[string]string{".gloss/tasks/2026-01-01-001-abc.md": "../../elsewhere.md"})
	r := w.repo
	r.MustGloss("task", "add", "A real task")
	out := r.MustGloss("task", "list", "--json")
	if !strings.Contains(out, "2026-01-01-001-abc") || !strings.Contains(out, "symbolic link") || !strings.Contains(out, "A real task") {
		t.Errorf("task list does not show both tasks, the link with its problem:\n%s", out)
	}
	if _, err := r.Gloss("task", "work", "001-abc"); err == nil {
		t.Errorf("a symlinked task can be started")
	}
	w.gitSum = snapshot(t, r.Path(".git"), gitSkip...) // task add committed, as it should
	w.tool("NUL name", "create_note", map[string]any{"name": "a\x00b", "content": "x"})
	if out, _ := r.Run("find", ".gloss/notebook", "-name", "a*b*"); strings.TrimSpace(out) != "" {
		t.Errorf("a note was written for a NUL name: %s", out)
	}
}
