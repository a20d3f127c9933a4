package spec

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/gloss-dev/gloss/config"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/safepath"
)

// NotarAIDir is where NotarAI keeps specs. A repository that has specs
// there and none in Dir is read in place, so a NotarAI team can switch
// (or run both tools side by side) without moving a file.
const NotarAIDir = ".notarai"

// DefaultStatePath is gloss's reconciliation snapshot; NotarAIStatePath is
// NotarAI's, used when the specs live in .notarai.
const (
	DefaultStatePath = ".gloss/reconciliation_state.json"
	NotarAIStatePath = NotarAIDir + "/reconciliation_state.json"
)

// Where a layout comes from.
const (
	FromConfig  = "config"  // [specs] path in .gloss/config.toml
	FromGloss   = "gloss"   // specs found in .gloss/specs
	FromNotarAI = "notarai" // specs found in .notarai only
	FromDefault = "default" // no specs anywhere yet
)

// Layout says where a repository keeps its specs and its committed
// reconciliation snapshot.
type Layout struct {
	Dir       string `json:"dir"`        // the specs folder, repository-relative
	StatePath string `json:"state_path"` // the committed snapshot
	From      string `json:"from"`       // FromConfig, FromGloss, FromNotarAI or FromDefault
	// Ignored names a folder that holds specs gloss does not read because
	// another one won; a warning tells the user how to choose.
	Ignored string `json:"ignored,omitempty"`
}

// Settings is the [specs] table of .gloss/config.toml.
type Settings struct {
	Path string `toml:"path"` // the specs folder, relative to the repository root
}

// IsSpecPath reports whether a repository-relative path is a spec file of
// this layout.
func (l Layout) IsSpecPath(p string) bool {
	return strings.HasPrefix(p, l.Dir+"/") && strings.HasSuffix(p, Suffix)
}

// Warning explains an ignored folder, or is "".
func (l Layout) Warning() string {
	if l.Ignored == "" {
		return ""
	}
	return fmt.Sprintf("specs in %s are not read: gloss reads %s; set [specs] path in %s to choose the other folder", l.Ignored, l.Dir, config.TeamFile)
}

// resolveLayout decides the layout from the team configuration (data, or
// nil when there is no file) and a test for "this folder holds a spec".
func resolveLayout(configData []byte, hasSpecs func(dir string) bool) (Layout, error) {
	if configData != nil {
		cfg, err := config.Parse(configData)
		if err != nil {
			return Layout{}, err
		}
		var s Settings
		if err := cfg.Section("specs", &s); err != nil {
			return Layout{}, err
		}
		if s.Path != "" {
			dir, err := cleanDir(s.Path)
			if err != nil {
				return Layout{}, err
			}
			return Layout{Dir: dir, StatePath: statePathFor(dir), From: FromConfig}, nil
		}
	}
	gloss, notarai := hasSpecs(Dir), hasSpecs(NotarAIDir)
	switch {
	case gloss && notarai:
		return Layout{Dir: Dir, StatePath: DefaultStatePath, From: FromGloss, Ignored: NotarAIDir}, nil
	case gloss:
		return Layout{Dir: Dir, StatePath: DefaultStatePath, From: FromGloss}, nil
	case notarai:
		return Layout{Dir: NotarAIDir, StatePath: NotarAIStatePath, From: FromNotarAI}, nil
	}
	return Layout{Dir: Dir, StatePath: DefaultStatePath, From: FromDefault}, nil
}

// statePathFor keeps NotarAI's snapshot beside NotarAI's specs, so that
// both tools read and write the same file.
func statePathFor(dir string) string {
	if dir == NotarAIDir {
		return NotarAIStatePath
	}
	return DefaultStatePath
}

// cleanDir checks a configured specs folder: relative, inside the
// repository, not the root and not in .git.
func cleanDir(p string) (string, error) {
	c := path.Clean(strings.TrimSuffix(strings.ReplaceAll(p, `\`, "/"), "/"))
	if c == "." || !filepath.IsLocal(c) || c == ".git" || strings.HasPrefix(c, ".git/") || strings.ContainsRune(c, 0) {
		return "", fault.Usagef("%s: [specs] path %q must be a folder inside the repository (not its root, not .git)", config.TeamFile, p)
	}
	return c, nil
}

// ResolveLayout finds the layout of the working tree at root: [specs]
// path in .gloss/config.toml, else .gloss/specs when it holds a spec, else
// .notarai when it does, else .gloss/specs.
func ResolveLayout(root string) (Layout, error) {
	tree, err := safepath.OpenWorkTree(root)
	if err != nil {
		return Layout{}, err
	}
	defer tree.Close()
	return layoutOfTree(tree)
}

// layoutOfTree reads the team configuration through the resolver (a
// config that is a link into .git is refused, never read).
func layoutOfTree(tree *safepath.Tree) (Layout, error) {
	data, err := tree.ReadFile(config.TeamFile, 1<<20)
	if fault.KindOf(err) == fault.NotFound {
		data, err = nil, nil
	}
	if err != nil {
		return Layout{}, fmt.Errorf("read %s: %w", config.TeamFile, err)
	}
	return resolveLayout(data, func(dir string) bool { return dirHasSpec(tree.Root().FS(), dir) })
}

// dirHasSpec reports whether a folder holds a spec file, at any depth.
func dirHasSpec(fsys fs.FS, dir string) bool {
	found := false
	_ = fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, Suffix) {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found
}

// Layout finds the layout of the tree from its own files: the
// configuration it holds and where its spec files are. It is computed
// once.
func (t *Tree) Layout() (Layout, error) {
	t.layoutOnce.Do(func() {
		var data []byte
		if t.Has(config.TeamFile) {
			d, err := t.ReadFile(config.TeamFile)
			if err != nil {
				t.layoutErr = fmt.Errorf("read %s: %w", config.TeamFile, err)
				return
			}
			data = d
		}
		t.layout, t.layoutErr = resolveLayout(data, func(dir string) bool {
			for _, f := range t.Files {
				if strings.HasPrefix(f.Path, dir+"/") && strings.HasSuffix(f.Path, Suffix) {
					return true
				}
			}
			return false
		})
	})
	return t.layout, t.layoutErr
}
