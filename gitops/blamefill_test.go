package gitops_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
)

// fills records the fills BlameCached hands over, without running them.
type fills struct {
	mu   sync.Mutex
	asks []fill
}

type fill struct{ commonDir, commit, path string }

func (f *fills) filler(commonDir, commit, path string) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asks = append(f.asks, fill{commonDir, commit, path})
	return 0, nil
}

func (f *fills) taken() []fill {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fill(nil), f.asks...)
}

// withFiller installs a recording filler and makes every file of the
// test eligible for range blames.
func withFiller(t *testing.T) *fills {
	t.Helper()
	f := &fills{}
	gitops.SetBlameFiller(f.filler)
	restore := gitops.RangeBlameFrom(1)
	t.Cleanup(func() {
		gitops.SetBlameFiller(nil)
		restore()
	})
	return f
}

func generated(t *testing.T, seed uint64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "gen")
	if _, err := fixtures.GenerateHistory(dir, fixtures.HistoryOptions{Commits: 40, Files: 4, Lines: 200, EditsPerFile: 4, FilesPerEdit: 2, Seed: seed}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRangeBlameEqualsCachedBlame asks random ranges of every file, at
// HEAD, at older commits and in the working tree, with the cache empty (a
// range blame) and after the fill handed over has run (the cache), and
// compares both with git blame of the range, line by line.
func TestRangeBlameEqualsCachedBlame(t *testing.T) {
	f := withFiller(t)
	dir := generated(t, 5)
	repo := open(t, dir)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 9))
	log, err := repo.Log("HEAD", gitops.LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Dirty the working tree of one file so the worktree case diverges.
	files, _ := repo.ListFiles("HEAD", "")
	data, _ := os.ReadFile(filepath.Join(dir, files[0].Path))
	if err := os.WriteFile(filepath.Join(dir, files[0].Path), append([]byte("new line\n"), data...), 0o644); err != nil {
		t.Fatal(err)
	}
	revs := []string{"HEAD", log[len(log)/2].ID, log[len(log)-2].ID, ""}
	for _, rev := range revs {
		for _, q := range ranges(t, rng, repo, dir, rev) {
			compareBlame(t, repo, rev, q.path, q.start, q.end) // a range blame: nothing is cached
		}
	}
	asked := f.taken()
	if len(asked) == 0 {
		t.Fatal("no fill was handed over: the range path did not run")
	}
	seen := map[fill]bool{}
	for _, a := range asked {
		if seen[a] {
			t.Errorf("fill of %s at %s handed over twice", a.path, a.commit)
		}
		seen[a] = true
		if err := repo.FillBlameCache(ctx, a.commit, a.path); err != nil {
			t.Fatal(err)
		}
	}
	rng = rand.New(rand.NewPCG(5, 9))
	for _, rev := range revs {
		for _, q := range ranges(t, rng, repo, dir, rev) {
			compareBlame(t, repo, rev, q.path, q.start, q.end) // from the cache now
		}
	}
	if len(f.taken()) != len(asked) {
		t.Errorf("%d more fills handed over after the cache was filled", len(f.taken())-len(asked))
	}
}

type lineRange struct {
	path       string
	start, end int
}

// ranges picks a few random line ranges of every file of rev ("" for the
// working tree).
func ranges(t *testing.T, rng *rand.Rand, repo *gitops.Repo, dir, rev string) []lineRange {
	t.Helper()
	list := rev
	if list == "" {
		list = "HEAD"
	}
	files, err := repo.ListFiles(list, "")
	if err != nil {
		t.Fatal(err)
	}
	var out []lineRange
	for _, f := range files {
		var data []byte
		if rev == "" {
			data, err = os.ReadFile(filepath.Join(dir, f.Path))
		} else {
			data, err = repo.ReadFile(rev, f.Path)
		}
		if err != nil {
			t.Fatal(err)
		}
		n := gitops.CountLines(data)
		for k := 0; k < 4 && n > 0; k++ {
			start := 1 + rng.IntN(n)
			out = append(out, lineRange{f.Path, start, start + rng.IntN(n-start+1)})
		}
	}
	return out
}

// TestBackgroundFillOnce has several readers, each with its own handle
// as separate processes would, miss the cache on the same file at once:
// one fill is handed over. Run, it stores what a foreground fill stores,
// releases its lock, and the next read is served without git.
func TestBackgroundFillOnce(t *testing.T) {
	f := withFiller(t)
	dir := generated(t, 7)
	repo := open(t, dir)
	ctx := context.Background()
	files, _ := repo.ListFiles("HEAD", "")
	path := files[1].Path
	var wg sync.WaitGroup
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := gitops.Open(dir)
			if err != nil {
				t.Error(err)
				return
			}
			defer r.Close()
			if _, err := r.BlameCached(ctx, "HEAD", path, 10, 40); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	asked := f.taken()
	if len(asked) != 1 {
		t.Fatalf("%d fills handed over for one file, want 1", len(asked))
	}
	a := asked[0]
	if a.path != path || a.commonDir != repo.CommonDir() {
		t.Fatalf("fill of %+v, want %s in %s", a, path, repo.CommonDir())
	}
	if !repo.FillPending(a.commit, a.path) {
		t.Fatal("no fill lock held while the fill is pending")
	}
	if err := repo.FillBlameCache(ctx, a.commit, a.path); err != nil {
		t.Fatal(err)
	}
	if repo.FillPending(a.commit, a.path) || repo.FillsPending() {
		t.Fatal("the fill left its lock behind")
	}
	background := repo.CachedBlameEntry(a.commit, a.path)
	if background == nil {
		t.Fatal("the fill stored nothing")
	}

	// Served from the cache: with no git on PATH, any blame would fail.
	gitPath := os.Getenv("PATH")
	t.Setenv("PATH", t.TempDir())
	got, err := repo.BlameCached(ctx, "HEAD", path, 10, 40)
	if err != nil {
		t.Fatalf("a read after the fill needed git: %v", err)
	}
	if len(got.Lines) != 31 {
		t.Fatalf("a read after the fill: %d lines, want 31", len(got.Lines))
	}
	t.Setenv("PATH", gitPath)
	compareBlame(t, repo, "HEAD", path, 10, 40)
	if len(f.taken()) != 1 {
		t.Error("a read after the fill handed over another")
	}

	// A foreground fill of an empty cache stores the same entry (by a
	// new handle: this one keeps the entry it decoded).
	gitops.SetBlameFiller(nil)
	if err := os.RemoveAll(filepath.Join(repo.CommonDir(), "gloss", "blame")); err != nil {
		t.Fatal(err)
	}
	fresh := open(t, dir)
	if _, err := fresh.BlameCached(ctx, "HEAD", path, 10, 40); err != nil {
		t.Fatal(err)
	}
	if fg := fresh.CachedBlameEntry(a.commit, a.path); !bytes.Equal(fg, background) {
		t.Errorf("background fill stored\n%s\nforeground fill\n%s", background, fg)
	}
}
