package noma

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// The directive validator is a rule table: each directive's checks are a
// named rule, run for every directive of its name that noverify does not
// exempt (directiveRules); a few checks run even under noverify
// (alwaysRules). validate_test.go has a table test per rule.

// directiveRule checks one directive and reports what it finds.
type directiveRule func(v *validator, n *Node)

// alwaysRules run even on a noverify directive: they say what the block
// points at, which other checks rely on.
var alwaysRules = map[string]directiveRule{
	"evidence":        (*validator).evidenceRule,
	"counterevidence": (*validator).evidenceRule,
	"plot":            (*validator).plot,
}

// directiveRules are the checks of each directive, by its name; a
// directive whose name is absent has none of its own.
var directiveRules = sync.OnceValue(func() map[string]directiveRule {
	return map[string]directiveRule{
		"claim":           (*validator).claimRule,
		"risk":            (*validator).riskRule,
		"decision":        (*validator).decisionRule,
		"adr":             (*validator).decisionRule,
		"agent_task":      (*validator).agentTaskRule,
		"todo":            (*validator).agentTaskRule,
		"state_change":    (*validator).stateChangeRule,
		"change_request":  (*validator).changeRequestRule,
		"comment":         (*validator).commentRule,
		"footnote":        (*validator).commentRule,
		"endnote":         (*validator).commentRule,
		"citation":        (*validator).citationRule,
		"diagram":         (*validator).diagramRule,
		"plotly":          (*validator).plotlyRule,
		"figure":          (*validator).figureRule,
		"dataset":         (*validator).datasetRule,
		"html":            (*validator).escapeHatchRule,
		"svg":             (*validator).escapeHatchRule,
		"script":          (*validator).escapeHatchRule,
		"memory":          (*validator).memoryRule,
		"control":         (*validator).controlRule,
		"computed_metric": (*validator).computedRule,
		"computed_plot":   (*validator).computedRule,
		"computed_table":  (*validator).computedRule,
	}
})

// directive validates one directive block: the rules that always run,
// then, unless it says noverify, whether its profile allows it and its
// own rules.
func (v *validator) directive(n *Node) {
	if n.Name == "dataset" && n.HasID && n.ID != "" {
		v.datasets[n.ID] = datasetColumns(n)
	}
	if rule := alwaysRules[n.Name]; rule != nil {
		rule(v, n)
	}
	if b, ok := n.Attr("noverify"); ok && b == true {
		return
	}
	if !v.allowed(n.Name) {
		v.add(SevWarning, "out-of-profile-directive", n, fmt.Sprintf("Directive \"%s\" is not part of the declared \"%s\" profile.", n.Name, strings.Join(v.profiles, "+")))
	}
	if rule := directiveRules()[n.Name]; rule != nil {
		rule(v, n)
	}
}

// evidence: an evidence or counterevidence block says which claim it is
// for, and that claim resolves.
func (v *validator) evidenceRule(n *Node) {
	if _, ok := n.StringAttr("for"); !ok {
		v.add(SevWarning, "evidence-missing-for", n, n.Name+" block has no `for=` attribute.")
	}
	v.refAttr(n, "for")
}

func attrString(n *Node, k string) string { s, _ := n.StringAttr(k); return s }

func hasAttr(n *Node, k string) bool { _, ok := n.Attr(k); return ok }

// claim: a claim has evidence (unless the options skip it) and a
// confidence in [0, 1], which the research-style profiles require.
func (v *validator) claimRule(n *Node) {
	if id, ok := n.StringAttr("id"); ok && !v.opts.SkipEvidenceForClaims && !v.withEvidence[id] {
		v.add(SevWarning, "claim-without-evidence", n, fmt.Sprintf("Claim \"%s\" has no evidence backing it.", id))
	}
	if c, ok := n.Attr("confidence"); ok {
		if f, ok := number(c); !ok || f < 0 || f > 1 {
			v.add(SevWarning, "claim-invalid-confidence", n, fmt.Sprintf("Claim \"%s\" confidence=\"%s\" must be a number in [0, 1].", idOf(n), jsText(c)))
		}
	} else if v.known["research-memo"] || v.known["investment-thesis"] {
		v.add(SevWarning, "claim-missing-confidence", n, fmt.Sprintf("Claim \"%s\" has no `confidence=` attribute required by the research-style profile.", idOf(n)))
	}
}

