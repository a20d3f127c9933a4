package safepath_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/safepath"
)

// The resolver follows links one component at a time inside the tree and
// refuses what leads out of it or into a git directory.
func TestTreeResolve(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	for _, d := range []string{".git/hooks", "docs/sub", "vendor/lib/.git"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"gitlink":         ".git",
		"docs/up":         "..",
		"docs/hooks":      "../.git/hooks",
		"docs/chain":      "up/docs/sub",
		"loop":            "loop",
		"abs-in":          filepath.Join(dir, "docs"),
		"abs-out":         outside,
		"rel-out":         "../outside",
		"nested-git":      "vendor/lib/.git",
		"docs/x.noma":     "sub/y.noma",
		"docs/missing-ok": "sub/not-yet",
	}
	for link, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	tree, err := safepath.OpenWorkTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	for _, tc := range []struct {
		in, want string
		err      error
	}{
		{"docs/a.md", "docs/a.md", nil},
		{"docs/chain/f", "docs/sub/f", nil},
		{"docs/up/docs/up/README.md", "README.md", nil},
		{"abs-in/z", "docs/z", nil},
		{"docs/x.noma", "docs/sub/y.noma", nil},
		{"docs/missing-ok/deeper/file", "docs/sub/not-yet/deeper/file", nil},
		{filepath.Join(dir, "docs", "chain", "f"), "docs/sub/f", nil},
		{"gitlink/config", "", safepath.ErrGitDir},
		{"docs/hooks/post-commit", "", safepath.ErrGitDir},
		{"docs/up/gitlink/hooks", "", safepath.ErrGitDir},
		{"nested-git/config", "", safepath.ErrGitDir},
		{"abs-out/x", "", safepath.ErrEscape},
		{"rel-out/x", "", safepath.ErrEscape},
		{"loop/x", "", safepath.ErrLoop},
		{"../x", "", safepath.ErrEscape},
	} {
		got, err := tree.Resolve(tc.in)
		if !errors.Is(err, tc.err) || got != tc.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q, %v", tc.in, got, err, tc.want, tc.err)
		}
	}
	// A store's scope: a path may not leave it, even through a link
	// inside the tree.
	if _, err := tree.ResolveIn("docs/sub", "../../README.md"); !errors.Is(err, safepath.ErrEscape) {
		t.Errorf("ResolveIn left its scope: %v", err)
	}
	if _, err := tree.ResolveIn("docs", "up/README.md"); !errors.Is(err, safepath.ErrEscape) {
		t.Errorf("ResolveIn followed a link out of its scope: %v", err)
	}
	if got, err := tree.ResolveIn("docs", "chain/f"); err != nil || got != "docs/sub/f" {
		t.Errorf("ResolveIn(docs, chain/f) = %q, %v", got, err)
	}
}

// A linked worktree's .git is a file naming its git dir; that dir and the
// common dir are refused too, wherever they live.
func TestTreeRefusesAWorktreesGitDirs(t *testing.T) {
	common := t.TempDir()
	gitDir := filepath.Join(common, "worktrees", "wt")
	wt := t.TempDir()
	if err := os.MkdirAll(gitDir, 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(gitDir, "commondir"), []byte("../..\n"), 0o644)
	_ = os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+gitDir+"\n"), 0o644)
	tree, err := safepath.OpenWorkTree(wt)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	if _, err := tree.Resolve(".git"); !errors.Is(err, safepath.ErrGitDir) {
		t.Errorf(".git file: %v", err)
	}
	unlock, err := tree.Lock("docs/a.md")
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if _, err := os.Stat(filepath.Join(common, "gloss", "locks")); err != nil {
		t.Errorf("locks are not under the common git dir: %v", err)
	}
}

// A missing file is fault.NotFound and fs.ErrNotExist at once, with one
// message.
func TestReadMissingFile(t *testing.T) {
	tree, err := safepath.OpenWorkTree(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	_, err = tree.ReadFile("nope.md", 0)
	if fault.KindOf(err) != fault.NotFound || !errors.Is(err, fs.ErrNotExist) || err.Error() != "nope.md: no such file" {
		t.Errorf("ReadFile of a missing file: %v", err)
	}
}

// A write through the tree leaves no temporary file that a writer killed
// mid-write left beside its target (a killed `task update` did, in
// .gloss/tasks, for git status to show).
func TestWriteClearsAKilledWritersTemporary(t *testing.T) {
	dir := t.TempDir()
	tree, err := safepath.OpenWorkTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, "tasks", fmt.Sprintf(".t.md.tmp%d-0", gone.Process.Pid))
	if err := os.MkdirAll(filepath.Dir(stale), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := tree.WriteFile("tasks/t.md", []byte("whole\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the killed writer's temporary file is still there (%v)", err)
	}
}
