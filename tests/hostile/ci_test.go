package hostile

import (
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// Names a pull request can give its files: a line break followed by a
// GitHub Actions workflow command, a command at the start of the name, a
// colon that would read as a URI scheme, and '#', '?', '%' and a space.
var hostileNames = []string{
	"src/evil\n::set-output name=pwn::1.noma",
	"::set-output name=top::2.noma",
	"a:b.noma",
	"src/#frag?.noma",
	"sp ace%41.noma",
}

// ciRepo is a clone whose branch adds a broken .noma document (a duplicate
// id: an error finding) under each hostile name.
func ciRepo(t *testing.T) *fixtures.Repo {
	t.Helper()
	r := fixtures.NewRepo(t)
	r.Commit("base", map[string]string{"README.md": "# demo\n"})
	r.MustGloss("init", "--no-mcp")
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", "gloss init")
	r.Git("checkout", "-q", "-b", "feature")
	files := map[string]string{}
	for _, n := range hostileNames {
		files[n] = "::note{id=\"a\"}\nfirst\n::\n\n::note{id=\"a\"}\nsecond\n::\n"
	}
	r.Commit("hostile names", files)
	return r
}

// ciRun runs ci check with env added; it returns stdout and stderr.
func ciRun(t *testing.T, r *fixtures.Repo, env []string, args ...string) (string, string) {
	t.Helper()
	cmd := r.Command(fixtures.Binary(t), append([]string{"ci", "check", "--no-fetch"}, args...)...)
	cmd.Env = append(append([]string{}, r.Env...), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String()
}

// noCommandLine fails when a line of out starts a workflow command other
// than the ones the GitHub format itself writes.
func noCommandLine(t *testing.T, what, out string, allowed ...string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "::") && !slices.ContainsFunc(allowed, func(a string) bool { return strings.HasPrefix(line, a) }) {
			t.Errorf("%s: a line starts a workflow command: %q", what, line)
		}
	}
}

// ci check prints names from the repository in every mode without letting
// one start a line, and SARIF's URIs are percent-encoded references that
// name the file exactly.
func TestCICheckEscapesHostileNames(t *testing.T) {
	t.Parallel()
	r := ciRepo(t)
	text, _ := ciRun(t, r, []string{"GITHUB_ACTIONS="}, "--base", "main", "--format", "text")
	noCommandLine(t, "text", text)
	if n := strings.Count(text, "noma-duplicate-id"); n != len(hostileNames) {
		t.Errorf("text: %d findings, want %d:\n%s", n, len(hostileNames), text)
	}
	gh, _ := ciRun(t, r, nil, "--base", "main", "--format", "github")
	noCommandLine(t, "github", gh, "::error ", "::warning ", "::notice ")
	if strings.Contains(gh, "::set-output") && !strings.Contains(gh, "%0A%3A%3Aset-output") {
		t.Errorf("github: a name's command is not escaped:\n%s", gh)
	}
	js, _ := ciRun(t, r, nil, "--base", "main", "--json")
	var rep struct {
		Findings []struct{ File string } `json:"findings"`
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, js)
	}
	sarif := r.Path("../out.sarif")
	ciRun(t, r, nil, "--base", "main", "--format", "text", "--sarif", sarif)
	data, err := os.ReadFile(sarif)
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("sarif: %v\n%s", err, data)
	}
	var named []string
	for _, res := range log.Runs[0].Results {
		uri := res.Locations[0].PhysicalLocation.ArtifactLocation.URI
		u, err := url.Parse(uri)
		if err != nil || u.Scheme != "" || u.Host != "" || u.Fragment != "" || u.RawQuery != "" || u.Opaque != "" {
			t.Errorf("sarif uri %q is not a relative path reference: %+v %v", uri, u, err)
			continue
		}
		named = append(named, u.Path)
	}
	for _, n := range hostileNames {
		if !slices.Contains(named, n) {
			t.Errorf("no SARIF result names %q exactly (got %q)", n, named)
		}
	}
	// An error quoting a hostile base ref stays on its line too.
	_, stderr := ciRun(t, r, nil, "--base", "x\n::set-output name=pwn::1", "--format", "text")
	noCommandLine(t, "stderr", stderr)
	if !strings.Contains(stderr, "set-output") {
		t.Errorf("the error does not name the base at all: %q", stderr)
	}
}
