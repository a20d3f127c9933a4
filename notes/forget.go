package notes

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/schemas"
)

// ForgottenRef holds the tombstones: one record per forgotten record id,
// never the forgotten text. It is a notes ref like the others, so sync
// carries it to every clone with the refspec it already uses; it merges as
// a union, so no merge ever drops a tombstone.
const ForgottenRef = RefPrefix + "forgotten"

// Schemas of the records in ForgottenRef.
const (
	TombstoneSchema = "gloss/forgotten/v1"
	PurgeSchema     = "gloss/purge/v1"
)

// Tombstone says that a record id is forgotten: every merge, import and
// carry drops a record with that id, and any record that supersedes it (a
// copy made by amend, rebase, cherry-pick or carry, or a correction, both of
// which may repeat its text).
type Tombstone struct {
	Header
	Forgets string `json:"forgets"`
	Ref     string `json:"ref,omitempty"`
	Object  string `json:"object,omitempty"`
	CopyOf  string `json:"copy_of,omitempty"` // set when the record was forgotten as a copy of CopyOf (it supersedes it, or holds its text)
	Reason  string `json:"reason,omitempty"`
	By      string `json:"by,omitempty"`
	// What recognises the record's copies (copies.go): the commits it came
	// from, fingerprints of its text strings and of its anchor's name.
	// Never the text.
	From   []string `json:"from,omitempty"`
	Text   []string `json:"text,omitempty"`
	Anchor string   `json:"anchor,omitempty"`
}

// PurgeMarker says that Ref's history was replaced by a new one starting at
// Root, so that no object reachable from it holds forgotten text. A clone
// whose ref does not contain Root, while the remote's does, adopts the new
// history instead of merging the old one back.
type PurgeMarker struct {
	Header
	Ref      string `json:"ref"`
	Root     string `json:"root"`
	Replaces string `json:"replaces,omitempty"` // the tip the purge replaced: the merge base for clones catching up
	Reason   string `json:"reason,omitempty"`
	By       string `json:"by,omitempty"`
}

// Tombstones is what ForgottenRef says: forgotten ids and purges.
type Tombstones struct {
	Tip    string
	ids    map[string]Tombstone
	purges []PurgeMarker   // oldest first
	copies copies          // the forgotten records' prints, to recognise their copies
	text   map[string]bool // every forgotten text print, for the session state
}

// LoadTombstones reads ForgottenRef.
func LoadTombstones(repo *gitops.Repo) (*Tombstones, error) {
	all, st, err := Open(repo, ForgottenRef).ReadAll()
	if err != nil {
		return nil, err
	}
	ts := &Tombstones{Tip: st.Tip, ids: map[string]Tombstone{}}
	for _, recs := range all {
		for _, r := range recs {
			switch r.Schema {
			case TombstoneSchema:
				var t Tombstone
				if r.Decode(&t) == nil && t.Forgets != "" {
					if _, seen := ts.ids[t.Forgets]; !seen {
						ts.learn(t)
					}
				}
			case PurgeSchema:
				var p PurgeMarker
				if r.Decode(&p) == nil && p.Ref != "" && p.Root != "" && !slices.ContainsFunc(ts.purges, func(q PurgeMarker) bool { return q.ID == p.ID }) {
					ts.purges = append(ts.purges, p)
				}
			}
		}
	}
	slices.SortFunc(ts.purges, func(a, b PurgeMarker) int { return strings.Compare(a.ID, b.ID) })
	return ts, nil
}

// learn adds a tombstone to what ts knows.
func (ts *Tombstones) learn(t Tombstone) {
	ts.ids[t.Forgets] = t
	ts.copies.add(t.Forgets, recordPrint{text: t.Text, anchor: t.Anchor, from: t.From})
	if ts.text == nil {
		ts.text = map[string]bool{}
	}
	for _, p := range t.Text {
		ts.text[p] = true
	}
}

// TextForgotten reports whether a forgotten record held a string whose
// TextPrint is print: the session state drops prompts that became one.
func (ts *Tombstones) TextForgotten(print string) bool { return ts.text[print] }

