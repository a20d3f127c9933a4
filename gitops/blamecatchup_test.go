package gitops_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
)

// TestCatchUpBlameCache: commits made without the hooks leave no blame
// cache; the next hooked commit derives theirs from the last commit that
// has one — within maxBack — and the blames derived equal git blame. A
// chain longer than maxBack, or a merge, is the gap the hook reports.
func TestCatchUpBlameCache(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 11))
	fx := fixtures.NewRepo(t)
	repo := open(t, fx.Dir)
	f, g := randomLines(rng, 40), randomLines(rng, 30)
	commit := func(msg string, update bool) string {
		t.Helper()
		writeLines(t, fx, "f.go", f, true)
		writeLines(t, fx, "g.go", g, true)
		fx.Git("add", "-A")
		fx.Git("commit", "-q", "-m", msg)
		head := fx.Git("rev-parse", "HEAD")
		if update {
			if err := repo.UpdateBlameCache(ctx, head); err != nil {
				t.Fatal(err)
			}
		}
		return head
	}
	start := commit("start", false)
	for _, name := range []string{"f.go", "g.go"} { // a read fills the cache
		if _, err := repo.BlameCached(ctx, start, name, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	f = editLines(rng, f)
	u1 := commit("made without the hooks", false)
	f, g = editLines(rng, f), editLines(rng, g)
	u2 := commit("made without the hooks too", false)
	f = editLines(rng, f)
	h := commit("hooked", false)

	for _, tc := range []struct {
		maxBack int
		want    []string
	}{{0, []string{"f.go"}}, {1, []string{"f.go"}}} {
		gap, err := repo.CatchUpBlameCache(ctx, h, tc.maxBack)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(gap.Files, tc.want) || gap.Bytes == 0 || gap.Derived != 0 {
			t.Errorf("maxBack %d: gap %+v, want files %v with their size and nothing derived", tc.maxBack, gap, tc.want)
		}
	}
	gap, err := repo.CatchUpBlameCache(ctx, h, 8)
	if err != nil {
		t.Fatal(err)
	}
	if len(gap.Files) != 0 || gap.Bytes != 0 || gap.Derived != 2 {
		t.Fatalf("maxBack 8: gap %+v, want none left and the 2 commits made without the hooks derived", gap)
	}
	for _, c := range []string{u1, u2} {
		if repo.CachedBlameEntry(c, "f.go") == nil {
			t.Errorf("no cached blame of f.go at %s after the catch-up", gitops.ShortID(c))
		}
	}
	if err := repo.UpdateBlameCache(ctx, h); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"f.go", "g.go"} {
		if repo.CachedBlameEntry(h, name) == nil && name == "f.go" {
			t.Errorf("no cached blame of %s at the hooked commit", name)
		}
		compareBlame(t, repo, h, name, 0, 0)
		compareBlame(t, repo, u2, name, 0, 0)
	}

	// A merge's blame is never derived: the files it changed against its
	// first parent are the gap.
	fx.Git("checkout", "-q", "-b", "side")
	g = editLines(rng, g)
	commit("side", true)
	fx.Git("checkout", "-q", "-")
	f = editLines(rng, f)
	writeLines(t, fx, "f.go", f, true)
	fx.Git("commit", "-q", "-am", "main")
	fx.Git("merge", "-q", "--no-ff", "-m", "merge side", "side")
	gap, err = repo.CatchUpBlameCache(ctx, fx.Git("rev-parse", "HEAD"), 8)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gap.Files, []string{"g.go"}) {
		t.Errorf("merge: gap %+v, want g.go", gap)
	}
}
