package reconcile

import (
	"github.com/gloss-dev/gloss/spec"
)

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
