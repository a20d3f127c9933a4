package noma

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gloss-dev/gloss/lazyregexp"
)

// The parser: .noma source to a Node tree with exact line spans,
// canonical ids and the document's aliases.

var (
	reOpener    = lazyregexp.New(`^(:{2,})` + ws + `*([A-Za-z_][\w-]*(?:::[A-Za-z_][\w-]*)*)` + ws + `*(\{.*\})?` + ws + `*$`)
	reColonOnly = lazyregexp.New(`^:{2,}` + ws + `*$`)
	reHeading   = lazyregexp.New(`^(#{1,6})` + ws + `+(.+?)(?:` + ws + `+\{([^}]+)\})?` + ws + `*$`)
	reFence     = lazyregexp.New("^```(\\w*)" + ws + "*$")
	reSepCell   = lazyregexp.New(`^:?-{3,}:?$`)
	reBreak     = lazyregexp.New(`^(?:-{3,}|\*{3,}|_{3,})` + ws + `*$`)
	reBullet    = lazyregexp.New(`^[-*]` + ws + `+(.*)$`)
	reOrdered   = lazyregexp.New(`^\d+\.` + ws + `+(.*)$`)
	reFMFence   = lazyregexp.New(`^---` + ws + `*$`)
	reAliasSep  = lazyregexp.New(`[,` + wsClass + `]+`)
	reFileNum   = lazyregexp.New(`^\d+[-_]`)
)

// maxColons is the deepest directive fence the grammar accepts.
const maxColons = 64

// Options tune parsing.
type Options struct {
	// Filename, when set, adds meta.filename and a filename alias to the
	// first H1. Conformance mode passes none.
	Filename string
}

// Parse parses a document. Only invalid YAML frontmatter fails.
func Parse(src string) (*Node, error) { return ParseWith(src, Options{}) }

// ParseWith parses with options.
func ParseWith(src string, opts Options) (*Node, error) {
	text := strings.ReplaceAll(src, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	lines := strings.Split(text, "\n")
	doc := &Node{Type: TypeDocument, Line: 1, Meta: map[string]any{}}
	doc.EndLine = len(lines)
	if strings.HasSuffix(text, "\n") {
		doc.EndLine--
	}
	if doc.EndLine < 1 {
		doc.EndLine = 1
	}
	p := &parser{lines: lines, seen: map[string]bool{}, next: map[string]int{}}
	start := 0
	var fm *Node
	if len(lines) > 0 && reFMFence.MatchString(lines[0]) {
		for i := 1; i < len(lines); i++ {
			if reFMFence.MatchString(lines[i]) {
				raw := strings.Join(lines[1:i], "\n")
				start = i + 1
				if raw != "" {
					var data any
					if err := yaml.Unmarshal([]byte(raw), &data); err != nil {
						return nil, fmt.Errorf("frontmatter: %w", cleanYAMLError(err))
					}
					fm = &Node{Type: TypeFrontmatter, Line: 1, EndLine: i + 1, Raw: raw, Data: data}
					if m, ok := data.(map[string]any); ok {
						doc.Meta = m
					}
				}
				break
			}
		}
	}
	if opts.Filename != "" {
		doc.Meta["filename"] = opts.Filename
	}
	flat := p.blocks(start, len(lines), 0, true)
	doc.Children = foldSections(flat)
	if fm != nil {
		doc.Children = append([]*Node{fm}, doc.Children...)
	}
	p.docAliases(doc, opts.Filename)
	return doc, nil
}

func cleanYAMLError(err error) error {
	return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "yaml: "))
}

type parser struct {
	lines []string
	seen  map[string]bool
	next  map[string]int // first suffix worth trying per slug
}

// colonRun counts the leading colons of s.
func colonRun(s string) int {
	n := 0
	for n < len(s) && s[n] == ':' {
		n++
	}
	return n
}

func isFence(s string) bool {
	return strings.HasPrefix(s, "```") && reFence.MatchString(s)
}

func matchOpener(s string) []string {
	if !strings.HasPrefix(s, "::") {
		return nil
	}
	colons, name, group, ok := scanOpener(s)
	if !ok || len(colons) > maxColons {
		return nil
	}
	return []string{s, colons, name, group}
}

func matchOpenerRE(s string) []string {
	if !strings.HasPrefix(s, "::") {
		return nil
	}
	m := reOpener.FindStringSubmatch(s)
	if m == nil || len(m[1]) > maxColons {
		return nil
	}
	return m
}

