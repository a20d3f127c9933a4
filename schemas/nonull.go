package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// gloss's output never contains null: a nil slice is written [], a nil map
// {}, and a nil pointer or interface member is left out. Go's encoder
// writes null for all of them, which no single-type schema can describe
// and which agents then have to special-case. dropNulls rewrites the
// encoder's bytes, guided by the Go type they came from, so every output
// type gets this without a custom MarshalJSON.

// dropNulls rewrites data, the JSON encoding of a value of type t.
func dropNulls(data []byte, t reflect.Type) ([]byte, error) {
	if t == nil || !bytes.Contains(data, []byte("null")) {
		return data, nil // the common case: nothing to do
	}
	var buf bytes.Buffer
	if err := rewrite(&buf, data, t); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

var (
	nullJSON  = []byte("null")
	emptyList = []byte("[]")
	emptyObj  = []byte("{}")
)

// rewrite writes the JSON value data, of Go type t, to buf without nulls.
func rewrite(buf *bytes.Buffer, data []byte, t reflect.Type) error {
	t = deref(t)
	if bytes.Equal(data, nullJSON) {
		switch {
		case customJSON(t):
			buf.Write(data)
		case t.Kind() == reflect.Slice:
			buf.Write(emptyList)
		case t.Kind() == reflect.Map:
			buf.Write(emptyObj)
		default:
			buf.Write(data)
		}
		return nil
	}
	if customJSON(t) || !bytes.Contains(data, nullJSON) {
		buf.Write(data)
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		return rewriteObject(buf, data, func(key string) (reflect.Type, bool) {
			f, ok := fieldsOf(t)[key]
			return f.typ, ok
		})
	case reflect.Map:
		return rewriteObject(buf, data, func(string) (reflect.Type, bool) { return t.Elem(), true })
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			buf.Write(data) // []byte is a base64 string
			return nil
		}
		return rewriteArray(buf, data, t.Elem())
	}
	buf.Write(data) // interfaces and scalars: no static type to follow
	return nil
}

// rewriteObject rewrites a JSON object whose member types memberType gives;
// a member that would be null and may be absent is left out.
func rewriteObject(buf *bytes.Buffer, data []byte, memberType func(string) (reflect.Type, bool)) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return err
	}
	buf.WriteByte('{')
	first := true
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("object key %v is not a string", tok)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		ft, known := memberType(key)
		if known && bytes.Equal(raw, nullJSON) && absentWhenNil(ft) && !collection(ft) {
			continue
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		if err := encodeString(buf, key); err != nil {
			return err
		}
		buf.WriteByte(':')
		if !known {
			buf.Write(raw)
			continue
		}
		if err := rewrite(buf, raw, ft); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

// collection reports whether t, behind its pointers, is a slice or a map
// (written empty rather than left out).
func collection(t reflect.Type) bool {
	t = deref(t)
	return (t.Kind() == reflect.Slice || t.Kind() == reflect.Map) && !customJSON(t)
}

func rewriteArray(buf *bytes.Buffer, data []byte, elem reflect.Type) error {
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil {
		return err
	}
	buf.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := rewrite(buf, it, elem); err != nil {
			return err
		}
	}
	buf.WriteByte(']')
	return nil
}
