package noma

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The Noma differential (issue 11 item 5): generated table and dataset
// ops over fixtures of every body form, each checked against what the
// reference notes (shared/reference/noma.md §6, §8) and the reference's
// patcher say the op does: the error code, and for applied ops the grid
// read back from the result and the lines outside the block. The
// expectations are computed here from the documented rules, not by the
// patcher. TestReferenceBytes pins the exact bytes of the reference's
// writers. Deliberate differences are listed in DEVIATIONS.md.

// diffFixture is a table-shaped block and what the rules need to know.
type diffFixture struct {
	name, src string
	table     bool     // a pipe table (else a dataset)
	header    bool     // a table with header=true
	names     []string // column labels (nil: a table without header)
	rows      int      // body rows
	cols      int      // columns: the widest row or the names
	// colEdits says whether the form can change its columns at all:
	// a YAML dataset needs a schema, a JSON array of rows has no names.
	colEdits bool
	// schemaFor is how many columns have a YAML schema line (deleting
	// another is refused); -1 when it does not apply.
	schemaFor int
}

var diffFixtures = []diffFixture{
	{name: "table with header", table: true, header: true, names: []string{"Name", "Score"}, rows: 2, cols: 2, colEdits: true, schemaFor: -1,
		src: "# Scores\n\n::table{id=\"g\" header}\nName | Score\nAlice | 92\nBob | 7\n::\n\nAfter.\n"},
	{name: "table without header, ragged", table: true, rows: 2, cols: 3, colEdits: true, schemaFor: -1,
		src: "::table{id=\"g\"}\n| a | b | c |\nd | e\n::\n"},
	{name: "table, header only", table: true, header: true, names: []string{"A", "B"}, rows: 0, cols: 2, colEdits: true, schemaFor: -1,
		src: "::table{id=\"g\" header=\"true\"}\n  A | B\n::\n"},
	{name: "yaml with schema", names: []string{"region", "revenue"}, rows: 2, cols: 2, colEdits: true, schemaFor: 2,
		src: "::dataset{id=\"g\"}\nschema:\n  region: string\n  revenue: number\nrows:\n  - [north, 3.4]\n  - [south, 2]  # est.\n::\n"},
	{name: "yaml columns attribute", names: []string{"a", "b"}, rows: 1, cols: 2, colEdits: false, schemaFor: 0,
		src: "::dataset{id=\"g\" columns=\"a b\"}\nrows:\n  - [1, x]\n::\n"},
	{name: "yaml empty rows", names: []string{"k", "v"}, rows: 0, cols: 2, colEdits: true, schemaFor: 2,
		src: "::dataset{id=\"g\"}\nschema:\n  k: string\n  v: boolean\nrows: []\n::\n"},
	{name: "csv", names: []string{"name", "n"}, rows: 2, cols: 2, colEdits: true, schemaFor: -1,
		src: "::dataset{id=\"g\" format=csv}\nname,n\nacme,1\nbeta,2\n::\n"},
	{name: "tsv", names: []string{"x", "y", "z"}, rows: 1, cols: 3, colEdits: true, schemaFor: -1,
		src: "::dataset{id=\"g\" format=TSV}\nx\ty\tz\n1\t2\t3\n::\n"},
	{name: "json rows", names: []string{"name", "n"}, rows: 2, cols: 2, colEdits: false, schemaFor: -1,
		src: "::dataset{id=\"g\" format=json columns=\"name,n\"}\n[\n  [\"a\", 1],\n  [\"b\", 2]\n]\n::\n"},
	{name: "json columns and rows", names: []string{"name", "n"}, rows: 1, cols: 2, colEdits: true, schemaFor: -1,
		src: "::dataset{id=\"g\" format=json}\n{\n  \"columns\": [\"name\", \"n\"],\n  \"rows\": [\n    [\"a\", 1]\n  ]\n}\n::\n"},
	{name: "json records", names: []string{"name", "n"}, rows: 2, cols: 2, colEdits: true, schemaFor: -1,
		src: "::dataset{id=\"g\" format=json}\n[\n  {\"name\": \"a\", \"n\": 1},\n  {\"name\": \"b\", \"n\": 2}\n]\n::\n"},
}

