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
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/buildinfo"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/runenv"
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

	fps map[string]fp
}

// view is what counts for one spec: the newest fingerprint of each file
// since the last tombstone.
type view struct {
	specHash string
	files    map[string]fp
	shared   bool // files belongs to a record: copy before changing
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
	notesTip, err := repo.RefTarget(notes.Reconcile)
	if err != nil {
		return nil, err
	}
	key := notesTip + " " + tip
	if recs, warns, ok := readRecordCache(repo, key); ok {
		for i := range recs {
			st.layers = append(st.layers, layer{ms: idMillis(recs[i].ID, recs[i].Time), id: recs[i].ID, rec: &recs[i]})
		}
		st.Warnings = warns
	} else {
		if err := st.readRecords(repo, tip); err != nil {
			return nil, err
		}
		var recs []Record
		for _, l := range st.layers {
			recs = append(recs, *l.rec)
		}
		writeRecordCache(repo, key, recs, st.Warnings)
	}
	st.sortLayers()
	if tree != nil {
		if err := st.addSnapshot(tree); err != nil {
			return nil, err
		}
	}
	_ = ctx
	return st, nil
}

// readRecords reads every record on a commit reachable from tip.
func (st *State) readRecords(repo *gitops.Repo, tip string) error {
	if tip == "" {
		return nil
	}
	all, _, err := notes.Open(repo, notes.Reconcile).ReadAll()
	if err != nil {
		return fmt.Errorf("read %s: %w", notes.Reconcile, err)
	}
	for obj, recs := range all {
		ok, err := repo.IsAncestor(obj, tip)
		if err != nil || !ok {
			// Not in this history (or not a commit here at all).
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
	return nil
}

// The records that count at a commit are cached under the git dir, keyed
// by the notes ref's tip and the commit: rebuildable, never pushed, and
// invalid as soon as either moves. The format is plain lines of
// tab-separated fields, read back as substrings of one string, so that a
// record of ten thousand files loads without ten thousand allocations.
const (
	recordCacheFile = "reconcile-records.cache"
	recordCacheHead = "gloss-reconcile-cache v1"
)

func readRecordCache(repo *gitops.Repo, key string) ([]Record, []string, bool) {
	dir, err := repo.GlossDir()
	if err != nil {
		return nil, nil, false
	}
	data, err := os.ReadFile(filepath.Join(dir, recordCacheFile))
	if err != nil {
		return nil, nil, false
	}
	text := string(data)
	line := func() (string, bool) {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			return "", false
		}
		l := text[:i]
		text = text[i+1:]
		return l, true
	}
	if h, ok := line(); !ok || h != recordCacheHead {
		return nil, nil, false
	}
	if k, ok := line(); !ok || k != key {
		return nil, nil, false
	}
	var recs []Record
	var warnings []string
	for len(text) > 0 {
		l, ok := line()
		if !ok {
			return nil, nil, false
		}
		kind, rest, _ := strings.Cut(l, "\t")
		switch kind {
		case "W":
			warnings = append(warnings, rest)
		case "R":
			f := strings.Split(rest, "\t")
			if len(f) != 11 {
				return nil, nil, false
			}
			n, err := strconv.Atoi(f[10])
			if err != nil {
				return nil, nil, false
			}
			rec := Record{Header: notes.Header{Schema: RecordSchema, ID: f[0], Time: f[1]}, Kind: f[2], SpecPath: f[3], SpecHash: f[4],
				Base: f[5], Head: f[6], Actor: f[7], ToolVersion: f[8]}
			if f[9] != "" {
				rec.Supersedes = strings.Split(f[9], ",")
			}
			rec.fps = make(map[string]fp, n)
			for range n {
				fl, ok := line()
				if !ok {
					return nil, nil, false
				}
				p, hb, ok1 := strings.Cut(fl, "\t")
				h, b, ok2 := strings.Cut(hb, "\t")
				if !ok1 || !ok2 {
					return nil, nil, false
				}
				rec.fps[p] = fp{h: h, blob: b}
			}
			recs = append(recs, rec)
		default:
			return nil, nil, false
		}
	}
	return recs, warnings, true
}

func writeRecordCache(repo *gitops.Repo, key string, recs []Record, warnings []string) {
	dir, err := repo.GlossDir()
	if err != nil {
		return
	}
	clean := func(s string) bool { return !strings.ContainsAny(s, "\t\n") }
	var b strings.Builder
	b.WriteString(recordCacheHead + "\n" + key + "\n")
	for _, w := range warnings {
		b.WriteString("W\t" + strings.NewReplacer("\n", " ", "\t", " ").Replace(w) + "\n")
	}
	for _, r := range recs {
		fields := []string{r.ID, r.Time, r.Kind, r.SpecPath, r.SpecHash, r.Base, r.Head, r.Actor, r.ToolVersion, strings.Join(r.Supersedes, ",")}
		for _, f := range fields {
			if !clean(f) {
				return // a field this format cannot hold: no cache
			}
		}
		b.WriteString("R\t" + strings.Join(fields, "\t") + "\t" + strconv.Itoa(len(r.Files)) + "\n")
		for p, h := range r.Files {
			if !clean(p) || !clean(h) {
				return
			}
			b.WriteString(p + "\t" + h + "\t" + r.Blobs[p] + "\n")
		}
	}
	_ = atomicfile.Write(filepath.Join(dir, recordCacheFile), []byte(b.String()), 0o644)
}

// addSnapshot adds the committed snapshot of tree as a layer (replacing
// one added before).
func (st *State) addSnapshot(tree *spec.Tree) error {
	st.layers = slices.DeleteFunc(st.layers, func(l layer) bool { return l.snap != nil })
	st.Snapshot = nil
	st.views = map[string]*view{}
	snap, err := readSnapshot(tree)
	if err != nil {
		st.Warnings = append(st.Warnings, err.Error())
		return nil
	}
	if snap != nil {
		st.Snapshot = snap
		st.layers = append(st.layers, layer{ms: snap.time().UnixMilli(), id: "", snap: snap})
		st.sortLayers()
	}
	return nil
}

func (st *State) sortLayers() {
	slices.SortStableFunc(st.layers, func(a, b layer) int {
		if a.ms != b.ms {
			if a.ms < b.ms {
				return -1
			}
			return 1
		}
		return strings.Compare(a.id, b.id)
	})
}

// fp is one file's recorded fingerprint: BLAKE3, and the git blob id when
// the file was clean (content as committed) when it was recorded.
type fp struct{ h, blob string }

// fingerprints returns the record's files as one map, built once.
func (r *Record) fingerprints() map[string]fp {
	if r.fps == nil {
		r.fps = make(map[string]fp, len(r.Files))
		for p, h := range r.Files {
			r.fps[p] = fp{h: h, blob: r.Blobs[p]}
		}
	}
	return r.fps
}

// own makes the view's map its own before changing it (a view starts by
// sharing its first record's map: the common case of one record is free).
func (v *view) own() {
	if v.shared {
		m := make(map[string]fp, len(v.files))
		for k, x := range v.files {
			m[k] = x
		}
		v.files, v.shared = m, false
	}
}

// view computes (once) what counts for the spec at specPath.
func (st *State) view(specPath string) *view {
	if v, ok := st.views[specPath]; ok {
		return v
	}
	v := &view{files: map[string]fp{}}
	sources := map[string]bool{}
	for _, l := range st.layers {
		switch {
		case l.snap != nil:
			h, ok := l.snap.SpecFingerprints[specPath]
			if !ok {
				continue
			}
			v.specHash = h
			v.own()
			for p, f := range l.snap.FileFingerprints {
				old := v.files[p]
				if old.h == f.Blake3 {
					continue // same content: keep the blob id
				}
				v.files[p] = fp{h: f.Blake3}
			}
			v.warm = true
			sources["snapshot"] = true
		case l.rec.Kind == KindClear && (l.rec.SpecPath == "" || l.rec.SpecPath == specPath):
			v = &view{files: map[string]fp{}, records: v.records}
			sources = map[string]bool{}
		case l.rec.Kind == KindMark && l.rec.SpecPath == specPath:
			if l.rec.SpecHash != "" {
				v.specHash = l.rec.SpecHash
			}
			if len(v.files) == 0 {
				v.files, v.shared = l.rec.fingerprints(), true
			} else {
				v.own()
				for p, f := range l.rec.fingerprints() {
					v.files[p] = f
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

// matchesBlob decides whether file f is as the view recorded it from git
// blob ids alone; decided is false when only hashing can tell.
func (v *view) matchesBlob(f spec.File) (match, decided bool) {
	r, ok := v.files[f.Path]
	if !ok {
		return false, true
	}
	if f.Blob != "" && r.blob != "" {
		return r.blob == f.Blob, true
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

// actor names who made a record: runenv.Actor, else git's user.
func actor(ctx context.Context, repo *gitops.Repo, via string) string {
	if a := strings.TrimSpace(os.Getenv(runenv.Actor)); a != "" {
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
