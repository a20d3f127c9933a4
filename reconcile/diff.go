package reconcile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/safepath"
	"github.com/gloss-dev/gloss/spec"
)

// ErrMissingArgument marks a required argument that was not given; the
// MCP server answers it with -32602.
var ErrMissingArgument = errors.New("missing required argument")

func missing(name, hint string) error {
	return fault.As(fault.Usage, fmt.Errorf("%w %s: %s", ErrMissingArgument, name, hint))
}

// Workspace is one call's view of the repository: the working tree, its
// specs and the reconciliations that count at HEAD. It is read lazily, in
// one pass, against the commit the call compares with (the base for
// diffs, HEAD otherwise).
type Workspace struct {
	Repo  *gitops.Repo
	Tree  *spec.Tree
	Specs *spec.Set
	State *State
	Head  string

	ctx        context.Context
	treeRev    string
	prepared   bool
	changes    *changeSet
	changesRev string
}

// Open starts a workspace on the repository's working tree.
func Open(ctx context.Context, repo *gitops.Repo) (*Workspace, error) {
	head, err := repo.Head()
	if err != nil {
		return nil, err
	}
	return &Workspace{Repo: repo, Head: head, ctx: ctx}, nil
}

// Load reads the working tree (compared with HEAD), the specs and the
// records. The operations call it themselves; callers need it only to
// read Tree, Specs or State directly.
func (w *Workspace) Load() error { return w.prepare(w.Head) }

// prepare reads the working tree against rev, the specs and the records
// (the records in parallel with the tree).
func (w *Workspace) prepare(rev string) error {
	if w.prepared && w.treeRev == rev {
		return nil
	}
	type stateResult struct {
		st  *State
		err error
	}
	stc := make(chan stateResult, 1)
	if w.State == nil {
		go func() {
			st, err := loadState(w.ctx, w.Repo, w.Head, nil)
			stc <- stateResult{st, err}
		}()
	} else {
		stc <- stateResult{w.State, nil}
	}
	tree, changes, err := spec.WorktreeTree(w.ctx, w.Repo, rev)
	sr := <-stc
	if err != nil {
		return err
	}
	if sr.err != nil {
		return sr.err
	}
	set, err := spec.LoadSet(tree)
	if err != nil {
		return err
	}
	st := sr.st
	if err := st.addSnapshot(tree); err != nil {
		return err
	}
	w.Tree, w.Specs, w.State, w.treeRev, w.prepared = tree, set, st, rev, true
	w.changes, w.changesRev = newChangeSet(changes), rev
	return nil
}

func (w *Workspace) warnings() []string {
	out := append([]string{}, w.Specs.Warnings()...)
	return append(out, w.State.Warnings...)
}

// --- base and changes ---------------------------------------------------

// BaseInfo says what a comparison was made against.
type BaseInfo struct {
	Base       string `json:"base"`        // as given
	BaseMode   string `json:"base_mode"`   // "merge-base" (default) or "plain"
	BaseCommit string `json:"base_commit"` // the commit compared with the working tree
}

func (w *Workspace) resolveBase(base string, plain bool) (BaseInfo, error) {
	if strings.TrimSpace(base) == "" {
		return BaseInfo{}, missing("base_branch", "the branch or commit to compare with (for example main); gloss never assumes one")
	}
	id, err := w.Repo.ResolveCommit(base)
	if err != nil {
		return BaseInfo{}, fault.As(fault.NotFound, fmt.Errorf("base_branch %q: %w", base, err))
	}
	info := BaseInfo{Base: base, BaseMode: "plain", BaseCommit: id}
	if plain || w.Head == "" {
		return info, nil
	}
	mb, err := w.Repo.MergeBase(id, w.Head)
	if err != nil {
		return info, err
	}
	if mb == "" {
		return info, fault.Usagef("base_branch %q shares no history with HEAD; pass plain_base to compare with it directly", base)
	}
	info.BaseMode, info.BaseCommit = "merge-base", mb
	return info, nil
}

// Rename is a file moved since the base.
type Rename struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// changeSet is what differs between a base and the working tree (or a
// commit).
type changeSet struct {
	changed   []string // every path involved: new paths, deleted paths, old paths of renames
	deleted   []string
	renamed   []Rename
	untracked []string
	present   map[string]bool
}

