package forge_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gloss-dev/gloss/fixtures"
)

// ciFile parses one of the ready-made CI files.
func ciFile(t *testing.T, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtures.ModuleRoot(), "ci", name))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s does not parse: %v", name, err)
	}
	return doc
}

// shellLines collects every shell line of a parsed CI file: GitHub's
// steps[].run and GitLab's script / before_script entries.
func shellLines(v any) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			switch s := val.(type) {
			case string:
				if k == "run" {
					out = append(out, strings.Split(s, "\n")...)
				}
			case []any:
				if k == "script" || k == "before_script" {
					for _, e := range s {
						if line, ok := e.(string); ok {
							out = append(out, line)
						}
					}
					continue
				}
			}
			out = append(out, shellLines(val)...)
		}
	case []any:
		for _, e := range x {
			out = append(out, shellLines(e)...)
		}
	}
	return out
}

var glossCall = regexp.MustCompile(`git gloss ([^|;&>]*)`)

// glossCommands extracts the argument lists of every `git gloss …` in the
// lines, with shell variables replaced by a placeholder value.
func glossCommands(lines []string) [][]string {
	var out [][]string
	for _, l := range lines {
		for _, m := range glossCall.FindAllStringSubmatch(l, -1) {
			var args []string
			for _, f := range strings.Fields(m[1]) {
				f = strings.Trim(f, `"'`)
				if strings.Contains(f, "$") {
					f = "x"
				}
				args = append(args, f)
			}
			out = append(out, args)
		}
	}
	return out
}

// TestCIFilesRunRealCommands: both CI files parse, have the jobs docs/forge.md
// promises, and every git gloss command line in them — subcommand and
// flags — is accepted by the binary (run with --help).
func TestCIFilesRunRealCommands(t *testing.T) {
	bin := fixtures.Binary(t)
	gh := ciFile(t, "github/gloss.yml")
	gl := ciFile(t, "gitlab/gloss.gitlab-ci.yml")

	jobs, _ := gh["jobs"].(map[string]any)
	if jobs["check"] == nil || jobs["carry"] == nil || gh["on"] == nil {
		t.Fatalf("GitHub workflow lacks on / jobs.check / jobs.carry: %v", gh)
	}
	if gl["gloss-check"] == nil || gl["gloss-carry"] == nil {
		t.Fatalf("GitLab file lacks gloss-check / gloss-carry")
	}
	for name, doc := range map[string]map[string]any{"github": gh, "gitlab": gl} {
		cmds := glossCommands(shellLines(doc))
		seen := map[string]bool{}
		for _, args := range cmds {
			seen[args[0]] = true
			cmd := exec.Command(bin, append(args, "--help")...)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.HasPrefix(string(out), "Usage: git gloss "+args[0]) {
				t.Errorf("%s: git gloss %s is not a valid command line: %v\n%s", name, strings.Join(args, " "), err, out)
			}
		}
		for _, want := range []string{"ci", "carry", "sync"} {
			if !seen[want] {
				t.Errorf("%s: no git gloss %s in %v", name, want, cmds)
			}
		}
	}
}

// TestGitHubCarryStepAfterSquashMerge runs the workflow's own carry step,
// as written, in a CI clone after a forge-style squash merge (plain git,
// no hooks, branch deleted); a third clone then reads the annotations on
// main's lines.
func TestGitHubCarryStepAfterSquashMerge(t *testing.T) {
	var script string
	jobs := ciFile(t, "github/gloss.yml")["jobs"].(map[string]any)
	for _, s := range jobs["carry"].(map[string]any)["steps"].([]any) {
		step := s.(map[string]any)
		if step["name"] == "Carry annotations onto the merge" {
			script, _ = step["run"].(string)
		}
	}
	if script == "" {
		t.Fatal("no carry step in the workflow")
	}
	bare, _, feature := newProject(t)
	moveMain(t, bare)
	_, squash := squashMerge(t, bare)

	ci := forgeClone(t, bare)
	cmd := ci.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Env = append(cmd.Env, "PR=1", "MERGED="+squash)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("carry step: %v\n%s", err, out)
	}
	checkOnMain(t, bare, squash, feature, "squash")
}

// TestGitLabCarryJobAfterSquashMerge runs the GitLab job's script (all but
// the remote URL rewrite, which needs GitLab's token) in a CI clone after a
// squash merge: without knowing the merge request, carry finds its commits
// by patch id among the fetched merge request heads.
func TestGitLabCarryJobAfterSquashMerge(t *testing.T) {
	job := ciFile(t, "gitlab/gloss.gitlab-ci.yml")["gloss-carry"].(map[string]any)
	var lines []string
	for _, l := range job["script"].([]any) {
		if s := l.(string); !strings.Contains(s, "set-url") {
			lines = append(lines, s)
		}
	}
	bare, _, feature := newProject(t)
	moveMain(t, bare)
	ci := forgeClone(t, bare)
	before := ci.Git("rev-parse", "HEAD")
	_, squash := squashMerge(t, bare)
	ci.Git("pull", "-q", "--ff-only", "origin", "main")

	cmd := ci.Command("bash", "-euo", "pipefail", "-c", strings.Join(lines, "\n"))
	cmd.Env = append(cmd.Env, "CI_COMMIT_BEFORE_SHA="+before, "CI_COMMIT_SHA="+squash, "CI_SERVER_HOST=gitlab.invalid")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("carry job: %v\n%s", err, out)
	}
	checkOnMain(t, bare, squash, feature, "squash")
}