// risk: a risk has an owner.
func (v *validator) riskRule(n *Node) {
	if !hasAttr(n, "owner") {
		v.add(SevWarning, "risk-without-owner", n, fmt.Sprintf("Risk \"%s\" has no `owner=` attribute.", idOf(n)))
	}
}

// decision: a decision or ADR has a status; under the adr profile, an
// owner and a date too.
func (v *validator) decisionRule(n *Node) {
	if !hasAttr(n, "status") {
		v.add(SevWarning, "decision-without-status", n, fmt.Sprintf("%s \"%s\" has no `status=` attribute.", n.Name, idOf(n)))
	}
	if v.known["adr"] {
		if !hasAttr(n, "owner") {
			v.add(SevWarning, "adr-missing-owner", n, fmt.Sprintf("%s \"%s\" has no `owner=` attribute required by the adr profile.", n.Name, idOf(n)))
		}
		if !hasAttr(n, "date") && !hasAttr(n, "decided_at") && !hasAttr(n, "decidedAt") {
			v.add(SevWarning, "adr-missing-date", n, fmt.Sprintf("%s \"%s\" has no `date=` or `decided_at=` attribute required by the adr profile.", n.Name, idOf(n)))
		}
	}
}

// agentTask: an agent task or todo has a scope or a body.
func (v *validator) agentTaskRule(n *Node) {
	if !hasAttr(n, "scope") && jsTrim(n.Body) == "" && len(n.Children) == 0 {
		v.add(SevWarning, "agent-task-without-scope", n, fmt.Sprintf("Agent task \"%s\" has no scope or body.", idOf(n)))
	}
}

// stateChange: a state change names the block it changed, and its from and
// to.
func (v *validator) stateChangeRule(n *Node) {
	if _, ok := n.StringAttr("block"); !ok {
		v.add(SevWarning, "state-change-missing-block", n, "state_change has no `block=` attribute pointing at the changed block.")
	}
	if !hasAttr(n, "from") || !hasAttr(n, "to") {
		v.add(SevWarning, "state-change-missing-from-to", n, fmt.Sprintf("state_change \"%s\" needs both `from=` and `to=` attributes.", idOf(n)))
	}
	v.refAttr(n, "block")
}

// changeRequest: a change request has a known action with the text it
// needs, and a target that resolves.
func (v *validator) changeRequestRule(n *Node) {
	// As the reference: the first string of action/type, lower-cased;
	// none at all is no finding.
	action, ok := n.StringAttr("action")
	if !ok {
		action, _ = n.StringAttr("type")
	}
	action = strings.ToLower(action)
	switch action {
	case "":
	case "replace":
		if !hasAttr(n, "from") || !hasAttr(n, "to") {
			v.add(SevWarning, "change-request-missing-revision-text", n, crText(n, action))
		}
	case "insert":
		if !hasAttr(n, "to") && !hasAttr(n, "text") && !hasContent(n) {
			v.add(SevWarning, "change-request-missing-revision-text", n, crText(n, action))
		}
	case "delete":
		if !hasAttr(n, "from") && !hasAttr(n, "text") && !hasContent(n) {
			v.add(SevWarning, "change-request-missing-revision-text", n, crText(n, action))
		}
	default:
		v.add(SevWarning, "change-request-invalid-action", n, fmt.Sprintf("change_request \"%s\" action=\"%s\" must be insert, delete, or replace.", idOf(n), action))
	}
	v.firstRef(n, "target", "for", "parent", "block")
}

// comment: a comment, footnote or endnote points at a block that resolves
// (and a comment's reply at one too).
func (v *validator) commentRule(n *Node) {
	v.firstRef(n, "target", "for", "parent", "block", "ref")
	if n.Name == "comment" {
		for _, k := range []string{"reply_to", "replyTo", "reply"} {
			v.refAttr(n, k)
		}
	}
}

