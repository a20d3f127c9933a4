package reconcile

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/fault"
)

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
	// The answer repeats the category (and warns with it when unknown).
	if len(in.ArtifactType) > fault.MaxQuote {
		return nil, fault.Usagef("an artifact_type is at most %d bytes", fault.MaxQuote)
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
