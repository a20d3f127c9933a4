package forge_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

const (
	taskFile = ".gloss/tasks/2026-01-02-abc-def.md"
	docFile  = "docs/plan.noma"
	handlers = "internal/api/handlers.go"
)

// badBranch pushes, with --no-verify, a feature branch whose pre-push
// check would have blocked it: a handler changed under a spec that was not
// reconciled, a .noma document with a duplicate id, and a task depending on
// a task that does not exist.
func badBranch(t *testing.T) (bare string, dev *fixtures.Repo) {
	t.Helper()
	fixtures.Binary(t)
	bare = fixtures.NewBare(t)
	dev = fixtures.NewTodoService(t)
	dev.MustGloss("init", "--no-mcp")
	dev.Git("add", "-A")
	dev.Git("commit", "-q", "--allow-empty", "-m", "gloss init")
	dev.Git("remote", "add", "origin", bare)
	dev.Git("push", "-q", "origin", "main")
	dev.Git("config", "gloss.prepush", "strict")
	dev.Git("checkout", "-q", "-b", "feature")
	dev.Commit("handler, plan and task", map[string]string{
		handlers: "package api\n\nfunc Create(title string) int { return 12 }\n",
		docFile:  "::note{id=\"a\"}\nfirst\n::\n\n::note{id=\"a\"}\nsecond\n::\n",
		taskFile: "---\ntype: code\nstatus: pending\ndepends_on:\n  - 2026-01-01-zzz-zzz\n---\n# Add the create handler\n\n## Acceptance Criteria\n\n- [ ] Create returns the new id\n",
	})
	if out, err := dev.GitErr("push", "origin", "feature"); err == nil || !strings.Contains(out, "push blocked") {
		t.Fatalf("the pre-push hook should block this branch: %v\n%s", err, out)
	}
	if out, err := dev.GitErr("push", "--no-verify", "origin", "feature"); err != nil {
		t.Fatalf("push --no-verify: %v\n%s", err, out)
	}
	dev.MustGloss("sync")
	return bare, dev
}

// ciClone is a CI checkout of the feature branch: branches only, no notes.
func ciClone(t *testing.T, bare string) *fixtures.Repo {
	t.Helper()
	ci := fixtures.Clone(t, bare)
	ci.Git("checkout", "-q", "feature")
	if out, _ := ci.GitErr("for-each-ref", "refs/notes/"); out != "" {
		t.Fatalf("a fresh clone has notes refs: %s", out)
	}
	return ci
}

