package notebook

import (
	"encoding/json"
	"errors"
	"path"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/gloss-dev/gloss/frontmatter"
)

// parsed is a note taken apart: frontmatter and body bytes, exactly as on
// disk.
type parsed struct {
	has  bool
	fm   *yaml.Node // a mapping node; nil without frontmatter
	body []byte     // every byte after the closing delimiter line
}

// fmErr puts frontmatter refusals in the kit's category.
func fmErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, frontmatter.ErrInvalid) {
		return refuse(InvalidFrontmatter, "%s", strings.TrimPrefix(err.Error(), frontmatter.ErrInvalid.Error()+": "))
	}
	return err
}

// parseNote splits and validates a note.
func parseNote(data []byte) (*parsed, error) {
	d, err := frontmatter.Parse(data)
	if err != nil {
		return nil, fmErr(err)
	}
	return &parsed{has: d.FM != nil, fm: d.FM, body: d.Body}, nil
}

func values(fm *yaml.Node) (map[string]any, error) {
	v, err := frontmatter.Values(fm)
	return v, fmErr(err)
}

func mergeFrontmatter(fm *yaml.Node, keys map[string]any, merge bool) (*yaml.Node, error) {
	out, err := frontmatter.Merge(fm, keys, merge)
	return out, fmErr(err)
}

func render(fm *yaml.Node, body []byte) ([]byte, error) {
	out, err := frontmatter.Render(fm, body)
	return out, fmErr(err)
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
		node, err := frontmatter.Validate([]byte(x))
		if err != nil {
			return nil, fmErr(err)
		}
		return values(node)
	}
	return nil, refuse(InvalidFrontmatter, "frontmatter must be an object")
}

// title is the note's title: frontmatter title, else its first heading,
// else its file name.
func title(p string, fm *yaml.Node, body []byte) string {
	if t := frontmatter.String(fm, "title"); t != "" {
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
	if t := frontmatter.String(fm, "type"); t != "" {
		return t
	}
	top, _, _ := strings.Cut(p, "/")
	if t, ok := typeOfFolder[top]; ok {
		return t
	}
	return "note"
}
