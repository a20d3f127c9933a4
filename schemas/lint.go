package schemas

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
)

// portableKeywords are the schema keywords every MCP client's tool dialect
// accepts: JSON Schema keywords that also mean the same in the OpenAPI 3.0
// subset of Gemini's function declarations.
var portableKeywords = map[string]bool{
	"type": true, "description": true, "title": true, "properties": true, "required": true,
	"items": true, "enum": true, "format": true, "default": true, "anyOf": true,
	"minimum": true, "maximum": true, "minItems": true, "maxItems": true,
	"minLength": true, "maxLength": true, "pattern": true,
	"additionalProperties": true, // only as a schema object: the values of a map
}

var portableTypes = []string{"string", "number", "integer", "boolean", "object", "array"}

// Lint checks a JSON Schema document against the portable subset (see
// Portable) and describes each problem with its path: a type list, a bare
// true/false schema, a node that constrains nothing, an array without
// items, or a keyword outside the subset.
func Lint(doc []byte) ([]string, error) {
	return lint(doc, portableKeywords)
}

// LintInput is Lint for a tool's input schema, which becomes the
// parameters of a Gemini function declaration: there, additionalProperties
// is refused too.
func LintInput(doc []byte) ([]string, error) {
	keywords := maps.Clone(portableKeywords)
	delete(keywords, "additionalProperties")
	return lint(doc, keywords)
}

func lint(doc []byte, keywords map[string]bool) ([]string, error) {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, err
	}
	var problems []string
	lintNode(v, "", keywords, &problems)
	return problems, nil
}

func lintNode(v any, path string, keywords map[string]bool, problems *[]string) {
	report := func(format string, args ...any) {
		*problems = append(*problems, fmt.Sprintf("%s: %s", pathOrRoot(path), fmt.Sprintf(format, args...)))
	}
	node, ok := v.(map[string]any)
	if !ok {
		report("bare %v where a schema object is expected", v)
		return
	}
	keys := make([]string, 0, len(node))
	for k := range node {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !keywords[k] {
			report("keyword %q is not portable", k)
		}
	}
	switch t := node["type"].(type) {
	case nil:
		if node["anyOf"] == nil && node["enum"] == nil {
			report("no type: the schema constrains nothing")
		}
	case string:
		if !slices.Contains(portableTypes, t) {
			report("type %q is not portable", t)
		}
		if t == "array" && node["items"] == nil {
			report("array without items")
		}
	default:
		report("type %v is a list", t)
	}
	if props, ok := node["properties"].(map[string]any); ok {
		for name, p := range props {
			lintNode(p, path+".properties."+name, keywords, problems)
		}
	}
	if items, ok := node["items"]; ok {
		lintNode(items, path+".items", keywords, problems)
	}
	if ap, ok := node["additionalProperties"]; ok {
		lintNode(ap, path+".additionalProperties", keywords, problems)
	}
	if list, ok := node["anyOf"].([]any); ok {
		for i, sub := range list {
			lintNode(sub, fmt.Sprintf("%s.anyOf[%d]", path, i), keywords, problems)
		}
	}
}

func pathOrRoot(p string) string {
	if p == "" {
		return "(root)"
	}
	return p[1:]
}
