// Package frontmatter reads and writes the YAML block at the top of a
// markdown file (notebook notes, task files) without disturbing the rest:
// the body is kept byte for byte, key order and comments survive edits, and
// YAML that has no business in a committed file is refused before it is
// expanded — anchors and aliases (the "billion laughs" vector), custom
// tags, absurd depth or size.
package frontmatter

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Limits: anything bigger or deeper is refused.
const (
	MaxSize  = 64 << 10
	maxDepth = 16
	maxNodes = 5000
)

// plainTags are the YAML tags frontmatter may use.
var plainTags = map[string]bool{
	"": true, "!!str": true, "!!int": true, "!!float": true, "!!bool": true,
	"!!null": true, "!!map": true, "!!seq": true, "!!timestamp": true,
}

// ErrInvalid marks every refusal of this package.
var ErrInvalid = errors.New("invalid frontmatter")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Doc is a file taken apart: its frontmatter (a mapping node, nil when the
// file has none) and every byte after the closing delimiter line.
type Doc struct {
	FM   *yaml.Node
	Body []byte
}

// Parse splits and validates a file. A file that does not start with a
// "---" line has no frontmatter and is all body.
func Parse(data []byte) (*Doc, error) {
	d := &Doc{Body: data}
	rest, ok := cutLine(data, "---")
	if !ok {
		return d, nil
	}
	for i := 0; i < len(rest); {
		j := bytes.IndexByte(rest[i:], '\n')
		line, next := rest[i:], len(rest)
		if j >= 0 {
			line, next = rest[i:i+j], i+j+1
		}
		if t := strings.TrimRight(string(line), "\r"); t == "---" || t == "..." {
			fm, err := Validate(rest[:i])
			if err != nil {
				return nil, err
			}
			d.FM, d.Body = fm, rest[next:]
			return d, nil
		}
		i = next
	}
	return nil, invalid("the frontmatter block is not closed by a --- line")
}

func cutLine(data []byte, want string) ([]byte, bool) {
	for _, nl := range []string{"\n", "\r\n"} {
		if bytes.HasPrefix(data, []byte(want+nl)) {
			return data[len(want)+len(nl):], true
		}
	}
	return nil, false
}

// Validate parses YAML text that must be a mapping, refusing anchors,
// aliases, custom tags, non-scalar keys and absurd depth or size.
func Validate(text []byte) (*yaml.Node, error) {
	if len(text) > MaxSize {
		return nil, invalid("larger than %d KB", MaxSize>>10)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, invalid("%v", err)
	}
	if doc.Kind == 0 {
		return NewMapping(), nil
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, invalid("it must be a mapping of keys to values")
	}
	count := 0
	var walk func(n *yaml.Node, depth int) error
	walk = func(n *yaml.Node, depth int) error {
		count++
		switch {
		case count > maxNodes:
			return invalid("more than %d values", maxNodes)
		case depth > maxDepth:
			return invalid("nested deeper than %d levels", maxDepth)
		case n.Kind == yaml.AliasNode || n.Anchor != "":
			return invalid("YAML anchors and aliases are not allowed (line %d)", n.Line)
		case !plainTags[n.Tag] && !(n.Tag == "!" && n.Kind == yaml.ScalarNode):
			return invalid("custom YAML tag %s is not allowed (line %d)", n.Tag, n.Line)
		case n.Kind == yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if k := n.Content[i]; k.Kind != yaml.ScalarNode {
					return invalid("keys must be plain strings (line %d)", k.Line)
				}
			}
		}
		for _, c := range n.Content {
			if err := walk(c, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(doc.Content[0], 0); err != nil {
		return nil, err
	}
	return doc.Content[0], nil
}

// NewMapping returns an empty frontmatter mapping.
func NewMapping() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} }

// Values decodes a mapping into JSON-friendly Go values.
func Values(fm *yaml.Node) (map[string]any, error) {
	out := map[string]any{}
	if fm == nil {
		return out, nil
	}
	if err := fm.Decode(&out); err != nil {
		return nil, invalid("%v", err)
	}
	return jsonable(out).(map[string]any), nil
}

func jsonable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, vv := range x {
			x[k] = jsonable(vv)
		}
		return x
	case map[any]any:
		m := map[string]any{}
		for k, vv := range x {
			m[fmt.Sprint(k)] = jsonable(vv)
		}
		return m
	case []any:
		for i := range x {
			x[i] = jsonable(x[i])
		}
		return x
	case fmt.Stringer:
		return x.String()
	}
	return v
}

