package reconcile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/spec"
)

// DiffInput is get_spec_diff's input.
type DiffInput struct {
	SpecPath        string   `json:"spec_path" jsonschema:"the spec, e.g. .gloss/specs/api.spec.yaml (or its short name, api)"`
	BaseBranch      string   `json:"base_branch" jsonschema:"branch or commit to diff against (from its merge-base with HEAD unless plain_base)"`
	PlainBase       bool     `json:"plain_base,omitempty" jsonschema:"diff against base_branch itself instead of its merge-base with HEAD"`
	ExcludePatterns []string `json:"exclude_patterns,omitempty" jsonschema:"globs (* within a segment, dir/** below dir) whose files are left out of diff, files and file_categories"`
	BypassCache     bool     `json:"bypass_cache,omitempty" jsonschema:"ignore reconciliation records for this call: every governed file counts as changed"`
}

// SpecText is a spec file with its content.
type SpecText struct {
	Path    string  `json:"path"`
	Content *string `json:"content,omitempty"`
}

// CacheInfo says whether earlier reconciliations were used: "warm" (a
// record or the committed snapshot covers the spec), "cold" (none: every
// governed file counts as changed), or "bypassed".
type CacheInfo struct {
	State        string `json:"state"`
	Source       string `json:"source"` // records, snapshot, records+snapshot, none
	Record       string `json:"record,omitempty"`
	ReconciledAt string `json:"reconciled_at,omitempty"`
	ReconciledBy string `json:"reconciled_by,omitempty"`
}

// DiffResult is get_spec_diff's answer.
type DiffResult struct {
	Schema          string            `json:"$schema"`
	SpecPath        string            `json:"spec_path"`
	Diff            string            `json:"diff"`
	Files           []string          `json:"files"`
	Skipped         []string          `json:"skipped"`
	SpecInvalidated []string          `json:"spec_invalidated"`
	Excluded        []string          `json:"excluded"`
	ExcludePatterns []string          `json:"exclude_patterns"`
	SpecChanges     []SpecText        `json:"spec_changes"`
	SystemSpec      *SpecText         `json:"system_spec"`
	BinaryChanges   []string          `json:"binary_changes"`
	FileCategories  map[string]string `json:"file_categories"`
	DeletedFiles    []string          `json:"deleted_files"`
	RenamedFiles    []Rename          `json:"renamed_files"`
	UntrackedFiles  []string          `json:"untracked_files"`
	BaseInfo
	Cache    CacheInfo `json:"cache"`
	Warnings []string  `json:"warnings"`
}

func (w *Workspace) cacheInfo(v *view, bypass bool) CacheInfo {
	ci := CacheInfo{State: "cold", Source: v.source}
	if v.warm {
		ci.State = "warm"
	}
	if v.last != nil {
		ci.Record, ci.ReconciledAt, ci.ReconciledBy = v.last.ID, v.last.Time, v.last.Actor
	}
	if bypass {
		ci.State = "bypassed"
	}
	return ci
}

func coldWarning(sp, statePath string) string {
	return fmt.Sprintf("cold cache: %s has never been reconciled here (no record in %s reachable from HEAD and no fingerprint in %s), so every governed file counts as changed; run mark_reconciled after reviewing them (if others reconciled it, git gloss sync fetches their records)", sp, notes.Reconcile, statePath)
}

// orphanWarnings names the spec's artifact globs that match no file.
func (w *Workspace) orphanWarnings(sp *spec.Spec) []string {
	var out []string
	for _, cp := range sp.Patterns() {
		g, err := spec.CompileGlob(cp[1])
		if err != nil {
			continue
		}
		found := false
		for _, f := range w.Tree.Files {
			if g.Match(f.Path) {
				found = true
				break
			}
		}
		if !found {
			out = append(out, fmt.Sprintf("orphan glob: %s artifacts.%s %q matches no file", sp.Path, cp[0], cp[1]))
		}
	}
	return out
}

