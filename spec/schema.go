package spec

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gloss-dev/gloss/editdist"
	"github.com/gloss-dev/gloss/lazyregexp"

	"go.yaml.in/yaml/v3"
)

// SchemaJSON is the spec JSON Schema (draft-07), NotarAI's spec schema 0.8
// under gloss's id. `git gloss schema spec` prints it; Validate interprets
// it over the YAML node tree so that every error carries a line number.
//
//go:embed spec.schema.json
var SchemaJSON []byte

// SchemaVersion is the newest spec schema_version this binary knows.
const SchemaVersion = "0.8"

// SchemaVersions lists every schema_version a spec may declare, newest
// first.
var SchemaVersions = []string{"0.8", "0.7", "0.6", "0.5"}

// schemaNode is the part of draft-07 the spec schema uses.
type schemaNode struct {
	Ref         string                 `json:"$ref"`
	Type        any                    `json:"type"`
	Enum        []any                  `json:"enum"`
	Required    []string               `json:"required"`
	Properties  map[string]*schemaNode `json:"properties"`
	AddlRaw     json.RawMessage        `json:"additionalProperties"`
	Items       *schemaNode            `json:"items"`
	MinItems    *int                   `json:"minItems"`
	Minimum     *float64               `json:"minimum"`
	Maximum     *float64               `json:"maximum"`
	Format      string                 `json:"format"`
	If          *schemaNode            `json:"if"`
	Then        *schemaNode            `json:"then"`
	Else        *schemaNode            `json:"else"`
	Definitions map[string]*schemaNode `json:"definitions"`

	closed bool        // additionalProperties: false
	addl   *schemaNode // additionalProperties: {schema}
}

// schemaRoot is the embedded schema, parsed on first use: a process that
// never validates a spec (a git hook) does not pay for it at start.
var schemaRoot = sync.OnceValue(func() *schemaNode { return mustParseSchema(SchemaJSON) })

func mustParseSchema(data []byte) *schemaNode {
	var s schemaNode
	if err := json.Unmarshal(data, &s); err != nil {
		panic("spec: embedded schema: " + err.Error())
	}
	var prep func(n *schemaNode)
	prep = func(n *schemaNode) {
		if n == nil {
			return
		}
		if len(n.AddlRaw) > 0 {
			if string(n.AddlRaw) == "false" {
				n.closed = true
			} else if string(n.AddlRaw) != "true" {
				n.addl = &schemaNode{}
				if err := json.Unmarshal(n.AddlRaw, n.addl); err != nil {
					panic("spec: embedded schema: " + err.Error())
				}
			}
		}
		for _, c := range n.Properties {
			prep(c)
		}
		for _, c := range n.Definitions {
			prep(c)
		}
		prep(n.Items)
		prep(n.addl)
		prep(n.If)
		prep(n.Then)
		prep(n.Else)
	}
	prep(&s)
	return &s
}

// Problem is one thing wrong with a spec file, at a line.
type Problem struct {
	Line    int    `json:"line"`
	Column  int    `json:"column,omitempty"`
	Path    string `json:"path"` // where in the document, as a JSON pointer ("" is the top)
	Message string `json:"message"`
}

func (p Problem) String() string {
	where := p.Path
	if where == "" {
		where = "/"
	}
	return fmt.Sprintf("line %d: %s: %s", p.Line, where, p.Message)
}

type validator struct {
	problems []Problem
}

func (v *validator) add(n *yaml.Node, ptr, format string, args ...any) {
	v.problems = append(v.problems, Problem{Line: n.Line, Column: n.Column, Path: ptr, Message: fmt.Sprintf(format, args...)})
}

// checkDocument validates a parsed YAML document against the schema.
func checkDocument(doc *yaml.Node) []Problem {
	v := &validator{}
	n := doc
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			v.add(n, "", "the file is empty; a spec needs schema_version, intent and artifacts")
			return v.problems
		}
		n = n.Content[0]
	}
	v.check(schemaRoot(), n, "")
	sort.SliceStable(v.problems, func(i, j int) bool { return v.problems[i].Line < v.problems[j].Line })
	return v.problems
}

func resolveRef(s *schemaNode) *schemaNode {
	for s != nil && s.Ref != "" {
		name, ok := strings.CutPrefix(s.Ref, "#/definitions/")
		if !ok {
			panic("spec: unsupported $ref " + s.Ref)
		}
		s = schemaRoot().Definitions[name]
	}
	return s
}

// yamlType is the JSON type of a YAML node.
func yamlType(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "object"
	case yaml.SequenceNode:
		return "array"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str", "!!binary", "!!timestamp":
			return "string"
		case "!!int":
			return "integer"
		case "!!float":
			// JSON Schema counts 768.0 as an integer, and so does
			// NotarAI's validator.
			if f, err := strconv.ParseFloat(n.Value, 64); err == nil && !math.IsInf(f, 0) && f == math.Trunc(f) {
				return "integer"
			}
			return "number"
		case "!!bool":
			return "boolean"
		case "!!null":
			return "null"
		}
		return "string"
	}
	return "unknown"
}

