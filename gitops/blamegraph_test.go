package gitops_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
)

// branchyHistory makes a history with merges, renames on both sides of a
// merge, and files that move between directories: the cases where blame
// walks several parents and follows paths, and so where a commit-graph
// with changed-path filters changes the route blame takes.
func branchyHistory(t *testing.T, fx *fixtures.Repo) {
	t.Helper()
	tick(fx)
	fx.Commit("start", map[string]string{"a.go": numbered(40, "a"), "b.go": numbered(30, "b"), "lib/c.go": numbered(50, "c")})
	for i := 0; i < 3; i++ {
		tick(fx)
		fx.Git("checkout", "-q", "-b", fmt.Sprintf("side%d", i))
		fx.Git("mv", "a.go", fmt.Sprintf("moved%d.go", i))
		fx.Commit(fmt.Sprintf("side %d renames a", i), map[string]string{"lib/c.go": editNumbered(numbered(50, "c"), i, "side")})
		tick(fx)
		fx.Commit(fmt.Sprintf("side %d edits", i), map[string]string{fmt.Sprintf("moved%d.go", i): editNumbered(numbered(40, "a"), i+5, "side")})
		tick(fx)
		fx.Git("checkout", "-q", "-")
		fx.Commit(fmt.Sprintf("main %d", i), map[string]string{"b.go": editNumbered(fx.Read("b.go"), i*3, "main"), "a.go": editNumbered(fx.Read("a.go"), 30+i, "main")})
		tick(fx)
		fx.Git("merge", "-q", "--no-edit", "-X", "theirs", fmt.Sprintf("side%d", i))
		tick(fx)
		fx.Git("mv", fmt.Sprintf("moved%d.go", i), "a.go")
		fx.Commit(fmt.Sprintf("back %d", i), map[string]string{"lib/c.go": editNumbered(fx.Read("lib/c.go"), 20+i, "back")})
	}
	tick(fx)
	fx.Git("mv", "lib/c.go", "c.go")
	fx.Commit("flatten", map[string]string{"b.go": editNumbered(fx.Read("b.go"), 10, "last")})
}

// tick dates the next commits of fx a minute after the last ones, so that
// "newest first" has one answer.
func tick(fx *fixtures.Repo) {
	when := int64(1_700_000_000)
	for _, kv := range fx.Env {
		if v, ok := strings.CutPrefix(kv, "GIT_COMMITTER_DATE=@"); ok {
			fmt.Sscan(strings.Fields(v)[0], &when)
		}
	}
	when += 60
	fx.Env = slices.DeleteFunc(fx.Env, func(kv string) bool {
		return strings.HasPrefix(kv, "GIT_COMMITTER_DATE=") || strings.HasPrefix(kv, "GIT_AUTHOR_DATE=")
	})
	fx.Env = append(fx.Env, fmt.Sprintf("GIT_COMMITTER_DATE=@%d +0000", when), fmt.Sprintf("GIT_AUTHOR_DATE=@%d +0000", when))
}

// editNumbered replaces line i of s.
func editNumbered(s string, i int, tag string) string {
	lines := strings.SplitAfter(s, "\n")
	lines[i] = fmt.Sprintf("%s edit of line %d\n", tag, i)
	return strings.Join(lines, "")
}

// porcelainBlames runs git blame --porcelain on every file at every
// commit, with env added to the environment.
func porcelainBlames(t *testing.T, fx *fixtures.Repo, env []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, rev := range strings.Fields(fx.Git("rev-list", "--all")) {
		for _, f := range strings.Fields(fx.Git("ls-tree", "-r", "--name-only", rev)) {
			cmd := exec.Command("git", "blame", "--porcelain", "-C", rev, "--", f)
			cmd.Dir, cmd.Env = fx.Dir, append(append([]string{}, fx.Env...), env...)
			b, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("git blame %s %s: %v\n%s", rev, f, err, b)
			}
			out[rev+":"+f] = string(b)
		}
	}
	return out
}