// genCase is one generated op and the code the rules give for it.
type genCase struct {
	op   map[string]any
	code string
}

func (f diffFixture) kind() string {
	if f.table {
		return "table"
	}
	return "dataset"
}

// columnOK applies §6: a column is an index below the count, or a label,
// which needs names.
func (f diffFixture) columnOK(c any) (int, bool) {
	switch v := c.(type) {
	case int:
		return v, v >= 0 && v < f.cols
	case string:
		i := slices.Index(f.names, v)
		return i, i >= 0
	}
	return 0, false
}

func ok(b bool) string {
	if b {
		return ""
	}
	return CodeInvalidContent
}

func texts(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

// generate enumerates ops over the edges of every range.
func (f diffFixture) generate() []genCase {
	k := f.kind()
	var out []genCase
	add := func(code string, kv ...any) {
		m := map[string]any{"id": "g"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		out = append(out, genCase{m, code})
	}
	cols := []any{0, f.cols - 1, f.cols, -1, "nope"}
	if len(f.names) > 0 {
		cols = append(cols, f.names[0], f.names[len(f.names)-1])
	}
	for _, r := range []int{0, f.rows - 1, f.rows} {
		for _, c := range cols {
			_, cok := f.columnOK(c)
			add(ok(r >= 0 && r < f.rows && cok), "op", "update_"+k+"_cell", "row", r, "column", c, "value", "v1")
		}
	}
	if f.table {
		for _, c := range cols {
			_, cok := f.columnOK(c)
			add(ok(f.header && cok), "op", "update_table_header_cell", "column", c, "value", "H")
		}
	}
	for _, r := range []int{0, f.rows, f.rows + 1} {
		for _, n := range []int{0, 1, f.cols, f.cols + 1} {
			// a dataset refuses more cells than columns; a table keeps them
			add(ok(r <= f.rows && (f.table || n <= f.cols)), "op", "insert_"+k+"_row", "row", r, "cells", texts("r", n))
		}
	}
	for _, r := range []int{0, f.rows - 1, f.rows} {
		add(ok(r >= 0 && r < f.rows), "op", "delete_"+k+"_row", "row", r)
	}
	headers := []any{nil, "h", ""}
	if len(f.names) > 0 {
		headers = append(headers, f.names[0])
	}
	for _, c := range []int{0, f.cols, f.cols + 1} {
		for _, n := range []int{0, f.rows, f.rows + 1} {
			for _, h := range headers {
				good := c <= f.cols && n <= f.rows && f.colEdits
				if f.table {
					good = good && (h == nil || f.header) // a header needs header=true
				} else {
					hs, _ := h.(string)
					good = good && h != nil && strings.TrimSpace(hs) != "" && !slices.Contains(f.names, hs)
				}
				kv := []any{"op", "insert_" + k + "_column", "column", c, "cells", texts("c", n)}
				if h != nil {
					kv = append(kv, "header", h)
				}
				add(ok(good), kv...)
			}
		}
	}
	for _, c := range cols {
		i, cok := f.columnOK(c)
		good := cok && f.cols > 1 && f.colEdits
		if f.schemaFor >= 0 {
			good = good && i < f.schemaFor // the column's schema line is removed
		}
		add(ok(good), "op", "delete_"+k+"_column", "column", c)
	}
	return out
}

// readGrid reads the block back as text cells (nil and padding are "").
func readGrid(t *testing.T, src string) (names []string, rows [][]string) {
	t.Helper()
	p := NewPatcher(src)
	doc, err := p.Doc()
	if err != nil {
		t.Fatal(err)
	}
	n := doc.Find("g")
	if n == nil {
		t.Fatalf("block g is gone:\n%s", src)
	}
	var g *grid
	if n.Name == "table" {
		g, _, err = p.readTable(n)
	} else {
		g, _, err = p.datasetForm(n)
	}
	if err != nil {
		if n.Name == "table" {
			return nil, nil // a table whose last line was deleted has no rows
		}
		t.Fatalf("the result does not read back: %v\n%s", err, src)
	}
	for i := range g.rows {
		var row []string
		for _, v := range g.padded(i) {
			row = append(row, cellText(v))
		}
		rows = append(rows, row)
	}
	return g.names, rows
}

func cellText(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case float64:
		return jsNumber(t)
	case json.Number:
		return t.String()
	}
	return fmt.Sprint(v)
}

// expectGrid is the grid the rules give after an applied op.
func expectGrid(f diffFixture, names []string, rows [][]string, m map[string]any) ([]string, [][]string) {
	width := f.cols
	pad := func(r []string, n int) []string {
		r = append([]string{}, r...)
		for len(r) < n {
			r = append(r, "")
		}
		return r
	}
	rows = slices.Clone(rows)
	switch name := m["op"].(string); {
	case strings.HasSuffix(name, "_header_cell"):
		c, _ := f.columnOK(m["column"])
		names = pad(names, width)
		names[c] = "H"
	case strings.HasPrefix(name, "update_"):
		c, _ := f.columnOK(m["column"])
		r := m["row"].(int)
		rows[r] = pad(rows[r], width)
		rows[r][c] = "v1"
	case strings.HasPrefix(name, "insert_") && strings.HasSuffix(name, "_row"):
		cells := m["cells"].([]string)
		r := m["row"].(int)
		rows = slices.Insert(rows, r, pad(cells, max(width, len(cells))))
		for i := range rows {
			rows[i] = pad(rows[i], max(width, len(cells)))
		}
	case strings.HasPrefix(name, "delete_") && strings.HasSuffix(name, "_row"):
		rows = slices.Delete(rows, m["row"].(int), m["row"].(int)+1)
	case strings.HasPrefix(name, "insert_"):
		c, cells := m["column"].(int), m["cells"].([]string)
		for i := range rows {
			v := ""
			if i < len(cells) {
				v = cells[i]
			}
			rows[i] = slices.Insert(pad(rows[i], width), c, v)
		}
		if names != nil {
			h, _ := m["header"].(string)
			names = slices.Insert(pad(names, width), c, h)
		}
	default:
		c, _ := f.columnOK(m["column"])
		for i := range rows {
			rows[i] = slices.Delete(pad(rows[i], width), c, c+1)
		}
		if names != nil {
			names = slices.Delete(pad(names, width), c, c+1)
		}
	}
	return names, rows
}

// outside returns the document without the block's lines.
func outside(t *testing.T, src string) string {
	doc, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	n := doc.Find("g")
	lines := strings.Split(src, "\n")
	return strings.Join(append(slices.Clone(lines[:n.Line-1]), lines[min(n.EndLine, len(lines)):]...), "\n")
}

func TestNomaDifferential(t *testing.T) {
	total, applied := 0, 0
	for _, f := range diffFixtures {
		names0, rows0 := readGrid(t, f.src)
		if len(rows0) != f.rows || f.names != nil && !slices.Equal(names0, f.names) {
			t.Fatalf("%s: fixture reads as %q %q", f.name, names0, rows0)
		}
		for _, gc := range f.generate() {
			total++
			data, _ := json.Marshal(gc.op)
			name := f.name + " " + string(data)
			o, perr := OpFromMap(roundtrip(gc.op))
			if perr != nil {
				if gc.code != perr.Code {
					t.Errorf("%s: shape %v, want %q", name, perr, gc.code)
				}
				continue
			}
			got, err := ApplySource(f.src, []Op{o})
			if code(err) != gc.code {
				t.Errorf("%s: code %q, want %q", name, code(err), gc.code)
				continue
			}
			if err != nil {
				continue
			}
			applied++
			if outside(t, got) != outside(t, f.src) {
				t.Errorf("%s: lines outside the block changed:\n%s", name, got)
			}
			wantNames, wantRows := expectGrid(f, names0, rows0, gc.op)
			gotNames, gotRows := readGrid(t, got)
			// padding is compared by TestReferenceBytes: here a row is its
			// cells up to the last non-empty one
			if f.names != nil && !slices.Equal(gotNames, wantNames) || fmt.Sprint(trimRows(gotRows)) != fmt.Sprint(trimRows(wantRows)) {
				t.Errorf("%s: reads back as %q %q, want %q %q\n%s", name, gotNames, gotRows, wantNames, wantRows, got)
			}
			if delta := strings.Count(got, "\n") - strings.Count(f.src, "\n"); delta != lineDelta(f, gc.op) {
				t.Errorf("%s: %+d lines, want %+d\n%s", name, delta, lineDelta(f, gc.op), got)
			}
		}
	}
	t.Logf("%d generated ops over %d fixtures, %d applied", total, len(diffFixtures), applied)
}

func trimRows(rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		for len(r) > 0 && r[len(r)-1] == "" {
			r = r[:len(r)-1]
		}
		out[i] = r
	}
	return out
}

