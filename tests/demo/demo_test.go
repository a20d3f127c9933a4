// Package demo runs the README's main job, the demo script, end to end on
// a real repository, so that `make demo` keeps working at every commit.
package demo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

func TestDemoRuns(t *testing.T) {
	root := fixtures.ModuleRoot()
	if _, err := os.Stat(filepath.Join(root, "tests", "mcp-client", "node_modules")); err != nil {
		t.Skip("tests/mcp-client/node_modules is missing: run npm ci there (make test does)")
	}
	bin := fixtures.Binary(t)
	home := t.TempDir()
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "demo.sh"))
	cmd.Dir = root
	cmd.Env = append(fixtures.Env(home, filepath.Dir(bin)), "GLOSS_DEMO_DIR="+filepath.Join(t.TempDir(), "demo"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the demo failed: %v\n%s", err, out)
	}
	for _, want := range []string{"== Done", "synced with origin", "replayed"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the demo's output lacks %q", want)
		}
	}
}