func typeOK(want any, got string) bool {
	match := func(w string) bool {
		return w == got || (w == "number" && got == "integer")
	}
	switch w := want.(type) {
	case string:
		return match(w)
	case []any:
		for _, x := range w {
			if s, ok := x.(string); ok && match(s) {
				return true
			}
		}
	}
	return false
}

func typeName(want any) string {
	switch w := want.(type) {
	case string:
		return w
	case []any:
		var parts []string
		for _, x := range w {
			parts = append(parts, fmt.Sprint(x))
		}
		return strings.Join(parts, " or ")
	}
	return "?"
}

var dateRE = lazyregexp.New(`^\d{4}-\d{2}-\d{2}$`)

func (v *validator) check(s *schemaNode, n *yaml.Node, ptr string) {
	s = resolveRef(s)
	if s == nil {
		return
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	got := yamlType(n)
	if s.Type != nil && !typeOK(s.Type, got) {
		msg := fmt.Sprintf("must be %s, found %s", article(typeName(s.Type)), got)
		if typeName(s.Type) == "string" && (got == "number" || got == "integer") {
			msg += fmt.Sprintf(" (quote it: '%s')", n.Value)
		}
		v.add(n, ptr, "%s", msg)
		return
	}
	if len(s.Enum) > 0 && n.Kind == yaml.ScalarNode {
		ok := false
		var allowed []string
		for _, e := range s.Enum {
			allowed = append(allowed, fmt.Sprint(e))
			if fmt.Sprint(e) == n.Value {
				ok = true
			}
		}
		if !ok {
			v.add(n, ptr, "%q is not allowed; use one of %s", n.Value, strings.Join(allowed, ", "))
		}
	}
	if s.Format == "date" && got == "string" {
		if _, err := time.Parse("2006-01-02", n.Value); err != nil || !dateRE.MatchString(n.Value) {
			v.add(n, ptr, "%q is not a date (YYYY-MM-DD)", n.Value)
		}
	}
	if (s.Minimum != nil || s.Maximum != nil) && (got == "integer" || got == "number") {
		f, err := strconv.ParseFloat(n.Value, 64)
		if err == nil && !math.IsNaN(f) {
			if s.Minimum != nil && f < *s.Minimum {
				v.add(n, ptr, "%s is below the minimum %v", n.Value, *s.Minimum)
			}
			if s.Maximum != nil && f > *s.Maximum {
				v.add(n, ptr, "%s is above the maximum %v", n.Value, *s.Maximum)
			}
		}
	}
	switch n.Kind {
	case yaml.MappingNode:
		v.checkObject(s, n, ptr)
	case yaml.SequenceNode:
		if s.MinItems != nil && len(n.Content) < *s.MinItems {
			v.add(n, ptr, "needs at least %d item(s)", *s.MinItems)
		}
		if s.Items != nil {
			for i, c := range n.Content {
				v.check(s.Items, c, ptr+"/"+strconv.Itoa(i))
			}
		}
	}
	if s.If != nil {
		probe := &validator{}
		probe.check(s.If, n, ptr)
		if len(probe.problems) == 0 {
			if s.Then != nil {
				v.check(s.Then, n, ptr)
			}
		} else if s.Else != nil {
			before := len(v.problems)
			v.check(s.Else, n, ptr)
			// The one conditional of the spec schema: say why behaviors
			// are required.
			for i := before; i < len(v.problems); i++ {
				if strings.HasPrefix(v.problems[i].Message, `missing required key "behaviors"`) {
					v.problems[i].Message += ` (a spec without behaviors needs tier: registered or tier: derived)`
				}
			}
		}
	}
}

func (v *validator) checkObject(s *schemaNode, n *yaml.Node, ptr string) {
	present := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		key := k.Value
		if present[key] {
			v.add(k, ptr+"/"+escapePointer(key), "duplicate key %q", key)
			continue
		}
		present[key] = true
		child := ptr + "/" + escapePointer(key)
		if p, ok := s.Properties[key]; ok {
			v.check(p, val, child)
			continue
		}
		if s.addl != nil {
			v.check(s.addl, val, child)
			continue
		}
		if s.closed {
			known := slices.Sorted(maps.Keys(s.Properties))
			hint := ""
			if near := nearest(key, known); near != "" {
				hint = fmt.Sprintf(" (did you mean %q?)", near)
			}
			v.add(k, child, "unknown key %q%s", key, hint)
		}
	}
	for _, r := range s.Required {
		if !present[r] {
			v.add(n, ptr, "missing required key %q", r)
		}
	}
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func article(t string) string {
	if t != "" && strings.ContainsRune("aeiou", rune(t[0])) {
		return "an " + t
	}
	return "a " + t
}

// nearest returns the known key closest to key when it is a likely typo.
func nearest(key string, known []string) string {
	return editdist.Nearest(key, known, 2)
}
