package gitops_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
)

// vocabulary makes code-like files whose diffs are ambiguous (repeated
// braces, blank lines, similar lines), where Myers and the indent heuristic
// have choices to make — the cases where a cache that diffed differently
// from git blame would go wrong.
var vocabulary = []string{"", "{", "}", "\treturn nil", "\tx++", "func a() {", "func b() {", "// note", "\tif x {", "\t}", "y := 1"}

func randomLines(rng *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = vocabulary[rng.IntN(len(vocabulary))]
	}
	return out
}

func editLines(rng *rand.Rand, lines []string) []string {
	out := slices.Clone(lines)
	for e := 0; e < 1+rng.IntN(4); e++ {
		i := rng.IntN(len(out) + 1)
		switch rng.IntN(4) {
		case 0: // insert a block
			out = slices.Insert(out, i, randomLines(rng, 1+rng.IntN(5))...)
		case 1: // delete a block
			if len(out) > 3 && i < len(out) {
				out = slices.Delete(out, i, min(len(out), i+1+rng.IntN(3)))
			}
		case 2: // rewrite a line
			if i < len(out) {
				out[i] = vocabulary[rng.IntN(len(vocabulary))]
			}
		case 3: // duplicate a block
			if i < len(out) {
				j := min(len(out), i+1+rng.IntN(4))
				out = slices.Insert(out, j, slices.Clone(out[i:j])...)
			}
		}
	}
	return out
}

func writeLines(t *testing.T, fx *fixtures.Repo, name string, lines []string, trailingNewline bool) {
	t.Helper()
	content := strings.Join(lines, "\n")
	if trailingNewline && len(lines) > 0 {
		content += "\n"
	}
	fx.Write(name, content)
}

// TestBlameCacheEqualsGitBlame builds random histories through the cache's
// incremental path (as the post-commit hook does) and compares the cached
// blame of every file, at HEAD, at older commits and in the working tree,
// line by line with git blame.
func TestBlameCacheEqualsGitBlame(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			checkRandomHistory(t, seed, 40)
		})
	}
}

func checkRandomHistory(t *testing.T, seed uint64, commits int) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, seed*7919))
	fx := fixtures.NewRepo(t)
	repo := open(t, fx.Dir)
	files := map[string][]string{}
	for i := 0; i < 4; i++ {
		name := fmt.Sprintf("src/f%d.go", i)
		files[name] = randomLines(rng, 20+rng.IntN(40))
		writeLines(t, fx, name, files[name], i != 3) // one file without a final newline
	}
	fx.Git("add", "-A")
	fx.Git("commit", "-q", "-m", "start")
	var history []string
	for c := 0; c < commits; c++ {
		names := slices.Sorted(maps.Keys(files))
		switch r := rng.IntN(20); {
		case r == 0 && len(names) > 2: // rename with a small edit
			from := names[rng.IntN(len(names))]
			to := fmt.Sprintf("moved/r%d.go", c)
			if err := os.MkdirAll(fx.Path("moved"), 0o755); err != nil {
				t.Fatal(err)
			}
			fx.Git("mv", from, to)
			files[to] = editLines(rng, files[from])
			delete(files, from)
			writeLines(t, fx, to, files[to], true)
		case r == 1: // a new file
			name := fmt.Sprintf("src/new%d.go", c)
			files[name] = randomLines(rng, 5+rng.IntN(30))
			writeLines(t, fx, name, files[name], true)
		case r == 2 && len(names) > 2:
			victim := names[rng.IntN(len(names))]
			fx.Git("rm", "-q", victim)
			delete(files, victim)
		default:
			for k := 0; k < 1+rng.IntN(2); k++ {
				name := names[rng.IntN(len(names))]
				files[name] = editLines(rng, files[name])
				writeLines(t, fx, name, files[name], !strings.HasSuffix(name, "f3.go"))
			}
		}
		fx.Git("add", "-A")
		fx.Git("commit", "-q", "--allow-empty", "-m", fmt.Sprintf("change %d\n\nbody", c))
		head := fx.Git("rev-parse", "HEAD")
		history = append(history, head)
		if err := repo.UpdateBlameCache(ctx, head); err != nil {
			t.Fatalf("UpdateBlameCache: %v", err)
		}
	}
	for _, rev := range []string{history[len(history)-1], history[len(history)/2], history[3]} {
		tracked := strings.Fields(fx.Git("ls-tree", "-r", "--name-only", rev))
		for _, name := range tracked {
			compareBlame(t, repo, rev, name, 0, 0)
		}
	}
	// A range in the middle of a file, and the working tree.
	for name, lines := range files {
		if len(lines) > 10 {
			compareBlame(t, repo, "HEAD", name, 3, len(lines)-3)
		}
		files[name] = editLines(rng, lines)
		writeLines(t, fx, name, files[name], true)
	}
	for name := range files {
		compareBlame(t, repo, "", name, 0, 0)
	}
}

