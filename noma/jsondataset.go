package noma

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/gloss-dev/gloss/lazyregexp"
)

// JSON datasets are edited line by line, as the reference does. The body
// is an array of rows ([…] a line), an array of records ({…} a line), or
// {"columns": […], "rows": [ … ]} with the columns on one line. Rows are
// written as JSON.stringify writes them (["c",4]); records as
// { "name": "cy", "n": 4 }; a record's cell update rewrites only that
// property's value.

var (
	reJSONColumns   = lazyregexp.New(`^(` + ws + `*)("columns"` + ws + `*:` + ws + `*)(\[.*\])(` + ws + `*,?)` + ws + `*$`)
	reJSONEmptyRows = lazyregexp.New(`^(` + ws + `*)("rows"` + ws + `*:` + ws + `*)\[\]` + ws + `*(,?)` + ws + `*$`)
	reJSONRowsOpen  = lazyregexp.New(`^"rows"` + ws + `*:` + ws + `*\[` + ws + `*$`)
	reJSONClose     = lazyregexp.New(`^` + ws + `*\]` + ws + `*,?` + ws + `*$`)
	reJSONCloseBare = lazyregexp.New(`^` + ws + `*\]` + ws + `*$`)
	reJSONComma     = lazyregexp.New(`,` + ws + `*$`)
)

// jsonRaw is a nested array or object cell, kept as compact JSON.
type jsonRaw string

type jsonDataset struct {
	p         *Patcher
	shape     string // "arrays", "records" or "object"
	rows      []jsonLine
	end       int    // the line closing the rows array
	rowIndent string // for a row inserted where there is none
	empty     *jsonLine
	columns   *jsonLine // the "columns" line of the object form
}

// jsonLine is one source line: a row, or the columns or empty-rows line.
type jsonLine struct {
	line     int
	indent   string
	prefix   string // `"columns": ` or `"rows": `
	trailing string // "," or "" (the columns line: as written)
}

func jsonError(n *Node, what string) error {
	return perr(CodeInvalidContent, "dataset %q: %s", n.ID, what)
}

// readJSONDataset parses the body as JSON, then maps every row to its
// line; a body it cannot map is refused.
func (p *Patcher) readJSONDataset(n *Node, a, b int) (*grid, gridForm, error) {
	body := strings.Join(p.lines[a:b], "\n")
	top, err := decodeJSON(body)
	if err != nil {
		return nil, nil, jsonError(n, "is not valid JSON")
	}
	d := &jsonDataset{p: p, end: -1}
	var names []string
	want := 0
	switch t := top.(type) {
	case []any:
		d.shape = "arrays"
		if len(t) > 0 {
			if _, ok := t[0].(map[string]any); ok {
				d.shape = "records"
			}
		}
		want = len(t)
		if d.shape == "arrays" {
			want = countArrays(t)
			names = splitColumnsAttr(n)
		}
	case map[string]any:
		rows, ok := t["rows"].([]any)
		if !ok {
			return nil, nil, jsonError(n, "has no JSON rows array")
		}
		d.shape, want = "object", countArrays(rows)
		if cols, ok := t["columns"].([]any); ok {
			for _, c := range cols {
				names = append(names, jsString(c))
			}
		} else {
			names = splitColumnsAttr(n)
		}
	default:
		return nil, nil, jsonError(n, "has no JSON rows array")
	}
	start, err := d.bounds(n, a, b)
	if err != nil {
		return nil, nil, err
	}
	var rows [][]any
	if d.shape == "records" {
		names, rows, err = d.mapRecords(start)
	} else {
		rows, err = d.mapArrays(start)
	}
	if err != nil {
		return nil, nil, err
	}
	if len(rows) != want || d.shape == "records" && len(rows) == 0 {
		return nil, nil, jsonError(n, "could not map every JSON row to one line")
	}
	g := newGrid(names, rows, false)
	g.names = defaultNames(g.names, g.count)
	return g, d, nil
}

// jsString is String(v) of a decoded column name.
func jsString(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		f, _ := t.Float64()
		return jsNumber(f)
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}

func decodeJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the JSON value")
	}
	return v, nil
}

func countArrays(list []any) int {
	k := 0
	for _, x := range list {
		if _, ok := x.([]any); ok {
			k++
		}
	}
	return k
}

