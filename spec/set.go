package spec

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/safepath"
	"github.com/gloss-dev/gloss/schemas"
)

// Set is every spec of a tree.
type Set struct {
	Tree   *Tree
	Specs  []*Spec // every spec file, sorted by path; some may have problems
	System *Spec   // the system spec, or nil
}

// LoadSet reads every spec of the tree. A spec that fails to parse is kept
// (with its problems) so that callers can report it; it governs nothing.
func LoadSet(t *Tree) (*Set, error) {
	set := &Set{Tree: t}
	for _, f := range t.Files {
		if !IsSpecPath(f.Path) {
			continue
		}
		data, err := t.ReadFile(f.Path)
		if err != nil {
			set.Specs = append(set.Specs, &Spec{Path: f.Path, Problems: []Problem{{Line: 1, Message: "cannot read: " + err.Error()}}})
			continue
		}
		set.Specs = append(set.Specs, Parse(f.Path, data))
	}
	set.System = set.findSystem()
	return set, nil
}

// findSystem picks the system spec deterministically: system.spec.yaml in
// the specs folder when it has subsystems, else the first spec (by path)
// that has them.
func (s *Set) findSystem() *Spec {
	for _, sp := range s.Specs {
		if sp.Path == Dir+"/system"+Suffix && sp.Parsed && sp.HasSubsystems {
			return sp
		}
	}
	for _, sp := range s.Specs {
		if sp.Parsed && sp.HasSubsystems {
			return sp
		}
	}
	return nil
}

// Get returns the spec at a repository-relative path.
func (s *Set) Get(p string) *Spec {
	for _, sp := range s.Specs {
		if sp.Path == p {
			return sp
		}
	}
	return nil
}

// Resolve finds a spec by path (repository-relative, or absolute inside
// root) or by short name ("api" for .gloss/specs/api.spec.yaml).
func (s *Set) Resolve(root, arg string) (*Spec, error) {
	if arg == "" {
		return nil, fault.Usagef("spec_path is required")
	}
	rel, err := safepath.Clean(root, arg)
	if err != nil {
		return nil, err
	}
	if sp := s.Get(rel); sp != nil {
		return sp, nil
	}
	if sp := s.Get(Dir + "/" + strings.TrimSuffix(rel, Suffix) + Suffix); sp != nil {
		return sp, nil
	}
	return nil, fault.NotFoundf("no spec %q (specs live in %s/**/*%s)", arg, Dir, Suffix)
}

// Usable lists the specs that parsed, and so can govern files.
func (s *Set) Usable() []*Spec {
	var out []*Spec
	for _, sp := range s.Specs {
		if sp.Parsed {
			out = append(out, sp)
		}
	}
	return out
}

// Warnings describes the specs with problems, one line each.
func (s *Set) Warnings() []string {
	var out []string
	for _, sp := range s.Specs {
		if len(sp.Problems) > 0 {
			w := fmt.Sprintf("%s is invalid (%s)", sp.Path, sp.Problems[0])
			if !sp.Parsed {
				w += "; it governs nothing until it parses"
			}
			if n := len(sp.Problems); n > 1 {
				w += fmt.Sprintf(" and %d more problem(s); run git gloss spec validate", n-1)
			}
			out = append(out, w)
		}
	}
	return out
}

// --- validate ---------------------------------------------------------

// ValidateResult is what `git gloss spec validate` reports.
type ValidateResult struct {
	Schema   string         `json:"$schema"`
	Files    []FileProblems `json:"files"`
	Passed   int            `json:"passed"`
	Failed   int            `json:"failed"`
	Warnings []string       `json:"warnings"`
}

// FileProblems is one spec file's verdict.
type FileProblems struct {
	Path     string    `json:"path"`
	OK       bool      `json:"ok"`
	Problems []Problem `json:"problems"`
}

const validateTag = "gloss-spec-validate/v1"

func init() {
	schemas.Register(
		schemas.Entry{Name: "spec", Tag: "gloss-spec/" + SchemaVersion, Description: "A spec file (.gloss/specs/**/*.spec.yaml): NotarAI's spec schema, draft-07.", Raw: SchemaJSON},
		schemas.Entry{Name: "spec-validate", Tag: validateTag, Description: "Spec files checked against the spec schema (git gloss spec validate).", Type: schemas.TypeOf[ValidateResult]()},
	)
}

// Validate checks the spec files at target (a file, or a directory searched
// recursively in sorted order; "" is .gloss/specs) in the working tree of
// repo. target is relative to the repository root or absolute inside it.
func Validate(_ context.Context, repo *gitops.Repo, target string) (*ValidateResult, error) {
	if repo.IsBare() {
		return nil, fault.Usagef("spec validate needs a working tree")
	}
	if target == "" {
		target = Dir
	}
	tree, err := safepath.ForRepo(repo)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	rel, err := tree.Resolve(target)
	if err != nil {
		return nil, err
	}
	root := tree.Root()
	res := &ValidateResult{Schema: validateTag, Files: []FileProblems{}, Warnings: []string{}}
	st, err := root.Stat(rel)
	if err != nil {
		if os.IsNotExist(err) && rel == Dir {
			res.Warnings = append(res.Warnings, "no specs found: "+Dir+" does not exist")
			return res, nil
		}
		return nil, fault.NotFoundf("%s: path not found", target)
	}
	var files []string
	if st.IsDir() {
		err := fs.WalkDir(root.FS(), rel, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(p, Suffix) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("search %s: %w", target, err)
		}
		slices.Sort(files)
	} else {
		if !strings.HasSuffix(rel, Suffix) {
			return nil, fault.Usagef("%s is not a spec file (specs end in %s)", target, Suffix)
		}
		files = []string{rel}
	}
	if len(files) == 0 {
		res.Warnings = append(res.Warnings, "no *"+Suffix+" files found under "+rel)
	}
	for _, p := range files {
		// Each file through the resolver: a spec that is a link into .git
		// is refused, never read.
		data, err := tree.ReadFile(p, 0)
		var probs []Problem
		if err != nil {
			probs = []Problem{{Line: 1, Message: "cannot read: " + err.Error()}}
		} else {
			probs = Parse(p, data).Problems
		}
		if probs == nil {
			probs = []Problem{}
		}
		fp := FileProblems{Path: p, OK: len(probs) == 0, Problems: probs}
		if fp.OK {
			res.Passed++
		} else {
			res.Failed++
		}
		res.Files = append(res.Files, fp)
	}
	return res, nil
}

// OutdatedSpecs lists the spec files under root's .gloss/specs whose
// schema_version is older than SchemaVersion (unreadable or unversioned
// files are left to validate), with the oldest version found.
func OutdatedSpecs(root string) (oldest string, files []string) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return "", nil
	}
	defer r.Close()
	_ = fs.WalkDir(r.FS(), Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, Suffix) {
			return nil
		}
		data, err := r.ReadFile(p)
		if err != nil {
			return nil
		}
		var head struct {
			SchemaVersion string `yaml:"schema_version"`
		}
		if yaml.Unmarshal(data, &head) != nil || head.SchemaVersion == "" {
			return nil
		}
		if compareVersions(head.SchemaVersion, SchemaVersion) < 0 {
			files = append(files, p)
			if oldest == "" || compareVersions(head.SchemaVersion, oldest) < 0 {
				oldest = head.SchemaVersion
			}
		}
		return nil
	})
	slices.Sort(files)
	return oldest, files
}

// compareVersions compares dotted numeric versions ("0.7" < "0.8" < "0.10").
func compareVersions(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(pa), len(pb)); i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}
