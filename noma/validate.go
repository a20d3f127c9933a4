package noma

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/editdist"
	"github.com/gloss-dev/gloss/lazyregexp"
)

// The validator: diagnostics for a parsed document (ids, references,
// directive attributes, profiles), with suggested fixes.

// Severities.
const (
	SevError   = "error"
	SevWarning = "warning"
	SevInfo    = "info"
)

// Pos is a diagnostic position.
type Pos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Fix is a suggested patch op.
type Fix struct {
	Op    string `json:"op"`
	ID    string `json:"id"`
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Diagnostic is one validator finding.
type Diagnostic struct {
	Severity string `json:"severity" jsonschema:"error, warning or info"`
	Code     string `json:"code"`
	Message  string `json:"message"`
	Pos      *Pos   `json:"pos,omitempty"`
	EndLine  int    `json:"endLine,omitempty"`
	NodeID   string `json:"nodeId,omitempty"`
	Fix      *Fix   `json:"fix,omitempty"`
}

// ValidateOptions tune the validator. The zero value is the reference's
// defaults.
type ValidateOptions struct {
	// SkipEvidenceForClaims turns off claim-without-evidence (the
	// reference's requireEvidenceForClaims: false).
	SkipEvidenceForClaims bool
	// StaleCitationDays overrides the staleness window (default 365, or
	// frontmatter stale_citation_days).
	StaleCitationDays int
	// Now is the clock for stale-citation; zero means time.Now.
	Now time.Time
	// IgnoreRules drops these codes; an unknown code yields
	// unknown-ignore-rule (info).
	IgnoreRules []string
	// Profiles are added to the frontmatter's profiles.
	Profiles []string
}

// Codes lists every diagnostic code the validator emits.
var Codes = []string{
	"duplicate-id", "broken-reference", "unknown-profile", "out-of-profile-directive",
	"claim-without-evidence", "claim-invalid-confidence", "claim-missing-confidence", "evidence-missing-for",
	"risk-without-owner", "decision-without-status", "adr-missing-owner", "adr-missing-date", "adr-missing-decision",
	"agent-task-without-scope", "state-change-missing-block", "state-change-missing-from-to",
	"change-request-invalid-action", "change-request-missing-revision-text", "citation-missing-source", "stale-citation",
	"diagram-missing-kind", "diagram-missing-source", "plotly-missing-spec", "plotly-invalid-json", "figure-missing-alt",
	"plot-missing-data", "plot-unknown-dataset", "plot-unknown-column", "plot-mixed-delimiters", "dataset-src-missing",
	"escape-hatch-untrusted", "memory-missing-type", "memory-invalid-type", "memory-invalid-confidence",
	"memory-invalid-last-seen", "memory-missing-id", "memory-wikilink-non-memory-target", "control-missing-default",
	"control-out-of-range-default", "control-invalid-lock", "computed-missing-formula", "formula-parse-error",
	"computed-unknown-dependency", "computed-chain-too-deep", "unknown-ignore-rule",
}

// profileDirectives are the reference's allow-lists: a document that
// declares profiles may use the union of their directive names, nothing
// else (PROFILES in https://github.com/ferax564/noma/blob/95319db/src/validator.ts,
// v0.17.0). The workflow profiles are aliases or unions of the four base
// ones, as there.
var profileDirectives = func() map[string][]string {
	minimal := []string{"summary", "abstract", "callout", "note", "warning", "tip", "header", "footer", "page_setup", "doc_protection",
		"toc", "figure", "citation", "footnote", "endnote", "bibliography", "math", "code", "table", "pagebreak"}
	technical := []string{"summary", "abstract", "callout", "note", "warning", "tip", "hero", "grid", "card", "columns", "tabs", "accordion",
		"sidebar", "button", "api", "endpoint", "parameter", "example", "changelog", "instruction", "header", "footer", "page_setup",
		"doc_protection", "toc", "pagebreak", "figure", "plot", "plotly", "diagram", "dataset", "query", "code", "code_cell", "output",
		"control", "computed_metric", "computed_plot", "computed_table", "export_button", "agent_task", "todo", "citation", "footnote",
		"endnote", "bibliography", "math", "table", "html", "svg", "script"}
	research := []string{"summary", "abstract", "callout", "note", "warning", "tip", "header", "footer", "page_setup", "doc_protection",
		"toc", "claim", "evidence", "counterevidence", "assumption", "risk", "hypothesis", "result", "limitation", "open_question",
		"decision", "adr", "dataset", "query", "plot", "plotly", "diagram", "metric", "control", "computed_metric", "computed_plot",
		"computed_table", "code", "figure", "agent_task", "todo", "instruction", "review", "comment", "change_request", "provenance",
		"confidence", "citation", "footnote", "endnote", "bibliography", "state_change", "math", "table", "pagebreak"}
	memory := []string{"memory", "memory_index"}
	adr := append(slices.Clone(minimal), "decision", "adr", "risk", "open_question", "assumption", "evidence", "counterevidence",
		"comment", "change_request", "agent_task", "todo", "citation", "state_change")
	return map[string][]string{
		"minimal": minimal, "technical": technical, "research": research, "memory": memory,
		"technical-docs": technical, "research-memo": research, "investment-thesis": research, "agent-memory": memory,
		"adr": adr, "spec": append(slices.Clone(technical), research...),
	}
}()

// knownProfiles in the reference's order (Object.keys(PROFILES)), as its
// unknown-profile message lists them.
var knownProfiles = []string{"minimal", "technical", "research", "memory", "technical-docs", "research-memo", "investment-thesis", "agent-memory", "adr", "spec"}

var (
	reISODate    = lazyregexp.New(`^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$`)
	reProfileSep = lazyregexp.New(`[,` + wsClass + `]+`)
	reFormulaTok = lazyregexp.New(`^(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[A-Za-z_][A-Za-z0-9_.-]*|[-+*/^%(),<>=!&|?:])`)
	// reDomainVar is one "name:" part of a computed block's domain.
	reDomainVar   = lazyregexp.New(`^([A-Za-z_][A-Za-z0-9_.-]*)` + ws + `*:`)
	memoryTypes   = []string{"user", "feedback", "project", "reference"}
	formulaFuncs  = []string{"min", "max", "abs", "round", "floor", "ceil", "sqrt", "log", "exp", "pow", "if", "sum", "avg", "mean"}
	numericInputs = []string{"", "slider", "range", "number", "checkbox", "toggle"}
)

type validator struct {
	opts      ValidateOptions
	doc       *Node
	out       []Diagnostic
	ids       map[string]*Node
	aliases   map[string]bool
	profiles  []string
	known     map[string]bool // active known profiles
	datasets  map[string][]string
	suggested map[string]string
	now       time.Time
	stale     int
}

// Validate checks a parsed document.
func Validate(doc *Node, opts ValidateOptions) []Diagnostic {
	v := &validator{opts: opts, doc: doc, ids: map[string]*Node{}, aliases: map[string]bool{}, known: map[string]bool{}, datasets: map[string][]string{}, suggested: map[string]string{}}
	v.now = opts.Now
	if v.now.IsZero() {
		v.now = time.Now()
	}
	v.stale = 365
	if f, ok := doc.Meta["stale_citation_days"]; ok {
		if n, ok := number(f); ok {
			v.stale = int(n)
		}
	}
	if opts.StaleCitationDays > 0 {
		v.stale = opts.StaleCitationDays
	}
	v.profileSetup()
	// ids and aliases first: references may point forward.
	Walk(doc, func(n *Node) bool {
		if n.HasID && n.ID != "" {
			if _, dup := v.ids[n.ID]; dup {
				v.add(SevError, "duplicate-id", n, fmt.Sprintf("Duplicate block ID \"%s\".", n.ID))
			} else {
				v.ids[n.ID] = n
			}
		}
		for _, a := range n.Aliases {
			v.aliases[a] = true
		}
		return true
	})
	claimsWithEvidence := map[string]bool{}
	Walk(doc, func(n *Node) bool {
		if n.Type == TypeDirective && (n.Name == "evidence" || n.Name == "counterevidence") {
			if f, ok := n.StringAttr("for"); ok {
				claimsWithEvidence[f] = true
			}
		}
		return true
	})
	hasDecision := false
	Walk(doc, func(n *Node) bool {
		switch n.Type {
		case TypeParagraph, TypeQuote, TypeListItem:
			v.links(n, n.Text)
		case TypeSection:
			v.links(n, n.Title)
		case TypeTable:
			for _, c := range n.Header {
				v.links(n, c)
			}
			for _, r := range n.Rows {
				for _, c := range r {
					v.links(n, c)
				}
			}
		case TypeDirective:
			if n.Name == "decision" || n.Name == "adr" {
				hasDecision = true
			}
			v.links(n, n.Body)
			v.directive(n, claimsWithEvidence)
		}
		return true
	})
	if v.known["adr"] && !hasDecision {
		v.add(SevWarning, "adr-missing-decision", nil, "ADR profile expects at least one ::decision or ::adr block.")
	}
	v.computedDepth()
	return v.finish()
}

func (v *validator) profileSetup() {
	var names []string
	switch p := v.doc.Meta["profiles"].(type) {
	case []any:
		for _, x := range p {
			if s, ok := x.(string); ok {
				names = append(names, s)
			}
		}
	}
	if s, ok := v.doc.Meta["profile"].(string); ok {
		for _, x := range reProfileSep.Split(s, -1) {
			if x != "" {
				names = append(names, x)
			}
		}
	}
	names = append(names, v.opts.Profiles...)
	for _, n := range names {
		if _, ok := profileDirectives[n]; ok {
			v.known[n] = true
		} else {
			v.add(SevWarning, "unknown-profile", nil, fmt.Sprintf("Document declares unknown profile \"%s\". Known: %s.", n, strings.Join(knownProfiles, ", ")))
		}
		v.profiles = append(v.profiles, n)
	}
}

func (v *validator) add(sev, code string, n *Node, msg string) *Diagnostic {
	d := Diagnostic{Severity: sev, Code: code, Message: msg}
	if n != nil {
		d.Pos = &Pos{Line: n.Line, Column: 1}
		if n.HasID && n.ID != "" {
			d.NodeID = n.ID
			if t := v.ids[n.ID]; t != nil {
				d.EndLine = t.EndLine
			} else {
				d.EndLine = n.EndLine
			}
		}
	}
	v.out = append(v.out, d)
	return &v.out[len(v.out)-1]
}

func (v *validator) finish() []Diagnostic {
	if len(v.opts.IgnoreRules) == 0 {
		return v.out
	}
	ignore := map[string]bool{}
	var extra []Diagnostic
	for _, r := range v.opts.IgnoreRules {
		if slices.Contains(Codes, r) && r != "unknown-ignore-rule" {
			ignore[r] = true
		} else {
			extra = append(extra, Diagnostic{Severity: SevInfo, Code: "unknown-ignore-rule", Message: fmt.Sprintf("--ignore-rule \"%s\" matches no known validator rule (ignored).", r)})
		}
	}
	var out []Diagnostic
	for _, d := range v.out {
		if !ignore[d.Code] {
			out = append(out, d)
		}
	}
	return append(out, extra...)
}

func (v *validator) resolves(t string) bool {
	_, ok := v.ids[t]
	return ok || v.aliases[t]
}

// suggest returns the unique nearest id or alias within distance 2.
func (v *validator) suggest(t string) string {
	if len(t) <= 3 {
		return ""
	}
	if s, ok := v.suggested[t]; ok {
		return s
	}
	best, bestD, unique := "", 3, false
	consider := func(c string) {
		d := editdist.Bounded(t, c, bestD)
		if d < bestD {
			best, bestD, unique = c, d, true
		} else if d == bestD && c != best {
			unique = false
		}
	}
	for id := range v.ids {
		consider(id)
	}
	for a := range v.aliases {
		consider(a)
	}
	if !unique || bestD > 2 {
		best = ""
	}
	v.suggested[t] = best
	return best
}

func (v *validator) broken(n *Node, t, key string) {
	msg := fmt.Sprintf("Reference to unknown block ID \"%s\".", t)
	s := v.suggest(t)
	if s != "" {
		msg += fmt.Sprintf(" Did you mean \"%s\"?", s)
	}
	d := v.add(SevError, "broken-reference", n, msg)
	if key != "" && n.HasID && n.ID != "" && s != "" {
		d.Fix = &Fix{Op: "update_attribute", ID: n.ID, Key: key, Value: s}
	}
}

func (v *validator) links(n *Node, text string) {
	memProfile := v.known["memory"] || v.known["agent-memory"]
	for _, w := range wikilinks(text) {
		if !isBlockRef(w.Target) {
			continue
		}
		if !v.resolves(w.Target) {
			v.broken(n, w.Target, "")
			continue
		}
		if memProfile {
			if t := v.ids[w.Target]; t != nil && !(t.Type == TypeDirective && t.Name == "memory") {
				v.add(SevWarning, "memory-wikilink-non-memory-target", n, fmt.Sprintf("Wikilink [[%s]] points at a non-::memory block. Memory profile expects wikilinks to resolve to ::memory directives.", w.Target))
			}
		}
	}
}

func (v *validator) refAttr(n *Node, key string) {
	if t, ok := n.StringAttr(key); ok && !v.resolves(t) {
		v.broken(n, t, key)
	}
}

func number(x any) (float64, bool) {
	switch t := x.(type) {
	case float64:
		return t, true
	case int:
		return float64(t), true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		if err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f, true
		}
	}
	return 0, false
}

