package review_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"

	"github.com/gloss-dev/gloss/fixtures"
)

// actionlintErrors lints a workflow with actionlint (shellcheck on the
// run: scripts too when it is installed).
func actionlintErrors(t *testing.T, name string, content []byte) []*actionlint.Error {
	t.Helper()
	opts := &actionlint.LinterOptions{}
	if sc, err := exec.LookPath("shellcheck"); err == nil {
		opts.Shellcheck = sc
	}
	l, err := actionlint.NewLinter(io.Discard, opts)
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.Lint(name, content, nil)
	if err != nil {
		t.Fatal(err)
	}
	return errs
}

// TestGitHubWorkflowPassesActionlint: ci/github/gloss.yml, review job
// included, is actionlint-clean; and actionlint does look (a broken copy
// fails).
func TestGitHubWorkflowPassesActionlint(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(fixtures.ModuleRoot(), "ci", "github", "gloss.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range actionlintErrors(t, "gloss.yml", data) {
		t.Errorf("actionlint: %s", e.Error())
	}
	broken := strings.Replace(string(data), "pull-requests: write", "pull-requests: writable", 1)
	if errs := actionlintErrors(t, "gloss.yml", []byte(broken)); len(errs) == 0 {
		t.Error("actionlint found nothing wrong with an invalid permission")
	}
}

// TestGitLabFilePassesTheCISchema: ci/gitlab/gloss.gitlab-ci.yml, included
// from a .gitlab-ci.yml, validates against GitLab's own CI JSON Schema,
// offline, with gitlab-ci-local (tests/ci-lint, installed by make test);
// a broken copy does not.
func TestGitLabFilePassesTheCISchema(t *testing.T) {
	t.Parallel()
	tool := filepath.Join(fixtures.ModuleRoot(), "tests", "ci-lint", "node_modules", "gitlab-ci-local", "src", "index.js")
	if _, err := os.Stat(tool); err != nil {
		t.Skip("tests/ci-lint/node_modules is not installed (make test runs npm ci there)")
	}
	data, err := os.ReadFile(filepath.Join(fixtures.ModuleRoot(), "ci", "gitlab", "gloss.gitlab-ci.yml"))
	if err != nil {
		t.Fatal(err)
	}
	lint := func(content string) (string, error) {
		fx := fixtures.NewRepo(t)
		fx.Write("gloss.gitlab-ci.yml", content)
		fx.Write(".gitlab-ci.yml", "include:\n  - local: gloss.gitlab-ci.yml\n")
		fx.Git("add", "-A")
		fx.Git("commit", "-q", "-m", "ci")
		return fx.Run("node", tool, "--list")
	}
	if out, err := lint(string(data)); err != nil || !strings.Contains(out, "json schema validated") {
		t.Errorf("gitlab-ci-local --list: %v\n%s", err, out)
	}
	broken := strings.Replace(string(data), "resource_group: gloss-review-$CI_MERGE_REQUEST_IID", "resource_group: gloss-review-$CI_MERGE_REQUEST_IID\n  interruptible: \"yes\"", 1)
	if out, err := lint(broken); err == nil || !strings.Contains(out, "interruptible") {
		t.Errorf("the schema found nothing wrong with interruptible: \"yes\": %v\n%s", err, out)
	}
}
