package noma

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/lazyregexp"
)

// Dataset directives: the ops on a dataset pick its form by the format
// attribute (YAML here; CSV/TSV in delimited.go, JSON in jsondataset.go).
// YAML datasets are a schema: list and rows: with one flow row a line,
// with scalars resolved as js-yaml resolves them.

var (
	reSchemaLine = lazyregexp.New(`^(` + ws + `*)schema:` + ws + `*$`)
	reSchemaItem = lazyregexp.New(`^(` + ws + `+)([^:#` + wsClass + `][^:#]*?)` + ws + `*:` + ws + `*(.*?)` + ws + `*$`)
	reRowsLine   = lazyregexp.New(`^(` + ws + `*)rows:` + ws + `*(\[` + ws + `*\])?` + ws + `*$`)
	reRowItem    = lazyregexp.New(`^(` + ws + `*)-` + ws + `*(\[.*\])(` + ws + `+#.*)?` + ws + `*$`)
	reYAMLInt    = lazyregexp.New(`^[-+]?(?:0|[1-9][0-9_]*)$`)
	reYAMLHex    = lazyregexp.New(`^[-+]?0x[0-9a-fA-F_]+$`)
	reYAMLOct    = lazyregexp.New(`^[-+]?0o[0-7_]+$`)
	reYAMLFloat  = lazyregexp.New(`^[-+]?(?:\.[0-9]+|[0-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?$`)
	reYAMLDate   = lazyregexp.New(`^\d{4}-\d\d?-\d\d?(?:(?:[Tt]|[ \t]+)\d\d?:\d\d:\d\d(?:\.\d*)?(?:[ \t]*(?:Z|[-+]\d\d?(?::\d\d)?))?)?$`)
	reNumStart   = lazyregexp.New(`^-?\d`)
)

type yamlDate struct{ t time.Time }

// yamlLoad resolves a plain YAML scalar as js-yaml's default schema does.
func yamlLoad(s string) any {
	switch s {
	case "", "~", "null", "Null", "NULL":
		return nil
	case "true", "True", "TRUE":
		return true
	case "false", "False", "FALSE":
		return false
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
		return math.Inf(1)
	case "-.inf", "-.Inf", "-.INF":
		return math.Inf(-1)
	case ".nan", ".NaN", ".NAN":
		return math.NaN()
	}
	c := strings.ReplaceAll(s, "_", "")
	switch {
	case reYAMLInt.MatchString(s):
		f, _ := strconv.ParseFloat(c, 64)
		return f
	case reYAMLHex.MatchString(s), reYAMLOct.MatchString(s):
		neg := strings.HasPrefix(c, "-")
		c = strings.TrimLeft(c, "+-")
		base := 16
		if c[1] == 'o' {
			base = 8
		}
		v, err := strconv.ParseUint(c[2:], base, 64)
		if err == nil {
			f := float64(v)
			if neg {
				f = -f
			}
			return f
		}
	case reYAMLFloat.MatchString(s) && s != "." && s != "-" && s != "+":
		f, err := strconv.ParseFloat(c, 64)
		if err == nil {
			return f
		}
	case reYAMLDate.MatchString(s):
		for _, layout := range []string{"2006-1-2", "2006-1-2T15:04:05Z07:00", "2006-1-2 15:04:05Z07:00", "2006-1-2T15:04:05", "2006-1-2 15:04:05", "2006-1-2T15:04:05.999999999Z07:00", "2006-1-2T15:04:05.999999999"} {
			if t, err := time.Parse(layout, s); err == nil {
				return yamlDate{t.UTC()}
			}
		}
	}
	return s
}

