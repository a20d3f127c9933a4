package cli

import (
	"os"
	"path/filepath"
	"strings"
)

// Path arguments have one meaning in every command, git's: relative to
// the current directory (or to -C DIR). They are made absolute here; the
// library resolves them inside the repository (safepath.Tree) and prints
// them relative to the repository root.

// path makes a command-line path absolute, relative to the directory the
// command runs in.
func (g *Globals) path(p string) string {
	if p == "" || filepath.IsAbs(p) || strings.IndexByte(p, 0) >= 0 {
		return p // empty and NUL are refused by the resolver, with its message
	}
	abs, err := filepath.Abs(filepath.Join(g.workDir(), p))
	if err != nil {
		return p
	}
	return abs
}

// specArg is path for an argument that may also name a spec by its short
// name ("api" for .gloss/specs/api.spec.yaml): a bare word that is not a
// file in the current directory stays a name.
func (g *Globals) specArg(p string) string {
	if p != "" && !strings.ContainsAny(p, `/.\`) {
		if _, err := os.Lstat(filepath.Join(g.workDir(), p)); err != nil {
			return p
		}
	}
	return g.path(p)
}

// workDir is where relative paths start: -C DIR, else the current
// directory.
func (g *Globals) workDir() string {
	wd, _ := os.Getwd()
	switch {
	case g.Dir == "":
		return wd
	case filepath.IsAbs(g.Dir):
		return g.Dir
	}
	return filepath.Join(wd, g.Dir)
}

// shown is how a path appears in human output: relative to the repository
// root when it is inside it (as every other path gloss prints), "~/…"
// under the home directory, else as it is.
func shown(root, p string) string {
	if p == "" || !filepath.IsAbs(p) {
		return p
	}
	if root != "" {
		if rel, err := filepath.Rel(root, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" && home != "/" {
		if rel, err := filepath.Rel(home, p); err == nil && !strings.HasPrefix(rel, "..") {
			return "~/" + filepath.ToSlash(rel)
		}
	}
	return p
}
