package spec

import (
	"fmt"
	"path"
	"strings"
)

// Glob is a compiled artifact or exclude pattern. gloss has one matcher for
// every use — deciding whether a changed path is governed and expanding a
// pattern to files — with doublestar semantics on repository-relative,
// slash-separated paths:
//
//   - `*`, `?` and `[...]` match within one path segment: `*` never
//     crosses `/`;
//   - `**` as a whole segment matches zero or more segments, so `dir/**`
//     is every file below dir and `**/*.lock` is every .lock file;
//   - a leading `./` or `/` is ignored; dot-files are not special.
type Glob struct {
	Pattern string
	segs    []string
	literal bool // no wildcard at all: matches one path
}

// CompileGlob checks a pattern's syntax and prepares it.
func CompileGlob(pattern string) (*Glob, error) {
	p := strings.TrimSpace(pattern)
	p = strings.TrimPrefix(p, "./")
	p = strings.TrimLeft(p, "/")
	if p == "" {
		return nil, fmt.Errorf("empty glob %q", pattern)
	}
	if strings.ContainsRune(p, 0) {
		return nil, fmt.Errorf("glob %q contains a NUL byte", pattern)
	}
	segs := strings.Split(p, "/")
	for _, s := range segs {
		if s == ".." {
			return nil, fmt.Errorf("glob %q leaves the repository (..)", pattern)
		}
		if s != "**" && strings.Contains(s, "**") {
			return nil, fmt.Errorf("glob %q: ** must be a whole path segment (use dir/**/name or *)", pattern)
		}
		if _, err := path.Match(s, ""); err != nil {
			return nil, fmt.Errorf("glob %q: malformed segment %q", pattern, s)
		}
	}
	return &Glob{Pattern: pattern, segs: segs, literal: !strings.ContainsAny(p, "*?[\\")}, nil
}

// Literal reports whether the pattern names one exact path.
func (g *Glob) Literal() bool { return g.literal }

// Match reports whether the repository-relative path p matches.
func (g *Glob) Match(p string) bool {
	if g.literal {
		return p == strings.Join(g.segs, "/")
	}
	return matchSegs(g.segs, strings.Split(p, "/"))
}

func matchSegs(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			if len(rest) == 0 {
				return len(name) > 0 // dir/** needs at least one segment below dir
			}
			for i := 0; i <= len(name); i++ {
				if matchSegs(rest, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// specificity ranks how precisely a pattern names files: literal
// characters count, wildcards do not. The most specific pattern decides a
// file's category.
func (g *Glob) specificity() int {
	n := 0
	for _, s := range g.segs {
		if s == "**" {
			continue
		}
		n += len(s) - strings.Count(s, "*") - strings.Count(s, "?")
	}
	if g.literal {
		n += 1000
	}
	return n
}

// GlobSet is several patterns; a path matches when any does.
type GlobSet []*Glob

// CompileGlobs compiles patterns, failing on the first bad one.
func CompileGlobs(patterns []string) (GlobSet, error) {
	out := make(GlobSet, 0, len(patterns))
	for _, p := range patterns {
		g, err := CompileGlob(p)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// Match reports whether any pattern matches p.
func (s GlobSet) Match(p string) bool {
	for _, g := range s {
		if g.Match(p) {
			return true
		}
	}
	return false
}