// parseFlowRow reads "[a, 'b', "c"]" into values.
func parseFlowRow(s string) ([]any, bool) {
	s = jsTrim(s)
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, false
	}
	in := s[1 : len(s)-1]
	var out []any
	if jsTrim(in) == "" {
		return out, true
	}
	i := 0
	for {
		for i < len(in) && (in[i] == ' ' || in[i] == '\t') {
			i++
		}
		if i < len(in) && (in[i] == '\'' || in[i] == '"') {
			q := in[i]
			var b strings.Builder
			j := i + 1
			closed := false
			for j < len(in) {
				c := in[j]
				if q == '\'' && c == '\'' {
					if j+1 < len(in) && in[j+1] == '\'' {
						b.WriteByte('\'')
						j += 2
						continue
					}
					closed = true
					j++
					break
				}
				if q == '"' && c == '\\' && j+1 < len(in) {
					switch in[j+1] {
					case 't':
						b.WriteByte('\t')
					case 'n':
						b.WriteByte('\n')
					case 'r':
						b.WriteByte('\r')
					case '0':
						b.WriteByte(0)
					default:
						b.WriteByte(in[j+1])
					}
					j += 2
					continue
				}
				if q == '"' && c == '"' {
					closed = true
					j++
					break
				}
				b.WriteByte(c)
				j++
			}
			if !closed {
				return nil, false
			}
			out = append(out, b.String())
			for j < len(in) && (in[j] == ' ' || in[j] == '\t') {
				j++
			}
			if j == len(in) {
				return out, true
			}
			if in[j] != ',' {
				return nil, false
			}
			i = j + 1
			continue
		}
		j := strings.IndexByte(in[i:], ',')
		if j < 0 {
			out = append(out, yamlLoad(jsTrim(in[i:])))
			return out, true
		}
		tok := jsTrim(in[i : i+j])
		if strings.ContainsAny(tok, "[]{}") {
			return nil, false
		}
		out = append(out, yamlLoad(tok))
		i += j + 1
	}
}

// yamlDump writes a scalar as js-yaml's unwrapped flow dump does.
func yamlDump(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case bool:
		if t {
			return "true"
		}
		return "false"
	case float64:
		switch {
		case math.IsNaN(t):
			return ".nan"
		case math.IsInf(t, 1):
			return ".inf"
		case math.IsInf(t, -1):
			return "-.inf"
		case t == 0 && math.Signbit(t):
			return "-0.0"
		}
		return jsNumber(t)
	case yamlDate:
		return t.t.Format("2006-01-02T15:04:05.000Z")
	case string:
		return yamlString(t)
	}
	return "null"
}

var yaml11Words = map[string]bool{"y": true, "Y": true, "yes": true, "Yes": true, "YES": true, "n": true, "N": true, "no": true, "No": true, "NO": true,
	"on": true, "On": true, "ON": true, "off": true, "Off": true, "OFF": true}

