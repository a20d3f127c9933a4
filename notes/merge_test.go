package notes_test

import (
	"context"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/notes"
)

// TestMergeRefTakesOnlyWhatTheirsChanged: a merge brings in the notes the
// other side added or changed since the common base — found by a tree diff,
// so that its cost follows the change and not the size of the notes ref —
// and a note this side removed, which the other side left alone, stays
// removed (a full union of the other side would bring it back).
func TestMergeRefTakesOnlyWhatTheirsChanged(t *testing.T) {
	fx := fixtures.NewRepo(t)
	var commits []string
	for _, m := range []string{"one", "two", "three"} {
		commits = append(commits, fx.Commit(m, nil))
	}
	repo := openRepo(t, fx.Dir)
	ctx := context.Background()
	ours := notes.Open(repo, "refs/notes/gloss/test")
	theirs := notes.Open(repo, "refs/notes/gloss/theirs")
	rec := func(n string) testRecord {
		h := notes.NewHeader("gloss/test/v1")
		h.ID = n
		return testRecord{Header: h}
	}
	for i, c := range commits {
		must(t, ours.Append(ctx, c, rec("base-"+string(rune('a'+i)))))
	}
	tip, _ := repo.RefTarget(ours.Ref())
	must(t, repo.UpdateRef(theirs.Ref(), tip, "", "branch"))
	// Ours drops the note of the first commit; theirs adds to the second.
	fx.Git("notes", "--ref", ours.Ref(), "remove", commits[0])
	must(t, theirs.Append(ctx, commits[1], rec("theirs-b")))

	res, err := notes.MergeRef(ctx, repo, ours.Ref(), theirs.Ref())
	if err != nil || res.Action != "merged" || res.Notes != 1 {
		t.Fatalf("MergeRef = %+v, %v; want one note merged", res, err)
	}
	all, _, err := ours.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(all[commits[0]]) != 0 {
		t.Errorf("the note ours removed came back: %+v", all[commits[0]])
	}
	if len(all[commits[1]]) != 2 || len(all[commits[2]]) != 1 {
		t.Errorf("merged notes: %+v", all)
	}
}