func TestBlameGraphLeavesBlameUnchanged(t *testing.T) {
	ctx := context.Background()
	fx := fixtures.NewRepo(t)
	branchyHistory(t, fx)
	repo := open(t, fx.Dir)
	if env := repo.BlameGraphEnv(); env != nil {
		t.Fatalf("blame graph in use before any was written: %v", env)
	}
	plain := porcelainBlames(t, fx, nil)
	var want []*gitops.Blame
	for _, f := range []string{"a.go", "b.go", "c.go"} {
		b, err := repo.Blame(ctx, "HEAD", f, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, b)
	}

	if err := repo.RefreshBlameGraph(ctx); err != nil {
		t.Fatal(err)
	}
	env := repo.BlameGraphEnv()
	if env == nil {
		t.Fatal("no blame graph after a refresh")
	}
	verify := exec.Command("git", "commit-graph", "verify")
	verify.Dir, verify.Env = fx.Dir, append(append([]string{}, fx.Env...), env...)
	if out, err := verify.CombinedOutput(); err != nil || len(out) != 0 {
		t.Fatalf("git commit-graph verify: %v\n%s", err, out)
	}
	assertSameBlames(t, plain, porcelainBlames(t, fx, env))
	for i, f := range []string{"a.go", "b.go", "c.go"} {
		got, err := repo.Blame(ctx, "HEAD", f, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want[i]) {
			t.Errorf("%s: blame with the graph differs:\n%v\nwithout:\n%v", f, got, want[i])
		}
	}

	// A graph that lacks the newest commits (a merge among them) only
	// describes fewer of them.
	fx.Git("checkout", "-q", "-b", "late")
	fx.Commit("late side", map[string]string{"c.go": editNumbered(fx.Read("c.go"), 3, "late")})
	fx.Git("checkout", "-q", "-")
	fx.Commit("late main", map[string]string{"b.go": editNumbered(fx.Read("b.go"), 4, "late")})
	fx.Git("merge", "-q", "--no-edit", "late")
	assertSameBlames(t, porcelainBlames(t, fx, nil), porcelainBlames(t, fx, env))

	// A refresh adds them, with the same result.
	if err := repo.RefreshBlameGraph(ctx); err != nil {
		t.Fatal(err)
	}
	assertSameBlames(t, porcelainBlames(t, fx, nil), porcelainBlames(t, fx, env))
}

func assertSameBlames(t *testing.T, want, got map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d blames with the graph, %d without", len(got), len(want))
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: blame with the graph differs:\n%s\nwithout:\n%s", k, got[k], w)
		}
	}
}

// TestBlameGraphIsUsed checks that git blame reads the graph: with it,
// blame answers "did the file change here" from Bloom filters.
func TestBlameGraphIsUsed(t *testing.T) {
	ctx := context.Background()
	fx := fixtures.NewRepo(t)
	branchyHistory(t, fx)
	repo := open(t, fx.Dir)
	if err := repo.RefreshBlameGraph(ctx); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command("git", "blame", "--porcelain", "HEAD", "--", "b.go")
	cmd.Dir = fx.Dir
	cmd.Env = append(append(append([]string{}, fx.Env...), repo.BlameGraphEnv()...), "GIT_TRACE2_PERF="+trace)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git blame: %v\n%s", err, out)
	}
	if data, _ := os.ReadFile(trace); !bytes.Contains(data, []byte("bloom/queries")) {
		t.Fatalf("git blame did not query the graph's Bloom filters:\n%s", data)
	}
}

