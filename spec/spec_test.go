package spec_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/spec"
)

func TestGlobSemantics(t *testing.T) {
	cases := []struct {
		pattern, path string
		want          bool
	}{
		{"*.txt", "a.txt", true},
		{"*.txt", "a/b/c.txt", false}, // * never crosses /
		{"internal/api/**", "internal/api/handlers.go", true},
		{"internal/api/**", "internal/api/v2/deep/x.go", true},
		{"internal/api/**", "internal/api", false}, // a directory is not a file below it
		{"internal/api/**", "internal/apix/y.go", false},
		{"internal/api/*_test.go", "internal/api/handlers_test.go", true},
		{"internal/api/*_test.go", "internal/api/sub/x_test.go", false},
		{"**/*.lock", "yarn.lock", true},
		{"**/*.lock", "a/b/c.lock", true},
		{"docs/**/*.md", "docs/a.md", true},
		{"docs/**/*.md", "docs/x/y/a.md", true},
		{"./README.md", "README.md", true},
		{"package-*.json", "package-lock.json", true},
		{"package-*.json", "sub/package-lock.json", false},
		{"*", ".hidden", true}, // dot-files are not special
		{"src/[ab].go", "src/a.go", true},
		{"src/[ab].go", "src/c.go", false},
		{"migrations/?01_init.sql", "migrations/001_init.sql", true},
	}
	for _, c := range cases {
		g, err := spec.CompileGlob(c.pattern)
		if err != nil {
			t.Fatalf("%s: %v", c.pattern, err)
		}
		if got := g.Match(c.path); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.pattern, c.path, got, c.want)
		}
	}
	for _, bad := range []string{"", "src/[", "../x", "a/**b/c", "a\x00b"} {
		if _, err := spec.CompileGlob(bad); err == nil {
			t.Errorf("CompileGlob(%q) accepted a malformed pattern", bad)
		}
	}
}

// negative specs: each must fail with a problem on the given line whose
// message contains the given text.
var negative = []struct {
	name, yaml string
	line       int
	contains   string
}{
	{"no intent", "schema_version: '0.8'\nbehaviors:\n  - {name: a, given: b, then: c}\nartifacts: {}\n", 1, `missing required key "intent"`},
	{"full without behaviors", "schema_version: '0.8'\nintent: x\nartifacts: {}\n", 1, "tier: registered"},
	{"unquoted version", "schema_version: 0.8\nintent: x\ntier: registered\nartifacts: {}\n", 1, "quote it"},
	{"unknown key", "schema_version: '0.8'\nintent: x\ntier: registered\nartifacts: {}\nbehaviours: []\n", 5, `unknown key "behaviours" (did you mean "behaviors"?)`},
	{"behavior without then", "schema_version: '0.8'\nintent: x\nbehaviors:\n  - name: a\n    given: b\nartifacts: {}\n", 4, `missing required key "then"`},
	{"duplicate key", "schema_version: '0.8'\nintent: x\nintent: y\nartifacts: {}\n", 3, "duplicate key"},
	{"invalid yaml", "schema_version: '0.8'\nintent: x\nartifacts:\n  code: [a\n  docs: b\n", 4, "YAML parse error"},
	{"empty behaviors", "schema_version: '0.8'\nintent: x\ntier: registered\nbehaviors: []\nartifacts: {}\n", 4, "at least 1"},
	{"bad date", "schema_version: '0.8'\nintent: x\ntier: registered\ndecisions:\n  - date: '2026-13-45'\n    choice: c\nartifacts: {}\n", 5, "not a date"},
	{"bad enum", "schema_version: '0.4'\nintent: x\ntier: registered\nartifacts: {}\n", 1, `"0.4" is not allowed`},
	{"bad glob", "schema_version: '0.8'\nintent: x\ntier: registered\nartifacts:\n  code:\n    - path: 'src/['\n", 6, "malformed"},
	{"artifact tier out of range", "schema_version: '0.8'\nintent: x\ntier: registered\nartifacts:\n  code:\n    - path: a\n      tier: 7\n", 7, "maximum"},
	{"closed coverage", "schema_version: '0.8'\nintent: x\ntier: registered\nartifacts: {}\ncoverage:\n  policy: loud\n", 6, `"loud" is not allowed`},
	{"not utf-8", "schema_version: '0.8'\nintent: \xff\n", 2, "UTF-8"},
}

func TestValidateNegative(t *testing.T) {
	for _, c := range negative {
		t.Run(c.name, func(t *testing.T) {
			s := spec.Parse(".gloss/specs/x.spec.yaml", []byte(c.yaml))
			if len(s.Problems) == 0 {
				t.Fatalf("no problem found")
			}
			for _, p := range s.Problems {
				if strings.Contains(p.Message, c.contains) {
					// The YAML parser reports some scanner errors one line
					// early (at the construct's context); allow that only
					// for parse errors.
					if p.Line != c.line && !(strings.HasPrefix(p.Message, "YAML parse error") && p.Line == c.line-1) {
						t.Errorf("problem %q on line %d, want %d", p.Message, p.Line, c.line)
					}
					return
				}
			}
			t.Errorf("no problem contains %q: %v", c.contains, s.Problems)
		})
	}
}

