package notebook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Frontmatter limits: anything bigger or deeper is refused before the YAML
// decoder expands it (alias bombs stop here too: aliases are refused).
const (
	maxFrontmatter = 64 << 10
	maxDepth       = 16
	maxNodes       = 5000
)

// plainTags are the YAML tags frontmatter may use; anything else (custom
// tags such as !!python/object or !secret) is refused.
var plainTags = map[string]bool{
	"": true, "!!str": true, "!!int": true, "!!float": true, "!!bool": true,
	"!!null": true, "!!map": true, "!!seq": true, "!!timestamp": true,
}

// parsed is a note taken apart: frontmatter text and body bytes, exactly as
// they are on disk.
type parsed struct {
	has  bool
	fm   *yaml.Node // a mapping node; nil without frontmatter
	body []byte     // every byte after the closing delimiter line
}

// parseNote splits and validates a note.
func parseNote(data []byte) (*parsed, error) {
	p := &parsed{body: data}
	rest, ok := cutLine(data, "---")
	if !ok {
		return p, nil
	}
	end := -1
	var after []byte
	for i := 0; i < len(rest); {
		j := bytes.IndexByte(rest[i:], '\n')
		line := rest[i:]
		next := len(rest)
		if j >= 0 {
			line, next = rest[i:i+j], i+j+1
		}
		if t := strings.TrimRight(string(line), "\r"); t == "---" || t == "..." {
			end, after = i, rest[next:]
			break
		}
		i = next
	}
	if end < 0 {
		return nil, refuse(InvalidFrontmatter, "the frontmatter block is not closed by a --- line")
	}
	fm, err := validateYAML(rest[:end])
	if err != nil {
		return nil, err
	}
	p.has, p.fm, p.body = true, fm, after
	return p, nil
}

// cutLine removes a first line equal to want (with \n or \r\n).
func cutLine(data []byte, want string) ([]byte, bool) {
	for _, nl := range []string{"\n", "\r\n"} {
		if bytes.HasPrefix(data, []byte(want+nl)) {
			return data[len(want)+len(nl):], true
		}
	}
	return nil, false
}