// bounds finds the line opening the rows array ("[" alone, or
// `"rows": [` in the object form) and the line closing it; it returns
// the opening line.
func (d *jsonDataset) bounds(n *Node, a, b int) (int, error) {
	for i := a; i < b; i++ {
		l := strings.TrimSuffix(d.p.lines[i], "\r")
		t := jsTrim(l)
		indent := l[:len(l)-len(strings.TrimLeftFunc(l, isJSSpace))]
		if d.shape == "object" {
			if m := reJSONColumns.FindStringSubmatch(l); m != nil && json.Valid([]byte(m[3])) {
				d.columns = &jsonLine{line: i, indent: m[1], prefix: m[2], trailing: m[4]}
			}
			if m := reJSONEmptyRows.FindStringSubmatch(l); m != nil {
				d.empty = &jsonLine{line: i, indent: m[1], prefix: m[2], trailing: m[3]}
				d.end, d.rowIndent = i, indent+"  "
				return i, nil
			}
			if !reJSONRowsOpen.MatchString(t) {
				continue
			}
		} else if t != "[" {
			continue
		}
		closer := reJSONClose
		if d.shape == "records" {
			closer = reJSONCloseBare
		}
		for j := i + 1; j < b; j++ {
			if closer.MatchString(strings.TrimSuffix(d.p.lines[j], "\r")) {
				d.end, d.rowIndent = j, indent+"  "
				return i, nil
			}
		}
		break
	}
	return 0, jsonError(n, "has no JSON rows array written one row a line")
}

// rowLine reads a row line inside the array: its indentation, its text
// without a trailing comma, and the comma.
func (d *jsonDataset) rowLine(i int) (jsonLine, string) {
	l := strings.TrimSuffix(d.p.lines[i], "\r")
	t := jsTrim(l)
	r := jsonLine{line: i, indent: l[:len(l)-len(strings.TrimLeftFunc(l, isJSSpace))]}
	if strings.HasSuffix(t, ",") {
		r.trailing = ","
		t = strings.TrimRightFunc(t[:len(t)-1], isJSSpace)
	}
	return r, t
}

func (d *jsonDataset) mapArrays(start int) ([][]any, error) {
	var rows [][]any
	for i := start + 1; i < d.end; i++ {
		r, t := d.rowLine(i)
		if !strings.HasPrefix(t, "[") || t == "[" {
			continue
		}
		vals, ok := decodeRow(t)
		if !ok {
			continue
		}
		d.rows = append(d.rows, r)
		rows = append(rows, vals)
	}
	return rows, nil
}

// mapRecords maps one-line records; the columns are the first record's
// keys, and every row is read in that order (a missing key is null).
func (d *jsonDataset) mapRecords(start int) ([]string, [][]any, error) {
	var names []string
	var recs []*orderedObject
	for i := start + 1; i < d.end; i++ {
		r, t := d.rowLine(i)
		if !strings.HasPrefix(t, "{") {
			continue
		}
		if !strings.HasSuffix(t, "}") {
			return nil, nil, perr(CodeInvalidContent, "a JSON record on line %d spans lines: write one record a line", i+1)
		}
		o, ok := decodeOrdered(t)
		if !ok || names != nil && !hasAnyKey(o, names) {
			continue // not a row the reference maps either: the count check refuses the body
		}
		if names == nil {
			names = o.keys
		}
		d.rows = append(d.rows, r)
		recs = append(recs, o)
	}
	rows := make([][]any, len(recs))
	for i, o := range recs {
		rows[i] = make([]any, len(names))
		for c, k := range names {
			rows[i][c] = o.vals[k]
		}
	}
	return names, rows, nil
}

func hasAnyKey(o *orderedObject, names []string) bool {
	for _, k := range names {
		if _, ok := o.vals[k]; ok {
			return true
		}
	}
	return false
}

// decodeRow reads a one-line row array; nested arrays and objects stay
// as compact JSON.
func decodeRow(s string) ([]any, bool) {
	var raws []json.RawMessage
	if err := json.Unmarshal([]byte(s), &raws); err != nil {
		return nil, false
	}
	out := make([]any, len(raws))
	for i, r := range raws {
		v, ok := decodeCell(r)
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

func decodeCell(r json.RawMessage) (any, bool) {
	r = bytes.TrimSpace(r)
	if len(r) > 0 && (r[0] == '[' || r[0] == '{') {
		var b bytes.Buffer
		if json.Compact(&b, r) != nil {
			return nil, false
		}
		return jsonRaw(b.String()), true
	}
	dec := json.NewDecoder(bytes.NewReader(r))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	return v, true
}

type orderedObject struct {
	keys []string
	vals map[string]any
}

// decodeOrdered reads a one-line JSON object keeping its key order.
func decodeOrdered(s string) (*orderedObject, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, false
	}
	o := &orderedObject{vals: map[string]any{}}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, false
		}
		k, _ := kt.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false
		}
		v, ok := decodeCell(raw)
		if !ok {
			return nil, false
		}
		if _, dup := o.vals[k]; !dup {
			o.keys = append(o.keys, k)
		}
		o.vals[k] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	_, err = dec.Token()
	return o, err == io.EOF
}

// jsonText is JSON.stringify of a cell.
func jsonText(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(t)
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return "null"
		}
		return jsNumber(t)
	case json.Number:
		f, err := t.Float64()
		if err != nil || math.IsInf(f, 0) {
			return "null"
		}
		return jsNumber(f)
	case string:
		return jsonQuote(t)
	case jsonRaw:
		return string(t)
	}
	return "null"
}

