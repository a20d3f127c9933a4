package noma

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strings"

	"github.com/gloss-dev/gloss/lazyregexp"
)

// The patch engine: a Patcher applies ops to a document's raw source,
// keeping every byte it does not touch.

var (
	reOpenerParts = lazyregexp.New(`^(` + ws + `*)(:{2,})` + ws + `*([A-Za-z_][\w-]*(?:::[A-Za-z_][\w-]*)*)` + ws + `*(?:\{(.*)\})?` + ws + `*$`)
	reHeadingLine = lazyregexp.New(`^(#{1,6})(` + ws + `+)(.+?)(?:` + ws + `+\{([^}]+)\})?` + ws + `*$`)
	reHex         = lazyregexp.New(`^[0-9a-f]{8,64}$`)
	reRetarget    = lazyregexp.New(`\b(for|parent|dataset|block|ref)=("[^"]*"|'[^']*'|[^` + wsClass + `}]+)`)
	reFenceLoose  = lazyregexp.New("^" + ws + "*```")
)

// Patcher applies ops to a document's raw source. Untouched bytes are
// kept exactly; lines are the raw text split on \n, so CRs survive.
type Patcher struct {
	lines []string
	doc   *Node
	dirty bool
}

// NewPatcher starts a patch session over src.
func NewPatcher(src string) *Patcher {
	return &Patcher{lines: strings.Split(src, "\n"), dirty: true}
}

// Text is the current source.
func (p *Patcher) Text() string { return strings.Join(p.lines, "\n") }

// Doc is the parsed current source.
func (p *Patcher) Doc() (*Node, error) {
	if p.dirty || p.doc == nil {
		d, err := Parse(p.Text())
		if err != nil {
			return nil, perr(CodeInvalidContent, "document does not parse: %v", err)
		}
		p.doc, p.dirty = d, false
	}
	return p.doc, nil
}

// ApplySource applies ops in sequence to src and returns the new source.
// The first failing op stops the run with its PatchError.
func ApplySource(src string, ops []Op) (string, error) {
	p := NewPatcher(src)
	for _, op := range ops {
		if err := p.Apply(op); err != nil {
			return "", err
		}
	}
	return p.Text(), nil
}

// BlockSourceHash is the SHA-256 (hex) of the raw lines of block id.
func BlockSourceHash(src, id string) (string, error) {
	doc, err := Parse(src)
	if err != nil {
		return "", err
	}
	n := doc.Find(id)
	if n == nil {
		return "", perr(CodeTargetMissing, "no block %q", id)
	}
	return blockHash(strings.Split(src, "\n"), n), nil
}

func blockHash(lines []string, n *Node) string {
	s, e := n.Line-1, min(n.EndLine, len(lines))
	if s < 0 || s >= e {
		s, e = 0, 0
	}
	sum := sha256.Sum256([]byte(strings.Join(lines[s:e], "\n")))
	return hex.EncodeToString(sum[:])
}