// Forgotten reports whether id has a tombstone.
func (ts *Tombstones) Forgotten(id string) bool {
	_, ok := ts.ids[id]
	return ok
}

// Len is the number of forgotten ids.
func (ts *Tombstones) Len() int { return len(ts.ids) }

// Drops reports whether a record must not be stored: its id is forgotten,
// it supersedes a forgotten record, or it is a copy of one (copies.go).
// Chains through other records are followed by Keep.
func (ts *Tombstones) Drops(r Record) bool {
	if ts.Forgotten(r.ID) || slices.ContainsFunc(r.Supersedes, ts.Forgotten) {
		return true
	}
	return ts.copies.copyOf(r.Raw, "") != ""
}

// Keep returns the records of one note (on object, in ref) that are not
// forgotten, following chains within them, and what it dropped.
func (ts *Tombstones) Keep(ref, object string, recs []Record) ([]Record, []ForgottenRecord) {
	if ts.Len() == 0 {
		return recs, nil
	}
	var data []byte
	for _, r := range recs {
		data = append(append(data, r.Raw...), '\n')
	}
	_, removed := ts.filter(ref, map[string][]byte{object: data})
	if len(removed) == 0 {
		return recs, nil
	}
	gone := map[string]bool{}
	for _, r := range removed {
		gone[r.ID] = true
	}
	return slices.DeleteFunc(slices.Clone(recs), func(r Record) bool { return gone[r.ID] }), removed
}

// Record gives the copies Keep found tombstones of their own and removes
// them from every note of ref that still holds them (a full sweep: rare,
// only when a copy turned up).
func (ts *Tombstones) Record(ctx context.Context, repo *gitops.Repo, ref string, found []ForgottenRecord) error {
	if len(found) == 0 {
		return nil
	}
	if err := ts.add(ctx, repo, found, "", ""); err != nil {
		return err
	}
	_, err := sweep(ctx, repo, ref, ts, "")
	return err
}

// ForgottenRecord is one record a forget or a sweep removed.
type ForgottenRecord struct {
	ID     string `json:"id"`
	Ref    string `json:"ref"`
	Object string `json:"object"`
	CopyOf string `json:"copy_of,omitempty" jsonschema:"the forgotten record this one is a copy of (it supersedes it, or was carried from it with its text) or a correction of"`

	print recordPrint // for its tombstone
}

// filter removes forgotten records from notes (object -> note): those
// with a tombstone, those that supersede a forgotten one, and copies of a
// forgotten one (copies.go), transitively within notes. It returns the
// changed notes (nil Data: the note is now empty) and what it removed.
func (ts *Tombstones) filter(ref string, notes map[string][]byte) ([]gitops.NoteChange, []ForgottenRecord) {
	gone := map[string]string{} // id -> copy_of ("" for a tombstoned id)
	for id := range ts.ids {
		gone[id] = ""
	}
	found := ts.copies // grows with the copies found here
	found.byFrom = maps.Clone(found.byFrom)
	parsed := map[string][]Record{}
	objects := make([]string, 0, len(notes))
	for obj, data := range notes {
		objects = append(objects, obj)
		parsed[obj], _ = Parse(data)
	}
	slices.Sort(objects)
	// The forgotten records found here are the first origins of copies
	// (their tombstones may predate prints, or be written from this).
	prints := map[string]recordPrint{}
	for _, obj := range objects {
		for _, r := range parsed[obj] {
			if _, ok := gone[r.ID]; ok {
				prints[r.ID] = printOf(r.Raw, obj)
				found.add(r.ID, prints[r.ID])
			}
		}
	}
	for grew := true; grew; {
		grew = false
		for _, obj := range objects {
			for _, r := range parsed[obj] {
				if _, ok := gone[r.ID]; ok {
					continue
				}
				of := ""
				for _, s := range r.Supersedes {
					if _, ok := gone[s]; ok {
						of = s
						break
					}
				}
				if of == "" {
					of = found.copyOf(r.Raw, obj)
				}
				if of != "" {
					gone[r.ID], grew = of, true
					prints[r.ID] = printOf(r.Raw, obj)
					found.add(r.ID, prints[r.ID])
				}
			}
		}
	}
	var changes []gitops.NoteChange
	var removed []ForgottenRecord
	for _, obj := range objects {
		kept, drop := dropLines(notes[obj], func(id string) bool { _, ok := gone[id]; return ok })
		if len(drop) == 0 {
			continue
		}
		for _, id := range drop {
			removed = append(removed, ForgottenRecord{ID: id, Ref: ref, Object: obj, CopyOf: gone[id], print: prints[id]})
		}
		if len(strings.TrimSpace(string(kept))) == 0 {
			kept = nil
		}
		changes = append(changes, gitops.NoteChange{Object: obj, Data: kept})
	}
	return changes, removed
}