// validateYAML parses frontmatter and refuses what a notebook must never
// carry: non-mappings, anchors and aliases (the alias-bomb vector), custom
// tags, and absurd depth or size.
func validateYAML(text []byte) (*yaml.Node, error) {
	if len(text) > maxFrontmatter {
		return nil, refuse(InvalidFrontmatter, "frontmatter is larger than %d KB", maxFrontmatter>>10)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, refuse(InvalidFrontmatter, "%v", err)
	}
	if doc.Kind == 0 { // empty frontmatter
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}, nil
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, refuse(InvalidFrontmatter, "frontmatter must be a mapping of keys to values")
	}
	count := 0
	var walk func(n *yaml.Node, depth int) error
	walk = func(n *yaml.Node, depth int) error {
		count++
		switch {
		case count > maxNodes:
			return refuse(InvalidFrontmatter, "frontmatter has more than %d values", maxNodes)
		case depth > maxDepth:
			return refuse(InvalidFrontmatter, "frontmatter is nested deeper than %d levels", maxDepth)
		case n.Kind == yaml.AliasNode || n.Anchor != "":
			return refuse(InvalidFrontmatter, "YAML anchors and aliases are not allowed (line %d)", n.Line)
		case !plainTags[n.Tag] && !(n.Tag == "!" && n.Kind == yaml.ScalarNode):
			return refuse(InvalidFrontmatter, "custom YAML tag %s is not allowed (line %d)", n.Tag, n.Line)
		case n.Kind == yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if k := n.Content[i]; k.Kind != yaml.ScalarNode {
					return refuse(InvalidFrontmatter, "keys must be plain strings (line %d)", k.Line)
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

// values decodes frontmatter into plain Go values for JSON output.
func values(fm *yaml.Node) (map[string]any, error) {
	out := map[string]any{}
	if fm == nil {
		return out, nil
	}
	if err := fm.Decode(&out); err != nil {
		return nil, refuse(InvalidFrontmatter, "%v", err)
	}
	return jsonable(out).(map[string]any), nil
}

// jsonable turns YAML's map[any]any and timestamps into JSON-friendly
// values.
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

// scalar returns a top-level string value.
func scalar(fm *yaml.Node, key string) string {
	if fm == nil {
		return ""
	}
	for i := 0; i+1 < len(fm.Content); i += 2 {
		if fm.Content[i].Value == key && fm.Content[i+1].Kind == yaml.ScalarNode {
			return fm.Content[i+1].Value
		}
	}
	return ""
}

// tagsOf returns the tags list (a sequence, or one string).
func tagsOf(fm *yaml.Node) []string {
	if fm == nil {
		return nil
	}
	for i := 0; i+1 < len(fm.Content); i += 2 {
		if fm.Content[i].Value != "tags" {
			continue
		}
		v := fm.Content[i+1]
		switch v.Kind {
		case yaml.SequenceNode:
			var out []string
			for _, t := range v.Content {
				if t.Kind == yaml.ScalarNode && t.Value != "" {
					out = append(out, t.Value)
				}
			}
			return out
		case yaml.ScalarNode:
			var out []string
			for _, t := range strings.Split(v.Value, ",") {
				if t = strings.TrimSpace(t); t != "" {
					out = append(out, t)
				}
			}
			return out
		}
	}
	return nil
}

// setKey sets a top-level key, keeping its place (or appending).
func setKey(fm *yaml.Node, key string, value any) error {
	var v yaml.Node
	if err := v.Encode(value); err != nil {
		return refuse(InvalidFrontmatter, "%s: %v", key, err)
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

// mergeFrontmatter applies keys to fm (merge) or replaces fm with them.
// New keys go in sorted order so results are stable.
func mergeFrontmatter(fm *yaml.Node, keys map[string]any, merge bool) (*yaml.Node, error) {
	if fm == nil || !merge {
		fm = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	for _, k := range slices.Sorted(mapKeys(keys)) {
		if strings.TrimSpace(k) == "" {
			return nil, refuse(InvalidFrontmatter, "empty key")
		}
		if err := setKey(fm, k, keys[k]); err != nil {
			return nil, err
		}
	}
	// What we write must read back under the same rules.
	text, err := encodeFrontmatter(fm)
	if err != nil {
		return nil, err
	}
	if _, err := validateYAML(text); err != nil {
		return nil, err
	}
	return fm, nil
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func encodeFrontmatter(fm *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(fm); err != nil {
		return nil, refuse(InvalidFrontmatter, "%v", err)
	}
	enc.Close()
	return buf.Bytes(), nil
}

// render writes a note: the frontmatter block (if any keys) and the body
// bytes unchanged.
func render(fm *yaml.Node, body []byte) ([]byte, error) {
	if fm == nil || len(fm.Content) == 0 {
		return body, nil
	}
	text, err := encodeFrontmatter(fm)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(text)+len(body)+8)
	out = append(out, "---\n"...)
	out = append(out, text...)
	out = append(out, "---\n"...)
	return append(out, body...), nil
}

// frontmatterInput accepts frontmatter as a JSON object or as a string
// holding a JSON object or YAML mapping (clients send both).
func frontmatterInput(v any) (map[string]any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return x, nil
	case string:
		if strings.TrimSpace(x) == "" {
			return nil, nil
		}
		var m map[string]any
		if json.Unmarshal([]byte(x), &m) == nil {
			return m, nil
		}
		node, err := validateYAML([]byte(x))
		if err != nil {
			return nil, err
		}
		return values(node)
	}
	return nil, refuse(InvalidFrontmatter, "frontmatter must be an object")
}

// title is the note's title: frontmatter title, else its first heading,
// else its file name.
func title(p string, fm *yaml.Node, body []byte) string {
	if t := scalar(fm, "title"); t != "" {
		return t
	}
	for _, line := range strings.SplitN(string(body), "\n", 40) {
		if strings.HasPrefix(line, "# ") {
			return strings.TrimSpace(line[2:])
		}
	}
	return strings.TrimSuffix(path.Base(p), path.Ext(p))
}

// noteType is the frontmatter type, else what the top folder implies.
func noteType(p string, fm *yaml.Node) string {
	if t := scalar(fm, "type"); t != "" {
		return t
	}
	top, _, _ := strings.Cut(p, "/")
	if t, ok := typeOfFolder[top]; ok {
		return t
	}
	return "note"
}
