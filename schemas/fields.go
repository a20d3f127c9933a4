package schemas

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// field is one JSON member of a struct, as encoding/json sees it.
type field struct {
	name      string
	typ       reflect.Type
	omitempty bool
}

var fieldCache sync.Map // reflect.Type → map[string]field

// fieldsOf maps the JSON member names of struct type t to their fields,
// following encoding/json's rules closely enough for gloss's own types:
// exported fields, tag names, "-", and untagged embedded structs whose
// fields are promoted (the shallower one wins a name clash).
func fieldsOf(t reflect.Type) map[string]field {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]field)
	}
	m := map[string]field{}
	collectFields(t, m, 0, map[string]int{})
	fieldCache.Store(t, m)
	return m
}

func collectFields(t reflect.Type, m map[string]field, depth int, depths map[string]int) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			inner := ft
			if inner.Kind() == reflect.Pointer {
				inner = inner.Elem()
			}
			if inner.Kind() == reflect.Struct {
				collectFields(inner, m, depth+1, depths)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if d, seen := depths[name]; seen && d <= depth {
			continue
		}
		depths[name] = depth
		m[name] = field{name: name, typ: ft, omitempty: strings.Contains(","+opts+",", ",omitempty,")}
	}
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// customJSON reports whether t writes its own JSON: gloss leaves such
// values as they are.
func customJSON(t reflect.Type) bool {
	return t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) ||
		t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)
}

// deref strips pointers.
func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// absentWhenNil reports whether a nil value of type t is left out of
// gloss's output (pointers and interfaces) rather than written as an empty
// collection (slices and maps).
func absentWhenNil(t reflect.Type) bool {
	k := t.Kind()
	return k == reflect.Pointer || k == reflect.Interface
}