// Apply runs one op.
func (p *Patcher) Apply(op Op) error {
	if _, ok := opSpecs()[op.Name]; !ok {
		return perr(CodeUnsupportedOp, "unsupported op %q", op.Name)
	}
	if bh := strings.ToLower(jsTrim(op.BaseHash)); bh != "" {
		if !reHex.MatchString(bh) {
			return perr(CodeInvalidContent, "baseHash must be 8 to 64 hex digits")
		}
		doc, err := p.Doc()
		if err != nil {
			return err
		}
		n := doc.Find(op.anchor())
		if n == nil {
			return perr(CodeTargetMissing, "no block %q", op.anchor())
		}
		if !strings.HasPrefix(blockHash(p.lines, n), bh) {
			return perr(CodeSHAMismatch, "block %q changed since baseHash %s", op.anchor(), bh)
		}
	}
	doc, err := p.Doc()
	if err != nil {
		return err
	}
	switch op.Name {
	case "replace_block":
		return p.replaceBlock(doc, op)
	case "replace_body":
		return p.replaceBody(doc, op)
	case "update_heading":
		return p.updateHeading(doc, op)
	case "update_attribute":
		if op.Str("key") == "id" {
			return perr(CodeIDAttributeProtected, "the id attribute is changed with rename_id")
		}
		n, err := directiveTarget(doc, op.Str("id"))
		if err != nil {
			return err
		}
		return p.setAttrs(n, []Attr{{op.Str("key"), op.Get("value")}})
	case "remove_attribute":
		if op.Str("key") == "id" {
			return perr(CodeIDAttributeProtected, "the id attribute cannot be removed")
		}
		n, err := directiveTarget(doc, op.Str("id"))
		if err != nil {
			return err
		}
		return p.removeAttr(n, op.Str("key"))
	case "delete_block":
		n := doc.Find(op.Str("id"))
		if n == nil {
			return perr(CodeTargetMissing, "no block %q", op.Str("id"))
		}
		p.deleteSpan(n)
		return nil
	case "add_block":
		return p.addBlock(doc, op.Str("parent"), op.Str("content"), op.Get("position"))
	case "move_block":
		return p.moveBlock(doc, op)
	case "add_comment", "add_footnote", "add_endnote", "add_change_request":
		return p.addAnnotation(doc, op)
	case "resolve_comment":
		n := doc.Find(op.Str("id"))
		if n == nil {
			return perr(CodeTargetMissing, "no block %q", op.Str("id"))
		}
		if n.Type != TypeDirective || n.Name != "comment" {
			return perr(CodeInvalidContent, "%q is not a comment", op.Str("id"))
		}
		set := []Attr{{"status", "resolved"}}
		if op.Has("resolved_by") {
			set = append(set, Attr{"resolved_by", op.Str("resolved_by")})
		}
		if op.Has("resolved_at") {
			set = append(set, Attr{"resolved_at", op.Str("resolved_at")})
		}
		return p.setAttrs(n, set)
	case "rename_id":
		return p.renameID(doc, op.Str("from"), op.Str("to"))
	case "update_table_cell", "update_table_header_cell", "insert_table_row", "delete_table_row", "insert_table_column", "delete_table_column":
		return p.tableOp(doc, op)
	default:
		return p.datasetOp(doc, op)
	}
}

func directiveTarget(doc *Node, id string) (*Node, error) {
	n := doc.Find(id)
	if n == nil || n.Type != TypeDirective {
		return nil, perr(CodeTargetMissing, "no directive %q", id)
	}
	return n, nil
}

// span is a node's 0-based inclusive line range, clamped to the source.
func (p *Patcher) span(n *Node) (int, int) {
	s, e := n.Line-1, n.EndLine-1
	if e >= len(p.lines) {
		e = len(p.lines) - 1
	}
	return s, e
}

// splice replaces lines [s, e] (inclusive; e = s-1 inserts) with repl.
// In a CRLF document (its first line ends with \r) the new lines get a
// \r too, so that the document keeps one line ending.
func (p *Patcher) splice(s, e int, repl []string) {
	if len(repl) > 0 && len(p.lines) > 1 && strings.HasSuffix(p.lines[0], "\r") {
		crlf := make([]string, len(repl))
		for i, l := range repl {
			if !strings.HasSuffix(l, "\r") {
				l += "\r"
			}
			crlf[i] = l
		}
		repl = crlf
	}
	out := make([]string, 0, len(p.lines)-(e-s+1)+len(repl))
	out = append(out, p.lines[:s]...)
	out = append(out, repl...)
	out = append(out, p.lines[e+1:]...)
	p.lines = out
	p.dirty = true
}

// setLine rewrites line i, keeping a trailing \r (CRLF files stay CRLF).
func (p *Patcher) setLine(i int, text string) {
	if strings.HasSuffix(p.lines[i], "\r") && !strings.HasSuffix(text, "\r") {
		text += "\r"
	}
	p.lines[i] = text
}

func contentLines(content string) []string {
	return strings.Split(strings.TrimRight(content, "\n"), "\n")
}

// oneDirective checks that content is exactly one top-level directive.
func oneDirective(content string) error {
	d, err := Parse(content)
	if err != nil {
		return perr(CodeInvalidContent, "content does not parse: %v", err)
	}
	if len(d.Children) != 1 || d.Children[0].Type != TypeDirective {
		return perr(CodeInvalidContent, "content must be exactly one directive block")
	}
	return nil
}