func TestBlameGraphLeavesObjectsUntouched(t *testing.T) {
	ctx := context.Background()
	fx := fixtures.NewRepo(t)
	branchyHistory(t, fx)
	fx.Git("gc", "-q") // the repository has a commit-graph of its own
	before := snapshotTree(t, fx.Path(".git/objects"))
	repo := open(t, fx.Dir)
	if err := repo.RefreshBlameGraph(ctx); err != nil {
		t.Fatal(err)
	}
	if after := snapshotTree(t, fx.Path(".git/objects")); after != before {
		t.Errorf(".git/objects changed by the first refresh:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	fx.Commit("after", map[string]string{"b.go": editNumbered(fx.Read("b.go"), 2, "after")})
	before = snapshotTree(t, fx.Path(".git/objects")) // the commit's own objects
	if err := repo.RefreshBlameGraph(ctx); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a.go", "b.go", "c.go"} {
		if _, err := repo.Blame(ctx, "HEAD", f, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	if after := snapshotTree(t, fx.Path(".git/objects")); after != before {
		t.Errorf(".git/objects changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if out, err := fx.GitErr("fsck", "--strict", "--no-progress"); err != nil || out != "" {
		t.Errorf("git fsck: %v\n%s", err, out)
	}
}

// snapshotTree lists every file under dir with its size and modification
// time.
func snapshotTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !d.IsDir() {
			fmt.Fprintf(&b, "%s %d %d\n", p, info.Size(), info.ModTime().UnixNano())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestBlameGraphSurvivesMovingTheRepository checks that the graph's
// alternate is relative: a moved repository still blames through it.
func TestBlameGraphSurvivesMovingTheRepository(t *testing.T) {
	ctx := context.Background()
	fx := fixtures.NewRepo(t)
	branchyHistory(t, fx)
	want := fx.Git("blame", "--porcelain", "HEAD", "--", "c.go")
	if err := open(t, fx.Dir).RefreshBlameGraph(ctx); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(t.TempDir(), "moved")
	if err := os.Rename(fx.Dir, moved); err != nil {
		t.Fatal(err)
	}
	fx.Dir = moved
	repo := open(t, moved)
	env := repo.BlameGraphEnv()
	if env == nil {
		t.Fatal("moved repository lost its blame graph")
	}
	cmd := exec.Command("git", "blame", "--porcelain", "HEAD", "--", "c.go")
	cmd.Dir, cmd.Env = moved, append(append([]string{}, fx.Env...), env...)
	got, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(got)) != want {
		t.Fatalf("blame in the moved repository: %v\n%s\nwant:\n%s", err, got, want)
	}
}

// TestBlameGraphStepsAsideForCachedTextconv: a diff driver that caches its
// textconv output makes git blame write notes objects, which must go to
// the repository's object store, not gloss's graph directory.
func TestBlameGraphStepsAsideForCachedTextconv(t *testing.T) {
	ctx := context.Background()
	fx := fixtures.NewRepo(t)
	branchyHistory(t, fx)
	repo := open(t, fx.Dir)
	if err := repo.RefreshBlameGraph(ctx); err != nil {
		t.Fatal(err)
	}
	if repo.BlameGraphEnv() == nil {
		t.Fatal("no blame graph after a refresh")
	}
	fx.Git("config", "diff.upper.textconv", "tr a-z A-Z <")
	fx.Git("config", "diff.upper.cachetextconv", "true")
	if env := repo.BlameGraphEnv(); env != nil {
		t.Fatalf("blame graph used with a caching textconv driver: %v", env)
	}
	fx.Git("config", "diff.upper.cachetextconv", "false")
	if repo.BlameGraphEnv() == nil {
		t.Fatal("blame graph not used with cachetextconv off")
	}
}

// TestRenamesRefreshNotStartedTwice: while a live process holds the
// graph's refresh lock, a read that lacks the renames starts no second
// refresh (it would find the lock taken and exit): one is under way. A
// lock whose process is gone is none.
func TestRenamesRefreshNotStartedTwice(t *testing.T) {
	fx := fixtures.NewRepo(t)
	fx.Commit("one", map[string]string{"a.txt": "1\n"})
	repo := open(t, fx.Dir)
	if repo.RefreshRenamesDetached() {
		t.Fatal("a test binary, which is not git-gloss, started a refresh")
	}
	lock := filepath.Join(repo.CommonDir(), "gloss", "fill", "graph.lock")
	if err := os.MkdirAll(filepath.Dir(lock), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lock, fmt.Appendf(nil, "%d\n", os.Getpid()), 0o644); err != nil {
		t.Fatal(err)
	}
	if !repo.RefreshRenamesDetached() {
		t.Error("a refresh holds the lock, yet none is said to be under way")
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lock, fmt.Appendf(nil, "%d\n", gone.Process.Pid), 0o644); err != nil {
		t.Fatal(err)
	}
	if repo.RefreshRenamesDetached() {
		t.Error("a lock left by a process that is gone taken for a refresh under way")
	}
}
