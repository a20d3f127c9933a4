package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/safepath"
	"github.com/gloss-dev/gloss/spec"
)

// StatePath is where the committed snapshot lives by default; a
// repository whose specs live in .notarai keeps it there
// (spec.Layout.StatePath), and NotarAI's own file is read as is.
const StatePath = spec.DefaultStatePath

// Snapshot is .gloss/reconciliation_state.json, in NotarAI's format
// (schema_version "1"): key order as NotarAI writes it, fingerprint maps
// sorted by path. gloss writes RFC 3339 timestamps and reads NotarAI's
// epoch-seconds-"Z" ones too.
type Snapshot struct {
	SchemaVersion      string                     `json:"schema_version"`
	CLIVersion         string                     `json:"cli_version,omitempty"`
	LastReconciliation LastReconciliation         `json:"last_reconciliation"`
	FileFingerprints   map[string]FileFingerprint `json:"file_fingerprints"`
	SpecFingerprints   map[string]string          `json:"spec_fingerprints"`
}

// LastReconciliation is the snapshot's baseline.
type LastReconciliation struct {
	Timestamp string  `json:"timestamp"`
	GitHash   *string `json:"git_hash"`
	Branch    *string `json:"branch"`
}

// FileFingerprint is one file's hash in the snapshot.
type FileFingerprint struct {
	Blake3 string `json:"blake3"`
}

func (s *Snapshot) time() time.Time {
	ts := s.LastReconciliation.Timestamp
	if t, err := time.Parse(time.RFC3339, ts); err == nil {
		return t
	}
	if n, err := strconv.ParseInt(strings.TrimSuffix(ts, "Z"), 10, 64); err == nil {
		return time.Unix(n, 0)
	}
	return time.Time{}
}

func readSnapshot(tree *spec.Tree) (*Snapshot, error) {
	layout, err := tree.Layout()
	if err != nil {
		return nil, err
	}
	statePath := layout.StatePath
	if !tree.Has(statePath) {
		return nil, nil
	}
	data, err := tree.ReadFile(statePath)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", statePath, err)
	}
	var s Snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON (%v): ignored", statePath, err)
	}
	if s.SchemaVersion != "1" {
		return nil, fmt.Errorf("%s has schema_version %q (want \"1\"): ignored", statePath, s.SchemaVersion)
	}
	return &s, nil
}

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
	snap.LastReconciliation.Timestamp = time.Now().UTC().Format(time.RFC3339)
	prev := w.notaraiSnapshot()
	if prev != nil {
		// NotarAI's file stays NotarAI's: its epoch-seconds timestamp and
		// the version of the NotarAI that wrote it, so a team running
		// both tools sees no churn beyond the fingerprints that changed.
		snap.CLIVersion = prev.CLIVersion
		snap.LastReconciliation.Timestamp = strconv.FormatInt(time.Now().Unix(), 10) + "Z"
	}
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
	if prev != nil {
		// NotarAI fingerprints every file it was told about, governed or
		// not (its cache is global); gloss has no say on files no spec
		// governs, so their entries stay as NotarAI wrote them.
		for p, fp := range prev.FileFingerprints {
			if _, ok := snap.FileFingerprints[p]; !ok && !w.governed(p) {
				snap.FileFingerprints[p] = fp
			}
		}
	}
	data, err := json.MarshalIndent(snap, "", "  ")
	if err != nil {
		return nil, err
	}
	data = append(data, '\n')
	statePath := w.Specs.Layout.StatePath
	if err := writeSnapshotFile(w.Repo, statePath, data); err != nil {
		return nil, fmt.Errorf("write %s: %w", statePath, err)
	}
	return &SnapshotResult{Schema: "gloss-spec-snapshot/v1", StatePath: statePath, Files: len(snap.FileFingerprints), Specs: len(snap.SpecFingerprints), GitHash: w.Head}, nil
}

func writeSnapshotFile(repo *gitops.Repo, statePath string, data []byte) error {
	tree, err := safepath.ForRepo(repo)
	if err != nil {
		return err
	}
	defer tree.Close()
	return tree.WriteFile(statePath, data, 0o644)
}

// notaraiSnapshot is the committed snapshot when NotarAI wrote it — in
// NotarAI's folder, with NotarAI's epoch-seconds timestamp or a
// cli_version that is not gloss's — and nil otherwise. The format is
// NotarAI's save_state
// (https://github.com/davidroeca/NotarAI/blob/0030d7d/src/core/state.rs).
func (w *Workspace) notaraiSnapshot() *Snapshot {
	if w.Specs.Layout.StatePath != spec.NotarAIStatePath {
		return nil
	}
	prev, err := readSnapshot(w.Specs.Tree)
	if err != nil || prev == nil {
		return nil
	}
	ts := prev.LastReconciliation.Timestamp
	epoch := strings.HasSuffix(ts, "Z") && len(ts) > 1 && strings.Trim(ts[:len(ts)-1], "0123456789") == ""
	if !epoch && strings.HasPrefix(prev.CLIVersion, "git-gloss") {
		return nil
	}
	return prev
}

// governed says whether any usable spec governs p.
func (w *Workspace) governed(p string) bool {
	for _, sp := range w.Specs.Usable() {
		if sp.Governs(p) {
			return true
		}
	}
	return false
}