func newChangeSet(changes []gitops.Change) *changeSet {
	cs := &changeSet{present: map[string]bool{}}
	add := func(p string) {
		if !cs.present[p] {
			cs.present[p] = true
			cs.changed = append(cs.changed, p)
		}
	}
	for _, c := range changes {
		switch c.Status {
		case gitops.Deleted:
			cs.deleted = append(cs.deleted, c.Path)
		case gitops.Renamed:
			cs.renamed = append(cs.renamed, Rename{From: c.OldPath, To: c.Path})
			add(c.OldPath)
		case gitops.Untracked:
			cs.untracked = append(cs.untracked, c.Path)
		case gitops.Copied:
			// the source is unchanged
		}
		add(c.Path)
	}
	slices.Sort(cs.changed)
	slices.Sort(cs.deleted)
	slices.Sort(cs.untracked)
	slices.SortFunc(cs.renamed, func(a, b Rename) int { return strings.Compare(a.To, b.To) })
	return cs
}

func (w *Workspace) worktreeChanges(baseCommit string) (*changeSet, error) {
	if err := w.prepare(baseCommit); err != nil {
		return nil, err
	}
	return w.changes, nil
}

// --- list_affected_specs ------------------------------------------------

// AffectedInput is list_affected_specs' input.
type AffectedInput struct {
	BaseBranch string `json:"base_branch" jsonschema:"branch or commit to compare the working tree with (compared from its merge-base with HEAD unless plain_base)"`
	PlainBase  bool   `json:"plain_base,omitempty" jsonschema:"compare with base_branch itself instead of its merge-base with HEAD"`
}

// AffectedSpec is one spec touched by the changes.
type AffectedSpec struct {
	SpecPath       string          `json:"spec_path"`
	Behaviors      []spec.Behavior `json:"behaviors"`
	Constraints    []string        `json:"constraints"`
	Invariants     []string        `json:"invariants"`
	SpecChanged    bool            `json:"spec_changed"`              // the spec's own file changed
	MatchedFiles   []string        `json:"matched_files"`             // changed files it governs
	AppliesChanged []string        `json:"applies_changed,omitempty"` // changed specs it applies
	Valid          bool            `json:"valid"`
}

// AffectedResult is list_affected_specs' answer.
type AffectedResult struct {
	Schema         string         `json:"$schema"`
	ChangedFiles   []string       `json:"changed_files"`
	AffectedSpecs  []AffectedSpec `json:"affected_specs"`
	DeletedFiles   []string       `json:"deleted_files"`
	RenamedFiles   []Rename       `json:"renamed_files"`
	UntrackedFiles []string       `json:"untracked_files"`
	BaseInfo
	Warnings []string `json:"warnings"`
}

// ListAffected lists the specs the working tree's changes since the base
// touch: a spec is affected when it governs a changed path (old or new
// side of a rename, deleted and untracked files included), when its own
// file changed, or when a spec it applies changed.
func (w *Workspace) ListAffected(in AffectedInput) (*AffectedResult, error) {
	base, err := w.resolveBase(in.BaseBranch, in.PlainBase)
	if err != nil {
		return nil, err
	}
	cs, err := w.worktreeChanges(base.BaseCommit)
	if err != nil {
		return nil, err
	}
	res := &AffectedResult{Schema: "gloss-spec-affected/v1", ChangedFiles: nonNil(cs.changed), AffectedSpecs: []AffectedSpec{},
		DeletedFiles: nonNil(cs.deleted), RenamedFiles: nonNilR(cs.renamed), UntrackedFiles: nonNil(cs.untracked), BaseInfo: base, Warnings: w.warnings()}
	res.AffectedSpecs = affectedSpecs(w.Specs, cs.changed, cs.present)
	return res, nil
}

func affectedSpecs(set *spec.Set, changed []string, present map[string]bool) []AffectedSpec {
	out := []AffectedSpec{}
	for _, sp := range set.Usable() {
		a := AffectedSpec{SpecPath: sp.Path, Behaviors: sp.Behaviors, Constraints: sp.Constraints, Invariants: sp.Invariants,
			SpecChanged: present[sp.Path], MatchedFiles: []string{}, Valid: sp.Valid()}
		for _, p := range changed {
			if sp.Governs(p) {
				a.MatchedFiles = append(a.MatchedFiles, p)
			}
		}
		for _, ref := range sp.Applies {
			if t := sp.ResolveRef(ref.Ref); present[t] {
				a.AppliesChanged = append(a.AppliesChanged, t)
			}
		}
		if a.SpecChanged || len(a.MatchedFiles) > 0 || len(a.AppliesChanged) > 0 {
			out = append(out, a)
		}
	}
	return out
}

