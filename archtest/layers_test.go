package archtest

import (
	"encoding/json"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

const module = "github.com/gloss-dev/gloss"

type pkg struct {
	ImportPath string
	Imports    []string
}

func packages(t *testing.T) []pkg {
	t.Helper()
	// The test build is the fullest: the glosstest tag only adds files
	// (the test switches), so its imports are a superset of the release's.
	cmd := exec.Command("go", "list", "-tags", "glosstest", "-json", "./...")
	cmd.Dir = fixtures.ModuleRoot()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func rel(path string) string { return strings.TrimPrefix(strings.TrimPrefix(path, module), "/") }

// ours returns the gloss packages p imports, as table names.
func ours(p pkg) []string {
	var out []string
	for _, imp := range p.Imports {
		if strings.HasPrefix(imp, module+"/") {
			out = append(out, rel(imp))
		}
	}
	sort.Strings(out)
	return out
}

func TestOnlyGitopsAndTreesitterUseCgoLibraries(t *testing.T) {
	for _, p := range packages(t) {
		for _, imp := range p.Imports {
			switch {
			case strings.HasPrefix(imp, "github.com/libgit2/git2go") && rel(p.ImportPath) != "gitops":
				t.Errorf("%s imports git2go; only gitops may", rel(p.ImportPath))
			case strings.HasPrefix(imp, "github.com/tree-sitter/") && rel(p.ImportPath) != "treesitter":
				t.Errorf("%s imports tree-sitter; only treesitter may", rel(p.ImportPath))
			}
		}
	}
}

// TestEveryPackageHasARow: the table knows every package of the module, and
// every package it names still exists.
func TestEveryPackageHasARow(t *testing.T) {
	present := map[string]bool{}
	for _, p := range packages(t) {
		me := rel(p.ImportPath)
		present[me] = true
		if _, ok := table[me]; !ok {
			t.Errorf("package %s has no row in archtest/table_test.go: give it a layer and its imports %q", me, ours(p))
		}
	}
	for name := range table {
		if !present[name] {
			t.Errorf("the table has a row for %s, which is no package of the module: remove it", name)
		}
	}
}

// TestImportsMatchTheTable: a package imports exactly the gloss packages its
// row lists. A new import is a design decision the table must show; an
// import that went away takes its permission with it, so it cannot come
// back unnoticed.
func TestImportsMatchTheTable(t *testing.T) {
	for _, p := range packages(t) {
		me := rel(p.ImportPath)
		r, ok := table[me]
		if !ok {
			continue // TestEveryPackageHasARow says so
		}
		got := ours(p)
		for _, imp := range got {
			if !slices.Contains(r.imports, imp) {
				t.Errorf("%s imports %s, which its row in archtest/table_test.go does not allow", me, imp)
			}
		}
		for _, imp := range r.imports {
			if !slices.Contains(got, imp) {
				t.Errorf("%s no longer imports %s: remove it from its row in archtest/table_test.go", me, imp)
			}
		}
	}
}

// TestTablePointsDown: every import the table allows points to a lower
// layer, or sideways within a layer whose peers build on one another; no
// package outside the tooling imports the tooling.
func TestTablePointsDown(t *testing.T) {
	for me, r := range table {
		for _, imp := range r.imports {
			to, ok := table[imp]
			switch {
			case !ok:
				t.Errorf("%s may import %s, which has no row", me, imp)
			case to.rank == tooling && r.rank != tooling:
				t.Errorf("%s (%s) may import the %s package %s; only harnesses use harnesses", me, rankNames[r.rank], rankNames[to.rank], imp)
			case r.rank == tooling:
				// harnesses drive the product from outside and may use any layer
			case to.rank > r.rank, to.rank == r.rank && !sideways(r.rank):
				t.Errorf("%s (%s) may import %s (%s): imports point down only", me, rankNames[r.rank], imp, rankNames[to.rank])
			}
		}
	}
}
