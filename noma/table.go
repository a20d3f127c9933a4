package noma

import "strings"

// Pipe tables: table directives read as a grid, and the table ops that
// rewrite their rows in place.

type tableRow struct {
	line   int // index into p.lines
	indent string
	cells  []string
}

// interior returns the 0-based line range strictly inside a directive.
func (p *Patcher) interior(n *Node) (int, int) {
	s, e := p.span(n)
	if n.EndLine > len(p.lines) || !isColonOnly(strings.TrimSuffix(p.lines[e], "\r")) {
		return s + 1, e + 1 // unclosed
	}
	return s + 1, e
}

func (p *Patcher) tableRows(n *Node) ([]tableRow, error) {
	a, b := p.interior(n)
	var rows []tableRow
	for i := a; i < b; i++ {
		l := strings.TrimSuffix(p.lines[i], "\r")
		if isBlank(l) {
			continue
		}
		if !strings.Contains(l, "|") {
			return nil, perr(CodeInvalidContent, "table line %d has no |", i+1)
		}
		t := strings.TrimLeftFunc(l, isJSSpace)
		rows = append(rows, tableRow{line: i, indent: l[:len(l)-len(t)], cells: splitCells(l)})
	}
	if len(rows) == 0 {
		return nil, perr(CodeInvalidContent, "table has no rows")
	}
	return rows, nil
}

// escapePipes escapes | outside code spans that is not escaped already.
func escapePipes(s string) string {
	code := codeSpanRanges(s)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			b.WriteByte(s[i])
			b.WriteByte(s[i+1])
			i++
			continue
		}
		if s[i] == '|' && !inRanges(code, i) {
			b.WriteString(`\|`)
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func formatRow(indent string, cells []string) string {
	var b strings.Builder
	b.WriteString(indent + "|")
	for _, c := range cells {
		b.WriteString(" " + escapePipes(c) + " |")
	}
	return b.String()
}

// pipeTable is the form of a ::table directive: one "a | b" line a row,
// the first the header when header is true or "true". Only touched lines
// are rewritten, as "indent| c1 | c2 |"; column ops touch every line.
type pipeTable struct {
	p      *Patcher
	lines  []tableRow // every row line, the header line first when there is one
	header bool
}

func (p *Patcher) tableOp(doc *Node, op Op) error {
	n := doc.Find(op.Str("id"))
	if n == nil {
		return perr(CodeTargetMissing, "no block %q", op.Str("id"))
	}
	if n.Type != TypeDirective || n.Name != "table" {
		return perr(CodeInvalidContent, "%q is not a table", op.Str("id"))
	}
	g, t, err := p.readTable(n)
	if err != nil {
		return err
	}
	if err := checkOneLine(op); err != nil {
		return err
	}
	if op.Name == "update_table_header_cell" {
		err = t.updateHeader(g, op)
	} else {
		err = gridOp(g, t, op)
	}
	p.dirty = p.dirty || err == nil
	return err
}

// readTable reads a table directive's rows into a grid.
func (p *Patcher) readTable(n *Node) (*grid, *pipeTable, error) {
	lines, err := p.tableRows(n)
	if err != nil {
		return nil, nil, err
	}
	hv, _ := n.Attr("header")
	t := &pipeTable{p: p, lines: lines, header: hv == true || hv == "true"}
	var names []string
	body := lines
	if t.header {
		names, body = append([]string{}, lines[0].cells...), lines[1:]
	}
	rows := make([][]any, len(body))
	for i, r := range body {
		rows[i] = anyCells(r.cells)
	}
	return newGrid(names, rows, true), t, nil
}

// updateHeader is the one op only pipe tables have.
func (t *pipeTable) updateHeader(g *grid, op Op) error {
	if !t.header {
		return perr(CodeInvalidContent, "the table has no header row")
	}
	c, err := g.column(op.Get("column"))
	if err != nil {
		return err
	}
	names := g.paddedNames()
	names[c] = op.Str("value")
	t.write(t.lines[0], names)
	return nil
}

// body returns the line of body row i.
func (t *pipeTable) body(i int) tableRow {
	if t.header {
		return t.lines[i+1]
	}
	return t.lines[i]
}

func (t *pipeTable) write(r tableRow, cells []string) {
	t.p.setLine(r.line, formatRow(r.indent, cells))
}

func (t *pipeTable) cell(text string, _ int) any { return text }

func (t *pipeTable) columnCells(texts []string) ([]any, string) { return anyCells(texts), "" }

func (t *pipeTable) setCell(g *grid, i, _ int) error {
	t.write(t.body(i), textCells(g.rows[i]))
	return nil
}

// insertRow writes the new row before body row i, or after the last
// line, with that row's indentation.
func (t *pipeTable) insertRow(g *grid, i int) error {
	ref := t.lines[len(t.lines)-1]
	at := ref.line + 1
	if i < len(g.rows)-1 {
		ref = t.body(i)
		at = ref.line
	}
	t.p.splice(at, at-1, []string{formatRow(ref.indent, textCells(g.rows[i]))})
	return nil
}

func (t *pipeTable) deleteRow(_ *grid, i int) error {
	l := t.body(i).line
	t.p.splice(l, l, nil)
	return nil
}

// writeAll rewrites every line after a column change; align is never
// adjusted (as in the reference).
func (t *pipeTable) writeAll(g *grid) {
	for i := range g.rows {
		t.write(t.body(i), textCells(g.rows[i]))
	}
	if t.header {
		t.write(t.lines[0], g.names)
	}
}

func (t *pipeTable) insertColumn(g *grid, _ int, _, _ string) error {
	t.writeAll(g)
	return nil
}

func (t *pipeTable) deleteColumn(g *grid, _ int, _ string) error {
	t.writeAll(g)
	return nil
}