// classify splits files into those the view matches and those it does
// not, hashing (on every core) only what blob ids cannot decide. Files
// that cannot be read are reported in warnings and count as changed.
func (w *Workspace) classify(v *view, paths []string, bypass bool) (changed, same []string, warnings []string) {
	if bypass || !v.warm {
		return append([]string(nil), paths...), nil, nil
	}
	var need []string
	for _, p := range paths {
		f, _ := w.Tree.Lookup(p)
		m, ok := v.matchesBlob(f)
		switch {
		case !ok:
			need = append(need, p)
		case m:
			same = append(same, p)
		default:
			changed = append(changed, p)
		}
	}
	if len(need) > 0 {
		hashes, failed := w.Tree.Hashes(need)
		for _, p := range need {
			if err, bad := failed[p]; bad {
				warnings = append(warnings, fmt.Sprintf("cannot hash %s (%v): counted as changed", p, err))
				changed = append(changed, p)
				continue
			}
			if hashes[p] == v.files[p].h {
				same = append(same, p)
			} else {
				changed = append(changed, p)
			}
		}
		slices.Sort(same)
		slices.Sort(changed)
	}
	return changed, same, warnings
}

// specChanged reports whether the spec file differs from the view's hash
// (an unrecorded spec counts as changed).
func (w *Workspace) specChanged(v *view, sp string) (bool, error) {
	if v.specHash == "" {
		return true, nil
	}
	h, failed := w.Tree.Hashes([]string{sp})
	if err := failed[sp]; err != nil {
		return true, err
	}
	return h[sp] != v.specHash, nil
}

// SpecDiff is get_spec_diff: what changed in the files a spec governs
// since they were last reconciled, with the diff against the base.
func (w *Workspace) SpecDiff(ctx context.Context, in DiffInput) (*DiffResult, error) {
	if strings.TrimSpace(in.SpecPath) == "" {
		return nil, missing("spec_path", "the spec to diff, for example .gloss/specs/api.spec.yaml")
	}
	base, err := w.resolveBase(in.BaseBranch, in.PlainBase)
	if err != nil {
		return nil, err
	}
	if err := w.prepare(base.BaseCommit); err != nil {
		return nil, err
	}
	sp, err := w.Specs.Resolve(w.Repo.Root(), in.SpecPath)
	if err != nil {
		return nil, err
	}
	excl, err := spec.CompileGlobs(in.ExcludePatterns)
	if err != nil {
		return nil, fault.As(fault.Usage, fmt.Errorf("exclude_patterns: %w", err))
	}
	res := &DiffResult{Schema: "gloss-spec-diff/v1", SpecPath: sp.Path, Files: []string{}, Skipped: []string{}, SpecInvalidated: []string{},
		Excluded: []string{}, ExcludePatterns: nonNil(in.ExcludePatterns), SpecChanges: []SpecText{}, BinaryChanges: []string{},
		FileCategories: map[string]string{}, DeletedFiles: []string{}, RenamedFiles: []Rename{}, UntrackedFiles: []string{}, BaseInfo: base,
		Warnings: w.warnings()}
	if !sp.Parsed {
		return nil, fault.Checkf("%s does not parse: %s", sp.Path, sp.Problems[0])
	}
	res.Warnings = append(res.Warnings, w.orphanWarnings(sp)...)
	v := w.State.view(sp.Path)
	res.Cache = w.cacheInfo(v, in.BypassCache)
	if !v.warm && !in.BypassCache {
		res.Warnings = append(res.Warnings, coldWarning(sp.Path, w.Specs.Layout.StatePath))
	}

	governed, specFiles, excluded := w.governedFiles(sp, excl)
	res.Excluded = append(res.Excluded, excluded...)
	changed, same, warns := w.classify(v, governed, in.BypassCache)
	res.Warnings = append(res.Warnings, warns...)

	// A change to the spec, or to a spec file it governs, puts the
	// governed files that did not change in question again.
	ownChanged, changedSpecs, warns := w.changedSpecs(v, sp.Path, specFiles, in.BypassCache)
	res.Warnings = append(res.Warnings, warns...)
	w.addSpecTexts(changedSpecs, res)
	if ownChanged || len(res.SpecChanges) > 0 {
		res.SpecInvalidated = nonNil(same)
	} else {
		res.Skipped = nonNil(same)
	}

	if err := w.addBaseChanges(base.BaseCommit, sp, excl, res); err != nil {
		return nil, err
	}
	pathspec := w.addChangedFiles(sp, changed, res)
	diff, binaries, err := w.diff(ctx, base.BaseCommit, pathspec, res.UntrackedFiles)
	if err != nil {
		return nil, err
	}
	res.Diff = diff
	res.BinaryChanges = nonNil(binaries)
	return res, nil
}

