// Package reconcile keeps specs and the files they govern in step, with
// all state in git: a reconciliation record per spec in
// refs/notes/gloss/reconcile (attached to the commit where it was made)
// and a NotarAI-compatible snapshot committed at
// .gloss/reconciliation_state.json. It implements NotarAI's six tools —
// list_affected_specs, get_spec_diff, get_changed_artifacts,
// mark_reconciled, clear_cache, snapshot_state — with the reference's
// defects fixed, a per-spec status, and the pre-push drift check.
package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/buildinfo"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/safepath"
	"github.com/gloss-dev/gloss/spec"
)

// RecordSchema tags every reconciliation record.
const RecordSchema = "gloss/reconcile/v1"

// Record kinds.
const (
	KindMark  = "mark"  // the spec was reconciled against these files
	KindClear = "clear" // a tombstone: what came before no longer counts
)

// Record is one line in refs/notes/gloss/reconcile.
type Record struct {
	notes.Header
	Kind        string            `json:"kind"`
	SpecPath    string            `json:"spec_path,omitempty"` // "" on a clear: every spec
	SpecHash    string            `json:"spec_hash,omitempty"` // BLAKE3 of the spec file when marked
	Files       map[string]string `json:"files,omitempty"`     // governed file → BLAKE3
	Blobs       map[string]string `json:"blobs,omitempty"`     // governed file → git blob id (when it was clean)
	Base        string            `json:"base,omitempty"`
	Head        string            `json:"head"`
	Actor       string            `json:"actor"`
	ToolVersion string            `json:"tool_version"`
}

// view is what counts for one spec: the newest fingerprint of each file
// since the last tombstone.
type view struct {
	specHash string
	files    map[string]string // BLAKE3
	blobs    map[string]string // git blob ids
	warm     bool
	source   string // "records", "snapshot", "records+snapshot"
	last     *Record
	records  int
}

// layer is a record or the snapshot, in time order.
type layer struct {
	ms  int64
	id  string
	rec *Record
	// snapshot layer
	snap *Snapshot
}

// State is every reconciliation that counts at a commit: the records on
// that commit and its ancestors, plus the committed snapshot.
type State struct {
	Tip      string
	layers   []layer
	Snapshot *Snapshot
	views    map[string]*view
	Warnings []string
}

// loadState reads the records reachable from tip (a commit id; "" when the
// branch has no commit yet) and the snapshot in tree.
func loadState(ctx context.Context, repo *gitops.Repo, tip string, tree *spec.Tree) (*State, error) {
	st := &State{Tip: tip, views: map[string]*view{}}
	all, _, err := notes.Open(repo, notes.Reconcile).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", notes.Reconcile, err)
	}
	reach := map[string]bool{}
	for obj, recs := range all {
		if tip == "" {
			break
		}
		ok, known := reach[obj]
		if !known {
			ok, err = repo.IsAncestor(obj, tip)
			if err != nil {
				// A note on an object that is not a commit here (or is
				// missing): it cannot be part of this history.
				ok = false
			}
			reach[obj] = ok
		}
		if !ok {
			continue
		}
		for _, r := range notes.Resolve(recs) {
			if r.Schema != RecordSchema {
				continue
			}
			var rec Record
			if err := r.Decode(&rec); err != nil {
				st.Warnings = append(st.Warnings, err.Error())
				continue
			}
			st.layers = append(st.layers, layer{ms: idMillis(rec.ID, rec.Time), id: rec.ID, rec: &rec})
		}
	}
	if tree != nil {
		snap, err := readSnapshot(tree)
		if err != nil {
			st.Warnings = append(st.Warnings, err.Error())
		} else if snap != nil {
			st.Snapshot = snap
			st.layers = append(st.layers, layer{ms: snap.time().UnixMilli(), id: "", snap: snap})
		}
	}
	slices.SortStableFunc(st.layers, func(a, b layer) int {
		if a.ms != b.ms {
			if a.ms < b.ms {
				return -1
			}
			return 1
		}
		return strings.Compare(a.id, b.id)
	})
	_ = ctx
	return st, nil
}