// ciCheck runs git gloss ci check with extra environment; it returns
// stdout and the exit code.
func ciCheck(t *testing.T, fx *fixtures.Repo, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := fx.Command(fixtures.Binary(t), append([]string{"ci", "check"}, args...)...)
	cmd.Env = append(cmd.Env, env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != 0 && code != 1 {
		t.Fatalf("ci check exit %d\n%s%s", code, out, stderr.String())
	}
	return string(out), code
}

// TestCICheckCatchesWhatNoVerifySkipped: in GitHub Actions (GITHUB_ACTIONS
// and GITHUB_BASE_REF set, as for a pull request) the check fails and
// annotates each problem's file and line with workflow commands.
func TestCICheckCatchesWhatNoVerifySkipped(t *testing.T) {
	bare, _ := badBranch(t)
	ci := ciClone(t, bare)
	gh := []string{"GITHUB_ACTIONS=true", "GITHUB_BASE_REF=main"}
	out, code := ciCheck(t, ci, gh, "--policy", "strict")
	if code != 1 {
		t.Fatalf("strict check passed:\n%s", out)
	}
	for _, want := range []string{
		"::error file=" + handlers + ",title=gloss spec-drift::",
		"::error file=" + docFile + ",line=5,col=1,title=gloss noma-duplicate-id::",
		"::error file=" + taskFile + ",title=gloss task-dependency::depends on unknown task 2026-01-01-zzz-zzz",
		"gloss ci check FAILED",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("GitHub output lacks %q:\n%s", want, out)
		}
	}
	// Only the branch's own changes count: no other spec's files.
	if strings.Contains(out, "internal/storage") {
		t.Errorf("the check covered more than the branch:\n%s", out)
	}
	// It fetched gloss's notes itself.
	if refs := ci.Git("for-each-ref", "--format=%(refname)", "refs/notes/gloss/"); !strings.Contains(refs, "refs/notes/gloss/annotations") {
		t.Errorf("notes not fetched: %q", refs)
	}

	// Elsewhere, plain text; the specs' own policy (warn) makes drift a
	// warning, while the document and task errors still fail.
	out, code = ciCheck(t, ci, nil, "--base", "origin/main")
	if code != 1 || strings.Contains(out, "::") {
		t.Fatalf("plain text check: exit %d\n%s", code, out)
	}
	for _, want := range []string{
		handlers + ": warning: [spec-drift]",
		docFile + ":5:1: error: [noma-duplicate-id]",
		taskFile + ": error: [task-dependency]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	// --policy warn reports and passes.
	if out, code = ciCheck(t, ci, nil, "--policy", "warn"); code != 0 || !strings.Contains(out, "gloss ci check passed") {
		t.Errorf("--policy warn: exit %d\n%s", code, out)
	}
}

// TestCICheckPassesOnceFixedAndReconciled: after the developer fixes the
// files and marks the spec reconciled (records shared with sync), the
// same CI check passes — it read the reconciliation records it fetched.
func TestCICheckPassesOnceFixedAndReconciled(t *testing.T) {
	bare, dev := badBranch(t)
	dev.Commit("fix plan and task", map[string]string{
		docFile:  "::note{id=\"a\"}\nfirst\n::\n\n::note{id=\"b\"}\nsecond\n::\n",
		taskFile: "---\ntype: code\nstatus: pending\n---\n# Add the create handler\n\n## Acceptance Criteria\n\n- [ ] Create returns the new id\n",
	})
	dev.MustGloss("spec", "mark", handlers)
	if out, err := dev.GitErr("push", "origin", "feature"); err != nil {
		t.Fatalf("push after fixing: %v\n%s", err, out)
	}
	dev.MustGloss("sync")
	ci := ciClone(t, bare)
	out, code := ciCheck(t, ci, []string{"GITHUB_ACTIONS=true", "GITHUB_BASE_REF=main"}, "--policy", "strict")
	if code != 0 || strings.Contains(out, "::error") || strings.Contains(out, "no annotations") {
		t.Fatalf("fixed branch fails: exit %d\n%s", code, out)
	}
	// Without the notes the spec looks never reconciled: the fetch matters.
	ci2 := ciClone(t, bare)
	// It also says the commits' annotations are missing, as they would be
	// for a developer who never ran git gloss sync.
	if out, code := ciCheck(t, ci2, nil, "--policy", "strict", "--no-fetch"); code != 1 || !strings.Contains(out, "never reconciled") ||
		!strings.Contains(out, "note: 2 of 2 commit(s) in the range have no annotations here") {
		t.Fatalf("--no-fetch should miss the records: exit %d\n%s", code, out)
	}
}

// TestCICheckSARIF checks the SARIF log's required structure.
func TestCICheckSARIF(t *testing.T) {
	bare, _ := badBranch(t)
	ci := ciClone(t, bare)
	file := filepath.Join(t.TempDir(), "gloss.sarif")
	if _, code := ciCheck(t, ci, nil, "--policy", "strict", "--sarif", file); code != 1 {
		t.Fatalf("exit %d", code)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Schema  string `json:"$schema"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string
					Rules []struct{ ID string }
				}
			}
			Results []struct {
				RuleID    string `json:"ruleId"`
				Level     string
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           *struct{ StartLine int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatalf("SARIF is not JSON: %v\n%s", err, data)
	}
	if log.Version != "2.1.0" || log.Schema == "" || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name != "gloss" {
		t.Fatalf("SARIF header: %s", data)
	}
	rules := map[string]bool{}
	for _, r := range log.Runs[0].Tool.Driver.Rules {
		rules[r.ID] = true
	}
	seen := map[string]bool{}
	for _, r := range log.Runs[0].Results {
		if !rules[r.RuleID] || r.Message.Text == "" || len(r.Locations) == 0 || r.Locations[0].PhysicalLocation.ArtifactLocation.URI == "" {
			t.Errorf("result lacks a required part: %+v", r)
		}
		if r.Level != "error" && r.Level != "warning" && r.Level != "note" {
			t.Errorf("level %q", r.Level)
		}
		seen[r.Locations[0].PhysicalLocation.ArtifactLocation.URI] = true
		if r.RuleID == "noma-duplicate-id" && (r.Locations[0].PhysicalLocation.Region == nil || r.Locations[0].PhysicalLocation.Region.StartLine != 5) {
			t.Errorf("noma result without its line: %+v", r.Locations[0])
		}
	}
	for _, f := range []string{handlers, docFile, taskFile} {
		if !seen[f] {
			t.Errorf("no SARIF result for %s", f)
		}
	}
}

// TestCICheckWithoutABaseIsAUsageError: no --base, no CI environment and no
// remote branch to compare with: exit 2 with what to do.
func TestCICheckWithoutABaseIsAUsageError(t *testing.T) {
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("one", map[string]string{"a.txt": "a\n"})
	out, err := fx.Gloss("ci", "check")
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(out, "pass --base") {
		t.Fatalf("want exit 2 asking for --base: %v\n%s", err, out)
	}
	// With a base, an empty range passes.
	if out, err := fx.Gloss("ci", "check", "--base", "HEAD"); err != nil || !strings.Contains(out, "gloss ci check passed") {
		t.Fatalf("empty range: %v\n%s", err, out)
	}
}
