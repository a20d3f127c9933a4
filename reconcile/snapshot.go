package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

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