func yamlString(s string) string {
	for _, r := range s {
		if r < 0x20 && r != '\t' || r == 0x7f || r == 0xfeff || r == 0x85 || r == 0x2028 || r == 0x2029 {
			return yamlDouble(s)
		}
	}
	if strings.ContainsRune(s, '\t') {
		return yamlDouble(s)
	}
	plain := s != "" && !isJSSpace([]rune(s)[0]) && !isJSSpace([]rune(s)[len([]rune(s))-1]) &&
		!strings.ContainsAny(s[:1], "-?:,[]{}#&*!|>'\"%@`") && !strings.ContainsAny(s, ",[]{}") &&
		!strings.Contains(s, ": ") && !strings.Contains(s, " #") && !strings.HasSuffix(s, ":") && !yaml11Words[s]
	if plain {
		if _, isStr := yamlLoad(s).(string); !isStr {
			plain = false
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

func yamlDouble(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case 0:
			b.WriteString(`\0`)
		default:
			if r < 0x20 || r == 0x7f {
				b.WriteString(fmt.Sprintf(`\x%02X`, r))
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func flowRow(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = yamlDump(v)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// jsNumberOf is JS Number(s): ok is false when the result is not finite.
func jsNumberOf(s string) (float64, bool) {
	t := jsTrim(s)
	if t == "" {
		return 0, true
	}
	low := strings.ToLower(t)
	for _, pre := range []string{"0x", "0o", "0b"} {
		if strings.HasPrefix(low, pre) {
			base := map[string]int{"0x": 16, "0o": 8, "0b": 2}[pre]
			v, err := strconv.ParseUint(t[2:], base, 64)
			return float64(v), err == nil
		}
	}
	if strings.ContainsAny(low, "_xpn") || strings.Contains(low, "inf") {
		return 0, false
	}
	f, err := strconv.ParseFloat(t, 64)
	return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// coerceCell turns an op's string into a YAML value by the column type.
func coerceCell(s, typ string) any {
	t := jsTrim(s)
	switch typ {
	case "number", "integer":
		if t == "" {
			return nil
		}
		if f, ok := jsNumberOf(s); ok {
			return f
		}
		return s
	case "boolean":
		switch strings.ToLower(t) {
		case "":
			return nil
		case "true", "yes", "1":
			return true
		case "false", "no", "0":
			return false
		}
		return s
	case "":
		switch strings.ToLower(t) {
		case "true", "yes", "1":
			return true
		case "false", "no", "0":
			return false
		}
		if reNumStart.MatchString(t) {
			if f, ok := jsNumberOf(t); ok {
				return f
			}
		}
		return s
	}
	return s
}

type yamlDataset struct {
	p            *Patcher
	schemaLine   int // -1 when absent
	schemaIndent string
	items        []schemaItem
	rowsLine     int
	rowsIndent   string
	emptyRows    bool
	rows         []yamlRow
	columns      []string
}

type schemaItem struct {
	line int
	name string
	typ  string // lower case
}

type yamlRow struct {
	line     int
	indent   string
	vals     []any
	trailing string // a comment with the whitespace before it
}

func (p *Patcher) parseYAMLDataset(n *Node, a, b int) (*yamlDataset, error) {
	d := &yamlDataset{p: p, schemaLine: -1, rowsLine: -1}
	for i := a; i < b; i++ {
		l := strings.TrimSuffix(p.lines[i], "\r")
		if m := reSchemaLine.FindStringSubmatch(l); m != nil && d.schemaLine < 0 {
			d.schemaLine = i
			d.schemaIndent = m[1] + "  "
			for j := i + 1; j < b; j++ {
				lj := strings.TrimSuffix(p.lines[j], "\r")
				mm := reSchemaItem.FindStringSubmatch(lj)
				if mm == nil || len(mm[1]) <= len(m[1]) {
					break
				}
				if len(d.items) == 0 {
					d.schemaIndent = mm[1]
				}
				typ := strings.Trim(mm[3], `"'`)
				if strings.HasPrefix(typ, "{") {
					if k := strings.Index(typ, "type:"); k >= 0 {
						typ = strings.Trim(jsTrim(strings.SplitN(strings.TrimSuffix(typ[k+5:], "}"), ",", 2)[0]), `"'`)
					}
				}
				d.items = append(d.items, schemaItem{j, jsTrim(mm[2]), strings.ToLower(typ)})
				i = j
			}
			continue
		}
		if m := reRowsLine.FindStringSubmatch(l); m != nil && d.rowsLine < 0 {
			d.rowsLine, d.rowsIndent, d.emptyRows = i, m[1], m[2] != ""
			for j := i + 1; j < b && !d.emptyRows; j++ {
				lj := strings.TrimSuffix(p.lines[j], "\r")
				if isBlank(lj) {
					continue
				}
				mm := reRowItem.FindStringSubmatch(lj)
				if mm == nil {
					if strings.HasPrefix(jsTrim(lj), "-") {
						return nil, perr(CodeInvalidContent, "could not map every YAML row (line %d)", j+1)
					}
					break
				}
				vals, ok := parseFlowRow(mm[2])
				if !ok {
					return nil, perr(CodeInvalidContent, "could not map every YAML row (line %d)", j+1)
				}
				d.rows = append(d.rows, yamlRow{j, mm[1], vals, mm[3]})
				i = j
			}
		}
	}
	if d.rowsLine < 0 {
		return nil, perr(CodeInvalidContent, "dataset %q has no rows: block", n.ID)
	}
	for _, it := range d.items {
		d.columns = append(d.columns, it.name)
	}
	if len(d.columns) == 0 {
		d.columns = splitColumnsAttr(n)
	}
	width := len(d.columns)
	for _, r := range d.rows {
		width = max(width, len(r.vals))
	}
	d.columns = defaultNames(d.columns, width)
	return d, nil
}

// grid is the dataset as a grid: the columns are always named.
func (d *yamlDataset) grid() *grid {
	rows := make([][]any, len(d.rows))
	for i, r := range d.rows {
		rows[i] = r.vals
	}
	return newGrid(append([]string{}, d.columns...), rows, false)
}

// typeOf is a column's schema type, "" when it has none.
func (d *yamlDataset) typeOf(col int) string {
	if col < len(d.items) {
		return d.items[col].typ
	}
	return ""
}

func (r yamlRow) text(vals []any) string {
	return r.indent + "- " + flowRow(vals) + r.trailing
}

func (d *yamlDataset) cell(text string, c int) any { return coerceCell(text, d.typeOf(c)) }

// columnCells types an inserted column by what its cells hold.
func (d *yamlDataset) columnCells(texts []string) ([]any, string) {
	return typedColumn(texts)
}

func typedColumn(texts []string) ([]any, string) {
	typ := inferType(texts)
	cells := make([]any, len(texts))
	for i, t := range texts {
		cells[i] = coerceCell(t, typ)
	}
	return cells, typ
}

func (d *yamlDataset) setCell(g *grid, i, _ int) error {
	d.p.setLine(d.rows[i].line, d.rows[i].text(g.rows[i]))
	return nil
}

// insertRow writes "- [...]" before row i (or after the last row) with
// that row's indentation; into "rows: []" it switches to block form.
func (d *yamlDataset) insertRow(g *grid, i int) error {
	indent := d.rowsIndent + "  "
	at := d.rowsLine + 1
	switch {
	case i < len(d.rows):
		indent, at = d.rows[i].indent, d.rows[i].line
	case len(d.rows) > 0:
		indent, at = d.rows[i-1].indent, d.rows[i-1].line+1
	}
	if d.emptyRows {
		d.p.setLine(d.rowsLine, d.rowsIndent+"rows:")
	}
	d.p.splice(at, at-1, []string{indent + "- " + flowRow(g.rows[i])})
	return nil
}

// deleteRow removes row i; removing the last one writes "rows: []".
func (d *yamlDataset) deleteRow(_ *grid, i int) error {
	if len(d.rows) == 1 {
		d.p.setLine(d.rowsLine, d.rowsIndent+"rows: []")
	}
	d.p.splice(d.rows[i].line, d.rows[i].line, nil)
	return nil
}

func (d *yamlDataset) writeRows(g *grid) {
	for i, r := range d.rows {
		d.p.setLine(r.line, r.text(g.rows[i]))
	}
}

// insertColumn needs a schema: block; "name: type" goes after the
// previous column's schema line (column 0: right after "schema:").
func (d *yamlDataset) insertColumn(g *grid, c int, name, typ string) error {
	if d.schemaLine < 0 {
		return perr(CodeInvalidContent, "inserting a column needs a schema: block")
	}
	d.writeRows(g)
	at := d.schemaLine + 1
	if c > 0 && c-1 < len(d.items) {
		at = d.items[c-1].line + 1
	}
	d.p.splice(at, at-1, []string{d.schemaIndent + name + ": " + typ})
	return nil
}

// deleteColumn removes the column's schema line, which must exist.
func (d *yamlDataset) deleteColumn(g *grid, _ int, name string) error {
	for _, it := range d.items {
		if it.name == name {
			d.writeRows(g)
			d.p.splice(it.line, it.line, nil)
			return nil
		}
	}
	return perr(CodeInvalidContent, "column %q has no schema line", name)
}

func (p *Patcher) datasetOp(doc *Node, op Op) error {
	n := doc.Find(op.Str("id"))
	if n == nil {
		return perr(CodeTargetMissing, "no block %q", op.Str("id"))
	}
	if n.Type != TypeDirective || n.Name != "dataset" {
		return perr(CodeInvalidContent, "%q is not a dataset", op.Str("id"))
	}
	if err := checkOneLine(op); err != nil {
		return err
	}
	g, f, err := p.datasetForm(n)
	if err != nil {
		return err
	}
	err = gridOp(g, f, op)
	p.dirty = p.dirty || err == nil
	return err
}

// datasetForm reads a dataset by its format attribute.
func (p *Patcher) datasetForm(n *Node) (*grid, gridForm, error) {
	a, b := p.interior(n)
	format, _ := n.StringAttr("format")
	switch strings.ToLower(jsTrim(format)) {
	case "", "yaml", "yml":
		d, err := p.parseYAMLDataset(n, a, b)
		if err != nil {
			return nil, nil, err
		}
		return d.grid(), d, nil
	case "csv":
		return p.readDelimited(a, b, ",")
	case "tsv":
		return p.readDelimited(a, b, "\t")
	case "json":
		return p.readJSONDataset(n, a, b)
	}
	return nil, nil, perr(CodeInvalidContent, "dataset format %q is not patchable", format)
}

func inferType(cells []string) string {
	nonBlank := 0
	num, boolean := true, true
	for _, c := range cells {
		t := jsTrim(c)
		if t == "" {
			continue
		}
		nonBlank++
		if _, ok := jsNumberOf(t); !ok {
			num = false
		}
		switch strings.ToLower(t) {
		case "true", "false", "yes", "no", "1", "0":
		default:
			boolean = false
		}
	}
	switch {
	case nonBlank == 0:
		return "string"
	case num:
		return "number"
	case boolean:
		return "boolean"
	}
	return "string"
}

// datasetColumns lists a dataset block's column names (for plot checks).
func datasetColumns(n *Node) []string {
	p := &Patcher{lines: strings.Split(rawBody(n), "\n")}
	d, err := p.parseYAMLDataset(n, 0, len(p.lines))
	if err != nil {
		if c, ok := n.StringAttr("columns"); ok {
			var out []string
			for _, x := range strings.Split(c, ",") {
				out = append(out, jsTrim(x))
			}
			return out
		}
		return nil
	}
	return d.columns
}
