package setup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// object is a JSON object that remembers its key order, so that editing one
// entry of a user's configuration file leaves everything else as it was
// (modulo indentation).
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

// parseObject reads a JSON object; empty or blank input is an empty object.
// Errors carry the line and column, for a message the user can act on.
func parseObject(data []byte) (*object, error) {
	o := &object{vals: map[string]json.RawMessage{}}
	if len(bytes.TrimSpace(data)) == 0 {
		return o, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	fail := func(err error) error {
		off := dec.InputOffset()
		// The scanner behind Unmarshal knows the offending byte; the
		// token reader only how far it got.
		var v any
		if se, ok := json.Unmarshal(data, &v).(*json.SyntaxError); ok {
			off, err = se.Offset-1, se
		} else if se, ok := err.(*json.SyntaxError); ok {
			off = se.Offset
		}
		line, col := position(data, off)
		return fmt.Errorf("line %d, column %d: %v", line, col, err)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, fail(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("the top level is not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fail(err)
		}
		key := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fail(err)
		}
		o.set(key, raw)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fail(err)
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("unexpected data after the top-level object")
	}
	return o, nil
}

func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

func (o *object) get(key string) (json.RawMessage, bool) {
	v, ok := o.vals[key]
	return v, ok
}

func (o *object) set(key string, v json.RawMessage) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// marshal writes the object with two-space indentation and a final newline.
func (o *object) marshal() ([]byte, error) {
	var b bytes.Buffer
	if err := o.write(&b, ""); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

func (o *object) write(b *bytes.Buffer, indent string) error {
	if len(o.keys) == 0 {
		b.WriteString("{}")
		return nil
	}
	b.WriteString("{\n")
	for i, k := range o.keys {
		key, _ := json.Marshal(k)
		b.WriteString(indent + "  ")
		b.Write(key)
		b.WriteString(": ")
		var val bytes.Buffer
		if err := json.Indent(&val, o.vals[k], indent+"  ", "  "); err != nil {
			return err
		}
		b.Write(val.Bytes())
		if i < len(o.keys)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent + "}")
	return nil
}

// raw marshals the object compactly, for nesting in a parent object.
func (o *object) raw() (json.RawMessage, error) {
	var b bytes.Buffer
	if err := o.write(&b, ""); err != nil {
		return nil, err
	}
	var c bytes.Buffer
	if err := json.Compact(&c, b.Bytes()); err != nil {
		return nil, err
	}
	return c.Bytes(), nil
}

func isJSONObject(raw json.RawMessage) bool {
	return strings.HasPrefix(strings.TrimSpace(string(raw)), "{")
}

// The functions below edit a configuration file as text: a member is
// inserted or removed and every other byte stays as the user wrote it
// (their indentation, key order and spacing), so that init followed by
// uninstall gives back the very bytes there were.

// member locates one member of a JSON object in its text.
type member struct {
	key                                string
	keyStart, keyEnd, valStart, valEnd int
}

// objectText locates a JSON object's braces and members in data.
type objectText struct {
	open, close int
	members     []member
}

func (o objectText) find(key string) int {
	for i, m := range o.members {
		if m.key == key {
			return i
		}
	}
	return -1
}

// locateObject finds the members of the JSON object in data[from:to],
// with offsets into data. The text must be valid (parseObject checked it).
func locateObject(data []byte, from, to int) (objectText, error) {
	dec := json.NewDecoder(bytes.NewReader(data[from:to]))
	var o objectText
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return o, fmt.Errorf("not a JSON object")
	}
	o.open = from + int(dec.InputOffset()) - 1
	for dec.More() {
		before := from + int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return o, err
		}
		m := member{key: tok.(string), keyStart: before + bytes.IndexByte(data[before:], '"'), keyEnd: from + int(dec.InputOffset())}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return o, err
		}
		m.valEnd = from + int(dec.InputOffset())
		m.valStart = m.valEnd - len(raw)
		o.members = append(o.members, m)
	}
	if _, err := dec.Token(); err != nil {
		return o, err
	}
	o.close = from + int(dec.InputOffset()) - 1
	return o, nil
}

