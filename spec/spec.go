// Package spec reads the specs that govern a repository's files:
// `.gloss/specs/**/*.spec.yaml`, in NotarAI's spec schema (0.5 to 0.8). It
// validates them with line-numbered problems, matches paths against their
// artifact globs with one doublestar matcher, and lists the files a spec
// governs in the working tree or in a commit (tracked files plus
// working-tree changes; deleted, renamed and untracked files are reported,
// never dropped).
package spec

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/gloss-dev/gloss/lazyregexp"
)

// Dir is where specs live, relative to the repository root.
const Dir = ".gloss/specs"

// Suffix ends every spec file name.
const Suffix = ".spec.yaml"

// IsSpecPath reports whether a repository-relative path is a spec file in
// the default folder. A repository may keep its specs elsewhere: callers
// with a Set use Set.IsSpecPath.
func IsSpecPath(p string) bool {
	return strings.HasPrefix(p, Dir+"/") && strings.HasSuffix(p, Suffix)
}

// Spec is one parsed spec file. Only the fields gloss acts on are decoded;
// the rest is validated and kept in Raw.
type Spec struct {
	Path          string                   `yaml:"-"` // repository-relative
	SchemaVersion string                   `yaml:"schema_version"`
	Tier          string                   `yaml:"tier"`
	Intent        string                   `yaml:"intent"`
	Behaviors     []Behavior               `yaml:"behaviors"`
	Constraints   []string                 `yaml:"constraints"`
	Invariants    []string                 `yaml:"invariants"`
	Artifacts     map[string][]ArtifactRef `yaml:"artifacts"`
	Subsystems    []Ref                    `yaml:"subsystems"`
	Applies       []Ref                    `yaml:"applies"`
	Dependencies  []Ref                    `yaml:"dependencies"`
	Exclude       []string                 `yaml:"exclude"`
	Coverage      *Coverage                `yaml:"coverage"`

	HasSubsystems bool      `yaml:"-"` // the key is present: this is a system spec candidate
	Dir           string    `yaml:"-"` // the specs folder it was found in ("" when parsed alone)
	Raw           []byte    `yaml:"-"`
	Problems      []Problem `yaml:"-"`
	Parsed        bool      `yaml:"-"` // the YAML parsed (Problems may still hold schema errors)

	cats    []catGlobs
	exclude GlobSet
}

// Behavior is one behavior of a spec.
type Behavior struct {
	Name  string `yaml:"name" json:"name"`
	Given string `yaml:"given" json:"given"`
	Then  string `yaml:"then" json:"then"`
}

// ArtifactRef is one governed pattern.
type ArtifactRef struct {
	Path string `yaml:"path"`
	Role string `yaml:"role"`
}

// Ref points at another spec, relative to the referring spec.
type Ref struct {
	Ref          string `yaml:"$ref"`
	Relationship string `yaml:"relationship"`
}

// Coverage is a spec's coverage block.
type Coverage struct {
	Policy  string `yaml:"policy"`
	Message string `yaml:"message"`
}

type catGlobs struct {
	name  string
	globs GlobSet
}

// Valid reports whether the spec has no problems.
func (s *Spec) Valid() bool { return s.Parsed && len(s.Problems) == 0 }

// Name is the spec's short name: its path below the specs folder without
// the suffix ("api", "_shared/security").
func (s *Spec) Name() string {
	dir := s.Dir
	if dir == "" {
		dir = Dir
	}
	return strings.TrimSuffix(strings.TrimPrefix(s.Path, dir+"/"), Suffix)
}

// Policy is the spec's coverage policy, "" when it sets none.
func (s *Spec) Policy() string {
	if s.Coverage == nil {
		return ""
	}
	return s.Coverage.Policy
}

var yamlLine = lazyregexp.New(`line (\d+)`)

// Parse reads a spec file's bytes. Problems (YAML errors, schema errors,
// malformed globs) are collected in Spec.Problems, each with its line; the
// error return is reserved for nothing today and kept for callers' sake.
func Parse(p string, data []byte) *Spec {
	s := &Spec{Path: p, Raw: data}
	if !utf8.Valid(data) {
		s.Problems = []Problem{{Line: firstBadLine(data), Message: "the file is not valid UTF-8"}}
		return s
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line := 1
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		s.Problems = []Problem{{Line: line, Message: "YAML parse error: " + strings.TrimPrefix(err.Error(), "yaml: ")}}
		return s
	}
	s.Problems = checkDocument(&doc)
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return s
	}
	top := doc.Content[0]
	// Decode leniently: type errors are already problems above, and the
	// rest of the document is still useful to the tools.
	var te *yaml.TypeError
	if err := top.Decode(s); err != nil && !errors.As(err, &te) {
		s.Problems = append(s.Problems, Problem{Line: top.Line, Message: err.Error()})
		return s
	}
	s.Parsed = true
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == "subsystems" {
			s.HasSubsystems = true
		}
	}
	s.compileGlobs(top)
	slices.SortStableFunc(s.Problems, func(a, b Problem) int { return a.Line - b.Line })
	return s
}

