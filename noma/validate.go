package noma

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
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
var profileDirectives = sync.OnceValue(func() map[string][]string {
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
})

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
	// withEvidence holds the ids of the claims some evidence is for.
	withEvidence map[string]bool
}

// Validate checks a parsed document.
func Validate(doc *Node, opts ValidateOptions) []Diagnostic {
	v := newValidator(doc, opts)
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
			v.directive(n)
		}
		return true
	})
	if v.known["adr"] && !hasDecision {
		v.add(SevWarning, "adr-missing-decision", nil, "ADR profile expects at least one ::decision or ::adr block.")
	}
	v.computedDepth()
	return v.finish()
}

// newValidator prepares the validation of doc: the options, the
// profiles, every block's id and alias (references may point forward),
// and the claims some evidence is for.
func newValidator(doc *Node, opts ValidateOptions) *validator {
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
	v.withEvidence = map[string]bool{}
	Walk(doc, func(n *Node) bool {
		if n.Type == TypeDirective && (n.Name == "evidence" || n.Name == "counterevidence") {
			if f, ok := n.StringAttr("for"); ok {
				v.withEvidence[f] = true
			}
		}
		return true
	})
	return v
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
		if _, ok := profileDirectives()[n]; ok {
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
		if slices.Contains(profileDirectives()[p], name) {
			return true
		}
	}
	return false
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
