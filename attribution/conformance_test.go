package attribution_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/gloss-dev/gloss/fixtures"
)

// placeholderRevision is the git revision the specification's examples
// name; no repository has it.
const placeholderRevision = "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0"

type expectedRange struct {
	Path    string `json:"path"`
	Start   int    `json:"start"`
	End     int    `json:"end"`
	Type    string `json:"type"`
	Agent   string `json:"agent"`
	Model   string `json:"model"`
	Session string `json:"session"`
}

// TestAgentTraceConformance runs the conformance set of
// fixtures/agenttrace (its README says where each record comes from): each
// record is read into the lines its expected.json names, and exported
// again byte for byte after normalisation.
func TestAgentTraceConformance(t *testing.T) {
	t.Parallel()
	schema := traceSchema(t)
	root := filepath.Join(fixtures.ModuleRoot(), "fixtures", "agenttrace")
	cases, err := filepath.Glob(filepath.Join(root, "*", "record.json"))
	if err != nil || len(cases) < 9 {
		t.Fatalf("conformance set: %d cases, %v", len(cases), err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, recFile := range cases {
		name := filepath.Base(filepath.Dir(recFile))
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			row := readmeRow(t, string(readme), name)
			data, err := os.ReadFile(recFile)
			if err != nil {
				t.Fatal(err)
			}
			var exp []expectedRange
			if raw, err := os.ReadFile(filepath.Join(filepath.Dir(recFile), "expected.json")); err != nil || json.Unmarshal(raw, &exp) != nil {
				t.Fatalf("expected.json: %v", err)
			}
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			verr := schema.Validate(inst)
			if conforms := strings.HasSuffix(strings.TrimSpace(row), "| yes |"); conforms != (verr == nil) {
				t.Fatalf("the README says conforms=%v, the schema says %v", conforms, verr)
			}
			checkTraceCase(t, data, exp)
		})
	}
}

// readmeRow is the README's table row of a case: every case is listed.
func readmeRow(t *testing.T, readme, name string) string {
	t.Helper()
	for _, l := range strings.Split(readme, "\n") {
		if strings.HasPrefix(l, "| `"+name+"` |") {
			return l
		}
	}
	t.Fatalf("fixtures/agenttrace/README.md does not list %s", name)
	return ""
}

// checkTraceCase imports one record into a repository holding its files
// and checks what gloss reads and what it exports.
func checkTraceCase(t *testing.T, data []byte, exp []expectedRange) {
	t.Helper()
	var rec struct {
		VCS *struct {
			Type string `json:"type"`
		} `json:"vcs"`
		Files []struct {
			Path string `json:"path"`
		} `json:"files"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	fx := fixtures.NewRepo(t)
	files := map[string]string{}
	for _, f := range rec.Files {
		files[f.Path] = numbered("line", 100)
	}
	commit := fx.Commit("the traced files", files)
	var want bytes.Buffer
	if err := json.Compact(&want, bytes.ReplaceAll(data, []byte(placeholderRevision), []byte(commit))); err != nil {
		t.Fatal(err)
	}
	if rec.VCS != nil && rec.VCS.Type == "git" {
		in := filepath.Join(t.TempDir(), "record.json")
		if err := os.WriteFile(in, want.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		fx.MustGloss("import", "agent-trace", in)
	} else {
		cmd := fx.Command("git", "notes", "--ref", "refs/notes/agent-trace", "add", "-F", "-", commit)
		cmd.Stdin = bytes.NewReader(data)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git notes add: %v\n%s", err, out)
		}
		fx.MustGloss("import", "agent-trace", "--ref", "refs/notes/agent-trace")
	}
	for _, e := range exp {
		res := blame(t, fx, e.Path, "--rev", "HEAD")
		for l := e.Start; l <= e.End; l++ {
			c := res.Lines[l-1].Contributor
			if got, w := fmt.Sprintf("%s/%s/%s/%s", c.Type, c.Agent, c.Model, c.Session), fmt.Sprintf("%s/%s/%s/%s", e.Type, e.Agent, e.Model, e.Session); got != w {
				t.Fatalf("%s line %d reads %s, want %s", e.Path, l, got, w)
			}
		}
	}
	file := filepath.Join(t.TempDir(), "export.jsonl")
	fx.MustGloss("export", "--format", "agent-trace", "-o", file)
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := string(raw)
	lines := fixtures.Lines(out)
	if len(lines) != 1 || lines[0] != want.String() {
		t.Errorf("export gave back\n%s\nwant\n%s", out, want.String())
	}
}