// view computes (once) what counts for the spec at specPath.
func (st *State) view(specPath string) *view {
	if v, ok := st.views[specPath]; ok {
		return v
	}
	v := &view{files: map[string]string{}, blobs: map[string]string{}}
	sources := map[string]bool{}
	for _, l := range st.layers {
		switch {
		case l.snap != nil:
			h, ok := l.snap.SpecFingerprints[specPath]
			if !ok {
				continue
			}
			v.specHash = h
			for p, fp := range l.snap.FileFingerprints {
				if v.files[p] != fp.Blake3 {
					delete(v.blobs, p)
				}
				v.files[p] = fp.Blake3
			}
			v.warm = true
			sources["snapshot"] = true
		case l.rec.Kind == KindClear && (l.rec.SpecPath == "" || l.rec.SpecPath == specPath):
			v = &view{files: map[string]string{}, blobs: map[string]string{}, records: v.records}
			sources = map[string]bool{}
		case l.rec.Kind == KindMark && l.rec.SpecPath == specPath:
			if l.rec.SpecHash != "" {
				v.specHash = l.rec.SpecHash
			}
			for p, h := range l.rec.Files {
				v.files[p] = h
				if b := l.rec.Blobs[p]; b != "" {
					v.blobs[p] = b
				} else {
					delete(v.blobs, p)
				}
			}
			v.warm = true
			v.last = l.rec
			v.records++
			sources["records"] = true
		}
	}
	switch {
	case sources["records"] && sources["snapshot"]:
		v.source = "records+snapshot"
	case sources["records"]:
		v.source = "records"
	case sources["snapshot"]:
		v.source = "snapshot"
	default:
		v.source = "none"
	}
	st.views[specPath] = v
	return v
}

// matches reports whether file p of tree is as the view recorded it. It
// compares git blob ids when both are known (no hashing), else BLAKE3
// hashes from hashes.
func (v *view) matchesBlob(f spec.File) (match, decided bool) {
	if _, ok := v.files[f.Path]; !ok {
		return false, true
	}
	if f.Blob != "" {
		if b, ok := v.blobs[f.Path]; ok {
			if b == f.Blob {
				return true, true
			}
			return false, true
		}
	}
	return false, false
}

// idMillis reads the millisecond timestamp of a ULID, falling back to the
// record's RFC 3339 time.
func idMillis(id, ts string) int64 {
	const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	if len(id) == 26 {
		var ms int64
		ok := true
		for _, c := range id[:10] {
			i := strings.IndexRune(crockford, c)
			if i < 0 {
				ok = false
				break
			}
			ms = ms<<5 | int64(i)
		}
		if ok {
			return ms
		}
	}
	if t, err := time.Parse(time.RFC3339, ts); err == nil {
		return t.UnixMilli()
	}
	return 0
}

// --- snapshot ----------------------------------------------------------

// StatePath is where the committed snapshot lives.
const StatePath = ".gloss/reconciliation_state.json"

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
	if !tree.Has(StatePath) {
		return nil, nil
	}
	data, err := tree.ReadFile(StatePath)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", StatePath, err)
	}
	var s Snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON (%v): ignored", StatePath, err)
	}
	if s.SchemaVersion != "1" {
		return nil, fmt.Errorf("%s has schema_version %q (want \"1\"): ignored", StatePath, s.SchemaVersion)
	}
	return &s, nil
}

// actor names who made a record: $GLOSS_ACTOR, else git's user.
func actor(ctx context.Context, repo *gitops.Repo, via string) string {
	if a := strings.TrimSpace(os.Getenv("GLOSS_ACTOR")); a != "" {
		return a
	}
	name, _, _ := repo.ConfigGet(ctx, "user.name")
	email, _, _ := repo.ConfigGet(ctx, "user.email")
	a := strings.TrimSpace(name)
	if email != "" {
		a = strings.TrimSpace(a + " <" + email + ">")
	}
	if a == "" {
		a = "unknown"
	}
	if via != "" {
		a += " via " + via
	}
	return a
}

func toolVersion() string { return "git-gloss " + buildinfo.Version }

func writeSnapshotFile(root string, data []byte) error {
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := r.MkdirAll(filepath.Dir(StatePath), 0o755); err != nil {
		return err
	}
	return safepath.WriteFile(r, StatePath, data, 0o644)
}