// --- get_spec_diff ------------------------------------------------------

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

	// Governed files, split into spec files and the rest; excludes apply
	// to both lists and to everything derived from them.
	var governed, specFiles []string
	for _, f := range w.Tree.Files {
		if !sp.Governs(f.Path) {
			continue
		}
		if excl.Match(f.Path) {
			res.Excluded = append(res.Excluded, f.Path)
			continue
		}
		if w.Specs.IsSpecPath(f.Path) {
			specFiles = append(specFiles, f.Path)
		} else {
			governed = append(governed, f.Path)
		}
	}
	changed, same, warns := w.classify(v, governed, in.BypassCache)
	res.Warnings = append(res.Warnings, warns...)

	// The spec's own file and the spec files it governs.
	ownChanged, err := w.specChanged(v, sp.Path)
	if err != nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("cannot hash %s: %v", sp.Path, err))
	}
	if in.BypassCache {
		ownChanged = true
	}
	changedSpecs := []string{}
	if ownChanged {
		changedSpecs = append(changedSpecs, sp.Path)
	}
	otherChanged, _, warns := w.classify(v, specFiles, in.BypassCache)
	res.Warnings = append(res.Warnings, warns...)
	for _, p := range otherChanged {
		if p != sp.Path {
			changedSpecs = append(changedSpecs, p)
		}
	}
	slices.Sort(changedSpecs)
	for _, p := range changedSpecs {
		data, err := w.Tree.ReadFile(p)
		if err != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("cannot read %s: %v", p, err))
			continue
		}
		text := string(data)
		res.SpecChanges = append(res.SpecChanges, SpecText{Path: p, Content: &text})
	}
	if len(res.SpecChanges) > 0 && w.Specs.System != nil {
		sys := w.Specs.System
		if slices.Contains(changedSpecs, sys.Path) {
			res.SystemSpec = &SpecText{Path: sys.Path}
		} else {
			text := string(sys.Raw)
			res.SystemSpec = &SpecText{Path: sys.Path, Content: &text}
		}
	}
	if ownChanged || len(res.SpecChanges) > 0 {
		res.SpecInvalidated = nonNil(same)
	} else {
		res.Skipped = nonNil(same)
	}

	// Deletions, renames and untracked files since the base, as far as the
	// spec governs them.
	cs, err := w.worktreeChanges(base.BaseCommit)
	if err != nil {
		return nil, err
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
	untracked := map[string]bool{}
	for _, f := range changed {
		res.Files = append(res.Files, f)
		res.FileCategories[f] = sp.Category(f)
		if tf, _ := w.Tree.Lookup(f); tf.Untracked {
			untracked[f] = true
			res.UntrackedFiles = append(res.UntrackedFiles, f)
		}
	}

	// The diff: tracked changed files plus deletions and rename sources
	// against the base; untracked files as new files.
	var pathspec []string
	for _, f := range changed {
		if !untracked[f] {
			pathspec = append(pathspec, f)
		}
	}
	pathspec = append(pathspec, res.DeletedFiles...)
	for _, r := range res.RenamedFiles {
		pathspec = append(pathspec, r.From, r.To)
	}
	diff, binaries, err := w.diff(ctx, base.BaseCommit, pathspec, res.UntrackedFiles)
	if err != nil {
		return nil, err
	}
	res.Diff = diff
	res.BinaryChanges = nonNil(binaries)
	return res, nil
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

// --- get_changed_artifacts ----------------------------------------------

// ArtifactsInput is get_changed_artifacts' input.
type ArtifactsInput struct {
	SpecPath     string `json:"spec_path" jsonschema:"the spec: its path or short name"`
	ArtifactType string `json:"artifact_type,omitempty" jsonschema:"one artifact category (code, docs, tests, or any the spec declares); omit for all"`
}

// ArtifactsResult is get_changed_artifacts' answer.
type ArtifactsResult struct {
	Schema           string    `json:"$schema"`
	SpecPath         string    `json:"spec_path"`
	ArtifactType     string    `json:"artifact_type,omitempty"`
	ChangedArtifacts []string  `json:"changed_artifacts"`
	SpecInvalidated  []string  `json:"spec_invalidated"`
	DeletedArtifacts []string  `json:"deleted_artifacts"`
	Untracked        []string  `json:"untracked_artifacts"`
	Cache            CacheInfo `json:"cache"`
	Warnings         []string  `json:"warnings"`
}

// ChangedArtifacts is get_changed_artifacts: the governed files (of one
// category) that differ from the spec's last reconciliation. Git history
// is not consulted; spec files are left out (they are the spec's, not its
// artifacts).
func (w *Workspace) ChangedArtifacts(in ArtifactsInput) (*ArtifactsResult, error) {
	if strings.TrimSpace(in.SpecPath) == "" {
		return nil, missing("spec_path", "the spec whose artifacts to check")
	}
	if err := w.Load(); err != nil {
		return nil, err
	}
	sp, err := w.Specs.Resolve(w.Repo.Root(), in.SpecPath)
	if err != nil {
		return nil, err
	}
	if !sp.Parsed {
		return nil, fault.Checkf("%s does not parse: %s", sp.Path, sp.Problems[0])
	}
	res := &ArtifactsResult{Schema: "gloss-spec-artifacts/v1", SpecPath: sp.Path, ArtifactType: in.ArtifactType, ChangedArtifacts: []string{},
		SpecInvalidated: []string{}, DeletedArtifacts: []string{}, Untracked: []string{}, Warnings: w.warnings()}
	if in.ArtifactType != "" && !sp.HasCategory(in.ArtifactType) {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s declares no %q artifacts", sp.Path, in.ArtifactType))
	}
	match := func(p string) bool {
		if in.ArtifactType != "" {
			return sp.GovernsIn(in.ArtifactType, p)
		}
		return sp.Governs(p)
	}
	v := w.State.view(sp.Path)
	res.Cache = w.cacheInfo(v, false)
	if !v.warm {
		res.Warnings = append(res.Warnings, coldWarning(sp.Path, w.Specs.Layout.StatePath))
	}
	var governed, specFiles []string
	for _, f := range w.Tree.Files {
		if !match(f.Path) {
			continue
		}
		if w.Specs.IsSpecPath(f.Path) {
			specFiles = append(specFiles, f.Path)
			continue
		}
		governed = append(governed, f.Path)
		if f.Untracked {
			res.Untracked = append(res.Untracked, f.Path)
		}
	}
	changed, same, warns := w.classify(v, governed, false)
	res.Warnings = append(res.Warnings, warns...)
	res.ChangedArtifacts = nonNil(changed)
	ownChanged, _ := w.specChanged(v, sp.Path)
	otherChanged, _, _ := w.classify(v, specFiles, false)
	if v.warm && (ownChanged || len(otherChanged) > 0) {
		res.SpecInvalidated = nonNil(same)
	}
	for p := range v.files {
		if match(p) && !w.Tree.Has(p) && !w.Specs.IsSpecPath(p) {
			res.DeletedArtifacts = append(res.DeletedArtifacts, p)
		}
	}
	slices.Sort(res.DeletedArtifacts)
	return res, nil
}

// --- mark_reconciled ----------------------------------------------------

// MarkInput is mark_reconciled's input.
type MarkInput struct {
	Files    []string `json:"files" jsonschema:"repository-relative paths of the files (and spec files) you reconciled"`
	SpecPath string   `json:"spec_path,omitempty" jsonschema:"record for this spec only; omit to record for every spec that governs each file"`
	Base     string   `json:"base,omitempty" jsonschema:"the base the reconciliation compared with, kept in the record"`
	Via      string   `json:"-"`
}

// MarkedRecord summarises one written record.
type MarkedRecord struct {
	ID       string `json:"id"`
	SpecPath string `json:"spec_path"`
	Files    int    `json:"files"`
}

// SkippedFile is a path mark_reconciled did not record, and why.
type SkippedFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// MarkResult is mark_reconciled's answer.
type MarkResult struct {
	Schema  string         `json:"$schema"`
	Updated int            `json:"updated"`
	Commit  string         `json:"commit"`
	Records []MarkedRecord `json:"records"`
	Skipped []SkippedFile  `json:"skipped"`
}

// Mark records that files were reconciled: one record per spec governing
// them (or for in.SpecPath only) with the spec's hash, each file's BLAKE3
// and git blob id, on the HEAD commit.
func (w *Workspace) Mark(ctx context.Context, in MarkInput) (*MarkResult, error) {
	if len(in.Files) == 0 {
		return nil, missing("files", "the paths you reconciled")
	}
	if w.Head == "" {
		return nil, fault.Usagef("mark_reconciled needs a commit to attach its record to; commit first")
	}
	if err := w.Load(); err != nil {
		return nil, err
	}
	var only *spec.Spec
	if in.SpecPath != "" {
		sp, err := w.Specs.Resolve(w.Repo.Root(), in.SpecPath)
		if err != nil {
			return nil, err
		}
		only = sp
	}
	res := &MarkResult{Schema: "gloss-spec-mark/v1", Commit: w.Head, Records: []MarkedRecord{}, Skipped: []SkippedFile{}}
	var paths []string
	for _, f := range in.Files {
		p, err := safepath.Clean(w.Repo.Root(), f)
		if err != nil {
			return nil, err
		}
		if !w.Tree.Has(p) {
			reason := "not found in the working tree"
			if slices.Contains(w.Tree.Deleted, p) {
				reason = "deleted: nothing to fingerprint"
			}
			res.Skipped = append(res.Skipped, SkippedFile{Path: p, Reason: reason})
			continue
		}
		paths = append(paths, p)
	}
	slices.Sort(paths)
	paths = slices.Compact(paths)
	hashes, failed := w.Tree.Hashes(paths)
	specs := w.Specs.Usable()
	if only != nil {
		specs = []*spec.Spec{only}
	}
	perSpec := map[string][]string{}
	for _, p := range paths {
		if err := failed[p]; err != nil {
			res.Skipped = append(res.Skipped, SkippedFile{Path: p, Reason: "cannot hash: " + err.Error()})
			continue
		}
		found := false
		for _, sp := range specs {
			if sp.Path == p || sp.Governs(p) {
				perSpec[sp.Path] = append(perSpec[sp.Path], p)
				found = true
			}
		}
		if !found {
			reason := "governed by no spec"
			if only != nil {
				reason = "not governed by " + only.Path
			}
			res.Skipped = append(res.Skipped, SkippedFile{Path: p, Reason: reason})
		}
	}
	if len(perSpec) == 0 {
		return res, nil
	}
	who := actor(ctx, w.Repo, in.Via)
	var recs []any
	counted := map[string]bool{}
	for _, sp := range slices.Sorted(maps.Keys(perSpec)) {
		specHash, sf := w.Tree.Hashes([]string{sp})
		if err := sf[sp]; err != nil {
			return nil, fmt.Errorf("hash %s: %w", sp, err)
		}
		rec := Record{Header: notes.NewHeader(RecordSchema), Kind: KindMark, SpecPath: sp, SpecHash: specHash[sp],
			Files: map[string]string{}, Blobs: map[string]string{}, Base: in.Base, Head: w.Head, Actor: who, ToolVersion: toolVersion()}
		for _, p := range perSpec[sp] {
			if p == sp {
				counted[p] = true
				continue
			}
			rec.Files[p] = hashes[p]
			if f, _ := w.Tree.Lookup(p); f.Blob != "" {
				rec.Blobs[p] = f.Blob
			}
			counted[p] = true
		}
		if len(rec.Blobs) == 0 {
			rec.Blobs = nil
		}
		recs = append(recs, rec)
		res.Records = append(res.Records, MarkedRecord{ID: rec.ID, SpecPath: sp, Files: len(rec.Files)})
	}
	if err := notes.Open(w.Repo, notes.Reconcile).Append(ctx, w.Head, recs...); err != nil {
		return nil, err
	}
	res.Updated = len(counted)
	return res, nil
}

// --- clear_cache ---------------------------------------------------------

// ClearInput is clear_cache's input.
type ClearInput struct {
	SpecPath string `json:"spec_path,omitempty" jsonschema:"clear one spec only; omit to clear every spec"`
	Via      string `json:"-"`
}

// ClearResult is clear_cache's answer.
type ClearResult struct {
	Schema  string `json:"$schema"`
	Cleared bool   `json:"cleared"`
	Scope   string `json:"scope"` // "all" or the spec path
	ID      string `json:"id"`
	Commit  string `json:"commit"`
}

// Clear writes a tombstone: records made before it stop counting (for one
// spec or all). History is kept; nothing is deleted.
func (w *Workspace) Clear(ctx context.Context, in ClearInput) (*ClearResult, error) {
	if w.Head == "" {
		return nil, fault.Usagef("clear_cache needs a commit to attach its tombstone to; commit first")
	}
	if err := w.Load(); err != nil {
		return nil, err
	}
	scope := "all"
	rec := Record{Header: notes.NewHeader(RecordSchema), Kind: KindClear, Head: w.Head, Actor: actor(ctx, w.Repo, in.Via), ToolVersion: toolVersion()}
	if in.SpecPath != "" {
		sp, err := w.Specs.Resolve(w.Repo.Root(), in.SpecPath)
		if err != nil {
			return nil, err
		}
		rec.SpecPath, scope = sp.Path, sp.Path
	}
	if err := notes.Open(w.Repo, notes.Reconcile).Append(ctx, w.Head, rec); err != nil {
		return nil, err
	}
	return &ClearResult{Schema: "gloss-spec-clear/v1", Cleared: true, Scope: scope, ID: rec.ID, Commit: w.Head}, nil
}

// --- snapshot_state ------------------------------------------------------

// SnapshotResult is snapshot_state's answer.
type SnapshotResult struct {
	Schema    string `json:"$schema"`
	StatePath string `json:"state_path"` // repository-relative
	Files     int    `json:"files"`
	Specs     int    `json:"specs"`
	GitHash   string `json:"git_hash"`
}

// Snapshot writes the committed snapshot (.gloss/reconciliation_state.json,
// or .notarai/reconciliation_state.json beside NotarAI's specs, where
// NotarAI reads it too) from what counts now:
// for every spec, its reconciled hash and the fingerprints of the files it
// governs that still exist (stale entries are pruned). Commit the file to
// share a warm start with every clone.
func (w *Workspace) Snapshot(_ context.Context) (*SnapshotResult, error) {
	if err := w.Load(); err != nil {
		return nil, err
	}
	snap := Snapshot{SchemaVersion: "1", CLIVersion: toolVersion(), FileFingerprints: map[string]FileFingerprint{}, SpecFingerprints: map[string]string{}}
	now := time.Now().UTC().Format(time.RFC3339)
	snap.LastReconciliation.Timestamp = now
	if w.Head != "" {
		h := w.Head
		snap.LastReconciliation.GitHash = &h
	}
	if b, err := w.Repo.HeadBranch(); err == nil && b != "" {
		snap.LastReconciliation.Branch = &b
	}
	for _, sp := range w.Specs.Usable() {
		v := w.State.view(sp.Path)
		if !v.warm || v.specHash == "" {
			continue
		}
		snap.SpecFingerprints[sp.Path] = v.specHash
		for p, f := range v.files {
			h := f.h
			if !w.Tree.Has(p) || !(sp.Governs(p)) {
				continue // pruned: gone, or no longer governed
			}
			if old, ok := snap.FileFingerprints[p]; ok && old.Blake3 != h {
				// Two specs saw different versions: keep the one that
				// matches the file now, if any.
				cur, _ := w.Tree.Hashes([]string{p})
				if cur[p] != h {
					continue
				}
			}
			snap.FileFingerprints[p] = FileFingerprint{Blake3: h}
		}
	}
	data, err := json.MarshalIndent(snap, "", "  ")
	if err != nil {
		return nil, err
	}
	data = append(data, '\n')
	statePath := w.Specs.Layout.StatePath
	if err := writeSnapshotFile(w.Repo.Root(), statePath, data); err != nil {
		return nil, fmt.Errorf("write %s: %w", statePath, err)
	}
	return &SnapshotResult{Schema: "gloss-spec-snapshot/v1", StatePath: statePath, Files: len(snap.FileFingerprints), Specs: len(snap.SpecFingerprints), GitHash: w.Head}, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func nonNilR(s []Rename) []Rename { return nonNil(s) }