// insertMember adds "key": value as the object's last member, laid out
// like the member before it.
func insertMember(data []byte, o objectText, key string, value json.RawMessage) []byte {
	k, _ := json.Marshal(key)
	if len(o.members) == 0 {
		return splice(data, o.open+1, o.open+1, string(k)+": "+string(value))
	}
	last := o.members[len(o.members)-1]
	prevEnd := o.open + 1
	if len(o.members) > 1 {
		prevEnd = o.members[len(o.members)-2].valEnd
	}
	sep := string(data[prevEnd:last.keyStart])
	sep = sep[strings.LastIndexByte(sep, ',')+1:]
	colon := string(data[last.keyEnd:last.valStart]) // ": " or ":", as the file has it
	return splice(data, last.valEnd, last.valEnd, ","+sep+string(k)+colon+layout(value, sep))
}

// layout indents a compact value to sit after a member separator: on
// lines of its own when the file puts members on lines of their own.
func layout(value json.RawMessage, sep string) string {
	i := strings.LastIndexByte(sep, '\n')
	if i < 0 {
		return string(value)
	}
	var b bytes.Buffer
	if json.Indent(&b, value, sep[i+1:], "  ") != nil {
		return string(value)
	}
	return b.String()
}

// removeMember cuts member i out of the object with its separator, the
// inverse of insertMember.
func removeMember(data []byte, o objectText, i int) []byte {
	m := o.members[i]
	switch {
	case i > 0:
		return splice(data, o.members[i-1].valEnd, m.valEnd, "")
	case len(o.members) > 1:
		return splice(data, m.keyStart, o.members[1].keyStart, "")
	}
	return splice(data, m.keyStart, m.valEnd, "")
}

func splice(data []byte, from, to int, text string) []byte {
	out := make([]byte, 0, len(data)-(to-from)+len(text))
	out = append(out, data[:from]...)
	out = append(out, text...)
	return append(out, data[to:]...)
}

// arrayText locates a JSON array's brackets and elements in data.
type arrayText struct {
	open, close int
	elems       [][2]int // [start, end) of each element
}

// locateArray finds the elements of the JSON array in data[from:to], with
// offsets into data. The text must be valid (parseObject checked it).
func locateArray(data []byte, from, to int) (arrayText, error) {
	dec := json.NewDecoder(bytes.NewReader(data[from:to]))
	var a arrayText
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return a, fmt.Errorf("not a JSON array")
	}
	a.open = from + int(dec.InputOffset()) - 1
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return a, err
		}
		end := from + int(dec.InputOffset())
		a.elems = append(a.elems, [2]int{end - len(raw), end})
	}
	if _, err := dec.Token(); err != nil {
		return a, err
	}
	a.close = from + int(dec.InputOffset()) - 1
	return a, nil
}

// appendElement adds value as the array's last element, laid out like the
// element before it.
func appendElement(data []byte, a arrayText, value json.RawMessage) []byte {
	if len(a.elems) == 0 {
		return splice(data, a.open+1, a.open+1, string(value))
	}
	last := a.elems[len(a.elems)-1]
	prevEnd := a.open + 1
	if len(a.elems) > 1 {
		prevEnd = a.elems[len(a.elems)-2][1]
	}
	sep := string(data[prevEnd:last[0]])
	sep = sep[strings.LastIndexByte(sep, ',')+1:]
	return splice(data, last[1], last[1], ","+sep+layout(value, sep))
}

// removeElement cuts element i out of the array with its separator, the
// inverse of appendElement.
func removeElement(data []byte, a arrayText, i int) []byte {
	e := a.elems[i]
	switch {
	case i > 0:
		return splice(data, a.elems[i-1][1], e[1], "")
	case len(a.elems) > 1:
		return splice(data, e[0], a.elems[1][0], "")
	}
	return splice(data, e[0], e[1], "")
}
