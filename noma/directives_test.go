package noma

import (
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// ruleCase is one document for one rule: the codes the rule reports on
// the document's last directive (none: the directive is sound).
type ruleCase struct {
	name, src string
	want      []string
	opts      ValidateOptions
}

// ruleTables holds a table per rule of the directive validator, by the
// rule's function name: each runs the rule alone, on the document's last
// directive, with the document's ids, profiles and evidence known.
var ruleTables = map[string][]ruleCase{
	"evidenceRule": {
		{"sound", "::claim{id=\"c\"}\nx\n::\n\n::evidence{for=\"c\"}\ny\n::\n", nil, ValidateOptions{}},
		{"no for", "::evidence\ny\n::\n", []string{"evidence-missing-for"}, ValidateOptions{}},
		{"for nothing", "::counterevidence{for=\"c\"}\ny\n::\n", []string{"broken-reference"}, ValidateOptions{}},
	},
	"plot": {
		{"sound", "::plot{data=\"1,2\"}\n::\n", nil, ValidateOptions{}},
		{"no data", "::plot\n::\n", []string{"plot-missing-data"}, ValidateOptions{}},
	},
	"claimRule": {
		{"backed", "::evidence{for=\"c\"}\ny\n::\n\n::claim{id=\"c\" confidence=0.5}\nx\n::\n", nil, ValidateOptions{}},
		{"unbacked", "::claim{id=\"c\"}\nx\n::\n", []string{"claim-without-evidence"}, ValidateOptions{}},
		{"unbacked, skipped", "::claim{id=\"c\"}\nx\n::\n", nil, ValidateOptions{SkipEvidenceForClaims: true}},
		{"confidence out of range", "::claim{confidence=1.5}\nx\n::\n", []string{"claim-invalid-confidence"}, ValidateOptions{}},
		{"research memo wants confidence", "---\nprofile: research-memo\n---\n::claim\nx\n::\n", []string{"claim-missing-confidence"}, ValidateOptions{}},
	},
	"riskRule": {
		{"owned", "::risk{owner=ada}\nx\n::\n", nil, ValidateOptions{}},
		{"no owner", "::risk\nx\n::\n", []string{"risk-without-owner"}, ValidateOptions{}},
	},
	"decisionRule": {
		{"with status", "::decision{status=accepted}\nx\n::\n", nil, ValidateOptions{}},
		{"no status", "::adr\nx\n::\n", []string{"decision-without-status"}, ValidateOptions{}},
		{"adr profile, whole", "---\nprofile: adr\n---\n::adr{status=ok owner=me decided_at=2026-01-01}\nx\n::\n", nil, ValidateOptions{}},
		{"adr profile, no owner or date", "---\nprofile: adr\n---\n::decision{status=ok}\nx\n::\n", []string{"adr-missing-owner", "adr-missing-date"}, ValidateOptions{}},
	},
	"agentTaskRule": {
		{"scoped", "::todo{scope=\"a.go\"}\n::\n", nil, ValidateOptions{}},
		{"with a body", "::agent_task\ndo it\n::\n", nil, ValidateOptions{}},
		{"empty", "::agent_task\n::\n", []string{"agent-task-without-scope"}, ValidateOptions{}},
	},
	"stateChangeRule": {
		{"whole", "::note{id=\"n\"}\n::\n\n::state_change{block=\"n\" from=a to=b}\n::\n", nil, ValidateOptions{}},
		{"no block", "::state_change{from=a to=b}\n::\n", []string{"state-change-missing-block"}, ValidateOptions{}},
		{"no to", "::note{id=\"n\"}\n::\n\n::state_change{block=\"n\" from=a}\n::\n", []string{"state-change-missing-from-to"}, ValidateOptions{}},
		{"block unknown", "::state_change{block=\"x\" from=a to=b}\n::\n", []string{"broken-reference"}, ValidateOptions{}},
	},
	"changeRequestRule": {
		{"replace", "::note{id=\"n\"}\n::\n\n::change_request{target=\"n\" action=replace from=a to=b}\n::\n", nil, ValidateOptions{}},
		{"no action", "::note{id=\"n\"}\n::\n\n::change_request{target=\"n\"}\n::\n", nil, ValidateOptions{}},
		{"type for action", "::note{id=\"n\"}\n::\n\n::change_request{target=\"n\" type=Delete}\n::\n", []string{"change-request-missing-revision-text"}, ValidateOptions{}},
		{"insert without text", "::note{id=\"n\"}\n::\n\n::change_request{target=\"n\" action=insert}\n::\n", []string{"change-request-missing-revision-text"}, ValidateOptions{}},
		{"unknown action", "::note{id=\"n\"}\n::\n\n::change_request{target=\"n\" action=move}\n::\n", []string{"change-request-invalid-action"}, ValidateOptions{}},
		{"target unknown", "::change_request{target=\"x\" action=replace from=a to=b}\n::\n", []string{"broken-reference"}, ValidateOptions{}},
	},
	"commentRule": {
		{"on a block", "::note{id=\"n\"}\n::\n\n::comment{target=\"n\"}\nhi\n::\n", nil, ValidateOptions{}},
		{"on nothing", "::footnote{ref=\"x\"}\nhi\n::\n", []string{"broken-reference"}, ValidateOptions{}},
		{"reply to nothing", "::note{id=\"n\"}\n::\n\n::comment{target=\"n\" reply_to=\"c0\"}\nhi\n::\n", []string{"broken-reference"}, ValidateOptions{}},
	},
	"citationRule": {
		{"fresh", "::citation{url=\"u\" accessed=\"2026-05-01\"}\nx\n::\n", nil, ValidateOptions{}},
		{"no source", "::citation\nx\n::\n", []string{"citation-missing-source"}, ValidateOptions{}},
		{"stale", "::citation{doi=\"d\" accessed=\"2020-01-01\"}\nx\n::\n", []string{"stale-citation"}, ValidateOptions{}},
		{"stale later", "::citation{doi=\"d\" accessed=\"2020-01-01\" stale_after_days=5000}\nx\n::\n", nil, ValidateOptions{}},
	},
	"diagramRule": {
		{"whole", "::diagram{kind=mermaid}\nA --> B\n::\n", nil, ValidateOptions{}},
		{"no kind, no source", "::diagram\n::\n", []string{"diagram-missing-kind", "diagram-missing-source"}, ValidateOptions{}},
	},
	"plotlyRule": {
		{"a spec", "::plotly\n{\"data\": []}\n::\n", nil, ValidateOptions{}},
		{"no spec", "::plotly\n::\n", []string{"plotly-missing-spec"}, ValidateOptions{}},
		{"not JSON", "::plotly\n{nope\n::\n", []string{"plotly-invalid-json"}, ValidateOptions{}},
	},
	"figureRule": {
		{"captioned", "::figure{src=x.png caption=\"x\"}\n::\n", nil, ValidateOptions{}},
		{"bare", "::figure{src=x.png}\n::\n", []string{"figure-missing-alt"}, ValidateOptions{}},
	},
	"datasetRule": {
		{"inline", "::dataset{id=\"d\"}\nschema:\n  a: number\nrows:\n  - [1]\n::\n", nil, ValidateOptions{}},
		{"src not loaded", "::dataset{src=\"x.csv\"}\n::\n", []string{"dataset-src-missing"}, ValidateOptions{}},
	},
	"escapeHatchRule": {
		{"trusted", "::svg{trusted}\n<svg/>\n::\n", nil, ValidateOptions{}},
		{"untrusted", "::script\nx()\n::\n", []string{"escape-hatch-untrusted"}, ValidateOptions{}},
	},
	"memoryRule": {
		{"whole", "::memory{id=\"m\" type=user confidence=0.9 last_seen=\"2026-01-02\"}\nx\n::\n", nil, ValidateOptions{}},
		{"no id, no type", "::memory\nx\n::\n", []string{"memory-missing-type", "memory-missing-id"}, ValidateOptions{}},
		{"bad values", "::memory{id=\"m\" type=dream confidence=2 last_seen=\"soon\"}\nx\n::\n", []string{"memory-invalid-type", "memory-invalid-confidence", "memory-invalid-last-seen"}, ValidateOptions{}},
	},
	"controlRule": {
		{"in range", "::control{id=\"c\" type=slider default=5 min=0 max=10}\n::\n", nil, ValidateOptions{}},
		{"a switch's default", "::control{id=\"c\" type=toggle default=on}\n::\n", nil, ValidateOptions{}},
		{"no default", "::control{id=\"c\" type=slider}\n::\n", []string{"control-missing-default"}, ValidateOptions{}},
		{"out of range", "::control{id=\"c\" default=5 min=0 max=1}\n::\n", []string{"control-out-of-range-default"}, ValidateOptions{}},
		{"unknown lock", "::control{id=\"c\" type=text lock=sometimes}\n::\n", []string{"control-invalid-lock"}, ValidateOptions{}},
	},
	"computedRule": {
		{"known inputs", "::control{id=\"p\" default=1}\n::\n\n::computed_metric{id=\"m\" formula=\"p * 2\"}\n::\n", nil, ValidateOptions{}},
		{"no formula", "::computed_table{id=\"m\"}\n::\n", []string{"computed-missing-formula"}, ValidateOptions{}},
		{"unparsable", "::computed_plot{id=\"m\" formula=\"1 + (2\"}\n::\n", []string{"formula-parse-error"}, ValidateOptions{}},
		{"unknown input", "::computed_metric{id=\"m\" formula=\"price * qty\"}\n::\n", []string{"computed-unknown-dependency", "computed-unknown-dependency"}, ValidateOptions{}},
	},
}

// ruleName is the function name of a rule, "controlRule" for
// (*validator).controlRule.
func ruleName(r directiveRule) string {
	full := runtime.FuncForPC(reflect.ValueOf(r).Pointer()).Name()
	return strings.TrimSuffix(full[strings.LastIndex(full, ".")+1:], "-fm")
}

func TestDirectiveRules(t *testing.T) {
	t.Parallel()
	rules := map[string]directiveRule{}
	for _, table := range []map[string]directiveRule{alwaysRules, directiveRules()} {
		for _, r := range table {
			rules[ruleName(r)] = r
		}
	}
	for name := range rules {
		if len(ruleTables[name]) == 0 {
			t.Errorf("rule %s has no table in ruleTables", name)
		}
	}
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for name, cases := range ruleTables {
		rule := rules[name]
		if rule == nil {
			t.Errorf("ruleTables has a table for %s, which is no rule", name)
			continue
		}
		for _, c := range cases {
			doc := mustParse(t, c.src)
			var last *Node
			Walk(doc, func(n *Node) bool {
				if n.Type == TypeDirective {
					last = n
				}
				return true
			})
			if c.opts.Now.IsZero() {
				c.opts.Now = now
			}
			v := newValidator(doc, c.opts)
			rule(v, last)
			var got []string
			for _, d := range v.out {
				got = append(got, d.Code)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("%s, %s: got %v, want %v", name, c.name, got, c.want)
			}
		}
	}
}