func compareBlame(t *testing.T, repo *gitops.Repo, rev, path string, start, end int) {
	t.Helper()
	ctx := context.Background()
	want, err := repo.Blame(ctx, rev, path, start, end)
	if err != nil {
		t.Fatalf("git blame %s %s: %v", rev, path, err)
	}
	got, err := repo.BlameCached(ctx, rev, path, start, end)
	if err != nil {
		t.Fatalf("BlameCached %s %s: %v", rev, path, err)
	}
	if len(got.Lines) != len(want.Lines) {
		t.Fatalf("%s at %q: cached blame has %d lines, git blame %d", path, rev, len(got.Lines), len(want.Lines))
	}
	for i := range want.Lines {
		if got.Lines[i] != want.Lines[i] {
			t.Fatalf("%s at %q line %d: cached %+v, git blame %+v", path, rev, want.Lines[i].Line, got.Lines[i], want.Lines[i])
		}
	}
	for c, m := range want.Commits {
		if c == gitops.Uncommitted {
			continue
		}
		if g := got.Commits[c]; g != m {
			t.Fatalf("%s at %q commit %s: cached %+v, git blame %+v", path, rev, c, g, m)
		}
	}
}

func TestBlameCacheOnGeneratedHistory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gen")
	if _, err := fixtures.GenerateHistory(dir, fixtures.HistoryOptions{Commits: 60, Files: 6, Lines: 300, EditsPerFile: 4, FilesPerEdit: 2, Seed: 11}); err != nil {
		t.Fatal(err)
	}
	repo := open(t, dir)
	ctx := context.Background()
	log, err := repo.Log("HEAD", gitops.LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Warm the cache cold at an old commit, then roll forward through the
	// hook path, then check every file of HEAD.
	start := log[len(log)-20].ID
	files, _ := repo.ListFiles(start, "")
	for _, f := range files {
		if _, err := repo.BlameCached(ctx, start, f.Path, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	for i := len(log) - 21; i >= 0; i-- {
		if err := repo.UpdateBlameCache(ctx, log[i].ID); err != nil {
			t.Fatal(err)
		}
	}
	head, _ := repo.ListFiles("HEAD", "")
	for _, f := range head {
		compareBlame(t, repo, "HEAD", f.Path, 0, 0)
	}
}

func TestBlameCacheStepsAsideForIgnoreRevs(t *testing.T) {
	fx := fixtures.NewRepo(t)
	fx.Commit("one", map[string]string{"a.txt": "1\n2\n3\n"})
	fmtCommit := fx.Commit("reformat", map[string]string{"a.txt": "1\n2 \n3\n"})
	fx.Write(".git-blame-ignore-revs", fmtCommit+"\n")
	fx.Git("config", "blame.ignoreRevsFile", ".git-blame-ignore-revs")
	repo := open(t, fx.Dir)
	compareBlame(t, repo, "HEAD", "a.txt", 0, 0)
	b, _ := repo.BlameCached(context.Background(), "HEAD", "a.txt", 2, 2)
	if b.Lines[0].Commit == fmtCommit {
		t.Error("ignored revision blamed: the cache did not step aside")
	}
}

// TestFileHistoryEqualsLogAndIsAncestor builds a history with branches and
// merges and checks the cached file history against Log and IsAncestor for
// every pair of commits, built fresh, loaded from the cache, and extended
// with commits it was not built for.
func TestFileHistoryEqualsLogAndIsAncestor(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 17))
	fx := fixtures.NewRepo(t)
	repo := open(t, fx.Dir)
	lines := randomLines(rng, 30)
	writeLines(t, fx, "a.go", lines, true)
	fx.Write("b.go", "package b\n")
	fx.Git("add", "-A")
	fx.Git("commit", "-q", "-m", "start")
	for i := 0; i < 30; i++ {
		switch rng.IntN(5) {
		case 0: // a side branch that changes the file, merged back
			fx.Git("checkout", "-q", "-b", fmt.Sprintf("side%d", i))
			lines = editLines(rng, lines)
			writeLines(t, fx, "a.go", lines, true)
			fx.Git("commit", "-q", "-am", "side")
			fx.Git("checkout", "-q", "-")
			fx.Write("b.go", fmt.Sprintf("package b // %d\n", i))
			fx.Git("commit", "-q", "-am", "main meanwhile")
			fx.Git("merge", "-q", "--no-edit", fmt.Sprintf("side%d", i))
		case 1: // a commit that leaves the file alone
			fx.Write("b.go", fmt.Sprintf("package b // other %d\n", i))
			fx.Git("commit", "-q", "-am", "other")
		default:
			lines = editLines(rng, lines)
			writeLines(t, fx, "a.go", lines, true)
			fx.Git("commit", "-q", "-am", fmt.Sprintf("edit %d", i))
		}
	}
	all := strings.Fields(fx.Git("rev-list", "--all"))
	for _, rev := range []string{"HEAD", all[len(all)/2], ""} {
		want, err := repo.Log(map[string]string{"": "HEAD"}[rev]+rev, gitops.LogOptions{Path: "a.go", Limit: 7})
		if err != nil {
			t.Fatal(err)
		}
		half := all[:len(all)/2]
		for round, members := range [][]string{half, half, all} { // build, load, extend
			h, err := repo.FileHistoryCached(ctx, rev, "a.go", 7, members)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, c := range want {
				ids = append(ids, c.ID)
			}
			if !slices.Equal(h.Log, ids) {
				t.Fatalf("rev %q round %d: log %v, want %v", rev, round, h.Log, ids)
			}
			for _, a := range members {
				for _, b := range members {
					got, known := h.IsAncestor(a, b)
					exp, err := repo.IsAncestor(a, b)
					if !known {
						// Only a commit newer than the file's last change
						// may be unknown.
						if in, _ := repo.IsAncestor(b, want[0].ID); in {
							t.Fatalf("rev %q: IsAncestor(%.8s, %.8s) unknown", rev, a, b)
						}
						continue
					}
					if err != nil || !known || got != exp {
						t.Fatalf("rev %q round %d: IsAncestor(%.8s, %.8s) = %v (known %v), want %v (%v)", rev, round, a, b, got, known, exp, err)
					}
				}
			}
		}
	}
}

