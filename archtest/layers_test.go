package archtest

import (
	"encoding/json"
	"os/exec"
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
	cmd := exec.Command("go", "list", "-json", "./...")
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

func TestFrontDoorsAreOnTop(t *testing.T) {
	frontDoors := map[string]bool{"cli": true, "mcp": true, "hooks": true, "web": true, "cmd/git-gloss": true}
	for _, p := range packages(t) {
		me := rel(p.ImportPath)
		if frontDoors[me] {
			continue
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module+"/") && frontDoors[rel(imp)] {
				t.Errorf("%s imports the front door %s; front doors call capabilities, never the other way", me, rel(imp))
			}
		}
	}
}

func TestLowLayersStayLow(t *testing.T) {
	// gitops is the bottom: it may use only the small shared helpers.
	allowed := map[string]map[string]bool{
		"gitops": {"fault": true, "atomicfile": true},
		"notes":  {"gitops": true, "fault": true, "schemas": true, "atomicfile": true},
		// attribution is a capability: it reads annotations (intents,
		// carried provenance) and is read by why; never a front door,
		// forge or setup.
		"attribution": {"annotate": true, "notes": true, "safepath": true, "treesitter": true, "gitops": true,
			"fault": true, "schemas": true, "config": true, "atomicfile": true, "buildinfo": true, "editdist": true},
	}
	for _, p := range packages(t) {
		me := rel(p.ImportPath)
		ok, checked := allowed[me]
		if !checked {
			continue
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module+"/") && !ok[rel(imp)] {
				t.Errorf("%s imports %s, above its layer", me, rel(imp))
			}
		}
	}
}

// TestWebCallsNoOtherFrontDoor: the web view gets its data from the
// capabilities, as the CLI and MCP do, never through another door.
func TestWebCallsNoOtherFrontDoor(t *testing.T) {
	for _, p := range packages(t) {
		if rel(p.ImportPath) != "web" {
			continue
		}
		for _, imp := range p.Imports {
			switch rel(imp) {
			case "cli", "mcp", "hooks", "cmd/git-gloss":
				t.Errorf("web imports the front door %s", rel(imp))
			}
		}
		return
	}
	t.Fatal("package web not found")
}
