package gitops_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
)

// TestNotesSnapshotReadsANoteOnce: a snapshot asked for the same note
// again answers from what it read (the note's object is gone from the
// store here, so reading it again would fail), and each caller gets a
// copy of its own.
func TestNotesSnapshotReadsANoteOnce(t *testing.T) {
	fx := fixtures.NewRepo(t)
	c := fx.Commit("one", map[string]string{"a.txt": "a\n"})
	r := open(t, fx.Dir)
	const ref = "refs/notes/test"
	base, err := r.ReadNotes(ref)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.CommitNotes(base, []gitops.NoteChange{{Object: c, Data: []byte("the note\n")}}, nil, "note"); err != nil {
		t.Fatal(err)
	}
	base.Close()
	snap, err := r.ReadNotes(ref)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	first, ok, err := snap.Get(c)
	if err != nil || !ok || string(first) != "the note\n" {
		t.Fatalf("Get = %q, %v, %v", first, ok, err)
	}
	first[0] = 'X'
	blob := fx.Git("rev-parse", ref+":"+c)
	if err := os.Remove(filepath.Join(r.CommonDir(), "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	again, ok, err := snap.Get(c)
	if err != nil || !ok || string(again) != "the note\n" {
		t.Fatalf("Get again = %q, %v, %v: the snapshot read the note's object again, or gave out its own copy", again, ok, err)
	}
}
