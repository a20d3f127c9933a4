package noma

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/gloss-dev/gloss/fault"
)

// Patch ops: the 25 op names and their fields, decoding a request's ops
// with their kinds checked, and the protocol's error codes.

// Patch error codes (spec §3.5).
const (
	CodeTargetMissing        = "target_missing"
	CodeParentMissing        = "parent_missing"
	CodeIDConflict           = "id_conflict"
	CodeInvalidContent       = "invalid_content"
	CodeIDAttributeProtected = "id_attribute_protected"
	CodeSHAMismatch          = "sha_mismatch"
	CodeUnsupportedOp        = "unsupported_op"
	CodePreValidationBlocked = "pre_validation_blocked"
	CodeOpListAborted        = "op_list_aborted"
)

// PatchError is a refused op, with its protocol error code.
type PatchError struct {
	Code    string
	Message string
}

func (e *PatchError) Error() string { return e.Code + ": " + e.Message }

func perr(code, format string, args ...any) *PatchError {
	return &PatchError{Code: code, Message: fmt.Sprintf(format, fault.Bound(args...)...)}
}

// field kinds
const (
	kString    = 's'
	kNumber    = 'n'
	kNumOrStr  = 'x'
	kStrings   = 'a'
	kAttrValue = 'v'
)

type fieldSpec struct {
	name     string
	kind     byte
	required bool
}

func req(name string, k byte) fieldSpec { return fieldSpec{name, k, true} }
func opt(name string, k byte) fieldSpec { return fieldSpec{name, k, false} }

// opSpecs are the 25 ops and their fields, in schema order; like the
// package's other tables, built on first use rather than at every start.
var opSpecs = sync.OnceValue(func() map[string][]fieldSpec {
	return map[string][]fieldSpec{
		"replace_block":            {req("id", kString), req("content", kString)},
		"replace_body":             {req("id", kString), req("content", kString)},
		"update_heading":           {req("id", kString), req("title", kString)},
		"add_comment":              {req("id", kString), req("target", kString), req("content", kString), opt("author", kString), opt("initials", kString), opt("date", kString), opt("reply_to", kString)},
		"resolve_comment":          {req("id", kString), opt("resolved_by", kString), opt("resolved_at", kString)},
		"add_footnote":             {req("id", kString), req("target", kString), req("content", kString), opt("label", kString)},
		"add_endnote":              {req("id", kString), req("target", kString), req("content", kString), opt("label", kString)},
		"add_change_request":       {req("id", kString), req("target", kString), req("action", kString), opt("from", kString), opt("to", kString), opt("text", kString), opt("content", kString), opt("author", kString), opt("date", kString)},
		"update_table_cell":        {req("id", kString), req("row", kNumber), req("column", kNumOrStr), req("value", kString)},
		"update_dataset_cell":      {req("id", kString), req("row", kNumber), req("column", kNumOrStr), req("value", kString)},
		"update_table_header_cell": {req("id", kString), req("column", kNumOrStr), req("value", kString)},
		"insert_table_row":         {req("id", kString), req("row", kNumber), req("cells", kStrings)},
		"insert_dataset_row":       {req("id", kString), req("row", kNumber), req("cells", kStrings)},
		"delete_table_row":         {req("id", kString), req("row", kNumber)},
		"delete_dataset_row":       {req("id", kString), req("row", kNumber)},
		"insert_table_column":      {req("id", kString), req("column", kNumber), req("cells", kStrings), opt("header", kString)},
		"insert_dataset_column":    {req("id", kString), req("column", kNumber), req("header", kString), req("cells", kStrings)},
		"delete_table_column":      {req("id", kString), req("column", kNumOrStr)},
		"delete_dataset_column":    {req("id", kString), req("column", kNumOrStr)},
		"move_block":               {req("id", kString), req("parent", kString), opt("position", kNumber)},
		"add_block":                {req("parent", kString), req("content", kString), opt("position", kNumber)},
		"delete_block":             {req("id", kString)},
		"update_attribute":         {req("id", kString), req("key", kString), req("value", kAttrValue)},
		"remove_attribute":         {req("id", kString), req("key", kString)},
		"rename_id":                {req("from", kString), req("to", kString)},
	}
})

// CoreOps are the five core ops of §3.1.
var CoreOps = []string{"replace_block", "add_block", "delete_block", "update_attribute", "rename_id"}

// OpNames lists every op name, core first.
func OpNames() []string {
	out := append([]string{}, CoreOps...)
	return append(out, []string{"replace_body", "update_heading", "add_comment", "resolve_comment", "add_footnote", "add_endnote",
		"add_change_request", "update_table_cell", "update_table_header_cell", "insert_table_row", "delete_table_row",
		"insert_table_column", "delete_table_column", "update_dataset_cell", "insert_dataset_row", "delete_dataset_row",
		"insert_dataset_column", "delete_dataset_column", "move_block", "remove_attribute"}...)
}

// OpFields lists an op's fields in schema order, optional ones in
// brackets ("id content", "parent content [position]"): what doc patch
// --help shows for each op.
func OpFields(name string) string {
	var parts []string
	for _, f := range opSpecs()[name] {
		if f.required {
			parts = append(parts, f.name)
		} else {
			parts = append(parts, "["+f.name+"]")
		}
	}
	return strings.Join(parts, " ")
}

var fieldAliases = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"content": {"body", "text", "value"},
		"title":   {"heading", "text"},
		"value":   {"content"},
	}
})

// Op is one validated patch op. Unknown keys are dropped; it encodes with
// its fields in schema order and baseHash last.
type Op struct {
	Name     string
	fields   map[string]any
	BaseHash string
}

