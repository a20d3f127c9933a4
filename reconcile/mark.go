package reconcile

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/safepath"
	"github.com/gloss-dev/gloss/spec"
)

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