// dropLines removes every line of note that is a record whose id gone
// reports, keeping every other line byte for byte. It returns the ids it
// removed, once each.
func dropLines(note []byte, gone func(string) bool) ([]byte, []string) {
	var out []byte
	var ids []string
	for _, line := range strings.SplitAfter(string(note), "\n") {
		if t := strings.TrimSpace(line); t != "" {
			if rec, err := parseLine([]byte(t)); err == nil && gone(rec.ID) {
				if !slices.Contains(ids, rec.ID) {
					ids = append(ids, rec.ID)
				}
				continue
			}
		}
		out = append(out, line...)
	}
	return out, ids
}

// sweep removes forgotten records from ref: from every note (since == "")
// or from the notes changed since the notes commit since. Copies it finds
// (records superseding a forgotten one) get tombstones of their own first,
// so that every clone drops them too.
func sweep(ctx context.Context, repo *gitops.Repo, ref string, ts *Tombstones, since string) ([]ForgottenRecord, error) {
	if ts.Len() == 0 {
		return nil, nil
	}
	find := func(snap *gitops.Notes) ([]gitops.NoteChange, []ForgottenRecord, error) {
		var entries []gitops.NoteEntry
		var err error
		if since == "" || since == snap.Tip {
			if since != "" {
				return nil, nil, nil
			}
			entries, err = snap.List()
		} else {
			entries, err = changedSince(repo, since, snap.Tip, snap)
		}
		if err != nil {
			return nil, nil, err
		}
		data := map[string][]byte{}
		for _, e := range entries {
			if e.Blob == "" {
				continue
			}
			if data[e.Object], err = repo.ReadBlob(e.Blob); err != nil {
				return nil, nil, err
			}
		}
		changes, removed := ts.filter(ref, data)
		return changes, removed, nil
	}
	snap, err := repo.ReadNotes(ref)
	if err != nil {
		return nil, err
	}
	read := snap.Tip
	changes, removed, err := find(snap)
	snap.Close()
	if err != nil || len(removed) == 0 {
		return nil, err
	}
	if err := ts.add(ctx, repo, removed, "", ""); err != nil {
		return nil, err
	}
	err = Open(repo, ref).update(ctx, "gloss: remove forgotten records", func(n *gitops.Notes) ([]gitops.NoteChange, error) {
		if n.Tip == read {
			return changes, nil // nobody wrote in between: what was found stands
		}
		var err error
		changes, removed, err = find(n)
		return changes, err
	})
	return removed, err
}

// add writes tombstones for the removed records that have none yet (the
// copies a filter found), and learns them.
func (ts *Tombstones) add(ctx context.Context, repo *gitops.Repo, recs []ForgottenRecord, reason, by string) error {
	out := map[string][]any{}
	for _, r := range recs {
		if ts.Forgotten(r.ID) {
			continue
		}
		t := Tombstone{Header: NewHeader(TombstoneSchema), Forgets: r.ID, Ref: r.Ref, Object: r.Object, CopyOf: r.CopyOf, Reason: reason, By: by,
			From: r.print.from, Text: r.print.text, Anchor: r.print.anchor}
		if t.CopyOf != "" && reason == "" {
			t.Reason = "a copy of forgotten record " + t.CopyOf
		}
		ts.learn(t)
		out[r.Object] = append(out[r.Object], t)
	}
	if len(out) == 0 {
		return nil
	}
	return Open(repo, ForgottenRef).AppendMany(ctx, out)
}