func isColonOnly(s string) bool { return strings.HasPrefix(s, "::") && reColonOnly.MatchString(s) }

func matchHeading(s string) []string {
	if !strings.HasPrefix(s, "#") {
		return nil
	}
	h, title, attrs, ok := scanHeading(s)
	if !ok {
		return nil
	}
	return []string{s, h, title, attrs}
}

func matchHeadingRE(s string) []string {
	if !strings.HasPrefix(s, "#") {
		return nil
	}
	return reHeading.FindStringSubmatch(s)
}

func isBreak(s string) bool {
	if s == "" || (s[0] != '-' && s[0] != '*' && s[0] != '_') {
		return false
	}
	return reBreak.MatchString(s)
}

func isQuote(s string) bool { return strings.HasPrefix(s, ">") }

func matchListItem(s string) (text string, ordered, ok bool) {
	if s == "" {
		return "", false, false
	}
	switch c := s[0]; {
	case c == '-' || c == '*':
		if m := reBullet.FindStringSubmatch(s); m != nil {
			return m[1], false, true
		}
	case c >= '0' && c <= '9':
		if m := reOrdered.FindStringSubmatch(s); m != nil {
			return m[1], true, true
		}
	}
	return "", false, false
}

// isPipeRow reports whether s starts and ends with | (surrounding
// whitespace allowed).
func isPipeRow(s string) bool {
	t := jsTrim(s)
	return len(t) >= 2 && t[0] == '|' && t[len(t)-1] == '|'
}

// splitCells splits a table row on | outside code spans, keeping \|.
func splitCells(s string) []string {
	t := jsTrim(s)
	t = strings.TrimPrefix(t, "|")
	if strings.HasSuffix(t, "|") && !strings.HasSuffix(t, `\|`) {
		t = t[:len(t)-1]
	}
	code := codeSpanRanges(t)
	var cells []string
	last := 0
	for i := 0; i < len(t); i++ {
		if t[i] == '\\' && i+1 < len(t) && t[i+1] == '|' {
			i++
			continue
		}
		if t[i] == '|' && !inRanges(code, i) {
			cells = append(cells, jsTrim(t[last:i]))
			last = i + 1
		}
	}
	return append(cells, jsTrim(t[last:]))
}

// separatorAligns parses a table separator row; ok is false when s is not
// one.
func separatorAligns(s string) ([]string, bool) {
	t := jsTrim(s)
	if !strings.Contains(t, "-") {
		return nil, false
	}
	cells := splitCells(t)
	if len(cells) < 2 {
		return nil, false
	}
	al := make([]string, len(cells))
	for i, c := range cells {
		if !reSepCell.MatchString(c) {
			return nil, false
		}
		l, r := strings.HasPrefix(c, ":"), strings.HasSuffix(c, ":")
		switch {
		case l && r:
			al[i] = "center"
		case r:
			al[i] = "right"
		case l:
			al[i] = "left"
		}
	}
	return al, true
}

// tableStart reports whether a pipe table starts at line i (< end).
func (p *parser) tableStart(i, end int) ([]string, []string, bool) {
	if i+1 >= end || !isPipeRow(p.lines[i]) {
		return nil, nil, false
	}
	header := splitCells(p.lines[i])
	al, ok := separatorAligns(p.lines[i+1])
	if !ok || len(al) != len(header) {
		return nil, nil, false
	}
	return header, al, true
}

// closer finds the line closing a directive of n colons opened at line
// open, searching (open, end); it skips fenced code and ignores nested
// openers. -1 means unclosed.
func (p *parser) closer(open, end, n int) int {
	inFence := false
	for i := open + 1; i < end; i++ {
		l := p.lines[i]
		if isFence(l) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if colonRun(l) == n && reColonOnly.MatchString(l) {
			return i
		}
	}
	return -1
}

// blocks parses lines [start, end) (0-based) inside a directive of depth
// colons (0 at top level).
func (p *parser) blocks(start, end, depth int, top bool) []*Node {
	var out []*Node
	// A directive's blocks open nested directives with more colons than
	// its own; at the top level any run of two or more opens one.
	minColons := max(depth+1, 2)
	i := start
	for i < end {
		if isBlank(p.lines[i]) {
			i++
			continue
		}
		n, next := p.block(i, end, minColons, top)
		out = append(out, n)
		i = next
	}
	return out
}