func (p *Patcher) replaceBlock(doc *Node, op Op) error {
	if err := oneDirective(op.Str("content")); err != nil {
		return err
	}
	n := doc.Find(op.Str("id"))
	if n == nil {
		return perr(CodeTargetMissing, "no block %q", op.Str("id"))
	}
	s, e := p.span(n)
	p.splice(s, e, contentLines(op.Str("content")))
	return nil
}

func (p *Patcher) replaceBody(doc *Node, op Op) error {
	n := doc.Find(op.Str("id"))
	if n == nil {
		return perr(CodeTargetMissing, "no block %q", op.Str("id"))
	}
	if n.Type != TypeDirective {
		return perr(CodeInvalidContent, "replace_body needs a directive; %q is a %s", n.ID, n.Type)
	}
	if len(n.Children) > 1 || len(n.Children) == 1 && n.Children[0].Type != TypeParagraph {
		return perr(CodeInvalidContent, "%q has child blocks; use replace_block", n.ID)
	}
	s, e := p.span(n)
	if e <= s {
		return perr(CodeInvalidContent, "%q has no closer", n.ID)
	}
	p.splice(s+1, e-1, strings.Split(op.Str("content"), "\n"))
	return nil
}

func (p *Patcher) updateHeading(doc *Node, op Op) error {
	n := doc.Find(op.Str("id"))
	if n == nil {
		return perr(CodeTargetMissing, "no block %q", op.Str("id"))
	}
	if n.Type != TypeSection {
		return perr(CodeInvalidContent, "%q is not a heading", n.ID)
	}
	title := op.Str("title")
	if !singleLine(title) || jsTrim(title) == "" {
		return perr(CodeInvalidContent, "title must be one non-empty line")
	}
	i := n.Line - 1
	m := reHeadingLine.FindStringSubmatch(strings.TrimSuffix(p.lines[i], "\r"))
	if m == nil {
		return perr(CodeInvalidContent, "line %d is not a heading", n.Line)
	}
	inner := jsTrim(m[4])
	if Slugify(title) != n.ID && !hasToken(inner, "id") {
		if inner == "" {
			inner = formatAttr(Attr{"id", n.ID})
		} else {
			inner += " " + formatAttr(Attr{"id", n.ID})
		}
	}
	line := m[1] + m[2] + jsTrim(title)
	if inner != "" {
		line += " {" + inner + "}"
	}
	p.setLine(i, line)
	p.dirty = true
	return nil
}

func hasToken(inner, key string) bool {
	for _, m := range reAttrToken.FindAllStringSubmatch(inner, -1) {
		if m[1] == key {
			return true
		}
	}
	return false
}

// openerParts splits a directive opener line.
func (p *Patcher) openerParts(n *Node) (i int, indent, colons, name, inner string, hasBraces bool, err error) {
	i = n.Line - 1
	m := reOpenerParts.FindStringSubmatchIndex(strings.TrimSuffix(p.lines[i], "\r"))
	if m == nil {
		return i, "", "", "", "", false, perr(CodeInvalidContent, "line %d is not a directive opener", n.Line)
	}
	l := strings.TrimSuffix(p.lines[i], "\r")
	indent, colons, name = l[m[2]:m[3]], l[m[4]:m[5]], l[m[6]:m[7]]
	if m[8] >= 0 {
		inner, hasBraces = l[m[8]:m[9]], true
	}
	return i, indent, colons, name, inner, hasBraces, nil
}

// setAttrs sets attributes on a directive's opener line: every token with
// the key is replaced in place, a missing key is appended.
func (p *Patcher) setAttrs(n *Node, set []Attr) error {
	i, indent, colons, name, inner, _, err := p.openerParts(n)
	if err != nil {
		return err
	}
	for _, a := range set {
		if s, ok := a.Value.(string); ok && strings.Contains(s, `"`) && strings.Contains(s, "'") {
			return perr(CodeInvalidContent, "value of %q contains both quote characters", a.Key)
		}
		if s, ok := a.Value.(string); ok && !singleLine(s) {
			return perr(CodeInvalidContent, "value of %q must be one line", a.Key)
		}
		tok := formatAttr(a)
		found := false
		var b strings.Builder
		last := 0
		for _, m := range reAttrToken.FindAllStringSubmatchIndex(inner, -1) {
			if inner[m[2]:m[3]] == a.Key {
				b.WriteString(inner[last:m[0]])
				b.WriteString(tok)
				last = m[1]
				found = true
			}
		}
		b.WriteString(inner[last:])
		inner = b.String()
		if !found {
			if jsTrim(inner) == "" {
				inner = tok
			} else {
				inner += " " + tok
			}
		}
	}
	p.setLine(i, indent+colons+name+"{"+inner+"}")
	p.refreshAttrs(n, i)
	return nil
}

