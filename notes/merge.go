package notes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/gitops"
)

// MergeLines returns the line-wise union of two notes: every line of ours
// in order, then the lines of theirs that ours lacks. Blank lines are
// dropped. Because records are append-only lines, the union loses nothing
// and never produces invalid JSON.
func MergeLines(ours, theirs []byte) []byte {
	have := map[string]bool{}
	var out bytes.Buffer
	add := func(note []byte) {
		for _, line := range bytes.Split(note, []byte{'\n'}) {
			line = bytes.TrimSpace(line)
			if len(line) == 0 || have[string(line)] {
				continue
			}
			have[string(line)] = true
			out.Write(line)
			out.WriteByte('\n')
		}
	}
	add(ours)
	add(theirs)
	return out.Bytes()
}

// MergeResult says what MergeRef did.
type MergeResult struct {
	Ref       string          `json:"ref"`
	From      string          `json:"from"`
	Action    string          `json:"action" jsonschema:"none, created, fast-forward, merged, swept (only forgotten records removed), adopted-purge (this clone took the remote's purged history), purge-pending (the remote still holds history purged here: git gloss sync --purge replaces it)"`
	Tip       string          `json:"tip"`
	Notes     int             `json:"notes_changed,omitempty"`
	Conflicts []MergeConflict `json:"conflicts,omitempty"`
	Forgotten []string        `json:"forgotten,omitempty" jsonschema:"ids of forgotten records (or their copies) removed after the merge"`
}

// MergeConflict is a record both sides changed since the merge base, and
// what the merge kept. Either way the answer is the same on every clone, so
// clones that sync in any order converge.
type MergeConflict struct {
	Object string `json:"object"`
	ID     string `json:"id"`
	Kind   string `json:"kind" jsonschema:"edit/delete: edited in place on one side, deleted on the other (the deletion wins); edit/edit: edited differently on both sides (the line that sorts last by bytes wins)"`
	Kept   string `json:"kept" jsonschema:"deleted, ours or theirs"`
}

