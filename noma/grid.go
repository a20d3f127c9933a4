package noma

import (
	"math"
	"strconv"
)

// Tables and datasets are one shape: rows × columns, with column names
// when the form has them. A form (pipe table, YAML, CSV/TSV or JSON
// dataset) reads a block's body into a grid and writes lines back; the
// table and dataset ops are written once, over the grid, in gridOp.

// grid is a table-shaped body as read from the source.
type grid struct {
	names []string // column names; nil when there are none (a table without header=true)
	rows  [][]any  // body rows, ragged as read; a nil cell is an empty one
	count int      // columns: the widest of the names and the rows
	table bool     // a pipe table: extra row cells are kept, labels need names
}

// gridForm is how one body form types cells and writes lines. Row
// indexes are 0-based over the body rows; the grid is already changed
// when a write method runs.
type gridForm interface {
	// cell types an op's text for column c.
	cell(text string, c int) any
	// columnCells types the cells of an inserted column.
	columnCells(texts []string) (cells []any, typ string)
	// setCell writes body row i after its cell c changed.
	setCell(g *grid, i, c int) error
	insertRow(g *grid, i int) error
	deleteRow(g *grid, i int) error
	// insertColumn and deleteColumn write a column change: every row and
	// the column names (typ is the inserted column's type).
	insertColumn(g *grid, c int, name, typ string) error
	deleteColumn(g *grid, c int, name string) error
}

// newGrid measures rows and names.
func newGrid(names []string, rows [][]any, table bool) *grid {
	g := &grid{names: names, rows: rows, table: table, count: len(names)}
	for _, r := range rows {
		g.count = max(g.count, len(r))
	}
	return g
}

// padded returns body row i with nil cells up to the column count.
func (g *grid) padded(i int) []any {
	row := append([]any{}, g.rows[i]...)
	for len(row) < g.count {
		row = append(row, nil)
	}
	return row
}

// paddedNames returns the names with "" up to the column count.
func (g *grid) paddedNames() []string {
	out := append([]string{}, g.names...)
	for len(out) < g.count {
		out = append(out, "")
	}
	return out
}

// column reads an op's column: an index below the count, or a name.
func (g *grid) column(v any) (int, error) {
	if s, ok := v.(string); ok {
		if g.names == nil {
			return 0, perr(CodeInvalidContent, "column labels need a header row")
		}
		for i, h := range g.names {
			if h == s {
				return i, nil
			}
		}
		return 0, perr(CodeInvalidContent, "no column %q", s)
	}
	return index(v, g.count, "column")
}

// index reads a row or column number: a non-negative integer below limit.
func index(v any, limit int, what string) (int, error) {
	f, ok := v.(float64)
	if !ok || f < 0 || f != math.Trunc(f) || f >= float64(limit) {
		return 0, perr(CodeInvalidContent, "%s %v out of range (0..%d)", what, v, limit-1)
	}
	return int(f), nil
}

// checkOneLine refuses multi-line op texts: every form is one row a line.
func checkOneLine(op Op) error {
	for _, s := range append(op.Strings("cells"), op.Str("value"), op.Str("header")) {
		if !singleLine(s) {
			return perr(CodeInvalidContent, "values must be one line")
		}
	}
	return nil
}

// gridOp runs a table or dataset op over g, writing through f.
func gridOp(g *grid, f gridForm, op Op) error {
	switch op.Name {
	case "update_table_cell", "update_dataset_cell":
		return updateCell(g, f, op)
	case "insert_table_row", "insert_dataset_row":
		return insertRow(g, f, op)
	case "insert_table_column", "insert_dataset_column":
		return insertColumn(g, f, op)
	case "delete_table_row", "delete_dataset_row":
		r, err := index(op.Get("row"), len(g.rows), "row")
		if err != nil {
			return err
		}
		g.rows = append(g.rows[:r:r], g.rows[r+1:]...)
		return f.deleteRow(g, r)
	case "delete_table_column", "delete_dataset_column":
		return deleteColumn(g, f, op)
	}
	return perr(CodeUnsupportedOp, "unsupported op %q", op.Name)
}