// governedFiles lists the working tree's files the spec governs, split
// into spec files and the rest; excluded are those exclude_patterns leave
// out of both lists (and so out of everything derived from them).
func (w *Workspace) governedFiles(sp *spec.Spec, excl spec.GlobSet) (governed, specFiles, excluded []string) {
	for _, f := range w.Tree.Files {
		if !sp.Governs(f.Path) {
			continue
		}
		if excl.Match(f.Path) {
			excluded = append(excluded, f.Path)
			continue
		}
		if w.Specs.IsSpecPath(f.Path) {
			specFiles = append(specFiles, f.Path)
		} else {
			governed = append(governed, f.Path)
		}
	}
	return governed, specFiles, excluded
}

// changedSpecs lists, sorted, the spec files that differ from the view:
// the spec's own file sp (own says whether it is one; a bypassed cache
// counts it as changed) and those of specFiles. Files that cannot be
// hashed are reported in warnings and count as changed.
func (w *Workspace) changedSpecs(v *view, sp string, specFiles []string, bypass bool) (own bool, changed, warnings []string) {
	own, err := w.specChanged(v, sp)
	if err != nil {
		warnings = append(warnings, fmt.Sprintf("cannot hash %s: %v", sp, err))
	}
	if bypass {
		own = true
	}
	if own {
		changed = append(changed, sp)
	}
	others, _, warns := w.classify(v, specFiles, bypass)
	warnings = append(warnings, warns...)
	for _, p := range others {
		if p != sp {
			changed = append(changed, p)
		}
	}
	slices.Sort(changed)
	return own, changed, warnings
}

// addSpecTexts puts the changed spec files with their text in the
// answer, and beside them the system spec: by path alone when it is one
// of them, since its text is already there.
func (w *Workspace) addSpecTexts(changed []string, res *DiffResult) {
	for _, p := range changed {
		data, err := w.Tree.ReadFile(p)
		if err != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("cannot read %s: %v", p, err))
			continue
		}
		text := string(data)
		res.SpecChanges = append(res.SpecChanges, SpecText{Path: p, Content: &text})
	}
	sys := w.Specs.System
	if len(res.SpecChanges) == 0 || sys == nil {
		return
	}
	if slices.Contains(changed, sys.Path) {
		res.SystemSpec = &SpecText{Path: sys.Path}
	} else {
		text := string(sys.Raw)
		res.SystemSpec = &SpecText{Path: sys.Path, Content: &text}
	}
}

// addBaseChanges adds the deletions and renames since the base, as far as
// the spec governs them: a rename counts unless both its ends are
// excluded.
func (w *Workspace) addBaseChanges(base string, sp *spec.Spec, excl spec.GlobSet, res *DiffResult) error {
	cs, err := w.worktreeChanges(base)
	if err != nil {
		return err
	}
	for _, p := range cs.deleted {
		if sp.Governs(p) && !excl.Match(p) {
			res.DeletedFiles = append(res.DeletedFiles, p)
		}
	}
	for _, r := range cs.renamed {
		if (sp.Governs(r.From) || sp.Governs(r.To)) && !(excl.Match(r.From) && excl.Match(r.To)) {
			res.RenamedFiles = append(res.RenamedFiles, r)
		}
	}
	return nil
}

