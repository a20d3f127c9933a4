package gitops_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// TestReachableEqualsIsAncestor builds a history with side branches,
// merges and branches never merged, and checks Reachable from several
// tips against libgit2's descendant test for every commit: without the
// blame graph, with a graph of all of it, and with a graph older than
// the commits made since (walked through libgit2 first).
func TestReachableEqualsIsAncestor(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(8, 21))
	fx := fixtures.NewRepo(t)
	repo := open(t, fx.Dir)
	commit := func(msg string) {
		fx.Write("a.txt", fmt.Sprintf("%s %d\n", msg, rng.IntN(1_000_000)))
		fx.Git("commit", "-q", "-am", msg)
	}
	fx.Write("a.txt", "start\n")
	fx.Git("add", "-A")
	fx.Git("commit", "-q", "-m", "start")
	build := func(from, to int) {
		for i := from; i < to; i++ {
			switch rng.IntN(4) {
			case 0:
				fx.Git("checkout", "-q", "-b", fmt.Sprintf("side%d", i))
				commit("side")
				fx.Git("checkout", "-q", "-")
				commit("main meanwhile")
				fx.Git("merge", "-q", "--no-edit", "-X", "ours", fmt.Sprintf("side%d", i))
			case 1: // a branch never merged
				fx.Git("checkout", "-q", "-b", fmt.Sprintf("loose%d", i))
				commit("loose")
				fx.Git("checkout", "-q", "-")
			default:
				commit(fmt.Sprintf("edit %d", i))
			}
		}
	}
	check := func(stage string) {
		all := strings.Fields(fx.Git("rev-list", "--all"))
		ids := append(all, strings.Repeat("ab", 20)) // a commit this clone lacks
		for _, tip := range []string{all[0], fx.Git("rev-parse", "HEAD"), all[len(all)/2]} {
			got, err := repo.Reachable(tip, ids)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range all {
				want, err := repo.IsAncestor(id, tip)
				if err != nil {
					t.Fatal(err)
				}
				if got[id] != want {
					t.Fatalf("%s: Reachable(%.8s) of %.8s = %v, want %v", stage, tip, id, got[id], want)
				}
			}
			if got[ids[len(ids)-1]] {
				t.Fatalf("%s: a commit the repository lacks is reachable", stage)
			}
		}
	}
	build(0, 25)
	check("no graph")
	if err := repo.RefreshBlameGraph(ctx); err != nil {
		t.Fatal(err)
	}
	if !repo.HasBlameGraph() {
		t.Fatal("no blame graph written")
	}
	check("graph")
	build(25, 40)
	check("graph older than the tip")
}