// Str returns a string field.
func (o Op) Str(k string) string { s, _ := o.fields[k].(string); return s }

// Has reports whether the field is present.
func (o Op) Has(k string) bool { _, ok := o.fields[k]; return ok }

// Get returns a field's value.
func (o Op) Get(k string) any { return o.fields[k] }

// Strings returns a string-array field.
func (o Op) Strings(k string) []string { s, _ := o.fields[k].([]string); return s }

// MarshalJSON writes the op in schema order.
func (o Op) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"op":`)
	name, _ := json.Marshal(o.Name)
	b.Write(name)
	for _, f := range opSpecs()[o.Name] {
		v, ok := o.fields[f.name]
		if !ok {
			continue
		}
		data, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, `,%q:`, f.name)
		b.Write(data)
	}
	if o.BaseHash != "" {
		data, _ := json.Marshal(o.BaseHash)
		b.WriteString(`,"baseHash":`)
		b.Write(data)
	}
	b.WriteString("}")
	return b.Bytes(), nil
}

// UnmarshalJSON decodes and shape-checks an op; a shape error is kept and
// reported by Check (so that a list can still be decoded and recorded).
func (o *Op) UnmarshalJSON(data []byte) error {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	op, perr := OpFromMap(m)
	if perr != nil {
		return perr
	}
	*o = op
	return nil
}

// OpFromMap shape-checks a decoded JSON object and returns the op.
func OpFromMap(m map[string]any) (Op, *PatchError) {
	name, _ := m["op"].(string)
	specs, ok := opSpecs()[name]
	if !ok {
		return Op{Name: name}, perr(CodeUnsupportedOp, "unsupported op %q", m["op"])
	}
	op := Op{Name: name, fields: map[string]any{}}
	for _, f := range specs {
		v, present := m[f.name]
		if !present || v == nil {
			if f.required {
				msg := fmt.Sprintf("%s: missing field %q", name, f.name)
				for _, a := range fieldAliases()[f.name] {
					if _, ok := m[a]; ok {
						msg += fmt.Sprintf(" (got %q; the field is called %q)", a, f.name)
						break
					}
				}
				return op, perr(CodeInvalidContent, "%s", msg)
			}
			continue
		}
		val, ok := checkKind(f.kind, v)
		if !ok {
			return op, perr(CodeInvalidContent, "%s: field %q has the wrong type", name, f.name)
		}
		op.fields[f.name] = val
	}
	if name == "add_change_request" {
		switch op.Str("action") {
		case "insert", "delete", "replace":
		default:
			return op, perr(CodeInvalidContent, "add_change_request: action must be insert, delete or replace")
		}
	}
	if bh, ok := m["baseHash"]; ok && bh != nil {
		s, ok := bh.(string)
		if !ok {
			return op, perr(CodeInvalidContent, "baseHash must be a string")
		}
		op.BaseHash = s
	}
	return op, nil
}

func checkKind(k byte, v any) (any, bool) {
	switch k {
	case kString:
		s, ok := v.(string)
		return s, ok
	case kNumber:
		f, ok := v.(float64)
		return f, ok && !math.IsInf(f, 0) && !math.IsNaN(f)
	case kNumOrStr:
		switch t := v.(type) {
		case float64:
			return t, !math.IsInf(t, 0)
		case string:
			return t, true
		}
	case kStrings:
		list, ok := v.([]any)
		if !ok {
			if ss, ok := v.([]string); ok {
				return ss, true
			}
			return nil, false
		}
		out := make([]string, len(list))
		for i, x := range list {
			s, ok := x.(string)
			if !ok {
				return nil, false
			}
			out[i] = s
		}
		return out, true
	case kAttrValue:
		switch t := v.(type) {
		case string, bool:
			return t, true
		case float64:
			return t, !math.IsInf(t, 0) && !math.IsNaN(t)
		}
	}
	return nil, false
}

// DecodeOps reads a patch: one op, or an array of ops, or
// {ops:[…]}. Each element is shape-checked separately: a bad element
// yields its PatchError in errs at its index.
func DecodeOps(data []byte) ([]Op, []*PatchError, error) {
	data = bytes.TrimSpace(data)
	var raw []json.RawMessage
	switch {
	case len(data) > 0 && data[0] == '[':
		if err := json.Unmarshal(data, &raw); err != nil {
			return nil, nil, fmt.Errorf("patch: %w", err)
		}
	default:
		var probe map[string]json.RawMessage
		if err := json.Unmarshal(data, &probe); err != nil {
			return nil, nil, fmt.Errorf("patch: %w", err)
		}
		if ops, ok := probe["ops"]; ok {
			if err := json.Unmarshal(ops, &raw); err != nil {
				return nil, nil, fmt.Errorf("patch: ops: %w", err)
			}
		} else {
			raw = []json.RawMessage{data}
		}
	}
	ops := make([]Op, len(raw))
	errs := make([]*PatchError, len(raw))
	for i, r := range raw {
		var m map[string]any
		if err := json.Unmarshal(r, &m); err != nil {
			errs[i] = perr(CodeInvalidContent, "op %d is not a JSON object", i)
			continue
		}
		ops[i], errs[i] = OpFromMap(m)
	}
	return ops, errs, nil
}

// anchor is the field whose block a baseHash is computed over.
func (o Op) anchor() string {
	switch o.Name {
	case "rename_id":
		return o.Str("from")
	case "add_block":
		return o.Str("parent")
	case "add_comment", "add_footnote", "add_endnote", "add_change_request":
		return o.Str("target")
	}
	return o.Str("id")
}

func singleLine(s string) bool { return !strings.ContainsAny(s, "\r\n") }
