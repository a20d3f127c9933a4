package safepath_test

import (
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/safepath"
)

// Writes are synced to stable storage when the user asks gloss
// (gloss.fsync) or asks git for durable refs or index (core.fsync).
func TestDurabilityFollowsConfig(t *testing.T) {
	for _, tc := range []struct {
		config [][2]string
		want   bool
	}{
		{nil, false},
		{[][2]string{{"core.fsync", "committed"}}, true},
		{[][2]string{{"core.fsync", "objects,derived-metadata"}}, false},
		{[][2]string{{"core.fsync", "pack,reference"}}, true},
		{[][2]string{{"gloss.fsync", "true"}}, true},
		{[][2]string{{"core.fsync", "all"}, {"gloss.fsync", "false"}}, false},
	} {
		r := fixtures.NewRepo(t)
		for _, kv := range tc.config {
			r.Git("config", kv[0], kv[1])
		}
		repo, err := gitops.Open(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		tree, err := safepath.ForRepo(repo)
		if err != nil {
			t.Fatal(err)
		}
		if tree.Durable() != tc.want {
			t.Errorf("%v: durable = %v, want %v", tc.config, tree.Durable(), tc.want)
		}
		tree.Close()
		repo.Close()
	}
}
