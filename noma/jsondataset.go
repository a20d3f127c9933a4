package noma

import (
	"bytes"
	"encoding/json"
	"strings"
)

// JSON datasets are edited line by line, as the reference does: one row
// per line, as an array ([…]) or a record ({…}); the body is an array of
// rows or {"columns": […], "rows": […]} with "columns" on one line.

type jsonRow struct {
	line   int
	indent string
	vals   []any    // array rows
	keys   []string // record rows: keys in order
	rec    map[string]any
}

type orderedObject struct {
	keys []string
	vals map[string]any
}

func decodeOrdered(s string) (*orderedObject, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
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
		var v any
		if err := dec.Decode(&v); err != nil {
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
	return o, !dec.More()
}

func jsonValue(v any) string {
	switch t := v.(type) {
	case float64:
		return jsNumber(t)
	case json.Number:
		if f, err := t.Float64(); err == nil {
			return jsNumber(f)
		}
		return t.String()
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimRight(b.String(), "\n")
}

func (r jsonRow) text() string {
	var b strings.Builder
	if r.keys != nil {
		b.WriteString("{")
		for i, k := range r.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(jsonValue(k) + ": " + jsonValue(r.rec[k]))
		}
		b.WriteString("}")
		return r.indent + b.String()
	}
	b.WriteString("[")
	for i, v := range r.vals {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(jsonValue(v))
	}
	b.WriteString("]")
	return r.indent + b.String()
}

func (p *Patcher) jsonDatasetOp(n *Node, op Op) error {
	a, b := p.interior(n)
	var rows []jsonRow
	colLine := -1
	var columns []string
	colIndent := ""
	records := false
	for i := a; i < b; i++ {
		l := strings.TrimSuffix(p.lines[i], "\r")
		t := jsTrim(l)
		indent := l[:len(l)-len(strings.TrimLeftFunc(l, isJSSpace))]
		if strings.HasPrefix(t, `"columns"`) {
			_, v, _ := strings.Cut(t, ":")
			v = strings.TrimSuffix(jsTrim(v), ",")
			if err := json.Unmarshal([]byte(v), &columns); err != nil {
				return perr(CodeInvalidContent, "could not read the JSON columns line %d", i+1)
			}
			colLine, colIndent = i, indent
			continue
		}
		body := strings.TrimSuffix(t, ",")
		switch {
		case strings.HasPrefix(body, "[") && strings.HasSuffix(body, "]") && len(body) > 1:
			var vals []any
			dec := json.NewDecoder(strings.NewReader(body))
			dec.UseNumber()
			if err := dec.Decode(&vals); err != nil {
				return perr(CodeInvalidContent, "could not map every JSON row (line %d)", i+1)
			}
			rows = append(rows, jsonRow{line: i, indent: indent, vals: vals})
		case strings.HasPrefix(body, "{") && strings.HasSuffix(body, "}") && len(body) > 1:
			o, ok := decodeOrdered(body)
			if !ok {
				return perr(CodeInvalidContent, "could not map every JSON row (line %d)", i+1)
			}
			records = true
			rows = append(rows, jsonRow{line: i, indent: indent, keys: o.keys, rec: o.vals})
		}
	}
	if len(rows) == 0 {
		return perr(CodeInvalidContent, "could not find one JSON row per line")
	}
	if records {
		for _, r := range rows {
			if r.keys == nil {
				return perr(CodeInvalidContent, "JSON rows mix arrays and records")
			}
		}
		if columns == nil {
			columns = append(columns, rows[0].keys...)
		}
	}
	if columns == nil {
		if c, ok := n.StringAttr("columns"); ok {
			for _, x := range strings.Split(c, ",") {
				columns = append(columns, jsTrim(x))
			}
		}
	}
	width := len(columns)
	for _, r := range rows {
		width = max(width, len(r.vals))
	}
	for i := len(columns); i < width; i++ {
		columns = append(columns, "Column "+itoa(i+1))
	}
	count := len(columns)
	colOf := func(v any) (int, error) {
		if s, ok := v.(string); ok {
			for i, c := range columns {
				if c == s {
					return i, nil
				}
			}
			return 0, perr(CodeInvalidContent, "no column %q", s)
		}
		return index(v, count, "column")
	}
	set := func(r *jsonRow, c int, v any) {
		if records {
			k := columns[c]
			if _, ok := r.rec[k]; !ok {
				r.keys = append(r.keys, k)
			}
			r.rec[k] = v
			return
		}
		r.vals = padVals(r.vals, count)
		r.vals[c] = v
	}
	newRow := func(cells []string, indent string) jsonRow {
		r := jsonRow{indent: indent}
		if records {
			r.rec = map[string]any{}
			r.keys = []string{}
		}
		for i := 0; i < count; i++ {
			var v any
			if i < len(cells) {
				v = coerceCell(cells[i], "")
			}
			set(&r, i, v)
		}
		return r
	}
	// writeRows rewrites rows (in order) and fixes the commas: every row
	// but the last ends with ",".
	writeRows := func(rs []jsonRow, touched map[int]bool) {
		for i, r := range rs {
			l := r.text()
			if i < len(rs)-1 {
				l += ","
			}
			cur := strings.TrimSuffix(p.lines[r.line], "\r")
			if touched[r.line] || cur != l && strings.TrimSuffix(cur, ",") == strings.TrimSuffix(l, ",") {
				p.setLine(r.line, l)
			}
		}
	}
	switch op.Name {
	case "update_dataset_cell":
		r, err := index(op.Get("row"), len(rows), "row")
		if err != nil {
			return err
		}
		c, err := colOf(op.Get("column"))
		if err != nil {
			return err
		}
		set(&rows[r], c, coerceCell(op.Str("value"), ""))
		writeRows(rows, map[int]bool{rows[r].line: true})
	case "insert_dataset_row":
		r, err := index(op.Get("row"), len(rows)+1, "row")
		if err != nil {
			return err
		}
		at := rows[len(rows)-1].line + 1
		ref := rows[len(rows)-1]
		if r < len(rows) {
			ref = rows[r]
			at = ref.line
		}
		p.splice(at, at-1, []string{""})
		nr := newRow(op.Strings("cells"), ref.indent)
		nr.line = at
		var out []jsonRow
		for i, x := range rows {
			if x.line >= at {
				x.line++
			}
			if i == r {
				out = append(out, nr)
			}
			out = append(out, x)
		}
		if r == len(rows) {
			out = append(out, nr)
		}
		writeRows(out, map[int]bool{at: true})
	case "delete_dataset_row":
		r, err := index(op.Get("row"), len(rows), "row")
		if err != nil {
			return err
		}
		if len(rows) == 1 {
			return perr(CodeInvalidContent, "cannot delete the last JSON row")
		}
		del := rows[r].line
		p.splice(del, del, nil)
		var out []jsonRow
		for i, x := range rows {
			if i == r {
				continue
			}
			if x.line > del {
				x.line--
			}
			out = append(out, x)
		}
		writeRows(out, nil)
	case "insert_dataset_column", "delete_dataset_column":
		var c int
		var err error
		if op.Name == "insert_dataset_column" {
			c, err = index(op.Get("column"), count+1, "column")
			h := op.Str("header")
			if err == nil && jsTrim(h) == "" {
				err = perr(CodeInvalidContent, "header must not be blank")
			}
			for _, x := range columns {
				if err == nil && x == h {
					err = perr(CodeInvalidContent, "column %q exists", h)
				}
			}
		} else {
			c, err = colOf(op.Get("column"))
			if err == nil && count <= 1 {
				err = perr(CodeInvalidContent, "cannot delete the last column")
			}
		}
		if err != nil {
			return err
		}
		touched := map[int]bool{}
		cells := op.Strings("cells")
		typ := inferType(cells)
		for i := range rows {
			r := &rows[i]
			touched[r.line] = true
			if op.Name == "insert_dataset_column" {
				v := ""
				if i < len(cells) {
					v = cells[i]
				}
				val := coerceCell(v, typ)
				if records {
					r.rec[op.Str("header")] = val
					pos := min(c, len(r.keys))
					r.keys = append(r.keys[:pos], append([]string{op.Str("header")}, r.keys[pos:]...)...)
				} else {
					vals := padVals(r.vals, count)
					r.vals = append(vals[:c], append([]any{val}, vals[c:]...)...)
				}
				continue
			}
			if records {
				k := columns[c]
				delete(r.rec, k)
				for j, x := range r.keys {
					if x == k {
						r.keys = append(r.keys[:j], r.keys[j+1:]...)
						break
					}
				}
			} else {
				vals := padVals(r.vals, count)
				r.vals = append(vals[:c], vals[c+1:]...)
			}
		}
		if colLine >= 0 {
			if op.Name == "insert_dataset_column" {
				columns = append(columns[:c], append([]string{op.Str("header")}, columns[c:]...)...)
			} else {
				columns = append(columns[:c], columns[c+1:]...)
			}
			cur := strings.TrimSuffix(p.lines[colLine], "\r")
			comma := ""
			if strings.HasSuffix(jsTrim(cur), ",") {
				comma = ","
			}
			p.setLine(colLine, colIndent+`"columns": `+jsonValue(columns)+comma)
		}
		writeRows(rows, touched)
	}
	p.dirty = true
	return nil
}

func itoa(i int) string { return jsNumber(float64(i)) }
