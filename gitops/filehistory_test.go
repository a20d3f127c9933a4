package gitops_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
)

// TestFileHistoryFromGraphEqualsPlainWalk checks the file history a read
// uses (FileLog, and the ancestry of FileHistory) against libgit2's plain
// walk (Log, IsAncestor) for every file at every commit of a history of
// renames and merges, without the blame graph, with it, with commits newer
// than the graph, and after its refresh; and the cached, incremental
// Renames against git's log of the whole history.
func TestFileHistoryFromGraphEqualsPlainWalk(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fx := fixtures.NewRepo(t)
	branchyHistory(t, fx)
	repo := open(t, fx.Dir)
	// inGraph is whether the ancestry is expected from the graph read in
	// process (the walk's start is in the graph) rather than through git.
	check := func(phase string, inGraph bool) {
		t.Helper()
		all := strings.Fields(fx.Git("rev-list", "--all"))
		head := strings.TrimSpace(fx.Git("rev-parse", "HEAD"))
		if got := repo.AncestryFromGraph(head, all); got != inGraph {
			t.Fatalf("%s: ancestry read from the graph in process: %v, want %v", phase, got, inGraph)
		}
		for _, rev := range all {
			for _, p := range []string{"a.go", "b.go", "c.go", "lib/c.go", "lib/b.go", "moved1.go", "lib"} {
				limits := []int{0}
				if rev == all[0] {
					limits = append(limits, 3)
				}
				for _, limit := range limits {
					want, err := repo.Log(rev, gitops.LogOptions{Path: p, Limit: limit})
					if err != nil {
						t.Fatal(err)
					}
					ids := []string{}
					for _, c := range want {
						ids = append(ids, c.ID)
					}
					got, err := repo.FileLog(ctx, rev, p, limit)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got, ids) {
						t.Fatalf("%s: FileLog(%.8s, %s, %d) = %.8v, want %.8v", phase, rev, p, limit, got, ids)
					}
					// The log read from the graph in process, when it can
					// answer: always for a file when every commit is in the
					// graph, never without one.
					glog, ok := repo.GraphFileLog(rev, p, limit)
					if ok && !slices.Equal(glog, ids) {
						t.Fatalf("%s: the graph's FileLog(%.8s, %s, %d) = %.8v, want %.8v", phase, rev, p, limit, glog, ids)
					}
					if inGraph && p != "lib" && !ok || repo.BlameGraphEnv() == nil && ok {
						t.Fatalf("%s: FileLog(%.8s, %s, %d) answered from the graph: %v", phase, rev, p, limit, ok)
					}
				}
			}
			// A walk over the graph lists what git's own does.
			walked, err1 := repo.GitWalk(ctx, "rev-list", "--parents", rev)
			plain, err2 := repo.Git(ctx, "rev-list", "--parents", rev)
			if err1 != nil || err2 != nil || string(walked) != string(plain) {
				t.Fatalf("%s: GitWalk rev-list %.8s = %q, want %q (%v, %v)", phase, rev, walked, plain, err1, err2)
			}
			renames, err := repo.Renames(ctx, rev)
			if err != nil {
				t.Fatal(err)
			}
			if want, err := repo.RenamesUncached(ctx, rev); err != nil || !maps.Equal(renames, want) {
				t.Fatalf("%s: Renames(%.8s) = %v, want %v (%v)", phase, rev, renames, want, err)
			}
			for _, p := range append(slices.Collect(maps.Keys(renames)), slices.Collect(maps.Values(renames))...) {
				var want []string
				for old := range renames {
					if old != p && gitops.FollowRename(renames, old) == p {
						want = append(want, old)
					}
				}
				slices.Sort(want)
				if got, err := repo.FormerNames(ctx, rev, p); err != nil || !slices.Equal(got, want) {
					t.Fatalf("%s: FormerNames(%.8s, %s) = %v, want %v (%v)", phase, rev, p, got, want, err)
				}
			}
			h, err := repo.BuildFileHistory(ctx, rev, "b.go", 5, all)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range all {
				for _, b := range all {
					got, known := h.IsAncestor(a, b)
					exp, err := repo.IsAncestor(a, b)
					if err != nil {
						t.Fatal(err)
					}
					if walked, err := repo.IsAncestorByWalk(a, b); err != nil || walked != exp {
						t.Fatalf("%s: IsAncestor(%.8s, %.8s) = %v, libgit2's walk %v (%v)", phase, a, b, exp, walked, err)
					}
					if in, _ := repo.IsAncestor(b, rev); !in {
						if known {
							t.Fatalf("%s: from %.8s, IsAncestor(%.8s, %.8s) known for an unreachable commit", phase, rev, a, b)
						}
						continue
					}
					if !known || got != exp {
						t.Fatalf("%s: from %.8s, IsAncestor(%.8s, %.8s) = %v (known %v), want %v", phase, rev, a, b, got, known, exp)
					}
				}
			}
		}
	}
	check("no graph", false)
	if repo.BlameGraphEnv() != nil {
		t.Fatal("a graph before the first refresh")
	}
	if err := repo.RefreshBlameGraph(ctx); err != nil {
		t.Fatal(err)
	}
	if repo.BlameGraphEnv() == nil {
		t.Fatal("no graph after a refresh")
	}
	check("graph", true)
	// Newer than the graph: a side branch merged back, an evil merge that
	// changes the file beyond both sides, and a rename.
	tick(fx)
	fx.Git("checkout", "-q", "-b", "late")
	fx.Commit("late side", map[string]string{"b.go": editNumbered(fx.Read("b.go"), 1, "late")})
	tick(fx)
	fx.Git("checkout", "-q", "main")
	fx.Commit("late main", map[string]string{"a.go": editNumbered(fx.Read("a.go"), 2, "late")})
	tick(fx)
	fx.Git("merge", "-q", "--no-commit", "late")
	fx.Write("b.go", editNumbered(fx.Read("b.go"), 4, "evil"))
	fx.Git("commit", "-q", "-am", "evil merge")
	tick(fx)
	fx.Git("mv", "b.go", "lib/b.go")
	fx.Git("commit", "-q", "-m", "move b")
	// An octopus merge, whose third parent the graph keeps apart (EDGE).
	for i, f := range []string{"o1.go", "o2.go"} {
		tick(fx)
		fx.Git("checkout", "-q", "-b", "octo"+f[1:2], "main")
		fx.Commit("octopus arm "+f, map[string]string{f: numbered(5+i, f)})
	}
	tick(fx)
	fx.Git("checkout", "-q", "main")
	fx.Git("merge", "-q", "--no-ff", "--no-edit", "octo1", "octo2")
	if n := len(strings.Fields(fx.Git("rev-list", "--no-walk", "--parents", "HEAD"))); n != 4 {
		t.Fatalf("the octopus merge has %d parents, want 3", n-1)
	}
	check("graph older than the history", false)
	if err := repo.RefreshBlameGraph(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(fx.Dir, ".git", "gloss", "graph", "info", "commit-graphs", "commit-graph-chain")); err != nil {
		t.Fatalf("the refresh added no layer: %v", err)
	}
	check("refreshed graph", true)
}

// A revision that does not exist is an error, and FileLog writes nothing.
func TestFileLogOfMissingRevFails(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewRepo(t)
	fx.Commit("one", map[string]string{"a.go": "a\n"})
	repo := open(t, fx.Dir)
	if _, err := repo.FileLog(context.Background(), "nosuchrev", "a.go", 0); err == nil {
		t.Fatal("FileLog of a missing revision succeeded")
	}
	if _, err := os.Stat(filepath.Join(fx.Dir, ".git", "gloss", "graph")); err == nil {
		t.Fatal("FileLog wrote a graph")
	}
}