// refreshAttrs updates the cached tree after an opener rewrite, which
// changes no line structure; anything unexpected falls back to a re-parse.
func (p *Patcher) refreshAttrs(n *Node, i int) {
	if p.dirty {
		return
	}
	m := matchOpener(strings.ReplaceAll(p.lines[i], "\r", ""))
	if m == nil || strings.Contains(p.lines[i], "\r") || m[2] != n.Name {
		p.dirty = true
		return
	}
	var attrs []Attr
	if m[3] != "" {
		attrs = parseAttrs(m[3][1 : len(m[3])-1])
	}
	id, ok := "", false
	for _, a := range attrs {
		if a.Key == "id" {
			id, ok = a.Value.(string)
		}
	}
	if ok != n.HasID || id != n.ID {
		p.dirty = true
		return
	}
	n.Attrs = attrs
}

func (p *Patcher) removeAttr(n *Node, key string) error {
	i, indent, colons, name, inner, _, err := p.openerParts(n)
	if err != nil {
		return err
	}
	var keep []string
	found := false
	for _, m := range reAttrToken.FindAllStringSubmatchIndex(inner, -1) {
		if inner[m[2]:m[3]] == key {
			found = true
			continue
		}
		keep = append(keep, inner[m[0]:m[1]])
	}
	if !found {
		return nil
	}
	line := indent + colons + name
	if len(keep) > 0 {
		line += "{" + strings.Join(keep, " ") + "}"
	}
	p.setLine(i, line)
	p.refreshAttrs(n, i)
	return nil
}

// deleteSpan removes a block, plus the following empty line when the
// lines on both sides are empty.
func (p *Patcher) deleteSpan(n *Node) {
	s, e := p.span(n)
	p.splice(s, e, nil)
	if s > 0 && s < len(p.lines) && p.lines[s] == "" && p.lines[s-1] == "" {
		p.splice(s, s, nil)
	}
}

// takesChildren reports whether n can be a parent.
func takesChildren(n *Node) bool { return n.Type == TypeSection || n.Type == TypeDirective }

func (p *Patcher) addBlock(doc *Node, parent, content string, position any) error {
	if err := oneDirective(content); err != nil {
		return err
	}
	par := doc.Find(parent)
	if par == nil || !takesChildren(par) {
		return perr(CodeParentMissing, "no section or directive %q", parent)
	}
	kids := par.Children
	pos := len(kids)
	if f, ok := position.(float64); ok {
		// Spec §3.1.2: a position outside 0..len(children) is refused
		// like a missing parent; the reference clamps it instead.
		if f != math.Trunc(f) {
			return perr(CodeInvalidContent, "position %v is not an integer", f)
		}
		if f < 0 || f > float64(len(kids)) {
			return perr(CodeParentMissing, "position %v is outside 0..%d for %q", f, len(kids), parent)
		}
		pos = int(f)
	}
	lines := contentLines(content)
	switch {
	case pos < len(kids):
		at := kids[pos].Line - 1
		p.splice(at, at-1, append(lines, ""))
	case len(kids) > 0:
		last := kids[len(kids)-1]
		_, e := p.span(last)
		p.splice(e+1, e, append([]string{""}, lines...))
	case par.Type == TypeDirective:
		_, e := p.span(par)
		at := e
		if par.EndLine > len(p.lines) || !isColonOnly(strings.TrimSuffix(p.lines[e], "\r")) {
			at = e + 1 // unclosed: append at the end
		}
		p.splice(at, at-1, lines)
	default:
		_, e := p.span(par)
		p.splice(e+1, e, lines)
	}
	return nil
}

func isDescendant(n, of *Node) bool {
	found := false
	Walk(of, func(x *Node) bool {
		if x == n {
			found = true
			return false
		}
		return true
	})
	return found
}

