package dist

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/runenv"
)

// releaseBinary is the git-gloss of the archive under test, else one built
// as scripts/dist.sh builds the release (no glosstest tag).
func releaseBinary(t *testing.T) string {
	if a := os.Getenv(runenv.DistArchive); a != "" {
		return filepath.Join(extract(t, a), "git-gloss")
	}
	bin := filepath.Join(t.TempDir(), "git-gloss")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/git-gloss")
	cmd.Dir = fixtures.ModuleRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// The release binary has none of the test switches: no fault injection,
// no MCP debug tools, no profiling. Their names are not in it, and
// setting them changes nothing.
func TestReleaseHasNoTestSwitches(t *testing.T) {
	t.Parallel()
	bin := releaseBinary(t)
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{runenv.HookFault, runenv.AgentFault, runenv.KillAt, runenv.MCPDebugTools, runenv.CPUProfile, "debug_panic", "debug_sleep", "injected panic"} {
		if bytes.Contains(data, []byte(name)) {
			t.Errorf("the release binary holds %q", name)
		}
	}
	if out, _ := exec.Command("go", "version", "-m", bin).Output(); strings.Contains(string(out), fixtures.TestTag) {
		t.Errorf("the release binary was built with the %s tag:\n%s", fixtures.TestTag, out)
	}

	repo := fixtures.NewRepo(t)
	repo.Commit("one", map[string]string{"a.txt": "a\n"})
	run := func(env []string, args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = repo.Dir
		cmd.Env = append(append([]string{}, repo.Env...), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	profile := filepath.Join(t.TempDir(), "cpu.prof")
	if out, err := run([]string{runenv.CPUProfile + "=" + profile}, "--version"); err != nil {
		t.Fatalf("--version: %v\n%s", err, out)
	}
	if _, err := os.Stat(profile); err == nil {
		t.Error("the release binary wrote a CPU profile")
	}
	out, err := run([]string{runenv.MCPDebugTools + "=1"}, "mcp", "--toolsets", "debug")
	if err == nil || !strings.Contains(out, `unknown toolset "debug"`) {
		t.Errorf("mcp --toolsets debug in the release binary: %v\n%s", err, out)
	}
	out, err = run([]string{runenv.HookFault + "=panic"}, "hook", "post-commit")
	if err != nil || strings.Contains(out, "panic") {
		t.Errorf("an injected hook fault reached the release binary: %v\n%s", err, out)
	}
}
