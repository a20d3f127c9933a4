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
		if se, ok := err.(*json.SyntaxError); ok {
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

func (o *object) remove(key string) bool {
	if _, ok := o.vals[key]; !ok {
		return false
	}
	delete(o.vals, key)
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
	return true
}

func (o *object) len() int { return len(o.keys) }

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
