package noma

import "strings"

// delimited is a CSV or TSV dataset: the header on the first non-blank
// line, one row a line. Cells are text: the op's text is written as it
// is, double-quoted when it holds the delimiter, a quote or
// leading/trailing whitespace.
type delimited struct {
	p     *Patcher
	sep   string
	lines []tableRow // the header line first
}

func (p *Patcher) readDelimited(a, b int, sep string) (*grid, gridForm, error) {
	d := &delimited{p: p, sep: sep}
	// Whitespace around a line is indentation or noise, but in TSV a tab
	// is a separator: trimming it (as the reference does) would drop an
	// empty first or last cell and hide a row of empty cells.
	space := isJSSpace
	if sep == "\t" {
		space = func(r rune) bool { return r != '\t' && isJSSpace(r) }
	}
	for i := a; i < b; i++ {
		l := strings.TrimSuffix(p.lines[i], "\r")
		t := strings.TrimFunc(l, space)
		if t == "" {
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeftFunc(l, space))]
		d.lines = append(d.lines, tableRow{line: i, indent: indent, cells: splitDelimited(t, sep)})
	}
	if len(d.lines) == 0 {
		return nil, nil, perr(CodeInvalidContent, "dataset has no header line")
	}
	rows := make([][]any, len(d.lines)-1)
	for i, r := range d.lines[1:] {
		rows[i] = anyCells(r.cells)
	}
	g := newGrid(d.lines[0].cells, rows, false)
	g.names = defaultNames(append([]string{}, g.names...), g.count)
	return g, d, nil
}

func (d *delimited) write(line int, indent string, cells []string) {
	out := make([]string, len(cells))
	for i, c := range cells {
		if strings.Contains(c, d.sep) || strings.Contains(c, `"`) || c != jsTrim(c) {
			c = `"` + strings.ReplaceAll(c, `"`, `""`) + `"`
		}
		out[i] = c
	}
	d.p.setLine(line, indent+strings.Join(out, d.sep))
}

func (d *delimited) cell(text string, _ int) any { return text }

func (d *delimited) columnCells(texts []string) ([]any, string) { return anyCells(texts), "" }

func (d *delimited) setCell(g *grid, i, _ int) error {
	r := d.lines[i+1]
	d.write(r.line, r.indent, textCells(g.rows[i]))
	return nil
}

// insertRow writes the row before row i, or after the last line, with
// that line's indentation.
func (d *delimited) insertRow(g *grid, i int) error {
	ref := d.lines[len(d.lines)-1]
	at := ref.line + 1
	if i+1 < len(d.lines) {
		ref = d.lines[i+1]
		at = ref.line
	}
	d.p.splice(at, at-1, []string{""})
	d.write(at, ref.indent, textCells(g.rows[i]))
	return nil
}

func (d *delimited) deleteRow(_ *grid, i int) error {
	l := d.lines[i+1].line
	d.p.splice(l, l, nil)
	return nil
}

// writeAll rewrites the header and every row after a column change.
func (d *delimited) writeAll(g *grid) error {
	d.write(d.lines[0].line, d.lines[0].indent, g.names)
	for i, r := range d.lines[1:] {
		d.write(r.line, r.indent, textCells(g.rows[i]))
	}
	return nil
}

func (d *delimited) insertColumn(g *grid, _ int, _, _ string) error { return d.writeAll(g) }

func (d *delimited) deleteColumn(g *grid, _ int, _ string) error { return d.writeAll(g) }

func splitDelimited(s, sep string) []string {
	var out []string
	var b strings.Builder
	inQ := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inQ && c == '"' && i+1 < len(s) && s[i+1] == '"':
			b.WriteByte('"')
			i++
		case c == '"':
			inQ = !inQ
		case !inQ && strings.HasPrefix(s[i:], sep):
			out = append(out, b.String())
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(out, b.String())
}
