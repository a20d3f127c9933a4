package spec_test

import (
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/spec"
)

// printSpec is a paginated report spec written the way NotarAI's spec
// format guide writes print and responsive settings: margins as a map of
// sides, headers and footers as switches, breakpoints in pixels as
// numbers, a section priority as a number and metric thresholds as text.
const printSpec = `schema_version: '0.7'
domain: report
intent: The quarterly report reads well on paper and on a phone.
behaviors:
  - name: print_cleanly
    given: the report is printed
    then: every page has the running header and a page number
artifacts:
  docs:
    - path: report/*.md
content:
  structure: ordered
  sections:
    - id: summary
      priority: 0
    - id: appendix
      priority: 2
design:
  layout: {type: paginated, dimensions: A4}
  print:
    margins: {top: 2cm, bottom: 2cm, inside: 2.5cm, outside: 1.5cm}
    headers: true
    footers: false
    page_numbers: true
    bleed: 3mm
  responsive:
    breakpoints:
      - name: phone
        max_width: 600
        layout_override: scrolling
      - name: wide
        min_width: 601.0
feedback:
  metrics:
    - name: read_through
      threshold: '>= 60%'
`

func TestNotarAIPrintAndResponsiveTypes(t *testing.T) {
	s := spec.Parse(".notarai/report.spec.yaml", []byte(printSpec))
	if !s.Valid() {
		t.Fatalf("a spec typed as NotarAI types it fails: %v", s.Problems)
	}
}

// Each of these is what NotarAI rejects; gloss must reject it too, or a
// spec that passes here fails the moment the team runs notarai validate.
func TestNotarAIRejectsWhatNotarAIRejects(t *testing.T) {
	cases := []struct{ name, from, to, want string }{
		{"margins as text", "margins: {top: 2cm, bottom: 2cm, inside: 2.5cm, outside: 1.5cm}", "margins: 2cm", "must be an object"},
		{"headers as text", "headers: true", "headers: chapter title", "must be a boolean"},
		{"breakpoint with a unit", "max_width: 600", "max_width: 600px", "must be an integer"},
		{"fractional breakpoint", "min_width: 601.0", "min_width: 601.5", "must be an integer"},
		{"named priority", "priority: 0", "priority: high", "must be an integer"},
		{"numeric threshold", "threshold: '>= 60%'", "threshold: 0.6", "must be a string"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(printSpec, c.from) {
				t.Fatalf("fixture lacks %q", c.from)
			}
			s := spec.Parse(".notarai/report.spec.yaml", []byte(strings.Replace(printSpec, c.from, c.to, 1)))
			for _, p := range s.Problems {
				if strings.Contains(p.Message, c.want) {
					return
				}
			}
			t.Errorf("want a problem containing %q, got %v", c.want, s.Problems)
		})
	}
}

// The schema advice never asks for a version the team's NotarAI rejects:
// 0.7 when nothing says otherwise, what .notarai/notarai.spec.json lists
// when the repository has it, and no advice at all for specs already
// there.
func TestSchemaAdviceStaysWithinNotarAI(t *testing.T) {
	r := fixtures.NewRepo(t)
	r.Commit("specs", map[string]string{
		".notarai/old.spec.yaml":     "schema_version: '0.5'\nintent: x\ntier: registered\nartifacts: {}\n",
		".notarai/current.spec.yaml": "schema_version: '0.7'\nintent: y\ntier: registered\nartifacts: {}\n",
	})
	a := spec.AdviseSchema(r.Dir)
	if a == nil || a.Target != "0.7" || a.Dir != ".notarai" || len(a.Files) != 1 || a.Files[0] != ".notarai/old.spec.yaml" || a.Oldest != "0.5" {
		t.Fatalf("advice: %+v", a)
	}
	if !strings.Contains(a.Note(), "schema_version: '0.7'") || strings.Contains(a.Note(), "'0.8'") {
		t.Fatalf("note: %s", a.Note())
	}
	out := r.MustGloss("spec", "validate")
	if !strings.Contains(out, "schema_version: '0.7'") || strings.Contains(out, "'0.8'") {
		t.Fatalf("validate must give the same advice:\n%s", out)
	}

	r.Write(".notarai/old.spec.yaml", "schema_version: '0.7'\nintent: x\ntier: registered\nartifacts: {}\n")
	if a := spec.AdviseSchema(r.Dir); a != nil {
		t.Fatalf("specs at the newest version NotarAI accepts need no advice: %+v", a)
	}

	// A team on a NotarAI that accepts 0.8 says so in its schema copy.
	r.Write(".notarai/notarai.spec.json", `{"properties": {"schema_version": {"type": "string", "enum": ["0.8", "0.7", "0.6", "0.5"]}}}`)
	a = spec.AdviseSchema(r.Dir)
	if a == nil || a.Target != "0.8" || len(a.Files) != 2 {
		t.Fatalf("advice with a 0.8 schema copy: %+v", a)
	}
	if oldest, files := spec.OutdatedSpecs(r.Dir); oldest != "0.7" || len(files) != 2 || files[0] != ".notarai/current.spec.yaml" {
		t.Fatalf("OutdatedSpecs: %s %v", oldest, files)
	}
}
