// Package demo runs `make demo`'s job (docs/contributing.md), the demo script, end to end on
// a real repository, so that `make demo` keeps working at every commit.
package demo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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
	demoDir := filepath.Join(t.TempDir(), "demo")
	cmd.Env = append(fixtures.Env(home, filepath.Dir(bin)), "GLOSS_DEMO_DIR="+demoDir)
	// The demo leaves git gloss serve running in the background: stop it.
	t.Cleanup(func() {
		if pid, err := os.ReadFile(filepath.Join(demoDir, "serve.pid")); err == nil {
			if n, err := strconv.Atoi(strings.TrimSpace(string(pid))); err == nil {
				if p, err := os.FindProcess(n); err == nil {
					_ = p.Kill()
				}
			}
		}
	})
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the demo failed: %v\n%s", err, out)
	}
	// It ends with the URL of the web view, token included.
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "http://127.0.0.1:") || !strings.Contains(last, "/?token=") {
		t.Errorf("the demo does not end with the serve URL: %q", last)
	}
	for _, want := range []string{"== Done", "synced with origin", "replayed"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the demo's output lacks %q", want)
		}
	}
}
