package cli_test

import (
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// A path on the command line means what it means to git: relative to the
// current directory (here -C docs), in every command; output names files
// relative to the repository root.
func TestPathArgumentsAreRelativeToTheCurrentDirectory(t *testing.T) {
	r := fixtures.NewRepo(t)
	r.Commit("docs", map[string]string{
		"docs/a.noma":                "# A\n\n::claim{id=\"c1\"}\nText.\n::\n",
		"docs/a.md":                  "# not the doc\n",
		".gloss/specs/api.spec.yaml": "schema_version: '0.7'\nintent: the api\ntier: registered\nartifacts:\n  code:\n    - path: 'docs/**'\n",
		"docs/local.spec.yaml":       "not: a spec\n",
		"docs/nested/notes/keep.txt": "x\n",
	})
	for _, tc := range []struct {
		args []string
		want string // in the output
	}{
		{[]string{"-C", "docs", "doc", "ids", "a.noma", "--json"}, `"c1"`},
		{[]string{"doc", "ids", "docs/a.noma", "--json"}, `"c1"`},
		{[]string{"-C", "docs", "doc", "log", "a.noma", "--json"}, `"file":"docs/a.noma"`},
		{[]string{"-C", "docs", "spec", "validate", "../.gloss/specs/api.spec.yaml", "--json"}, `.gloss/specs/api.spec.yaml`},
		{[]string{"-C", "docs", "spec", "diff", "api", "--base", "HEAD", "--json"}, `.gloss/specs/api.spec.yaml`},
	} {
		out, err := r.Gloss(tc.args...)
		if err != nil || !strings.Contains(out, tc.want) {
			t.Errorf("git gloss %s: %v\n%s\nwant %s in the output", strings.Join(tc.args, " "), err, out, tc.want)
		}
	}
	// The annotation commands too, and they answer with repository paths.
	r.MustGloss("init")
	r.Commit("server", map[string]string{"docs/server.go": "package docs\n\n// Serve serves.\nfunc Serve() {}\n"})
	for _, cmd := range [][]string{{"read", "server.go"}, {"deps", "server.go"}, {"history", "server.go"}, {"summary", "server.go"}, {"summary", "."}} {
		args := append(append([]string{"-C", "docs"}, cmd...), "--json")
		out, err := r.Gloss(args...)
		want := `"path":"docs/server.go"`
		if cmd[1] == "." {
			want = `"path":"docs"`
		}
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("git gloss %s: %v\n%s\nwant %s", strings.Join(args, " "), err, out, want)
		}
	}
	// Repository-relative spelling from a subdirectory is not a path there.
	if out, err := r.Gloss("-C", "docs", "doc", "ids", "docs/a.noma"); err == nil {
		t.Errorf("docs/a.noma from docs/ was read (it is docs/docs/a.noma):\n%s", out)
	}
}