func updateCell(g *grid, f gridForm, op Op) error {
	r, err := index(op.Get("row"), len(g.rows), "row")
	if err != nil {
		return err
	}
	c, err := g.column(op.Get("column"))
	if err != nil {
		return err
	}
	row := g.padded(r)
	row[c] = f.cell(op.Str("value"), c)
	g.rows[r] = row
	return f.setCell(g, r, c)
}

// insertRow pads the new row's texts with "" to the column count and
// types them. A dataset refuses more cells than columns; a pipe table
// keeps them (the row is wider), as the reference does.
func insertRow(g *grid, f gridForm, op Op) error {
	r, err := index(op.Get("row"), len(g.rows)+1, "row")
	if err != nil {
		return err
	}
	texts := op.Strings("cells")
	if !g.table && g.count > 0 && len(texts) > g.count {
		return perr(CodeInvalidContent, "dataset row cells exceed column count (%d > %d)", len(texts), g.count)
	}
	row := make([]any, max(g.count, len(texts)))
	for i := range row {
		t := ""
		if i < len(texts) {
			t = texts[i]
		}
		row[i] = f.cell(t, i)
	}
	g.rows = append(g.rows[:r], append([][]any{row}, g.rows[r:]...)...)
	g.count = max(g.count, len(row))
	return f.insertRow(g, r)
}

// insertColumn refuses more cells than body rows, and a header for a
// table that has no header row (the reference's checks).
func insertColumn(g *grid, f gridForm, op Op) error {
	c, err := index(op.Get("column"), g.count+1, "column")
	if err != nil {
		return err
	}
	name := op.Str("header")
	switch {
	case g.table && g.names == nil && op.Has("header"):
		return perr(CodeInvalidContent, "table column header requires header=true")
	case !g.table && jsTrim(name) == "":
		return perr(CodeInvalidContent, "header must not be blank")
	case !g.table && containsString(g.names, name):
		return perr(CodeInvalidContent, "column %q exists", name)
	}
	texts := op.Strings("cells")
	if len(texts) > len(g.rows) {
		return perr(CodeInvalidContent, "column cells exceed row count (%d > %d)", len(texts), len(g.rows))
	}
	for len(texts) < len(g.rows) {
		texts = append(texts, "")
	}
	cells, typ := f.columnCells(texts)
	for i := range g.rows {
		g.rows[i] = insertAt(g.padded(i), c, cells[i])
	}
	if g.names != nil {
		g.names = insertAt(g.paddedNames(), c, name)
	}
	g.count++
	return f.insertColumn(g, c, name, typ)
}

func deleteColumn(g *grid, f gridForm, op Op) error {
	if g.count <= 1 {
		return perr(CodeInvalidContent, "cannot delete the last column")
	}
	c, err := g.column(op.Get("column"))
	if err != nil {
		return err
	}
	name := ""
	if g.names != nil {
		names := g.paddedNames()
		name = names[c]
		g.names = append(names[:c:c], names[c+1:]...)
	}
	for i := range g.rows {
		row := g.padded(i)
		g.rows[i] = append(row[:c:c], row[c+1:]...)
	}
	g.count--
	return f.deleteColumn(g, c, name)
}

func insertAt[T any](s []T, i int, v T) []T {
	out := make([]T, 0, len(s)+1)
	out = append(out, s[:i]...)
	out = append(out, v)
	return append(out, s[i:]...)
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// textCells reads cells written as text (pipe tables, CSV): nil is "".
func textCells(row []any) []string {
	out := make([]string, len(row))
	for i, v := range row {
		s, _ := v.(string)
		out[i] = s
	}
	return out
}

// anyCells wraps text cells.
func anyCells(texts []string) []any {
	out := make([]any, len(texts))
	for i, t := range texts {
		out[i] = t
	}
	return out
}

// splitColumnsAttr reads columns="a, b c" as the reference does: names
// separated by commas or whitespace, empty ones dropped.
func splitColumnsAttr(n *Node) []string {
	c, ok := n.StringAttr("columns")
	if !ok {
		return nil
	}
	var out []string
	for _, x := range reProfileSep.Split(c, -1) {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

// defaultNames names the columns beyond names "Column N" up to count.
func defaultNames(names []string, count int) []string {
	for i := len(names); i < count; i++ {
		names = append(names, "Column "+strconv.Itoa(i+1))
	}
	return names
}
