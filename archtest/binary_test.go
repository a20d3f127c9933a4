package archtest

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// heavyForTheBinary are packages whose initialisation every git-gloss
// process would pay (each git hook, each agent hook) for work gloss does
// not do: gitleaks' detect engine and its archive-reading sources cost
// ~2.3 ms of init and ~6 MB; agent matches gitleaks' rules itself.
var heavyForTheBinary = []string{
	"github.com/zricethezav/gitleaks/v8/detect",
	"github.com/zricethezav/gitleaks/v8/sources",
	"github.com/mholt/archives",
}

func TestBinaryLeavesOutHeavyPackages(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("go", "list", "-deps", "./cmd/git-gloss")
	cmd.Dir = fixtures.ModuleRoot()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps lists only %d packages", len(deps))
	}
	for _, d := range deps {
		for _, heavy := range heavyForTheBinary {
			if d == heavy || strings.HasPrefix(d, heavy+"/") {
				t.Errorf("git-gloss links %s", d)
			}
		}
	}
}