func (p *Patcher) moveBlock(doc *Node, op Op) error {
	n := doc.Find(op.Str("id"))
	if n == nil {
		return perr(CodeTargetMissing, "no block %q", op.Str("id"))
	}
	if n.Type != TypeDirective {
		return perr(CodeInvalidContent, "only directives move; %q is a %s", n.ID, n.Type)
	}
	par := doc.Find(op.Str("parent"))
	if par == nil || !takesChildren(par) {
		return perr(CodeParentMissing, "no section or directive %q", op.Str("parent"))
	}
	if isDescendant(par, n) {
		return perr(CodeInvalidContent, "cannot move %q into itself", n.ID)
	}
	depth := 2
	if par.Type == TypeDirective {
		depth = colonRun(strings.TrimLeftFunc(p.lines[par.Line-1], isJSSpace)) + 1
	}
	s, e := p.span(n)
	src := colonRun(p.lines[s])
	delta := depth - src
	block := make([]string, 0, e-s+1)
	inFence := false
	for _, l := range p.lines[s : e+1] {
		if reFenceLoose.MatchString(l) {
			inFence = !inFence
			block = append(block, l)
			continue
		}
		t := strings.TrimLeftFunc(l, isJSSpace)
		if !inFence {
			if run := colonRun(t); run >= src && run >= 2 {
				rest := strings.TrimSuffix(t[run:], "\r")
				if matchOpener(t) != nil || jsTrim(rest) == "" {
					l = l[:len(l)-len(t)] + strings.Repeat(":", max(2, run+delta)) + t[run:]
				}
			}
		}
		block = append(block, l)
	}
	first := s == 0
	p.deleteSpan(n)
	if first && len(p.lines) > 1 && p.lines[0] == "" {
		p.splice(0, 0, nil)
	}
	doc2, err := p.Doc()
	if err != nil {
		return err
	}
	return p.addBlock(doc2, op.Str("parent"), strings.Join(block, "\n"), op.Get("position"))
}

func (p *Patcher) addAnnotation(doc *Node, op Op) error {
	id, target := op.Str("id"), op.Str("target")
	var attrs []Attr
	body := op.Str("content")
	hasBody := true
	switch op.Name {
	case "add_comment":
		if doc.Find(id) != nil {
			return perr(CodeIDConflict, "id %q exists", id)
		}
		if doc.Find(target) == nil {
			return perr(CodeTargetMissing, "no block %q", target)
		}
		if jsTrim(body) == "" {
			return perr(CodeInvalidContent, "comment content is empty")
		}
		attrs = []Attr{{"id", id}}
		if op.Has("reply_to") {
			attrs = append(attrs, Attr{"reply_to", op.Str("reply_to")})
		} else {
			attrs = append(attrs, Attr{"parent", target})
		}
		for _, k := range []string{"author", "initials", "date"} {
			if v := op.Str(k); v != "" {
				attrs = append(attrs, Attr{k, v})
			}
		}
	case "add_footnote", "add_endnote":
		if jsTrim(body) == "" {
			return perr(CodeInvalidContent, "note content is empty")
		}
		if !singleLine(op.Str("label")) {
			return perr(CodeInvalidContent, "label must be one line")
		}
		attrs = []Attr{{"id", id}, {"for", target}}
		if op.Has("label") {
			attrs = append(attrs, Attr{"label", op.Str("label")})
		}
	case "add_change_request":
		for _, k := range []string{"from", "to", "text", "author", "date"} {
			if !singleLine(op.Str(k)) {
				return perr(CodeInvalidContent, "%s must be one line", k)
			}
		}
		switch op.Str("action") {
		case "replace":
			if !op.Has("from") || !op.Has("to") {
				return perr(CodeInvalidContent, "replace needs from and to")
			}
		case "insert":
			if !op.Has("to") && !op.Has("text") {
				return perr(CodeInvalidContent, "insert needs to or text")
			}
		case "delete":
			if !op.Has("from") && !op.Has("text") {
				return perr(CodeInvalidContent, "delete needs from or text")
			}
		}
		attrs = []Attr{{"id", id}, {"target", target}, {"action", op.Str("action")}}
		for _, k := range []string{"from", "to", "text"} {
			if op.Has(k) {
				attrs = append(attrs, Attr{k, op.Str(k)})
			}
		}
		for _, k := range []string{"author", "date"} {
			if v := op.Str(k); v != "" {
				attrs = append(attrs, Attr{k, v})
			}
		}
		hasBody = op.Has("content") && body != ""
	}
	if op.Name != "add_comment" {
		if doc.Find(id) != nil {
			return perr(CodeIDConflict, "id %q exists", id)
		}
		if doc.Find(target) == nil {
			return perr(CodeTargetMissing, "no block %q", target)
		}
	}
	for _, a := range attrs {
		if s, _ := a.Value.(string); strings.Contains(s, `"`) && strings.Contains(s, "'") {
			return perr(CodeInvalidContent, "%s contains both quote characters", a.Key)
		}
	}
	t := doc.Find(target)
	depth := 2
	if t.Type == TypeDirective {
		depth = colonRun(p.lines[t.Line-1])
	}
	fence := strings.Repeat(":", depth)
	name := strings.TrimPrefix(op.Name, "add_")
	block := []string{fence + name + formatAttrs(attrs)}
	if hasBody {
		block = append(block, strings.Split(strings.TrimRight(body, "\n"), "\n")...)
	}
	block = append(block, fence)
	if t.Type == TypeSection {
		at := t.Line // after the heading line
		if at < len(p.lines) && p.lines[at] == "" {
			at++
		}
		p.splice(at, at-1, append(block, ""))
		return nil
	}
	_, e := p.span(t)
	p.splice(e+1, e, append([]string{""}, block...))
	return nil
}

