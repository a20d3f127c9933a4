package gitops_test

import (
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// IndexHasSuffix finds a tracked path by its ending in every index layout
// git writes: versions 2, 3 and 4 (paths compressed against their
// predecessor) and a split index (entries in a shared index file).
func TestIndexHasSuffix(t *testing.T) {
	t.Parallel()
	for _, setup := range [][]string{
		{"config", "index.version", "2"},
		{"config", "index.version", "4"},
		{"config", "core.splitIndex", "true"},
	} {
		fx := fixtures.NewRepo(t)
		fx.Git(setup...)
		fx.Commit("docs", map[string]string{"docs/a.md": "a\n", "docs/a.noma": "# A\n", "docs/b.txt": "b\n"})
		fx.Git("update-index", "--index-version", map[bool]string{true: "4", false: "2"}[setup[1] == "index.version" && setup[2] == "4"])
		if setup[1] == "core.splitIndex" {
			fx.Git("update-index", "--split-index")
			fx.Commit("more", map[string]string{"c.txt": "c\n"})
		}
		repo := open(t, fx.Dir)
		if !repo.IndexHasSuffix(".noma") {
			t.Errorf("%v: the tracked docs/a.noma was not found", setup)
		}
		if repo.IndexHasSuffix(".nomad") {
			t.Errorf("%v: a suffix no path has was found", setup)
		}
	}
}