func hasContent(n *Node) bool { return jsTrim(n.Body) != "" || len(n.Children) > 0 }

func (v *validator) allowed(name string) bool {
	if len(v.known) == 0 {
		return true
	}
	for p := range v.known {
		if slices.Contains(profileDirectives[p], name) {
			return true
		}
	}
	return false
}

func (v *validator) directive(n *Node, withEvidence map[string]bool) {
	noverify := false
	if b, ok := n.Attr("noverify"); ok && b == true {
		noverify = true
	}
	if n.Name == "dataset" && n.HasID && n.ID != "" {
		v.datasets[n.ID] = datasetColumns(n)
	}
	// Rules noverify does not suppress.
	switch n.Name {
	case "evidence", "counterevidence":
		if _, ok := n.StringAttr("for"); !ok {
			v.add(SevWarning, "evidence-missing-for", n, n.Name+" block has no `for=` attribute.")
		}
		v.refAttr(n, "for")
	case "plot":
		v.plot(n)
	}
	if noverify {
		return
	}
	if !v.allowed(n.Name) {
		v.add(SevWarning, "out-of-profile-directive", n, fmt.Sprintf("Directive \"%s\" is not part of the declared \"%s\" profile.", n.Name, strings.Join(v.profiles, "+")))
	}
	str := func(k string) string { s, _ := n.StringAttr(k); return s }
	has := func(k string) bool { _, ok := n.Attr(k); return ok }
	switch n.Name {
	case "claim":
		if id, ok := n.StringAttr("id"); ok && !v.opts.SkipEvidenceForClaims && !withEvidence[id] {
			v.add(SevWarning, "claim-without-evidence", n, fmt.Sprintf("Claim \"%s\" has no evidence backing it.", id))
		}
		if c, ok := n.Attr("confidence"); ok {
			if f, ok := number(c); !ok || f < 0 || f > 1 {
				v.add(SevWarning, "claim-invalid-confidence", n, fmt.Sprintf("Claim \"%s\" confidence=\"%s\" must be a number in [0, 1].", idOf(n), jsText(c)))
			}
		} else if v.known["research-memo"] || v.known["investment-thesis"] {
			v.add(SevWarning, "claim-missing-confidence", n, fmt.Sprintf("Claim \"%s\" has no `confidence=` attribute required by the research-style profile.", idOf(n)))
		}
	case "risk":
		if !has("owner") {
			v.add(SevWarning, "risk-without-owner", n, fmt.Sprintf("Risk \"%s\" has no `owner=` attribute.", idOf(n)))
		}
	case "decision", "adr":
		if !has("status") {
			v.add(SevWarning, "decision-without-status", n, fmt.Sprintf("%s \"%s\" has no `status=` attribute.", n.Name, idOf(n)))
		}
		if v.known["adr"] {
			if !has("owner") {
				v.add(SevWarning, "adr-missing-owner", n, fmt.Sprintf("%s \"%s\" has no `owner=` attribute required by the adr profile.", n.Name, idOf(n)))
			}
			if !has("date") && !has("decided_at") && !has("decidedAt") {
				v.add(SevWarning, "adr-missing-date", n, fmt.Sprintf("%s \"%s\" has no `date=` or `decided_at=` attribute required by the adr profile.", n.Name, idOf(n)))
			}
		}
	case "agent_task", "todo":
		if !has("scope") && jsTrim(n.Body) == "" && len(n.Children) == 0 {
			v.add(SevWarning, "agent-task-without-scope", n, fmt.Sprintf("Agent task \"%s\" has no scope or body.", idOf(n)))
		}
	case "state_change":
		if _, ok := n.StringAttr("block"); !ok {
			v.add(SevWarning, "state-change-missing-block", n, "state_change has no `block=` attribute pointing at the changed block.")
		}
		if !has("from") || !has("to") {
			v.add(SevWarning, "state-change-missing-from-to", n, fmt.Sprintf("state_change \"%s\" needs both `from=` and `to=` attributes.", idOf(n)))
		}
		v.refAttr(n, "block")
	case "change_request":
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
			if !has("from") || !has("to") {
				v.add(SevWarning, "change-request-missing-revision-text", n, crText(n, action))
			}
		case "insert":
			if !has("to") && !has("text") && !hasContent(n) {
				v.add(SevWarning, "change-request-missing-revision-text", n, crText(n, action))
			}
		case "delete":
			if !has("from") && !has("text") && !hasContent(n) {
				v.add(SevWarning, "change-request-missing-revision-text", n, crText(n, action))
			}
		default:
			v.add(SevWarning, "change-request-invalid-action", n, fmt.Sprintf("change_request \"%s\" action=\"%s\" must be insert, delete, or replace.", idOf(n), action))
		}
		v.firstRef(n, "target", "for", "parent", "block")
	case "comment", "footnote", "endnote":
		v.firstRef(n, "target", "for", "parent", "block", "ref")
		if n.Name == "comment" {
			for _, k := range []string{"reply_to", "replyTo", "reply"} {
				v.refAttr(n, k)
			}
		}
	case "citation":
		if !has("url") && !has("source") && !has("doi") {
			v.add(SevWarning, "citation-missing-source", n, fmt.Sprintf("Citation \"%s\" has no `url=`, `source=`, or `doi=` attribute.", idOf(n)))
		}
		if acc := str("accessed"); acc != "" {
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
	case "diagram":
		if !has("kind") {
			v.add(SevWarning, "diagram-missing-kind", n, fmt.Sprintf("Diagram \"%s\" has no `kind=` (mermaid|graphviz|drawio).", idOf(n)))
		}
		if !hasContent(n) {
			v.add(SevWarning, "diagram-missing-source", n, fmt.Sprintf("Diagram \"%s\" has no source body.", idOf(n)))
		}
	case "plotly":
		body := rawBody(n)
		if jsTrim(body) == "" {
			v.add(SevWarning, "plotly-missing-spec", n, fmt.Sprintf("Plotly \"%s\" has no JSON spec body.", idOf(n)))
		} else if !json.Valid([]byte(body)) {
			v.add(SevError, "plotly-invalid-json", n, fmt.Sprintf("Plotly \"%s\" body is not valid JSON: %s", idOf(n), jsonProblem(body)))
		}
	case "figure":
		if !has("alt") && !has("caption") {
			v.add(SevWarning, "figure-missing-alt", n, "Figure block has no alt or caption text.")
		}
	case "dataset":
		if src, ok := n.StringAttr("src"); ok && src != "" && (!hasContent(n) || str("format") == "error") {
			v.add(SevWarning, "dataset-src-missing", n, fmt.Sprintf("Dataset \"%s\" src=\"%s\" failed to load (file missing or unreadable).", idOf(n), src))
		}
	case "html", "svg", "script":
		if t, ok := n.Attr("trusted"); !ok || t != true {
			v.add(SevWarning, "escape-hatch-untrusted", n, n.Name+" escape-hatch block has no `trusted` attribute. Add `trusted` to silence this warning, or `noverify` to suppress all checks on this block.")
		}
	case "memory":
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
	case "control":
		typ := strings.ToLower(strings.TrimSpace(str("type")))
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
	case "computed_metric", "computed_plot", "computed_table":
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
}

func (v *validator) firstRef(n *Node, keys ...string) {
	for _, k := range keys {
		if _, ok := n.StringAttr(k); ok {
			v.refAttr(n, k)
			return
		}
	}
}

func (v *validator) plot(n *Node) {
	_, hasData := n.Attr("data")
	ds, hasDS := n.StringAttr("dataset")
	if !hasData && !hasDS {
		v.add(SevError, "plot-missing-data", n, "Plot has no data or dataset attribute.")
	}
	if hasDS {
		cols, ok := v.datasets[ds]
		if !ok {
			v.add(SevError, "plot-unknown-dataset", n, fmt.Sprintf("Plot \"%s\" references unknown dataset \"%s\".", idOf(n), ds))
		} else if c, ok := n.StringAttr("column"); ok && len(cols) > 0 && !slices.Contains(cols, c) {
			v.add(SevError, "plot-unknown-column", n, fmt.Sprintf("Plot \"%s\" references unknown column \"%s\" in dataset \"%s\".", idOf(n), c, ds))
		}
	}
	data, _ := n.StringAttr("data")
	xl, _ := n.StringAttr("xlabels")
	if data != "" && xl != "" && delim(data) != delim(xl) {
		v.add(SevWarning, "plot-mixed-delimiters", n, fmt.Sprintf("Plot \"%s\" mixes %s-separated data with %s-separated xlabels. Use commas for both (preferred).", idOf(n), delimName(data), delimName(xl)))
	}
}

func delim(s string) string {
	if strings.Contains(s, ",") {
		return ","
	}
	return " "
}

// variables are the names formulas may use: controls and computed blocks
// (by id or name) and domain variables declared with var=/name=.
func (v *validator) variables() map[string]bool {
	out := map[string]bool{}
	Walk(v.doc, func(n *Node) bool {
		if n.Type != TypeDirective {
			return true
		}
		switch n.Name {
		case "control", "computed_metric", "computed_plot", "computed_table", "variable", "domain", "var":
			if n.HasID {
				out[n.ID] = true
			}
			for _, k := range []string{"name", "var"} {
				if s, ok := n.StringAttr(k); ok {
					out[s] = true
				}
			}
		}
		return true
	})
	return out
}

// formulaOf is a computed block's formula: an attribute, else a
// "formula:" line of its body (the reference's two forms).
func formulaOf(n *Node) string {
	for _, k := range []string{"formula", "expr", "expression"} {
		if s, ok := n.StringAttr(k); ok && jsTrim(s) != "" {
			return s
		}
	}
	return bodyField(n, "formula")
}

// domainVars are the variables a computed block declares for itself in
// domain= or range= (attribute or body line), as "year:0..10": a formula
// may use them without a control of that name.
func domainVars(n *Node) map[string]bool {
	raw := ""
	for _, k := range []string{"domain", "range"} {
		if s, ok := n.StringAttr(k); ok && jsTrim(s) != "" {
			raw = s
			break
		}
	}
	if raw == "" {
		raw = bodyField(n, "domain")
	}
	if raw == "" {
		raw = bodyField(n, "range")
	}
	out := map[string]bool{}
	for _, part := range reProfileSep.Split(raw, -1) {
		if m := reDomainVar.FindStringSubmatch(jsTrim(part)); m != nil {
			out[m[1]] = true
		}
	}
	return out
}

// bodyField is the value of the first "key:" line of a directive's body
// (key case-insensitive), trimmed; "" when there is none.
func bodyField(n *Node, key string) string {
	for _, l := range strings.Split(n.Body, "\n") {
		l = strings.TrimSuffix(l, "\r")
		t := strings.TrimLeftFunc(l, isJSSpace)
		if len(t) < len(key) || !strings.EqualFold(t[:len(key)], key) {
			continue
		}
		rest := strings.TrimLeftFunc(t[len(key):], isJSSpace)
		if strings.HasPrefix(rest, ":") {
			return jsTrim(rest[1:])
		}
	}
	return ""
}

// computedDepth warns about computed chains deeper than 2, or cycles.
func (v *validator) computedDepth() {
	deps := map[string][]string{}
	var nodes []*Node
	Walk(v.doc, func(n *Node) bool {
		if n.Type == TypeDirective && strings.HasPrefix(n.Name, "computed_") && n.HasID {
			ids, err := parseFormula(formulaOf(n))
			if err == nil {
				deps[n.ID] = ids
				nodes = append(nodes, n)
			}
		}
		return true
	})
	const cycle = 1 << 20
	memo := map[string]int{}
	visiting := map[string]bool{}
	var depth func(id string) int
	depth = func(id string) int {
		if d, ok := memo[id]; ok {
			return d
		}
		if visiting[id] {
			return cycle
		}
		ds, ok := deps[id]
		if !ok {
			return 0
		}
		visiting[id] = true
		best := 0
		for _, d := range ds {
			if _, computed := deps[d]; computed {
				best = max(best, min(cycle, 1+depth(d)))
			}
		}
		delete(visiting, id)
		memo[id] = best
		return best
	}
	for _, n := range nodes {
		if d := depth(n.ID); d > 2 {
			v.add(SevWarning, "computed-chain-too-deep", n, fmt.Sprintf("%s \"%s\" has computed dependency depth %s; keep computed chains at depth <= 2.", n.Name, n.ID, depthText(d, cycle)))
		}
	}
}

// parseFormula checks a formula's syntax (numbers, names, arithmetic,
// comparison, calls, parentheses) and returns the names it uses.
func parseFormula(f string) ([]string, error) {
	var toks []string
	s := jsTrim(f)
	for s != "" {
		s = strings.TrimLeftFunc(s, isJSSpace)
		if s == "" {
			break
		}
		m := reFormulaTok.FindString(s)
		if m == "" {
			return nil, fmt.Errorf("unexpected %q", s[:1])
		}
		toks = append(toks, m)
		s = s[len(m):]
	}
	p := &fparser{toks: toks}
	if len(toks) == 0 {
		return nil, fmt.Errorf("empty formula")
	}
	if err := p.expr(); err != nil {
		return nil, err
	}
	if p.i != len(toks) {
		return nil, fmt.Errorf("unexpected %q", toks[p.i])
	}
	return p.idents, nil
}

type fparser struct {
	toks   []string
	i      int
	idents []string
}

func (p *fparser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func isOp(t string) bool {
	return strings.Contains("+-*/^%<>=!&|?:", t) && t != ""
}

func (p *fparser) expr() error {
	if err := p.unary(); err != nil {
		return err
	}
	for isOp(p.peek()) && p.peek() != "!" {
		p.i++
		// allow two-character operators such as <=, ==, &&
		if isOp(p.peek()) && p.peek() != "-" && p.peek() != "+" && p.peek() != "!" {
			p.i++
		}
		if err := p.unary(); err != nil {
			return err
		}
	}
	return nil
}

func (p *fparser) unary() error {
	for p.peek() == "-" || p.peek() == "+" || p.peek() == "!" {
		p.i++
	}
	t := p.peek()
	switch {
	case t == "":
		return fmt.Errorf("unexpected end")
	case t == "(":
		p.i++
		if err := p.expr(); err != nil {
			return err
		}
		if p.peek() != ")" {
			return fmt.Errorf("missing )")
		}
		p.i++
	case t[0] >= '0' && t[0] <= '9' || t[0] == '.':
		p.i++
	case t[0] == '_' || t[0] >= 'A' && t[0] <= 'Z' || t[0] >= 'a' && t[0] <= 'z':
		p.i++
		if p.peek() == "(" {
			p.i++
			if p.peek() != ")" {
				for {
					if err := p.expr(); err != nil {
						return err
					}
					if p.peek() != "," {
						break
					}
					p.i++
				}
			}
			if p.peek() != ")" {
				return fmt.Errorf("missing ) after arguments of %s", t)
			}
			p.i++
			if !slices.Contains(formulaFuncs, strings.ToLower(t)) {
				p.idents = append(p.idents, t)
			}
		} else {
			p.idents = append(p.idents, t)
		}
	default:
		return fmt.Errorf("unexpected %q", t)
	}
	return nil
}

// rawBody is a directive's text content: its body, or its code child.
func rawBody(n *Node) string {
	if n.Body != "" {
		return n.Body
	}
	var parts []string
	for _, c := range n.Children {
		if c.Type == TypeCode || c.Type == TypeParagraph {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Summary is ok, warn or error for a list of diagnostics.
func Summary(ds []Diagnostic) string {
	s := "ok"
	for _, d := range ds {
		if d.Severity == SevError {
			return "error"
		}
		if d.Severity == SevWarning {
			s = "warn"
		}
	}
	return s
}

// The reference's messages (https://github.com/ferax564/noma/blob/95319db/src/validator.ts)
// are printed with JavaScript's template strings; these helpers spell
// values as those do.

// idOf is `node.id ?? "?"`.
func idOf(n *Node) string {
	if n.HasID {
		return n.ID
	}
	return "?"
}

// jsText is String(value) for an attribute value.
func jsText(v any) string {
	switch x := v.(type) {
	case nil:
		return "undefined"
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int:
		return strconv.Itoa(x)
	}
	return fmt.Sprint(v)
}

// jsonProblem is the gist of why a plotly body is not JSON.
func jsonProblem(body string) string {
	var x any
	if err := json.Unmarshal([]byte(body), &x); err != nil {
		return err.Error()
	}
	return ""
}

func crText(n *Node, action string) string {
	return fmt.Sprintf("change_request \"%s\" action=\"%s\" is missing the text needed for a tracked revision.", idOf(n), action)
}

func delimName(s string) string {
	if delim(s) == "," {
		return "comma"
	}
	return "space"
}

func depthText(d, cycle int) string {
	if d >= cycle {
		return "cycle"
	}
	return strconv.Itoa(d)
}