func (p *Patcher) renameID(doc *Node, from, to string) error {
	n := doc.Find(from)
	if n == nil {
		return perr(CodeTargetMissing, "no block %q", from)
	}
	if doc.Find(to) != nil {
		return perr(CodeIDConflict, "id %q exists", to)
	}
	if to == "" || !singleLine(to) || strings.ContainsAny(to, `"'`) {
		return perr(CodeInvalidContent, "invalid id %q", to)
	}
	if n.Type == TypeSection {
		i := n.Line - 1
		m := reHeadingLine.FindStringSubmatch(strings.TrimSuffix(p.lines[i], "\r"))
		if m == nil {
			return perr(CodeInvalidContent, "line %d is not a heading", n.Line)
		}
		inner := jsTrim(m[4])
		tok := formatAttr(Attr{"id", to})
		switch {
		case inner == "":
			inner = tok
		case hasToken(inner, "id"):
			inner = replaceToken(inner, "id", tok)
		default:
			inner += " " + tok
		}
		p.setLine(i, m[1]+m[2]+jsTrim(m[3])+" {"+inner+"}")
	} else if n.Type == TypeDirective {
		if err := p.setAttrs(n, []Attr{{"id", to}}); err != nil {
			return err
		}
	} else {
		return perr(CodeInvalidContent, "%q cannot be renamed", from)
	}
	link := "[[" + from + "]]"
	for i, l := range p.lines {
		nl := l
		if strings.Contains(nl, link) {
			nl = strings.ReplaceAll(nl, link, "[["+to+"]]")
		}
		t := jsTrim(nl)
		if c := colonRun(t); c >= 2 && c < len(t) && isWordByte(t[c]) {
			nl = reRetarget.ReplaceAllStringFunc(nl, func(m string) string {
				k, v, _ := strings.Cut(m, "=")
				switch {
				case v == `"`+from+`"`:
					return k + `="` + to + `"`
				case v == "'"+from+"'":
					return k + "='" + to + "'"
				case v == from:
					return k + `="` + to + `"`
				}
				return m
			})
		}
		if nl != l {
			p.lines[i] = nl
		}
	}
	p.dirty = true
	return nil
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func replaceToken(inner, key, tok string) string {
	var b strings.Builder
	last := 0
	for _, m := range reAttrToken.FindAllStringSubmatchIndex(inner, -1) {
		if inner[m[2]:m[3]] == key {
			b.WriteString(inner[last:m[0]])
			b.WriteString(tok)
			last = m[1]
		}
	}
	b.WriteString(inner[last:])
	return b.String()
}