// Lookup returns the value node of a top-level key.
func Lookup(fm *yaml.Node, key string) *yaml.Node {
	if fm == nil {
		return nil
	}
	for i := 0; i+1 < len(fm.Content); i += 2 {
		if fm.Content[i].Value == key {
			return fm.Content[i+1]
		}
	}
	return nil
}

// String returns a top-level scalar value, "" if absent or not a scalar.
func String(fm *yaml.Node, key string) string {
	if v := Lookup(fm, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

// Strings returns a top-level list of strings; a single string counts as a
// one-element list (and a comma-separated one as several).
func Strings(fm *yaml.Node, key string) []string {
	v := Lookup(fm, key)
	if v == nil {
		return nil
	}
	var out []string
	switch v.Kind {
	case yaml.SequenceNode:
		for _, t := range v.Content {
			if t.Kind == yaml.ScalarNode && t.Value != "" {
				out = append(out, t.Value)
			}
		}
	case yaml.ScalarNode:
		for _, t := range strings.Split(v.Value, ",") {
			if t = strings.TrimSpace(t); t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

// Set sets a top-level key, keeping its place, or appends it.
func Set(fm *yaml.Node, key string, value any) error {
	var v yaml.Node
	if err := v.Encode(value); err != nil {
		return invalid("%s: %v", key, err)
	}
	for i := 0; i+1 < len(fm.Content); i += 2 {
		if fm.Content[i].Value == key {
			fm.Content[i+1] = &v
			return nil
		}
	}
	fm.Content = append(fm.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, &v)
	return nil
}

// Delete removes a top-level key.
func Delete(fm *yaml.Node, key string) {
	for i := 0; i+1 < len(fm.Content); i += 2 {
		if fm.Content[i].Value == key {
			fm.Content = slices.Delete(fm.Content, i, i+2)
			return
		}
	}
}

// Merge applies keys to fm (merge) or replaces fm with them; new keys go
// in sorted order so results are stable. The result is validated as it
// would be when read back.
func Merge(fm *yaml.Node, keys map[string]any, merge bool) (*yaml.Node, error) {
	if fm == nil || !merge {
		fm = NewMapping()
	}
	ks := make([]string, 0, len(keys))
	for k := range keys {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	for _, k := range ks {
		if strings.TrimSpace(k) == "" {
			return nil, invalid("empty key")
		}
		if err := Set(fm, k, keys[k]); err != nil {
			return nil, err
		}
	}
	text, err := Encode(fm)
	if err != nil {
		return nil, err
	}
	if _, err := Validate(text); err != nil {
		return nil, err
	}
	return fm, nil
}

// Encode writes a mapping as YAML (two-space indent).
func Encode(fm *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(fm); err != nil {
		return nil, invalid("%v", err)
	}
	enc.Close()
	return buf.Bytes(), nil
}

// Render writes a file: the frontmatter block (when it has keys) and the
// body unchanged.
func Render(fm *yaml.Node, body []byte) ([]byte, error) {
	if fm == nil || len(fm.Content) == 0 {
		return body, nil
	}
	text, err := Encode(fm)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(text)+len(body)+8)
	out = append(out, "---\n"...)
	out = append(out, text...)
	out = append(out, "---\n"...)
	return append(out, body...), nil
}
