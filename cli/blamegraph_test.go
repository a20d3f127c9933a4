package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// TestCacheFillRefreshesTheBlameGraph checks that the background
// cache-fill a cold read starts also writes gloss's private commit-graph,
// outside the repository's object store, and that a later cold read,
// whose git blame runs with that graph (stale by one commit), answers as
// the warm read does. gitops' tests compare blames with and without the
// graph line by line.
func TestCacheFillRefreshesTheBlameGraph(t *testing.T) {
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("one", map[string]string{"big.txt": fixtures.LongFile(1)})
	fx.Commit("two", map[string]string{"big.txt": fixtures.LongFile(2)})
	gitDir := filepath.Join(fx.Dir, ".git")

	fx.MustGloss("read", "big.txt", "--lines", "100:200", "--json")
	waitForFills(t, gitDir)
	graph := filepath.Join(gitDir, "gloss", "graph")
	if _, err := os.Stat(filepath.Join(graph, "info", "commit-graph")); err != nil {
		t.Fatalf("no blame graph after the cache-fill: %v", err)
	}
	if _, err := os.Stat(filepath.Join(gitDir, "objects", "info", "commit-graph")); err == nil {
		t.Fatal("a commit-graph was written into the repository's object store")
	}

	fx.Commit("three", map[string]string{"big.txt": fixtures.LongFile(3)}) // newer than the graph
	for _, kind := range []string{"e", "p"} {
		if err := os.RemoveAll(filepath.Join(gitDir, "gloss", "blame", kind)); err != nil {
			t.Fatal(err)
		}
	}
	cold := fx.MustGloss("read", "big.txt", "--lines", "100:200", "--json")
	waitForFills(t, gitDir)
	warm := fx.MustGloss("read", "big.txt", "--lines", "100:200", "--json")
	if cold != warm {
		t.Errorf("cold read with the graph answered\n%s\nthe warm read\n%s", cold, warm)
	}
}