// roundtrip turns Go values into what JSON decoding gives (float64, []any).
func roundtrip(m map[string]any) map[string]any {
	data, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	return out
}

// lineDelta is how many lines an op adds: a row is one line; a column
// insert adds a YAML schema line and a delete removes one; "rows: []"
// stays one line when it is emptied.
func lineDelta(f diffFixture, m map[string]any) int {
	name := m["op"].(string)
	switch {
	case strings.HasSuffix(name, "_row") && strings.HasPrefix(name, "insert_"):
		return 1
	case strings.HasSuffix(name, "_row"):
		return -1
	case strings.HasSuffix(name, "_column") && f.schemaFor >= 0 && !f.table:
		if strings.HasPrefix(name, "insert_") {
			return 1
		}
		return -1
	}
	return 0
}

// TestReferenceBytes pins the reference writers' exact output for each
// form, as its source patcher writes it (ferax564/noma v0.17.0).
func TestReferenceBytes(t *testing.T) {
	const (
		jsonRows    = "::dataset{id=\"d\" format=json columns=\"name,n\"}\n[\n  [\"a\", 1],\n  [\"b\", 2]\n]\n::\n"
		jsonRecords = "::dataset{id=\"d\" format=json}\n[\n  {\"name\": \"a\", \"n\": 1},\n  {\"name\":\"b\",\"n\":2}\n]\n::\n"
		jsonObject  = "::dataset{id=\"d\" format=json}\n{\n  \"columns\": [\"name\", \"n\"],\n  \"rows\": [\n    [\"a\", 1]\n  ]\n}\n::\n"
		yamlTyped   = "::dataset{id=\"d\"}\nschema:\n  region: string\n  revenue: number\nrows:\n  - [north, 3.40]   # q1\n::\n"
		yamlBare    = "::dataset{id=\"d\" columns=\"a, b\"}\nrows:\n  - [x, y]\n::\n"
		csv         = "::dataset{id=\"d\" format=csv}\nname,n\nacme,1\n::\n"
		table       = "::table{id=\"d\"}\na | b\n::\n"
		tableHead   = "::table{id=\"d\" header}\nA | B\n1 | 2\n::\n"
	)
	cases := []struct {
		name, src, op, want, code string
	}{
		{"json row written compact", jsonRows, `{"op":"update_dataset_cell","id":"d","row":1,"column":"n","value":"3.50"}`,
			"::dataset{id=\"d\" format=json columns=\"name,n\"}\n[\n  [\"a\", 1],\n  [\"b\",3.5]\n]\n::\n", ""},
		{"json row appended: the last row gets a comma", jsonRows, `{"op":"insert_dataset_row","id":"d","row":2,"cells":["c","4"]}`,
			"::dataset{id=\"d\" format=json columns=\"name,n\"}\n[\n  [\"a\", 1],\n  [\"b\", 2],\n  [\"c\",4]\n]\n::\n", ""},
		{"json row inserted first, padded with \"\"", jsonRows, `{"op":"insert_dataset_row","id":"d","row":0,"cells":["c"]}`,
			"::dataset{id=\"d\" format=json columns=\"name,n\"}\n[\n  [\"c\",\"\"],\n  [\"a\", 1],\n  [\"b\", 2]\n]\n::\n", ""},
		{"json last row deleted: the comma goes", jsonRows, `{"op":"delete_dataset_row","id":"d","row":1}`,
			"::dataset{id=\"d\" format=json columns=\"name,n\"}\n[\n  [\"a\", 1]\n]\n::\n", ""},
		{"json row cells exceed columns", jsonRows, `{"op":"insert_dataset_row","id":"d","row":0,"cells":["a","1","x"]}`, "", CodeInvalidContent},
		{"json rows have no names to edit", jsonRows, `{"op":"insert_dataset_column","id":"d","column":0,"header":"h","cells":[]}`, "", CodeInvalidContent},
		{"json record cell: only the value changes", jsonRecords, `{"op":"update_dataset_cell","id":"d","row":1,"column":"n","value":"yes"}`,
			"::dataset{id=\"d\" format=json}\n[\n  {\"name\": \"a\", \"n\": 1},\n  {\"name\":\"b\",\"n\":true}\n]\n::\n", ""},
		{"json record inserted", jsonRecords, `{"op":"insert_dataset_row","id":"d","row":1,"cells":["cy","4"]}`,
			"::dataset{id=\"d\" format=json}\n[\n  {\"name\": \"a\", \"n\": 1},\n  { \"name\": \"cy\", \"n\": 4 },\n  {\"name\":\"b\",\"n\":2}\n]\n::\n", ""},
		{"json record column: every record rewritten", jsonRecords, `{"op":"insert_dataset_column","id":"d","column":1,"header":"ok","cells":["1"]}`,
			"::dataset{id=\"d\" format=json}\n[\n  { \"name\": \"a\", \"ok\": 1, \"n\": 1 },\n  { \"name\": \"b\", \"ok\": null, \"n\": 2 }\n]\n::\n", ""},
		{"json object column: the columns line too", jsonObject, `{"op":"insert_dataset_column","id":"d","column":2,"header":"ok","cells":["yes"]}`,
			"::dataset{id=\"d\" format=json}\n{\n  \"columns\": [\"name\",\"n\",\"ok\"],\n  \"rows\": [\n    [\"a\",1,true]\n  ]\n}\n::\n", ""},
		{"json only row deleted, then one inserted", jsonObject, `[{"op":"delete_dataset_row","id":"d","row":0},{"op":"insert_dataset_row","id":"d","row":0,"cells":["z","2"]}]`,
			"::dataset{id=\"d\" format=json}\n{\n  \"columns\": [\"name\", \"n\"],\n  \"rows\": [\n    [\"z\",2]\n  ]\n}\n::\n", ""},
		{"json empty rows opened", "::dataset{id=\"d\" format=json}\n{\n  \"columns\": [\"a\"],\n  \"rows\": []\n}\n::\n", `{"op":"insert_dataset_row","id":"d","row":0,"cells":["1.50"]}`,
			"::dataset{id=\"d\" format=json}\n{\n  \"columns\": [\"a\"],\n  \"rows\": [\n    [1.5]\n  ]\n}\n::\n", ""},
		{"yaml row: typed cells, comment kept as written", yamlTyped, `{"op":"update_dataset_cell","id":"d","row":0,"column":"region","value":"a,b"}`,
			"::dataset{id=\"d\"}\nschema:\n  region: string\n  revenue: number\nrows:\n  - ['a,b', 3.4]   # q1\n::\n", ""},
		{"yaml short row padded by type", yamlTyped, `{"op":"insert_dataset_row","id":"d","row":1,"cells":["x"]}`,
			"::dataset{id=\"d\"}\nschema:\n  region: string\n  revenue: number\nrows:\n  - [north, 3.40]   # q1\n  - [x, null]\n::\n", ""},
		{"yaml untyped: 1 is true, padding is ''", yamlBare, `{"op":"insert_dataset_row","id":"d","row":0,"cells":["1"]}`,
			"::dataset{id=\"d\" columns=\"a, b\"}\nrows:\n  - [true, '']\n  - [x, y]\n::\n", ""},
		{"yaml column cells exceed rows", yamlTyped, `{"op":"insert_dataset_column","id":"d","column":2,"header":"q","cells":["1","2"]}`, "", CodeInvalidContent},
		{"yaml column inserted with its type", yamlTyped, `{"op":"insert_dataset_column","id":"d","column":1,"header":"q","cells":["yes"]}`,
			"::dataset{id=\"d\"}\nschema:\n  region: string\n  q: boolean\n  revenue: number\nrows:\n  - [north, true, 3.4]   # q1\n::\n", ""},
		{"yaml last column", "::dataset{id=\"d\"}\nschema:\n  a: number\nrows:\n  - [1]\n::\n", `{"op":"delete_dataset_column","id":"d","column":0}`, "", CodeInvalidContent},
		{"csv cells are text", csv, `{"op":"insert_dataset_row","id":"d","row":1,"cells":["007","yes"]}`,
			"::dataset{id=\"d\" format=csv}\nname,n\nacme,1\n007,yes\n::\n", ""},
		{"csv row cells exceed columns", csv, `{"op":"insert_dataset_row","id":"d","row":0,"cells":["a","1","x"]}`, "", CodeInvalidContent},
		{"csv column cells exceed rows", csv, `{"op":"insert_dataset_column","id":"d","column":0,"header":"h","cells":["1","2"]}`, "", CodeInvalidContent},
		{"csv column", csv, `{"op":"insert_dataset_column","id":"d","column":1,"header":"a b","cells":[" x"]}`,
			"::dataset{id=\"d\" format=csv}\nname,a b,n\nacme,\" x\",1\n::\n", ""},
		{"tsv keeps empty edge cells (deviation: the reference trims tabs)", "::dataset{id=\"d\" format=tsv}\na\tb\n1\t2\n::\n",
			`[{"op":"insert_dataset_column","id":"d","column":0,"header":"h","cells":[]},{"op":"update_dataset_cell","id":"d","row":0,"column":"b","value":"x"}]`,
			"::dataset{id=\"d\" format=tsv}\nh\ta\tb\n\t1\tx\n::\n", ""},
		{"json record without a known key is not a row", "::dataset{id=\"d\" format=json}\n[\n  {\"a\": 1},\n  {}\n]\n::\n",
			`{"op":"delete_dataset_row","id":"d","row":0}`, "", CodeInvalidContent},
		{"table row keeps extra cells", table, `{"op":"insert_table_row","id":"d","row":1,"cells":["x","y","z"]}`,
			"::table{id=\"d\"}\na | b\n| x | y | z |\n::\n", ""},
		{"table column header without header=true", table, `{"op":"insert_table_column","id":"d","column":0,"header":"H","cells":[]}`, "", CodeInvalidContent},
		{"table column cells exceed rows", tableHead, `{"op":"insert_table_column","id":"d","column":0,"header":"H","cells":["1","2"]}`, "", CodeInvalidContent},
		{"table column: every row, align untouched", tableHead, `{"op":"insert_table_column","id":"d","column":1,"header":"H","cells":["x|y"]}`,
			"::table{id=\"d\" header}\n| A | H | B |\n| 1 | x\\|y | 2 |\n::\n", ""},
	}
	for _, c := range cases {
		ops, errs, err := DecodeOps([]byte(c.op))
		if err != nil || errs[0] != nil {
			t.Fatalf("%s: %v %v", c.name, err, errs)
		}
		got, err := ApplySource(c.src, ops)
		if code(err) != c.code {
			t.Errorf("%s: code %q, want %q", c.name, code(err), c.code)
			continue
		}
		if c.code == "" && got != c.want {
			t.Errorf("%s:\ngot  %q\nwant %q", c.name, got, c.want)
		}
	}
}
