package reconcile

import (
	"context"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/notes"
)

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