// An unchanged working-tree file is blamed as HEAD without running git
// diff, except when git's clean conversion could make it differ: here a
// clean filter does, and the cached blame must still equal git blame.
func TestWorktreeBlameOfUnchangedFile(t *testing.T) {
	fx := fixtures.NewRepo(t)
	repo := open(t, fx.Dir)
	fx.Commit("one", map[string]string{"a.txt": "a1\nkeep\na2\n"})
	fx.Commit("two", map[string]string{"a.txt": "a1\nkeep\nx\na2\n"})
	compareBlame(t, repo, "", "a.txt", 0, 0)
	compareBlame(t, repo, "", "a.txt", 2, 3)

	// The index must hold a.txt's stat from well before it was written
	// (not "racily clean"): then git diff trusts it and sees no change,
	// while git blame runs the filter on the file.
	hourAgo := time.Now().Add(-time.Hour)
	if err := os.Chtimes(fx.Path("a.txt"), hourAgo, hourAgo); err != nil {
		t.Fatal(err)
	}
	fx.Git("update-index", "--refresh")
	fx.Git("config", "filter.ab.clean", "sed s/a/b/")
	fx.Write(".gitattributes", "a.txt filter=ab\n")
	compareBlame(t, repo, "", "a.txt", 0, 0)
}