// jsonQuote quotes a string as JSON.stringify does: only ", \ and
// control characters are escaped.
func jsonQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func arrayText(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = jsonText(v)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func recordText(names []string, vals []any) string {
	parts := make([]string, len(names))
	for i, k := range names {
		var v any
		if i < len(vals) {
			v = vals[i]
		}
		parts[i] = jsonQuote(k) + ": " + jsonText(v)
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

func (d *jsonDataset) rowText(g *grid, i int) string {
	if d.shape == "records" {
		return recordText(g.names, g.rows[i])
	}
	return arrayText(g.rows[i])
}

func (d *jsonDataset) cell(text string, _ int) any { return coerceCell(text, "") }

func (d *jsonDataset) columnCells(texts []string) ([]any, string) { return typedColumn(texts) }

// setCell rewrites a row array whole, and only the property's value in
// a record.
func (d *jsonDataset) setCell(g *grid, i, c int) error {
	r := d.rows[i]
	if d.shape != "records" {
		d.p.setLine(r.line, r.indent+arrayText(g.rows[i])+r.trailing)
		return nil
	}
	l := strings.TrimSuffix(d.p.lines[r.line], "\r")
	re := regexp.MustCompile(`(` + regexp.QuoteMeta(jsonQuote(g.names[c])) + ws + `*:` + ws + `*)` +
		`(?:"(?:\\.|[^"\\])*"|true|false|null|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(` + ws + `*(?:,|\}|$))`)
	loc := re.FindStringSubmatchIndex(l)
	if loc == nil {
		return perr(CodeInvalidContent, "record %d has no plain %q property to rewrite", i, g.names[c])
	}
	d.p.setLine(r.line, l[:loc[3]]+jsonText(g.rows[i][c])+l[loc[4]:])
	return nil
}

// insertRow writes the row before row i with a comma, or after the last
// row (which gets a comma); into `"rows": []` it opens the array.
func (d *jsonDataset) insertRow(g *grid, i int) error {
	text := d.rowText(g, i)
	if e := d.empty; e != nil {
		d.p.setLine(e.line, e.indent+e.prefix+"[")
		d.p.splice(e.line+1, e.line, []string{d.rowIndent + text, e.indent + "]" + e.trailing})
		return nil
	}
	indent, at, comma := d.rowIndent, d.end, ""
	if len(d.rows) > 0 {
		ref := d.rows[min(i, len(d.rows)-1)]
		if d.shape != "records" {
			ref = d.rows[0]
		}
		indent = ref.indent
	}
	switch {
	case i < len(d.rows):
		at, comma = d.rows[i].line, ","
	case len(d.rows) > 0:
		last := d.rows[len(d.rows)-1]
		at = last.line + 1
		d.addComma(last.line)
	}
	d.p.splice(at, at-1, []string{indent + text + comma})
	return nil
}

// addComma ends line i with a comma (trailing whitespace dropped).
func (d *jsonDataset) addComma(i int) {
	l := strings.TrimSuffix(d.p.lines[i], "\r")
	if !reJSONComma.MatchString(l) {
		d.p.setLine(i, strings.TrimRightFunc(l, isJSSpace)+",")
	}
}

// deleteRow removes row i; the row before a removed last row loses its
// comma.
func (d *jsonDataset) deleteRow(_ *grid, i int) error {
	if i == len(d.rows)-1 && i > 0 {
		prev := d.rows[i-1].line
		l := strings.TrimSuffix(d.p.lines[prev], "\r")
		d.p.setLine(prev, reJSONComma.ReplaceAllString(l, ""))
	}
	d.p.splice(d.rows[i].line, d.rows[i].line, nil)
	return nil
}

// writeColumns rewrites every row and, in the object form, the columns
// line; a bare array of rows has no column names to change.
func (d *jsonDataset) writeColumns(g *grid) error {
	switch {
	case d.shape == "arrays":
		return perr(CodeInvalidContent, "column edits need the {\"columns\": […], \"rows\": […]} form or records")
	case d.shape == "object" && d.columns == nil:
		return perr(CodeInvalidContent, "column edits need the columns on one line")
	case d.shape == "object":
		c := d.columns
		d.p.setLine(c.line, c.indent+c.prefix+stringsText(g.names)+c.trailing)
	}
	for i, r := range d.rows {
		l := strings.TrimSuffix(d.p.lines[r.line], "\r")
		d.p.setLine(r.line, r.indent+d.rowText(g, i)+trailingComma(l))
	}
	return nil
}

func trailingComma(l string) string {
	if strings.HasSuffix(jsTrim(l), ",") {
		return ","
	}
	return ""
}

func stringsText(names []string) string {
	parts := make([]string, len(names))
	for i, s := range names {
		parts[i] = jsonQuote(s)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func (d *jsonDataset) insertColumn(g *grid, _ int, _, _ string) error { return d.writeColumns(g) }

func (d *jsonDataset) deleteColumn(g *grid, _ int, _ string) error { return d.writeColumns(g) }
