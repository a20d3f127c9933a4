package notes

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
)

type syncRecord struct {
	Header
	Who string `json:"who"`
}

func clone(t *testing.T, remote string) (*fixtures.Repo, *gitops.Repo) {
	fx := fixtures.Clone(t, remote)
	r, err := gitops.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return fx, r
}

func annotate(t *testing.T, r *gitops.Repo, commit, who string) string {
	t.Helper()
	rec := syncRecord{Header: NewHeader("gloss/test/v1"), Who: who}
	if err := Open(r, Annotations).Append(context.Background(), commit, rec); err != nil {
		t.Fatal(err)
	}
	return rec.ID
}

func idsOn(t *testing.T, r *gitops.Repo, commit string) []string {
	t.Helper()
	got, err := Open(r, Annotations).Read([]string{commit})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, rec := range got[commit] {
		ids = append(ids, rec.ID)
	}
	slices.Sort(ids)
	return ids
}

func TestSyncTwoClonesConvergeOnTheUnion(t *testing.T) {
	bare := fixtures.NewBare(t)
	seed := fixtures.NewRepo(t)
	commit := seed.Commit("shared commit", map[string]string{"f.txt": "x\n"})
	seed.Git("push", "-q", bare, "main")

	fxA, a := clone(t, bare)
	_, b := clone(t, bare)
	ctx := context.Background()

	want := []string{annotate(t, a, commit, "a1"), annotate(t, a, commit, "a2"), annotate(t, b, commit, "b1")}
	slices.Sort(want)

	if _, err := Sync(ctx, a, SyncOptions{Remote: "origin"}); err != nil {
		t.Fatalf("sync A: %v", err)
	}
	res, err := Sync(ctx, b, SyncOptions{Remote: "origin"})
	if err != nil {
		t.Fatalf("sync B: %v", err)
	}
	if len(res.Merged) != 1 || res.Merged[0].Action != "merged" {
		t.Errorf("B should have merged A's diverged notes: %+v", res.Merged)
	}
	if _, err := Sync(ctx, a, SyncOptions{Remote: "origin"}); err != nil {
		t.Fatalf("sync A again: %v", err)
	}
	for name, r := range map[string]*gitops.Repo{"A": a, "B": b} {
		if got := idsOn(t, r, commit); !slices.Equal(got, want) {
			t.Errorf("clone %s has %v, want %v", name, got, want)
		}
	}
	// Nothing was forced: the remote's notes history contains every tip.
	remoteLog := fxA.Git("log", "--format=%H", "origin/main")
	if remoteLog == "" {
		t.Fatal("remote lost its branch")
	}
	if cfg := fxA.Git("config", "--get-regexp", "remote"); strings.Contains(cfg, "push") {
		t.Errorf("sync configured a push refspec:\n%s", cfg)
	}
}

func TestSyncRetriesAPushThatLosesTheRace(t *testing.T) {
	bare := fixtures.NewBare(t)
	seed := fixtures.NewRepo(t)
	commit := seed.Commit("shared commit", nil)
	seed.Git("push", "-q", bare, "main")
	_, a := clone(t, bare)
	_, b := clone(t, bare)
	ctx := context.Background()

	idB := annotate(t, b, commit, "b")
	var idA string
	opts := SyncOptions{Remote: "origin", beforePush: func(attempt int) {
		if attempt == 1 {
			// A publishes between B's fetch and B's push.
			idA = annotate(t, a, commit, "a")
			if _, err := Sync(ctx, a, SyncOptions{Remote: "origin"}); err != nil {
				t.Fatalf("racing sync: %v", err)
			}
		}
	}}
	res, err := Sync(ctx, b, opts)
	if err != nil {
		t.Fatalf("sync B: %v", err)
	}
	if res.Attempts != 2 {
		t.Errorf("attempts = %d, want 2 (one lost race, one retry)", res.Attempts)
	}
	if _, err := Sync(ctx, a, SyncOptions{Remote: "origin"}); err != nil {
		t.Fatal(err)
	}
	want := []string{idA, idB}
	slices.Sort(want)
	for name, r := range map[string]*gitops.Repo{"A": a, "B": b} {
		if got := idsOn(t, r, commit); !slices.Equal(got, want) {
			t.Errorf("clone %s has %v, want %v", name, got, want)
		}
	}
}

// Two clones annotate and run git gloss sync in tight loops through one
// bare remote, as a team's agents do: every sync must succeed (a push that
// loses the race is retried), and both clones end with every record.
func TestSyncBackToBackAgainstAFastPeer(t *testing.T) {
	fixtures.Binary(t)
	bare := fixtures.NewBare(t)
	seed := fixtures.NewRepo(t)
	seed.Commit("shared commit", map[string]string{"f.txt": "x\n"})
	seed.Git("push", "-q", bare, "main")
	fxA, a := clone(t, bare)
	fxB, b := clone(t, bare)

	const rounds = 25
	var wg sync.WaitGroup
	errs := make(chan string, 4*rounds)
	for _, fx := range []*fixtures.Repo{fxA, fxB} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				if out, err := fx.Gloss("annotate", "--commit", "HEAD", "--constraint", fmt.Sprintf("%s round %d", fx.Dir, i)); err != nil {
					errs <- fmt.Sprintf("annotate round %d: %v\n%s", i, err, out)
				}
				if out, err := fx.Gloss("sync"); err != nil {
					errs <- fmt.Sprintf("sync round %d: %v\n%s", i, err, out)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	fxA.MustGloss("sync")
	fxB.MustGloss("sync")
	fxA.MustGloss("sync")
	head := fxA.Git("rev-parse", "HEAD")
	if got := idsOn(t, a, head); len(got) != 2*rounds || !slices.Equal(got, idsOn(t, b, head)) {
		t.Errorf("clones did not converge on all %d records: %d and %d", 2*rounds, len(got), len(idsOn(t, b, head)))
	}
}