// citation: a citation has a source, and was accessed recently enough.
func (v *validator) citationRule(n *Node) {
	if !hasAttr(n, "url") && !hasAttr(n, "source") && !hasAttr(n, "doi") {
		v.add(SevWarning, "citation-missing-source", n, fmt.Sprintf("Citation \"%s\" has no `url=`, `source=`, or `doi=` attribute.", idOf(n)))
	}
	if acc := attrString(n, "accessed"); acc != "" {
		days := v.stale
		if d, ok := n.Attr("stale_after_days"); ok {
			if f, ok := number(d); ok {
				days = int(f)
			}
		}
		if t, err := time.Parse("2006-01-02", acc[:min(10, len(acc))]); err == nil && v.now.Sub(t) > time.Duration(days)*24*time.Hour {
			v.add(SevWarning, "stale-citation", n, fmt.Sprintf("Citation \"%s\" was last accessed %s (>%d days ago).", idOf(n), acc, days))
		}
	}
}

// diagram: a diagram has a kind and a source.
func (v *validator) diagramRule(n *Node) {
	if !hasAttr(n, "kind") {
		v.add(SevWarning, "diagram-missing-kind", n, fmt.Sprintf("Diagram \"%s\" has no `kind=` (mermaid|graphviz|drawio).", idOf(n)))
	}
	if !hasContent(n) {
		v.add(SevWarning, "diagram-missing-source", n, fmt.Sprintf("Diagram \"%s\" has no source body.", idOf(n)))
	}
}

// plotly: a plotly block has a spec, and the spec is JSON.
func (v *validator) plotlyRule(n *Node) {
	body := rawBody(n)
	if jsTrim(body) == "" {
		v.add(SevWarning, "plotly-missing-spec", n, fmt.Sprintf("Plotly \"%s\" has no JSON spec body.", idOf(n)))
	} else if !json.Valid([]byte(body)) {
		v.add(SevError, "plotly-invalid-json", n, fmt.Sprintf("Plotly \"%s\" body is not valid JSON: %s", idOf(n), jsonProblem(body)))
	}
}

// figure: a figure has alt text or a caption.
func (v *validator) figureRule(n *Node) {
	if !hasAttr(n, "alt") && !hasAttr(n, "caption") {
		v.add(SevWarning, "figure-missing-alt", n, "Figure block has no alt or caption text.")
	}
}

// dataset: a dataset with a src loaded it.
func (v *validator) datasetRule(n *Node) {
	if src, ok := n.StringAttr("src"); ok && src != "" && (!hasContent(n) || attrString(n, "format") == "error") {
		v.add(SevWarning, "dataset-src-missing", n, fmt.Sprintf("Dataset \"%s\" src=\"%s\" failed to load (file missing or unreadable).", idOf(n), src))
	}
}

// escapeHatch: an html, svg or script block is marked trusted.
func (v *validator) escapeHatchRule(n *Node) {
	if t, ok := n.Attr("trusted"); !ok || t != true {
		v.add(SevWarning, "escape-hatch-untrusted", n, n.Name+" escape-hatch block has no `trusted` attribute. Add `trusted` to silence this warning, or `noverify` to suppress all checks on this block.")
	}
}

// memory: a memory has an id, a known type, a confidence in [0, 1] and an
// ISO last_seen.
func (v *validator) memoryRule(n *Node) {
	t, ok := n.Attr("type")
	if !ok {
		v.add(SevError, "memory-missing-type", n, fmt.Sprintf("Memory \"%s\" has no `type=` attribute.", idOf(n)))
	} else if s, _ := t.(string); !slices.Contains(memoryTypes, s) {
		v.add(SevError, "memory-invalid-type", n, fmt.Sprintf("Memory \"%s\" has type=\"%s\". Must be one of: %s.", idOf(n), jsText(t), strings.Join(memoryTypes, ", ")))
	}
	if c, ok := n.Attr("confidence"); ok {
		if f, ok := number(c); !ok || f < 0 || f > 1 {
			v.add(SevError, "memory-invalid-confidence", n, fmt.Sprintf("Memory \"%s\" confidence=\"%s\" must be a number in [0, 1].", idOf(n), jsText(c)))
		}
	}
	if ls, ok := n.Attr("last_seen"); ok {
		if s, _ := ls.(string); !reISODate.MatchString(s) {
			v.add(SevError, "memory-invalid-last-seen", n, fmt.Sprintf("Memory \"%s\" last_seen=\"%s\" must be ISO date (YYYY-MM-DD or full ISO 8601).", idOf(n), jsText(ls)))
		}
	}
	if !n.HasID || n.ID == "" {
		v.add(SevError, "memory-missing-id", n, "Memory block has no `id=` attribute.")
	}
}