// ForgetOptions says what to forget.
type ForgetOptions struct {
	IDs    []string
	Reason string // required; stored in the tombstone, so it must not repeat the secret
	By     string // who forgets (the user's git identity)
	Purge  bool   // also replace the history of the refs that held the records
}

// PurgedRef is one notes ref whose history a purge replaced.
type PurgedRef struct {
	Ref              string   `json:"ref"`
	Old              string   `json:"old" jsonschema:"the tip the purge replaced"`
	New              string   `json:"new" jsonschema:"the new root commit: the same notes without the forgotten records, and no history"`
	DroppedTracking  []string `json:"dropped_tracking_refs" jsonschema:"remote-tracking notes refs deleted because they still held the old history"`
	ExpiredReflogs   []string `json:"expired_reflogs"`
	UnreachableUntil string   `json:"unreachable_until" jsonschema:"what still holds the old objects locally"`
}

// ForgetResult is `git gloss forget`'s answer.
type ForgetResult struct {
	Schema    string            `json:"$schema"`
	Forgotten []ForgottenRecord `json:"forgotten"`
	Already   []string          `json:"already_forgotten" jsonschema:"ids that had a tombstone already and are no longer stored"`
	Purged    []PurgedRef       `json:"purged"`
	// SessionPrompts is filled in by the caller that clears the agents'
	// session state (agent.ForgetPrompts), which this package cannot see.
	SessionPrompts int      `json:"session_prompts" jsonschema:"prompt summaries dropped from the agents' session state under the git dir because a forgotten record held them"`
	Next           []string `json:"next_steps"`
}

func init() {
	schemas.Register(schemas.Entry{Name: "forget", Tag: "gloss-forget/v1", Description: "What git gloss forget removed, and what the team must run next.", Type: schemas.TypeOf[ForgetResult]()})
}