func TestValidatePositive(t *testing.T) {
	for p, content := range fixtures.TodoServiceSpecs {
		s := spec.Parse(p, []byte(content))
		if !s.Valid() {
			t.Errorf("%s: %v", p, s.Problems)
		}
	}
	// Every version the schema accepts, and every optional block.
	for _, v := range spec.SchemaVersions {
		s := spec.Parse("x", []byte("schema_version: '"+v+"'\nintent: x\ntier: derived\nartifacts: {}\n"))
		if !s.Valid() {
			t.Errorf("schema_version %s: %v", v, s.Problems)
		}
	}
	full := `schema_version: '0.8'
domain: software
intent: everything
behaviors:
  - name: a
    given: b
    then: c
    interaction: {trigger: user_action, sequence: [click]}
    state_transition: {from: idle, to: busy}
    tested_by: [{path: t.go, assertion: works}]
decisions: [{date: '2026-01-01', choice: x, status: accepted, related_files: [a]}]
open_questions: [why]
output: {type: service, runtime: server}
content: {structure: ordered, sections: [{id: s1, duration: {value: 5, unit: min}}]}
states: {initial: idle, definitions: [{id: idle, transitions: [{to: busy, on: go}]}]}
design: {theme: {palette: ['#fff'], typography: {body: Inter}}, layout: {type: grid}}
audience: {role: dev, accessibility: [wcag]}
variants: [{id: v1, overrides: {a.b: 1}}]
pipeline: {steps: [{name: build, on_failure: abort}], env: {A: b}}
feedback: {triggers: [{condition: {metric: m, operator: stale}, action: warn}]}
compliance: {frameworks: [{name: soc2, controls: [{id: c1, satisfied_by: {invariants: [x]}}]}]}
artifacts: {code: [{path: 'src/**', role: impl}]}
`
	if s := spec.Parse("x", []byte(full)); !s.Valid() {
		t.Errorf("full spec: %v", s.Problems)
	}
}

func TestValidateCommand(t *testing.T) {
	r := fixtures.NewTodoService(t)
	out := r.MustGloss("spec", "validate")
	if strings.Count(out, "PASS ") != len(fixtures.TodoServiceSpecs) {
		t.Fatalf("want one PASS per spec:\n%s", out)
	}
	r.Write(".gloss/specs/broken.spec.yaml", "schema_version: 0.8\nintent: x\nartifacts: {}\n")
	out, err := r.Gloss("spec", "validate")
	if code := fixtures.ExitCode(err); code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	if !strings.Contains(out, "FAIL .gloss/specs/broken.spec.yaml") || !strings.Contains(out, "line 1: /schema_version: must be a string") {
		t.Fatalf("want a line-numbered FAIL:\n%s", out)
	}
	// One file alone, relative to a subdirectory, and JSON.
	cmd := r.Command(fixtures.Binary(t), "spec", "validate", "api.spec.yaml", "--json")
	cmd.Dir = r.Path(".gloss/specs")
	data, err := cmd.Output()
	if err != nil {
		t.Fatalf("validate one file: %v", err)
	}
	var res spec.ValidateResult
	if err := json.Unmarshal(data, &res); err != nil || res.Passed != 1 || res.Failed != 0 || res.Files[0].Path != ".gloss/specs/api.spec.yaml" {
		t.Fatalf("validate one file: %s (%v)", data, err)
	}
	if _, err := r.Gloss("spec", "validate", "nowhere"); fixtures.ExitCode(err) != 3 {
		t.Fatalf("a missing path must exit 3, got %v", err)
	}
	if _, err := r.Gloss("spec", "validate", "../outside"); fixtures.ExitCode(err) != 2 {
		t.Fatalf("a path outside the repository must exit 2, got %v", err)
	}
	// No specs at all: exit 0 with a warning.
	empty := fixtures.NewRepo(t)
	empty.Commit("init", map[string]string{"a": "b"})
	out = empty.MustGloss("spec", "validate")
	if !strings.Contains(out, "no specs found") {
		t.Fatalf("want a warning: %s", out)
	}
}

func TestSchemaCommand(t *testing.T) {
	r := fixtures.NewRepo(t)
	out := r.MustGloss("schema", "spec")
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if doc["$schema"] != "http://json-schema.org/draft-07/schema#" || doc["additionalProperties"] != false {
		t.Fatalf("unexpected schema head: %v %v", doc["$schema"], doc["additionalProperties"])
	}
	req, _ := doc["required"].([]any)
	if len(req) != 3 {
		t.Fatalf("required: %v", req)
	}
}