// addChangedFiles adds the changed files with their categories, the
// untracked ones also apart (the diff shows them as new files), and
// returns what git diffs against the base: the tracked changed files, the
// deletions and both ends of each rename.
func (w *Workspace) addChangedFiles(sp *spec.Spec, changed []string, res *DiffResult) []string {
	var pathspec []string
	for _, f := range changed {
		res.Files = append(res.Files, f)
		res.FileCategories[f] = sp.Category(f)
		if tf, _ := w.Tree.Lookup(f); tf.Untracked {
			res.UntrackedFiles = append(res.UntrackedFiles, f)
		} else {
			pathspec = append(pathspec, f)
		}
	}
	pathspec = append(pathspec, res.DeletedFiles...)
	for _, r := range res.RenamedFiles {
		pathspec = append(pathspec, r.From, r.To)
	}
	return pathspec
}

// diff runs git diff base -- paths (rename detection on, binary files
// taken out into binaries, as git decides with .gitattributes) and appends
// untracked files as additions.
func (w *Workspace) diff(ctx context.Context, base string, paths, untracked []string) (string, []string, error) {
	var out bytes.Buffer
	if len(paths) > 0 {
		slices.Sort(paths)
		paths = slices.Compact(paths)
		// In batches, so that a cold cache over thousands of files stays
		// under the command-line limit.
		for len(paths) > 0 {
			n := min(len(paths), 2000)
			args := append([]string{"--literal-pathspecs", "-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff", "-M", base, "--"}, paths[:n]...)
			data, err := w.Repo.Git(ctx, args...)
			if err != nil {
				return "", nil, fmt.Errorf("diff against %s: %w", base, err)
			}
			out.Write(data)
			paths = paths[n:]
		}
	}
	for _, p := range untracked {
		data, err := w.Repo.Git(ctx, "-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff", "--no-index", "--", "/dev/null", p)
		var ge *gitops.GitError
		if err != nil && !(errors.As(err, &ge) && ge.ExitCode == 1) {
			return "", nil, fmt.Errorf("diff untracked %s: %w", p, err)
		}
		out.Write(data)
	}
	return stripBinaries(out.String())
}

// stripBinaries removes binary files' sections from a unified diff and
// lists them.
func stripBinaries(diff string) (string, []string, error) {
	if !strings.Contains(diff, "Binary files ") {
		return diff, nil, nil
	}
	var out strings.Builder
	var bins []string
	sections := splitSections(diff)
	for _, s := range sections {
		if i := strings.Index(s, "\nBinary files "); i >= 0 && strings.HasPrefix(s, "diff --git ") {
			line := s[i+1:]
			if j := strings.IndexByte(line, '\n'); j >= 0 {
				line = line[:j]
			}
			bins = append(bins, binaryPath(line))
			continue
		}
		out.WriteString(s)
	}
	slices.Sort(bins)
	return out.String(), slices.Compact(bins), nil
}

func splitSections(diff string) []string {
	var out []string
	for len(diff) > 0 {
		next := strings.Index(diff[1:], "\ndiff --git ")
		if next < 0 {
			out = append(out, diff)
			break
		}
		out = append(out, diff[:next+2])
		diff = diff[next+2:]
	}
	return out
}

// binaryPath reads the path from "Binary files a/X and b/Y differ" (b/Y,
// or a/X for a deletion).
func binaryPath(line string) string {
	s := strings.TrimSuffix(strings.TrimPrefix(line, "Binary files "), " differ")
	a, b, _ := strings.Cut(s, " and ")
	if b != "/dev/null" {
		return strings.TrimPrefix(b, "b/")
	}
	a = strings.TrimPrefix(a, "a/")
	return a
}
