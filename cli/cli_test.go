package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/cli"
	"github.com/gloss-dev/gloss/fixtures"
)

func TestHelpVersionAndUsageErrors(t *testing.T) {
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)

	help, err := fx.Gloss("--help")
	if err != nil {
		t.Fatalf("--help: %v", err)
	}
	for _, want := range []string{"git gloss init", "Exit codes", "--json", "-C, --directory=DIR", "schema"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help does not mention %q", want)
		}
	}
	sub, _ := fx.Gloss("sync", "--help")
	if !strings.Contains(sub, "without force") {
		t.Errorf("sync --help does not teach how sync works:\n%s", sub)
	}
	if v, err := fx.Gloss("--version"); err != nil || !strings.HasPrefix(v, "git-gloss ") {
		t.Errorf("--version = %q, %v", v, err)
	}
	out, err := fx.Gloss("no-such-command")
	if fixtures.ExitCode(err) != cli.ExitUsage || !strings.Contains(out, "error") {
		t.Errorf("unknown command: exit %d, %q", fixtures.ExitCode(err), out)
	}
	if _, err := fx.Gloss("status", "--color", "purple"); fixtures.ExitCode(err) != cli.ExitUsage {
		t.Errorf("bad enum value: exit %d", fixtures.ExitCode(err))
	}
	if _, err := fx.Gloss("hook", "pre-commit"); fixtures.ExitCode(err) != cli.ExitUsage {
		t.Errorf("unknown hook: exit %d", fixtures.ExitCode(err))
	}
}

func TestDirectoryFlagAndNotARepository(t *testing.T) {
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("c", map[string]string{"sub/dir/f": "x\n"})
	elsewhere := t.TempDir()

	// -C points gloss at the repository from anywhere.
	cmd := exec.Command(fixtures.Binary(t), "-C", fx.Path("sub/dir"), "status", "--json")
	cmd.Dir = elsewhere
	cmd.Env = fx.Env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("-C status: %v", err)
	}
	var st map[string]any
	if err := json.Unmarshal(out, &st); err != nil || st["$schema"] != "gloss-status/v1" {
		t.Errorf("status --json = %s", out)
	}

	// A hook too runs in the repository -C names, and logs there.
	cmd = exec.Command(fixtures.Binary(t), "-C", fx.Path("sub/dir"), "hook", "post-commit")
	cmd.Dir = elsewhere
	cmd.Env = fx.Env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("-C hook post-commit: %v\n%s", err, out)
	}
	if log, err := os.ReadFile(fx.Path(".git/gloss/hooks.log")); err != nil || !strings.Contains(string(log), " post-commit ") {
		t.Errorf("-C hook post-commit logged %q, %v", log, err)
	}

	// Outside any repository: a usage error, and with --json a JSON error.
	cmd = exec.Command(fixtures.Binary(t), "status", "--json")
	cmd.Dir = elsewhere
	cmd.Env = fx.Env
	stdout, err := cmd.Output()
	if fixtures.ExitCode(err) != cli.ExitUsage {
		t.Errorf("status outside a repo: exit %d", fixtures.ExitCode(err))
	}
	var e map[string]any
	if json.Unmarshal(stdout, &e) != nil || e["$schema"] != "gloss-error/v1" || e["kind"] != "usage" {
		t.Errorf("JSON error = %s", stdout)
	}
}

func TestSchemaCommand(t *testing.T) {
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	list, err := fx.Gloss("schema", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var l struct {
		Schemas []struct{ Name, Tag string }
	}
	if err := json.Unmarshal([]byte(list), &l); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, s := range l.Schemas {
		names[s.Name] = true
	}
	for _, want := range []string{"status", "sync", "init", "uninstall"} {
		if !names[want] {
			t.Errorf("schema %q not listed", want)
		}
	}
	doc, err := fx.Gloss("schema", "status")
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal([]byte(doc), &s); err != nil {
		t.Fatalf("schema status is not JSON: %v", err)
	}
	if s["type"] != "object" || s["title"] != "gloss-status/v1" {
		t.Errorf("schema status = %v", s)
	}
	props := s["properties"].(map[string]any)
	if props["$schema"].(map[string]any)["const"] != "gloss-status/v1" {
		t.Errorf("$schema not pinned: %v", props["$schema"])
	}
	if _, err := fx.Gloss("schema", "nope"); fixtures.ExitCode(err) != cli.ExitNotFound {
		t.Errorf("unknown schema: exit %d, want %d", fixtures.ExitCode(err), cli.ExitNotFound)
	}
}

func TestHumanOutputHasNoColourWhenPiped(t *testing.T) {
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("c", nil)
	out := fx.MustGloss("status")
	if strings.Contains(out, "\x1b[") {
		t.Errorf("colour codes in piped output: %q", out)
	}
	if !strings.Contains(out, "not initialised") || !strings.Contains(out, "git gloss init") {
		t.Errorf("status before init:\n%s", out)
	}
	coloured := fx.MustGloss("status", "--color", "always")
	if !strings.Contains(coloured, "\x1b[") {
		t.Error("--color always printed no colour")
	}
}
