package noma

import (
	"math"
	"strings"
)

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

func pad(cells []string, n int) []string {
	for len(cells) < n {
		cells = append(cells, "")
	}
	return cells
}

// index reads a row or column number: a non-negative integer below limit.
func index(v any, limit int, what string) (int, error) {
	f, ok := v.(float64)
	if !ok || f < 0 || f != math.Trunc(f) || f >= float64(limit) {
		return 0, perr(CodeInvalidContent, "%s %v out of range (0..%d)", what, v, limit-1)
	}
	return int(f), nil
}

func columnIndex(v any, header []string, count int) (int, error) {
	if s, ok := v.(string); ok {
		if header == nil {
			return 0, perr(CodeInvalidContent, "column labels need a header row")
		}
		for i, h := range header {
			if h == s {
				return i, nil
			}
		}
		return 0, perr(CodeInvalidContent, "no column %q", s)
	}
	return index(v, count, "column")
}

func (p *Patcher) tableOp(doc *Node, op Op) error {
	n := doc.Find(op.Str("id"))
	if n == nil {
		return perr(CodeTargetMissing, "no block %q", op.Str("id"))
	}
	if n.Type != TypeDirective || n.Name != "table" {
		return perr(CodeInvalidContent, "%q is not a table", op.Str("id"))
	}
	rows, err := p.tableRows(n)
	if err != nil {
		return err
	}
	hv, _ := n.Attr("header")
	hasHeader := hv == true || hv == "true"
	var header []string
	body := rows
	if hasHeader {
		header = rows[0].cells
		body = rows[1:]
	}
	count := 0
	for _, r := range rows {
		count = max(count, len(r.cells))
	}
	for _, k := range []string{"value", "header"} {
		if !singleLine(op.Str(k)) {
			return perr(CodeInvalidContent, "%s must be one line", k)
		}
	}
	for _, c := range op.Strings("cells") {
		if !singleLine(c) {
			return perr(CodeInvalidContent, "cells must be one line each")
		}
	}
	switch op.Name {
	case "update_table_cell":
		r, err := index(op.Get("row"), len(body), "row")
		if err != nil {
			return err
		}
		c, err := columnIndex(op.Get("column"), header, count)
		if err != nil {
			return err
		}
		cells := pad(append([]string{}, body[r].cells...), count)
		cells[c] = op.Str("value")
		p.setLine(body[r].line, formatRow(body[r].indent, cells))
	case "update_table_header_cell":
		if !hasHeader {
			return perr(CodeInvalidContent, "table %q has no header row", n.ID)
		}
		c, err := columnIndex(op.Get("column"), header, count)
		if err != nil {
			return err
		}
		cells := pad(append([]string{}, header...), count)
		cells[c] = op.Str("value")
		p.setLine(rows[0].line, formatRow(rows[0].indent, cells))
	case "insert_table_row":
		r, err := index(op.Get("row"), len(body)+1, "row")
		if err != nil {
			return err
		}
		cells := pad(append([]string{}, op.Strings("cells")...), count)
		ref := rows[len(rows)-1]
		at := ref.line + 1
		if r < len(body) {
			ref = body[r]
			at = ref.line
		}
		p.splice(at, at-1, []string{formatRow(ref.indent, cells)})
	case "delete_table_row":
		r, err := index(op.Get("row"), len(body), "row")
		if err != nil {
			return err
		}
		p.splice(body[r].line, body[r].line, nil)
	case "insert_table_column":
		c, err := index(op.Get("column"), count+1, "column")
		if err != nil {
			return err
		}
		given := op.Strings("cells")
		for i, r := range rows {
			cells := pad(append([]string{}, r.cells...), count)
			v := ""
			if hasHeader && i == 0 {
				v = op.Str("header")
			} else {
				bi := i
				if hasHeader {
					bi--
				}
				if bi < len(given) {
					v = given[bi]
				}
			}
			cells = append(cells[:c], append([]string{v}, cells[c:]...)...)
			p.setLine(r.line, formatRow(r.indent, cells))
		}
	case "delete_table_column":
		c, err := columnIndex(op.Get("column"), header, count)
		if err != nil {
			return err
		}
		if count <= 1 {
			return perr(CodeInvalidContent, "cannot delete the last column")
		}
		for _, r := range rows {
			cells := pad(append([]string{}, r.cells...), count)
			cells = append(cells[:c], cells[c+1:]...)
			p.setLine(r.line, formatRow(r.indent, cells))
		}
	}
	p.dirty = true
	return nil
}