// block parses the one block that starts at line i (not blank), trying
// the kinds in the grammar's order of precedence, and returns it with the
// line after it. A line no other kind claims starts a paragraph.
func (p *parser) block(i, end, minColons int, top bool) (*Node, int) {
	l := p.lines[i]
	if m := matchOpener(l); m != nil {
		if len(m[1]) < minColons {
			return lineParagraph(l, i), i + 1 // too few colons to open here
		}
		return p.directive(m, i, end)
	}
	if isColonOnly(l) {
		return lineParagraph(l, i), i + 1 // a stray closer is text
	}
	if m := matchHeading(l); m != nil {
		return p.heading(m, i, top), i + 1
	}
	if isFence(l) {
		return p.fencedCode(i, end)
	}
	if header, al, ok := p.tableStart(i, end); ok {
		return p.table(header, al, i, end)
	}
	if isBreak(l) {
		return &Node{Type: TypeBreak, Line: i + 1, EndLine: i + 1}, i + 1
	}
	if isQuote(l) {
		return p.quote(i, end)
	}
	if _, ordered, ok := matchListItem(l); ok {
		return p.list(ordered, i, end)
	}
	return p.paragraph(i, end)
}

// lineParagraph is line i kept as a one-line paragraph: what an opener or
// closer that cannot act where it stands becomes.
func lineParagraph(l string, i int) *Node {
	return &Node{Type: TypeParagraph, Line: i + 1, EndLine: i + 1, Text: l}
}

// directive parses the directive opened at line i (m is its opener) and
// its blocks up to the closer with as many colons; an unclosed one runs
// to end.
func (p *parser) directive(m []string, i, end int) (*Node, int) {
	n := len(m[1])
	d := &Node{Type: TypeDirective, Line: i + 1, Name: m[2]}
	if m[3] != "" {
		d.Attrs = parseAttrs(m[3][1 : len(m[3])-1])
	}
	if id, ok := d.StringAttr("id"); ok {
		d.ID, d.HasID = id, true
	}
	inner, next := end, end
	if c := p.closer(i, end, n); c >= 0 {
		inner, next = c, c+1
	}
	d.EndLine = next
	d.Children = p.blocks(i+1, inner, n, false)
	// A body that is one paragraph is also the directive's text.
	if len(d.Children) == 1 && d.Children[0].Type == TypeParagraph {
		d.Body = d.Children[0].Text
	}
	return d, next
}

// fencedCode parses the code block fenced at line i; an unclosed fence
// runs to end.
func (p *parser) fencedCode(i, end int) (*Node, int) {
	m := reFence.FindStringSubmatch(p.lines[i])
	body, next := end, end
	for j := i + 1; j < end; j++ {
		if isFence(p.lines[j]) {
			body, next = j, j+1
			break
		}
	}
	text := strings.Join(p.lines[i+1:body], "\n")
	return &Node{Type: TypeCode, Line: i + 1, EndLine: next, Lang: m[1], Text: text}, next
}

// table parses the pipe table whose header and separator are lines i and
// i+1: its rows are the pipe rows that follow, each cut or padded to the
// header's width.
func (p *parser) table(header, al []string, i, end int) (*Node, int) {
	t := &Node{Type: TypeTable, Line: i + 1, Header: header, Align: al}
	j := i + 2
	for j < end && isPipeRow(p.lines[j]) {
		row := make([]string, len(header))
		copy(row, splitCells(p.lines[j]))
		t.Rows = append(t.Rows, row)
		j++
	}
	t.EndLine = j
	return t, j
}

// quote parses the run of > lines at line i, each without its marker and
// one space or tab after it.
func (p *parser) quote(i, end int) (*Node, int) {
	var ql []string
	j := i
	for j < end && isQuote(p.lines[j]) {
		s := p.lines[j][1:]
		if s != "" && (s[0] == ' ' || s[0] == '\t') {
			s = s[1:]
		}
		ql = append(ql, s)
		j++
	}
	return &Node{Type: TypeQuote, Line: i + 1, EndLine: j, Text: strings.Join(ql, "\n")}, j
}

// list parses the run of list items at line i; the first item decides
// whether the list is ordered.
func (p *parser) list(ordered bool, i, end int) (*Node, int) {
	list := &Node{Type: TypeList, Line: i + 1, Ordered: ordered}
	j := i
	for j < end {
		text, _, ok := matchListItem(p.lines[j])
		if !ok {
			break
		}
		list.Children = append(list.Children, &Node{Type: TypeListItem, Line: j + 1, EndLine: j + 1, Text: text})
		j++
	}
	list.EndLine = j
	return list, j
}