func firstBadLine(data []byte) int {
	line := 1
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if r == utf8.RuneError && size <= 1 {
			return line
		}
		if r == '\n' {
			line++
		}
		data = data[size:]
	}
	return line
}

// compileGlobs prepares the artifact and exclude patterns; a malformed one
// is a problem at its line.
func (s *Spec) compileGlobs(top *yaml.Node) {
	arts := child(top, "artifacts")
	for _, cat := range slices.Sorted(maps.Keys(s.Artifacts)) {
		var set GlobSet
		catNode := child(arts, cat)
		for i, ref := range s.Artifacts[cat] {
			if ref.Path == "" {
				continue
			}
			g, err := CompileGlob(ref.Path)
			if err != nil {
				line := top.Line
				if item := index(catNode, i); item != nil {
					line = item.Line
					if pn := child(item, "path"); pn != nil {
						line = pn.Line
					}
				}
				s.Problems = append(s.Problems, Problem{Line: line, Path: fmt.Sprintf("/artifacts/%s/%d/path", escapePointer(cat), i), Message: err.Error()})
				continue
			}
			set = append(set, g)
		}
		s.cats = append(s.cats, catGlobs{name: cat, globs: set})
	}
	exNode := child(top, "exclude")
	for i, p := range s.Exclude {
		g, err := CompileGlob(p)
		if err != nil {
			line := top.Line
			if item := index(exNode, i); item != nil {
				line = item.Line
			}
			s.Problems = append(s.Problems, Problem{Line: line, Path: fmt.Sprintf("/exclude/%d", i), Message: err.Error()})
			continue
		}
		s.exclude = append(s.exclude, g)
	}
}

func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func index(n *yaml.Node, i int) *yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode || i >= len(n.Content) {
		return nil
	}
	return n.Content[i]
}

// Categories returns the artifact categories whose globs match p, sorted.
func (s *Spec) Categories(p string) []string {
	var out []string
	for _, c := range s.cats {
		if c.globs.Match(p) {
			out = append(out, c.name)
		}
	}
	return out
}

// Category is the one category reported for a governed file: the one whose
// matching pattern names it most precisely (ties: sorted order).
func (s *Spec) Category(p string) string {
	best, bestScore := "", -1
	for _, c := range s.cats {
		for _, g := range c.globs {
			if g.Match(p) && g.specificity() > bestScore {
				best, bestScore = c.name, g.specificity()
			}
		}
	}
	return best
}

// Governs reports whether p is one of the spec's artifacts. A spec's own
// file is not an artifact (see Affects).
func (s *Spec) Governs(p string) bool {
	for _, c := range s.cats {
		if c.globs.Match(p) {
			return true
		}
	}
	return false
}

// GovernsIn reports whether p matches the globs of one category.
func (s *Spec) GovernsIn(category, p string) bool {
	for _, c := range s.cats {
		if c.name == category {
			return c.globs.Match(p)
		}
	}
	return false
}

// HasCategory reports whether the spec declares the category.
func (s *Spec) HasCategory(category string) bool {
	for _, c := range s.cats {
		if c.name == category {
			return true
		}
	}
	return false
}

// Patterns lists every artifact pattern with its category.
func (s *Spec) Patterns() [][2]string {
	var out [][2]string
	for _, c := range s.cats {
		for _, g := range c.globs {
			out = append(out, [2]string{c.name, g.Pattern})
		}
	}
	return out
}

// Excludes is the spec's exclude patterns.
func (s *Spec) Excludes() GlobSet { return s.exclude }

// ResolveRef turns a $ref of this spec into a repository-relative path:
// relative to the spec's directory, as NotarAI writes them.
func (s *Spec) ResolveRef(ref string) string {
	if strings.HasPrefix(ref, "/") {
		return strings.TrimPrefix(path.Clean(ref), "/")
	}
	return strings.TrimPrefix(path.Clean(path.Join(path.Dir(s.Path), ref)), "/")
}