// Forget tombstones records by id and removes them, with every record that
// supersedes them, from every gloss notes ref; with Purge it also replaces
// the history of the refs that held them (see Purge). It refuses, before
// writing anything, an id that is stored nowhere and has no tombstone.
func Forget(ctx context.Context, repo *gitops.Repo, opts ForgetOptions) (*ForgetResult, error) {
	if len(opts.IDs) == 0 {
		return nil, fault.Usagef("name at least one record id to forget")
	}
	if strings.TrimSpace(opts.Reason) == "" {
		return nil, fault.Usagef("say why with --reason (stored in the tombstone, so do not repeat the secret)")
	}
	ts, err := LoadTombstones(repo)
	if err != nil {
		return nil, err
	}
	refs, err := dataRefs(repo)
	if err != nil {
		return nil, err
	}
	res := &ForgetResult{Schema: "gloss-forget/v1", Forgotten: []ForgottenRecord{}, Already: []string{}, Purged: []PurgedRef{}, Next: []string{}}
	want := map[string]bool{}
	for _, id := range opts.IDs {
		want[id] = true
	}
	// Find where each id is stored, and what supersedes it.
	found := map[string]ForgottenRecord{}
	purgeRefs := map[string]bool{}
	asked := &Tombstones{ids: map[string]Tombstone{}}
	for id := range want {
		asked.ids[id] = Tombstone{}
	}
	for _, ref := range refs {
		all, _, err := Open(repo, ref).ReadAll()
		if err != nil {
			return nil, err
		}
		data := map[string][]byte{}
		for obj, recs := range all {
			for _, r := range recs {
				data[obj] = append(append(data[obj], r.Raw...), '\n')
			}
		}
		_, removed := asked.filter(ref, data)
		for _, r := range removed {
			if _, seen := found[r.ID]; !seen {
				found[r.ID] = r
			}
			purgeRefs[ref] = true
		}
	}
	for _, id := range opts.IDs {
		if _, ok := found[id]; ok {
			continue
		}
		t, ok := ts.ids[id]
		if !ok {
			return nil, fault.NotFoundf("no record %s in any gloss notes ref (%s*), and it was never forgotten", id, RefPrefix)
		}
		if !slices.Contains(res.Already, id) {
			res.Already = append(res.Already, id)
		}
		if t.Ref != "" {
			purgeRefs[t.Ref] = true
		}
	}
	ids := make([]string, 0, len(found))
	for id := range found {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var recs []ForgottenRecord
	for _, id := range ids {
		recs = append(recs, found[id])
	}
	if err := ts.add(ctx, repo, recs, opts.Reason, opts.By); err != nil {
		return nil, err
	}
	for _, ref := range refs {
		removed, err := sweep(ctx, repo, ref, ts, "")
		if err != nil {
			return nil, err
		}
		res.Forgotten = append(res.Forgotten, removed...)
	}
	if !opts.Purge {
		res.Next = append(res.Next,
			"git gloss sync: the tombstones travel to the remote and every clone that syncs drops the records",
			"the text stays in the notes history; run git gloss forget --purge with the same ids to remove it from there too")
		return res, nil
	}
	anchor := ""
	if len(recs) > 0 {
		anchor = recs[0].Object
	}
	for _, ref := range slices.Sorted(maps.Keys(purgeRefs)) {
		p, err := Purge(ctx, repo, ref, anchor, opts.Reason, opts.By, ts)
		if err != nil {
			return res, err
		}
		if p != nil {
			res.Purged = append(res.Purged, *p)
		}
	}
	res.Next = append(res.Next,
		"git gloss sync --purge: replaces the remote's notes history (a force-update, printed) and pushes the tombstones",
		"on every other clone: git gloss sync (it sees the purge marker, adopts the new history and drops its copies of the old one)",
		"optional, on each clone, to delete the unreachable old objects now (git gc --prune=now): git gloss sync --prune-now",
		"the remote keeps the old objects unreachable until it is garbage-collected (a hosting service may need to be asked); clones that never sync again keep the text")
	return res, nil
}

// dataRefs lists the gloss notes refs that hold records (all but
// ForgottenRef).
func dataRefs(repo *gitops.Repo) ([]string, error) {
	all, err := repo.ListRefs(RefPrefix + "*")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range all {
		if r.Name != ForgottenRef {
			out = append(out, r.Name)
		}
	}
	return out, nil
}

// Purge replaces the history of ref with one new root commit holding its
// current notes, minus forgotten records, so that no commit, tree or blob
// reachable from ref holds forgotten text. The purge marker (recorded in
// ForgottenRef on the note of anchor, before the ref moves) tells other
// clones to adopt the new history; remote-tracking refs that still hold
// the old one are deleted and the reflogs of both are expired.
func Purge(ctx context.Context, repo *gitops.Repo, ref, anchor, reason, by string, ts *Tombstones) (*PurgedRef, error) {
	for {
		snap, err := repo.ReadNotes(ref)
		if err != nil {
			return nil, err
		}
		if snap.Tip == "" {
			snap.Close()
			return nil, nil
		}
		entries, err := snap.List()
		if err != nil {
			snap.Close()
			return nil, err
		}
		data := map[string][]byte{}
		for _, e := range entries {
			if data[e.Object], err = repo.ReadBlob(e.Blob); err != nil {
				snap.Close()
				return nil, err
			}
		}
		changes, _ := ts.filter(ref, data)
		root, err := repo.NotesCommit(snap, changes, nil, "gloss: purged history of "+ref)
		snap.Close()
		if err != nil {
			return nil, err
		}
		if anchor == "" && len(entries) > 0 {
			anchor = entries[0].Object
		}
		if anchor == "" {
			return nil, fmt.Errorf("purge %s: no object to attach the purge marker to", ref)
		}
		m := PurgeMarker{Header: NewHeader(PurgeSchema), Ref: ref, Root: root, Replaces: snap.Tip, Reason: reason, By: by}
		if err := Open(repo, ForgottenRef).Append(ctx, anchor, m); err != nil {
			return nil, err
		}
		ts.purges = append(ts.purges, m)
		err = repo.UpdateRef(ref, root, snap.Tip, "gloss: purge")
		if err == gitops.ErrRefChanged {
			continue // a writer got in between; the marker written is harmless (its root is in no history)
		}
		if err != nil {
			return nil, err
		}
		p := &PurgedRef{Ref: ref, Old: snap.Tip, New: root}
		p.DroppedTracking, p.ExpiredReflogs, err = dropOldHistory(ctx, repo, ref, ts, "")
		p.UnreachableUntil = "the old commits and blobs stay in this clone's object store, unreachable, until git gc prunes them (--prune-now runs git gc --prune=now)"
		return p, err
	}
}

// dropOldHistory deletes the remote-tracking refs of ref (every remote but
// keep) whose tip predates ref's latest purge, and expires the reflogs of
// ref and of those tracking refs: all of them can hold forgotten text.
func dropOldHistory(ctx context.Context, repo *gitops.Repo, ref string, ts *Tombstones, keep string) (dropped, expired []string, err error) {
	name := strings.TrimPrefix(ref, RefPrefix)
	tracking, err := repo.ListRefs("refs/notes/remotes/*")
	if err != nil {
		return nil, nil, err
	}
	localGen, err := ts.generation(repo, ref, mustTarget(repo, ref))
	if err != nil {
		return nil, nil, err
	}
	expired = []string{ref}
	for _, t := range tracking {
		remote, rest, ok := strings.Cut(strings.TrimPrefix(t.Name, "refs/notes/remotes/"), "/gloss/")
		if !ok || rest != name {
			continue
		}
		if remote == keep {
			expired = append(expired, t.Name)
			continue
		}
		g, err := ts.generation(repo, ref, t.Target)
		if err != nil {
			return nil, nil, err
		}
		if g >= localGen {
			expired = append(expired, t.Name)
			continue
		}
		if err := repo.DeleteRef(t.Name, t.Target); err != nil {
			return nil, nil, err
		}
		dropped = append(dropped, t.Name)
	}
	for _, r := range expired {
		if err := expireReflog(ctx, repo, r); err != nil {
			return nil, nil, err
		}
	}
	return dropped, expired, nil
}

func mustTarget(repo *gitops.Repo, ref string) string {
	t, _ := repo.RefTarget(ref)
	return t
}

// expireReflog drops every reflog entry of ref: the entries name the old
// tips, which keeps them (and the text in them) reachable for git gc.
func expireReflog(ctx context.Context, repo *gitops.Repo, ref string) error {
	if _, err := repo.Git(ctx, "reflog", "expire", "--expire=all", "--expire-unreachable=all", ref); err != nil {
		return fmt.Errorf("expire the reflog of %s: %w", ref, err)
	}
	return nil
}

// PruneNow runs git gc --prune=now: it deletes every unreachable object at
// once, the old notes history a purge left behind included. It is slow on
// a large repository and also drops anything else unreachable (a commit
// only a reflog that expired remembered), so gloss runs it only when asked.
func PruneNow(ctx context.Context, repo *gitops.Repo) error {
	if _, err := repo.Git(ctx, "gc", "--quiet", "--prune=now"); err != nil {
		return fmt.Errorf("git gc --prune=now: %w", err)
	}
	return nil
}

// generation is the index of the latest purge of ref whose new root tip
// contains (-1 when none does): a tip with a lower generation than another
// holds history a purge replaced.
func (ts *Tombstones) generation(repo *gitops.Repo, ref, tip string) (int, error) {
	if tip == "" {
		return -1, nil
	}
	for i := len(ts.purges) - 1; i >= 0; i-- {
		p := ts.purges[i]
		if p.Ref != ref || !repo.HasObject(p.Root) {
			continue
		}
		in, err := repo.IsAncestor(p.Root, tip)
		if err != nil {
			return -1, err
		}
		if in {
			return i, nil
		}
	}
	return -1, nil
}

// latestPurge is the purge with generation g.
func (ts *Tombstones) latestPurge(g int) PurgeMarker {
	if g < 0 || g >= len(ts.purges) {
		return PurgeMarker{}
	}
	return ts.purges[g]
}