// control: a numeric control has a numeric default within its range, and a
// known lock.
func (v *validator) controlRule(n *Node) {
	typ := strings.ToLower(strings.TrimSpace(attrString(n, "type")))
	if slices.Contains(numericInputs, typ) {
		def, ok := n.Attr("default")
		f, isNum := number(def)
		if _, isStr := def.(string); isStr {
			isNum = false
		}
		if !isNum && (typ == "checkbox" || typ == "toggle") {
			// A switch's default is a number too: true/yes/on/checked
			// is 1, false/no/off/unchecked 0 (controlDefaultNumber in
			// https://github.com/ferax564/noma/blob/95319db/src/computed.ts).
			switch strings.ToLower(jsText(def)) {
			case "true", "yes", "on", "checked":
				f, isNum = 1, true
			case "false", "no", "off", "unchecked":
				f, isNum = 0, true
			}
		}
		if !ok || !isNum {
			v.add(SevWarning, "control-missing-default", n, fmt.Sprintf("Numeric control \"%s\" has no numeric `default=` value for static rendering and LLM context.", idOf(n)))
		} else {
			if lo, ok := n.Attr("min"); ok {
				if l, ok := number(lo); ok && f < l {
					v.add(SevWarning, "control-out-of-range-default", n, fmt.Sprintf("Numeric control \"%s\" default=%s is outside its declared range.", idOf(n), jsText(def)))
				}
			}
			if hi, ok := n.Attr("max"); ok {
				if h, ok := number(hi); ok && f > h {
					v.add(SevWarning, "control-out-of-range-default", n, fmt.Sprintf("Numeric control \"%s\" default=%s is outside its declared range.", idOf(n), jsText(def)))
				}
			}
		}
	}
	for _, k := range []string{"lock", "content_control_lock", "sdt_lock"} {
		if l, ok := n.Attr(k); ok {
			if _, isBool := l.(bool); !isBool {
				s, _ := l.(string)
				if !slices.Contains([]string{"sdtLocked", "contentLocked", "sdtContentLocked", "unlocked", "locked", "content", "sdt", "both", "none"}, s) {
					v.add(SevWarning, "control-invalid-lock", n, fmt.Sprintf("Control \"%s\" lock=\"%s\" must be control, content, all, unlocked, or none.", idOf(n), jsText(l)))
				}
			}
		}
	}
}

// computed: a computed block has a formula that parses and depends only on
// known controls and computed blocks.
func (v *validator) computedRule(n *Node) {
	f := formulaOf(n)
	if jsTrim(f) == "" {
		v.add(SevWarning, "computed-missing-formula", n, fmt.Sprintf("%s \"%s\" has no `formula=` attribute or `formula:` body line.", n.Name, idOf(n)))
	} else if idents, err := parseFormula(f); err != nil {
		v.add(SevError, "formula-parse-error", n, fmt.Sprintf("%s \"%s\" formula could not be parsed: %s", n.Name, idOf(n), err.Error()))
	} else {
		known := v.variables()
		for d := range domainVars(n) {
			known[d] = true
		}
		for _, id := range idents {
			if !known[id] && !slices.Contains(formulaFuncs, strings.ToLower(id)) {
				v.add(SevError, "computed-unknown-dependency", n, fmt.Sprintf("%s \"%s\" formula references unknown control or computed block \"%s\".", n.Name, idOf(n), id))
			}
		}
	}
}
