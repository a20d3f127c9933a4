package attribution

import (
	"context"
	"slices"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// admitter decides, commit by commit, which imported records are written,
// so that an import writes all it reports and reports all it skips: a
// record whose id is already in the commit's note is present; one that
// would change no line's answer — every line it names is attributed on
// firmer ground already (gloss's own capture of the line), or it says
// nothing new — is outranked. The rest are written, and merge with what
// is there line by line (see mergeFile): nothing already recorded is
// replaced by a record that names other lines. A record that is
// forgotten (git gloss forget), or supersedes a forgotten one, is never
// written again: imported ids derive from what is imported, so a
// re-import would otherwise bring it back.
type admitter struct {
	store *notes.Store
	res   *notes.ImportResult
	ts    *notes.Tombstones
	ids   map[string]map[string]bool // commit -> every record id in its note
	live  map[string][]*Record       // commit -> live records, admitted ones included
	out   map[string][]any
}

func newAdmitter(repo *gitops.Repo, res *notes.ImportResult) (*admitter, error) {
	ts, err := notes.LoadTombstones(repo)
	if err != nil {
		return nil, err
	}
	return &admitter{store: notes.Open(repo, Ref), res: res, ts: ts, ids: map[string]map[string]bool{}, live: map[string][]*Record{}, out: map[string][]any{}}, nil
}

// load reads a commit's note once.
func (a *admitter) load(commit string) error {
	if a.ids[commit] != nil {
		return nil
	}
	existing, err := a.store.Read([]string{commit})
	if err != nil {
		return err
	}
	a.ids[commit] = map[string]bool{}
	for _, r := range existing[commit] {
		a.ids[commit][r.ID] = true
	}
	if ca := resolve(existing[commit]); ca != nil {
		a.live[commit] = ca.recs
	}
	return nil
}

// add counts rec as forgotten, written, present or outranked.
func (a *admitter) add(commit string, rec Record) error {
	if a.ts.Forgotten(rec.ID) || slices.ContainsFunc(rec.Supersedes, a.ts.Forgotten) {
		a.res.Forgotten++
		return nil
	}
	if err := a.load(commit); err != nil {
		return err
	}
	if a.ids[commit][rec.ID] {
		a.res.Present++
		return nil
	}
	before := a.live[commit]
	after := liveAfter(before, &rec)
	if sameAttribution(before, after) {
		a.res.Outranked++
		return nil
	}
	a.ids[commit][rec.ID] = true
	a.live[commit] = after
	a.out[commit] = append(a.out[commit], rec)
	a.res.Written++
	return nil
}

// write stores every admitted record.
func (a *admitter) write(ctx context.Context) error {
	return a.store.AppendMany(ctx, a.out)
}

// liveAfter is live with rec added and what rec supersedes dropped.
func liveAfter(live []*Record, rec *Record) []*Record {
	gone := map[string]bool{}
	for _, id := range rec.Supersedes {
		gone[id] = true
	}
	out := make([]*Record, 0, len(live)+1)
	for _, r := range live {
		if !gone[r.ID] {
			out = append(out, r)
		}
	}
	return append(out, rec)
}

// sameAttribution reports whether two sets of live records give every
// line of every file the same contributor.
func sameAttribution(a, b []*Record) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	ma, mb := merged(append([]*Record(nil), a...)), merged(append([]*Record(nil), b...))
	if len(ma.files) != len(mb.files) {
		return false
	}
	for path, sa := range ma.files {
		sb, ok := mb.files[path]
		if !ok || len(sa) != len(sb) {
			return false
		}
		for i := range sa {
			if sa[i].start != sb[i].start || sa[i].end != sb[i].end || *sa[i].c != *sb[i].c {
				return false
			}
		}
	}
	return true
}
