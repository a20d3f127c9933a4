package schemas

import (
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// Schemas gloss hands to MCP clients are portable: every client maps them
// onto its model's tool-calling dialect, and the strictest common one is
// the OpenAPI 3.0 subset of Gemini's function declarations. So a schema
// here uses one "type" per node (never a list such as ["null","array"]),
// never a bare true/false schema, no "const" (enum instead), no $id/$ref,
// and no additionalProperties:false: unknown arguments are ignored, as the
// Ultragit seed specifies, and new output members do not break old
// clients. Nullability is not needed because outputs never contain null
// (see dropNulls): a pointer or interface member may be absent instead, so
// it is not required.

// forOptions generates schemas from Go types: a struct member or list item
// of interface type (any) holds a JSON object in every gloss shape (maps
// of any are handled in relax).
var forOptions = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[any](): {Type: "object"},
}}

// ForType generates the portable schema of Go type t as an input: the
// input schema of an MCP tool.
func ForType(t reflect.Type) (*jsonschema.Schema, error) {
	s, err := jsonschema.ForType(t, forOptions)
	if err != nil {
		return nil, err
	}
	relax(s, t, false)
	Portable(s)
	return s, nil
}

// forOutput generates the portable schema of what Encode writes for a
// value of Go type t.
func forOutput(t reflect.Type) (*jsonschema.Schema, error) {
	s, err := jsonschema.ForType(t, forOptions)
	if err != nil {
		return nil, err
	}
	relax(s, t, true)
	Portable(s)
	return s, nil
}

// relax makes s say what JSON values of Go type t look like: a map of any
// is a plain object, and, in output (dropNulls leaves nil pointers and
// interfaces out), such members are not required.
func relax(s *jsonschema.Schema, t reflect.Type, output bool) {
	if s == nil || t == nil {
		return
	}
	t = deref(t)
	if customJSON(t) {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		for name, f := range fieldsOf(t) {
			p := s.Properties[name]
			if p == nil {
				continue
			}
			if output && absentWhenNil(f.typ) && !collection(f.typ) {
				s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == name })
			}
			relax(p, f.typ, output)
		}
		if len(s.Required) == 0 {
			s.Required = nil
		}
	case reflect.Slice, reflect.Array:
		relax(s.Items, t.Elem(), output)
	case reflect.Map:
		if t.Elem().Kind() == reflect.Interface {
			// Members of any type: a plain object says exactly that.
			s.AdditionalProperties = nil
			return
		}
		relax(s.AdditionalProperties, t.Elem(), output)
	}
}

// Portable rewrites s in place into the portable subset described above.
func Portable(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) > 0 {
		types := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
		s.Types = nil
		switch len(types) {
		case 0:
			s.Type = "null"
		case 1:
			s.Type = types[0]
		default:
			for _, t := range types {
				s.AnyOf = append(s.AnyOf, &jsonschema.Schema{Type: t})
			}
		}
	}
	if s.Const != nil {
		s.Enum = []any{*s.Const}
		s.Const = nil
	}
	if isFalse(s.AdditionalProperties) {
		s.AdditionalProperties = nil
	}
	s.ID, s.Schema = "", ""
	if unconstrained(s) {
		s.Type = "object"
	}
	for _, sub := range s.Properties {
		Portable(sub)
	}
	for _, list := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf, s.AllOf, s.PrefixItems} {
		for _, sub := range list {
			Portable(sub)
		}
	}
	Portable(s.Items)
	Portable(s.AdditionalProperties)
}

// isFalse reports whether s is the always-false schema {"not": {}}.
func isFalse(s *jsonschema.Schema) bool {
	return s != nil && s.Not != nil && unconstrained(s.Not) && s.Type == "" && len(s.Properties) == 0
}

// unconstrained reports whether s accepts every value (the schema true).
func unconstrained(s *jsonschema.Schema) bool {
	return s.Type == "" && len(s.Types) == 0 && s.Ref == "" && s.Enum == nil && s.Const == nil &&
		s.AnyOf == nil && s.OneOf == nil && s.AllOf == nil && s.Not == nil && s.Properties == nil && s.Items == nil
}