// paragraph parses the lines from i up to the first that ends a paragraph.
func (p *parser) paragraph(i, end int) (*Node, int) {
	j := i + 1
	for j < end && !p.endsParagraph(j, end) {
		j++
	}
	return &Node{Type: TypeParagraph, Line: i + 1, EndLine: j, Text: strings.Join(p.lines[i:j], "\n")}, j
}

func (p *parser) endsParagraph(j, end int) bool {
	l := p.lines[j]
	if isBlank(l) || matchOpener(l) != nil || isColonOnly(l) || matchHeading(l) != nil || isFence(l) || isBreak(l) || isQuote(l) {
		return true
	}
	if _, _, ok := matchListItem(l); ok {
		return true
	}
	_, _, ok := p.tableStart(j, end)
	return ok
}

func (p *parser) heading(m []string, i int, top bool) *Node {
	n := &Node{Type: TypeSection, Line: i + 1, EndLine: i + 1, Level: len(m[1]), Title: jsTrim(m[2])}
	if m[3] != "" {
		for _, a := range parseAttrs(m[3]) {
			switch a.Key {
			case "id":
				if s, ok := a.Value.(string); ok {
					n.ID, n.HasID, n.explicit = s, true, true
				}
			case "aliases":
				if s, ok := a.Value.(string); ok {
					for _, x := range reAliasSep.Split(s, -1) {
						if x != "" {
							n.Aliases = append(n.Aliases, x)
						}
					}
				}
			}
		}
	}
	if !n.HasID {
		slug := Slugify(n.Title)
		if top {
			if p.seen[slug] {
				// the first unseen slug-2, slug-3, …; the seen-set only
				// grows, so the search resumes where it last stopped
				k := max(p.next[slug], 2)
				for p.seen[slug+"-"+strconv.Itoa(k)] {
					k++
				}
				p.next[slug] = k + 1
				slug = slug + "-" + strconv.Itoa(k)
			}
			p.seen[slug] = true
		}
		n.ID, n.HasID = slug, true
	}
	return n
}

// foldSections nests top-level nodes under the headings that precede
// them, and sets each section's end line to its last descendant's.
func foldSections(flat []*Node) []*Node {
	var out, stack []*Node
	for _, n := range flat {
		if n.Type == TypeSection {
			for len(stack) > 0 && stack[len(stack)-1].Level >= n.Level {
				stack = stack[:len(stack)-1]
			}
		}
		if len(stack) == 0 {
			out = append(out, n)
		} else {
			top := stack[len(stack)-1]
			top.Children = append(top.Children, n)
		}
		if n.Type == TypeSection {
			stack = append(stack, n)
		}
	}
	for _, n := range out {
		sectionEnds(n)
	}
	return out
}

func sectionEnds(n *Node) int {
	if n.Type != TypeSection {
		return n.EndLine
	}
	end := n.Line
	for _, c := range n.Children {
		if e := sectionEnds(c); e > end {
			end = e
		}
	}
	n.EndLine = end
	return end
}

// docAliases gives the first top-level H1 the document's aliases:
// heading aliases, the filename slug, frontmatter aliases.
func (p *parser) docAliases(doc *Node, filename string) {
	var h1 *Node
	for _, c := range doc.Children {
		if c.Type == TypeSection && c.Level == 1 {
			h1 = c
			break
		}
	}
	if h1 == nil {
		return
	}
	add := func(a string) {
		for _, x := range h1.Aliases {
			if x == a {
				return
			}
		}
		h1.Aliases = append(h1.Aliases, a)
	}
	if filename != "" {
		if s := filenameAlias(filename); s != "" && s != h1.ID {
			add(s)
		}
	}
	for _, a := range frontmatterAliases(doc.Meta) {
		add(a)
	}
}

func filenameAlias(filename string) string {
	base := path.Base(strings.ReplaceAll(filename, `\`, "/"))
	if len(base) >= 5 && strings.EqualFold(base[len(base)-5:], ".noma") {
		base = base[:len(base)-5]
	}
	base = reFileNum.ReplaceAllString(base, "")
	return Slugify(base)
}

func frontmatterAliases(meta map[string]any) []string {
	list, ok := meta["aliases"].([]any)
	if !ok {
		return nil
	}
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, jsTrim(s))
		}
	}
	return out
}