// MergeRef merges the notes ref src into dst record by record, three-way.
// When one side already contains the other it only moves dst forward;
// otherwise it writes a merge commit whose parents are both tips, so that
// pushing dst to the remote that src tracks is a fast-forward. The update
// of dst is compare-and-swap and retried, like every notes write.
func MergeRef(ctx context.Context, repo *gitops.Repo, dst, src string) (MergeResult, error) {
	res := MergeResult{Ref: dst, From: src, Action: "none"}
	deadline := time.Now().Add(appendTimeout)
	for {
		err := mergeOnce(repo, dst, src, &res)
		if !errors.Is(err, gitops.ErrRefChanged) {
			return res, err
		}
		if time.Now().After(deadline) {
			return res, fmt.Errorf("%s: %w", dst, ErrContended)
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func mergeOnce(repo *gitops.Repo, dst, src string, res *MergeResult) error {
	srcTip, err := repo.RefTarget(src)
	if err != nil || srcTip == "" {
		return err
	}
	ours, err := repo.ReadNotes(dst)
	if err != nil {
		return err
	}
	defer ours.Close()
	res.Tip, res.Conflicts = ours.Tip, nil
	switch {
	case ours.Tip == "":
		res.Action, res.Tip = "created", srcTip
		return repo.UpdateRef(dst, srcTip, "", "gloss: notes from "+src)
	case ours.Tip == srcTip:
		return nil
	}
	if in, err := repo.IsAncestor(srcTip, ours.Tip); err != nil || in {
		return err
	}
	if ff, err := repo.IsAncestor(ours.Tip, srcTip); err != nil {
		return err
	} else if ff {
		res.Action, res.Tip = "fast-forward", srcTip
		return repo.UpdateRef(dst, srcTip, ours.Tip, "gloss: fast-forward notes from "+src)
	}
	base, err := repo.MergeBase(ours.Tip, srcTip)
	if err != nil {
		return err
	}
	changes, conflicts, err := mergeTrees(repo, dst, base, ours, srcTip)
	if err != nil {
		return err
	}
	tip, err := repo.CommitNotes(ours, changes, []string{srcTip}, "gloss: merge notes from "+src)
	if err != nil {
		return err
	}
	res.Action, res.Tip, res.Notes, res.Conflicts = "merged", tip, len(changes), conflicts
	return nil
}

// mergeTrees computes the changes that bring theirTip's notes into ours,
// three-way against the notes commit base ("" when the histories share
// nothing: then every note of theirs is merged as an addition). Only notes
// theirs added, changed or removed since base can bring ours anything, and
// a tree diff skips every unchanged fan-out subtree, so a merge costs what
// changed, not the number of notes.
//
// The tombstone ref is the exception: tombstones are only ever added, so
// it merges as a union and a tombstone deleted on one side (by plain git
// notes) is not deleted by the merge: a forgotten record stays forgotten.
func mergeTrees(repo *gitops.Repo, ref, base string, ours *gitops.Notes, theirTip string) ([]gitops.NoteChange, []MergeConflict, error) {
	theirs, err := repo.ReadNotesAt(ref, theirTip)
	if err != nil {
		return nil, nil, err
	}
	defer theirs.Close()
	baseNotes, err := repo.ReadNotesAt(ref, base)
	if err != nil {
		return nil, nil, err
	}
	defer baseNotes.Close()
	entries, err := changedSince(repo, base, theirTip, theirs)
	if err != nil {
		return nil, nil, err
	}
	union := ref == ForgottenRef
	var changes []gitops.NoteChange
	var conflicts []MergeConflict
	for _, e := range entries {
		var theirData []byte
		if e.Blob != "" {
			if theirData, err = repo.ReadBlob(e.Blob); err != nil {
				return nil, nil, err
			}
		} else if union {
			continue
		}
		ourData, had, err := ours.Get(e.Object)
		if err != nil {
			return nil, nil, err
		}
		var merged []byte
		if union {
			merged = MergeLines(ourData, theirData)
		} else {
			baseData, _, err := baseNotes.Get(e.Object)
			if err != nil {
				return nil, nil, err
			}
			var cs []MergeConflict
			merged, cs = MergeNote(baseData, ourData, theirData)
			for i := range cs {
				cs[i].Object = e.Object
			}
			conflicts = append(conflicts, cs...)
		}
		switch {
		case len(merged) == 0 && had:
			changes = append(changes, gitops.NoteChange{Object: e.Object}) // every record removed: the note goes
		case len(merged) > 0 && !bytes.Equal(merged, ourData):
			changes = append(changes, gitops.NoteChange{Object: e.Object, Data: merged})
		}
	}
	return changes, conflicts, nil
}

// noteItem is one line of a note: a record keyed by its id, or a line
// that is not a record, keyed by its text (so it can be kept or removed,
// never edited).
type noteItem struct {
	key  string
	line []byte
}

func noteItems(note []byte) ([]noteItem, map[string][]byte) {
	var items []noteItem
	byKey := map[string][]byte{}
	for _, line := range bytes.Split(note, []byte{'\n'}) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		key := "line:" + string(line)
		if rec, err := parseLine(line); err == nil {
			key = "id:" + rec.ID
		}
		if _, dup := byKey[key]; dup {
			continue // a rewrite copied the record twice; the first copy counts, as in Parse
		}
		byKey[key] = line
		items = append(items, noteItem{key, line})
	}
	return items, byKey
}

// MergeNote merges one note three-way, record by record (keyed by id):
// a record one side added is kept; one side's in-place edit is taken when
// the other side left the record as it was in base; a record one side
// deleted is deleted when the other side left it alone. Two cases need a
// rule, and both are reported as conflicts:
//
//   - edited on one side, deleted on the other: deleted. A deletion is a
//     deliberate act on that record; records are not meant to be edited
//     in place at all (a correction supersedes), and the deleted text stays
//     in the notes history unless it is purged.
//   - edited differently on both sides (or added with the same id and
//     different bytes): the line that sorts last by bytes, so that every
//     clone picks the same one whichever merges first.
//
// Records keep ours' order, then theirs' new records in theirs' order.
// base or theirs may be nil (no common history; a note theirs removed).
func MergeNote(base, ours, theirs []byte) ([]byte, []MergeConflict) {
	_, b := noteItems(base)
	oItems, o := noteItems(ours)
	tItems, t := noteItems(theirs)
	var out bytes.Buffer
	var conflicts []MergeConflict
	emit := func(line []byte) {
		out.Write(line)
		out.WriteByte('\n')
	}
	conflict := func(key, kind, kept string) {
		if id, ok := strings.CutPrefix(key, "id:"); ok {
			conflicts = append(conflicts, MergeConflict{ID: id, Kind: kind, Kept: kept})
		}
	}
	for _, it := range oItems {
		ol := it.line
		bl, inBase := b[it.key]
		tl, inTheirs := t[it.key]
		switch {
		case inTheirs && bytes.Equal(ol, tl):
			emit(ol)
		case inTheirs && inBase && bytes.Equal(ol, bl):
			emit(tl) // theirs edited
		case inTheirs && inBase && bytes.Equal(tl, bl):
			emit(ol) // ours edited
		case inTheirs:
			if bytes.Compare(ol, tl) >= 0 {
				emit(ol)
				conflict(it.key, "edit/edit", "ours")
			} else {
				emit(tl)
				conflict(it.key, "edit/edit", "theirs")
			}
		case !inBase:
			emit(ol) // ours added
		case bytes.Equal(ol, bl):
			// theirs deleted, ours left it alone: deleted
		default:
			conflict(it.key, "edit/delete", "deleted") // ours edited, theirs deleted
		}
	}
	for _, it := range tItems {
		if _, inOurs := o[it.key]; inOurs {
			continue
		}
		bl, inBase := b[it.key]
		switch {
		case !inBase:
			emit(it.line) // theirs added
		case bytes.Equal(it.line, bl):
			// ours deleted, theirs left it alone: deleted
		default:
			conflict(it.key, "edit/delete", "deleted") // theirs edited, ours deleted
		}
	}
	return out.Bytes(), conflicts
}

// changedSince lists the notes theirs added, changed or removed (Blob "")
// since base. Without a common history every note of theirs is listed.
func changedSince(repo *gitops.Repo, base, theirTip string, theirs *gitops.Notes) ([]gitops.NoteEntry, error) {
	if base == "" {
		return theirs.List()
	}
	changes, err := repo.DiffTrees(base, theirTip, gitops.DiffOptions{NoRenames: true})
	if err != nil {
		return nil, err
	}
	var out []gitops.NoteEntry
	for _, c := range changes {
		if obj := strings.ReplaceAll(c.Path, "/", ""); isNoteName(obj) {
			blob := c.NewBlob
			if c.Status == gitops.Deleted {
				blob = ""
			}
			out = append(out, gitops.NoteEntry{Object: obj, Blob: blob})
		}
	}
	return out, nil
}

// isNoteName reports whether a notes tree path, fan-out removed, names an
// object (40 or 64 hex digits).
func isNoteName(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}
