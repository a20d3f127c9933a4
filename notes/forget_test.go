package notes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
)

// side is one clone in the merge-table tests.
type side struct {
	fx   *fixtures.Repo
	repo *gitops.Repo
}

// setNote replaces the note on commit with plain git notes, as a person
// editing or deleting records by hand would.
func (s side) setNote(t *testing.T, commit string, lines ...string) {
	t.Helper()
	if len(lines) == 0 {
		s.fx.Git("notes", "--ref", Annotations, "remove", commit)
		return
	}
	f := filepath.Join(t.TempDir(), "note")
	if err := os.WriteFile(f, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.fx.Git("notes", "--ref", Annotations, "add", "-f", "-F", f, commit)
}

func (s side) note(t *testing.T, commit string) string {
	t.Helper()
	out, err := s.fx.GitErr("notes", "--ref", Annotations, "show", commit)
	if err != nil {
		return ""
	}
	return out
}

func (s side) sync(t *testing.T) *SyncResult {
	t.Helper()
	res, err := Sync(context.Background(), s.repo, SyncOptions{Remote: "origin"})
	if err != nil {
		t.Fatalf("sync %s: %v", s.fx.Dir, err)
	}
	return res
}

func rec(id, text string) string {
	return fmt.Sprintf(`{"$schema":"gloss/test/v1","id":%q,"ts":"2026-01-01T00:00:00Z","text":%q}`, id, text)
}

// twoClones makes a bare remote with one commit and two clones of it.
func twoClones(t *testing.T) (commit string, a, b side) {
	t.Helper()
	bare := fixtures.NewBare(t)
	seed := fixtures.NewRepo(t)
	commit = seed.Commit("shared commit", map[string]string{"f.txt": "x\n"})
	seed.Git("push", "-q", bare, "main")
	fa, ra := clone(t, bare)
	fb, rb := clone(t, bare)
	return commit, side{fa, ra}, side{fb, rb}
}

// TestSyncKeepsRemovalsAndEdits is the reproduction: one clone
// removes records with plain git notes (two lines of a note, one line, a
// whole note: 5 records) while the other edits a record in place; after
// both sync, none of the 5 is back and the edit is kept, on both.
func TestSyncKeepsRemovalsAndEdits(t *testing.T) {
	t.Parallel()
	bare := fixtures.NewBare(t)
	seed := fixtures.NewRepo(t)
	c1 := seed.Commit("one", map[string]string{"f.txt": "1\n"})
	c2 := seed.Commit("two", map[string]string{"f.txt": "2\n"})
	c3 := seed.Commit("three", map[string]string{"f.txt": "3\n"})
	seed.Git("push", "-q", bare, "main")
	fa, ra := clone(t, bare)
	fb, rb := clone(t, bare)
	a, b := side{fa, ra}, side{fb, rb}
	a.setNote(t, c1, rec("n1a", "keep"), rec("n1b", "gone"), rec("n1c", "gone"))
	a.setNote(t, c2, rec("n2a", "keep"), rec("n2b", "gone"))
	a.setNote(t, c3, rec("n3a", "gone"), rec("n3b", "gone"))
	a.sync(t)
	b.sync(t)

	a.setNote(t, c1, rec("n1a", "keep"))
	a.setNote(t, c2, rec("n2a", "keep"))
	a.setNote(t, c3)
	b.setNote(t, c2, rec("n2a", "keep, edited in place"), rec("n2b", "gone"))
	a.sync(t)
	b.sync(t)
	a.sync(t)

	for name, s := range map[string]side{"A": a, "B": b} {
		all := s.note(t, c1) + s.note(t, c2) + s.note(t, c3)
		if n := strings.Count(all, `"gone"`); n != 0 {
			t.Errorf("%s: %d removed record(s) came back:\n%s", name, n, all)
		}
		if !strings.Contains(all, "keep, edited in place") || strings.Count(all, `"id":"n2a"`) != 1 {
			t.Errorf("%s: the in-place edit was reverted or doubled:\n%s", name, all)
		}
	}
}

// The table of docs/forget.md: what one record ends up as when each side,
// since both last agreed, left it unchanged, edited it in place, deleted it
// with plain git notes, or forgot it (git gloss forget).
var cellActions = []string{"unchanged", "edited", "deleted", "forgotten"}

func cellWant(a, b string) string {
	id := "R-" + a + "-" + b
	switch {
	case a == "forgotten" || b == "forgotten":
		return "" // a tombstone wins over everything
	case a == "deleted" || b == "deleted":
		return "" // deleted stays deleted, an edit on the other side included
	case a == "edited" && b == "edited":
		return rec(id, "edited by B") // both edited: the line that sorts last, on both sides
	case a == "edited":
		return rec(id, "edited by A")
	case b == "edited":
		return rec(id, "edited by B")
	}
	return rec(id, "original")
}

// act applies this side's action of every cell to its record: one note
// holds a record per cell, so one pair of clones tests the whole table.
func (s side) act(t *testing.T, commit, who string) {
	t.Helper()
	lines := []string{rec("K", "bystander")}
	var forget []string
	for _, a := range cellActions {
		for _, b := range cellActions {
			id, mine := "R-"+a+"-"+b, a
			if who == "B" {
				mine = b
			}
			switch mine {
			case "unchanged":
				lines = append(lines, rec(id, "original"))
			case "edited":
				lines = append(lines, rec(id, "edited by "+who))
			case "forgotten":
				lines = append(lines, rec(id, "original"))
				forget = append(forget, id)
			}
		}
	}
	s.setNote(t, commit, lines...)
	if _, err := Forget(context.Background(), s.repo, ForgetOptions{IDs: forget, Reason: "test", By: who}); err != nil {
		t.Fatal(err)
	}
}

func allCells() (lines []string) {
	lines = append(lines, rec("K", "bystander"))
	for _, a := range cellActions {
		for _, b := range cellActions {
			lines = append(lines, rec("R-"+a+"-"+b, "original"))
		}
	}
	return lines
}

// TestSyncMergeTable checks every cell of the table with real clones and a
// bare remote, in both sync orders. Each cell is one record of a shared
// note; each side changes its records as the cell says (in-place edits and
// deletions with plain git notes, forgetting with Forget), then the clones
// sync (first, second, first). Both must hold the same note, with each
// record as the table says. Then both write every forgotten record back by
// hand and sync again: none survives.
func TestSyncMergeTable(t *testing.T) {
	t.Parallel()
	for _, aFirst := range []bool{true, false} {
		t.Run(map[bool]string{true: "A-syncs-first", false: "B-syncs-first"}[aFirst], func(t *testing.T) {
			t.Parallel()
			commit, a, b := twoClones(t)
			a.setNote(t, commit, allCells()...)
			a.sync(t)
			b.sync(t)
			a.act(t, commit, "A")
			b.act(t, commit, "B")
			first, second := a, b
			if !aFirst {
				first, second = b, a
			}
			first.sync(t)
			second.sync(t)
			first.sync(t)
			cells := 0
			for sideName, s := range map[string]side{"A": a, "B": b} {
				got := s.note(t, commit)
				if !strings.Contains(got, rec("K", "bystander")) {
					t.Errorf("%s lost the bystander record:\n%s", sideName, got)
				}
				for _, actA := range cellActions {
					for _, actB := range cellActions {
						id := "R-" + actA + "-" + actB
						var r string
						for _, l := range strings.Split(got, "\n") {
							if strings.Contains(l, `"id":"`+id+`"`) {
								r = l
							}
						}
						if want := cellWant(actA, actB); r != want {
							t.Errorf("%s: A %s, B %s: record = %q, want %q", sideName, actA, actB, r, want)
						}
						cells++
					}
				}
			}
			if cells != 2*len(cellActions)*len(cellActions) {
				t.Fatalf("checked %d cells", cells)
			}
			if a.note(t, commit) != b.note(t, commit) {
				t.Errorf("the clones disagree:\nA: %s\nB: %s", a.note(t, commit), b.note(t, commit))
			}
			// Forgotten stays forgotten: both write every record back by hand.
			a.setNote(t, commit, allCells()...)
			b.setNote(t, commit, allCells()...)
			first.sync(t)
			second.sync(t)
			first.sync(t)
			for sideName, s := range map[string]side{"A": a, "B": b} {
				got := s.note(t, commit)
				for _, l := range strings.Split(got, "\n") {
					if strings.Contains(l, "forgotten") {
						t.Errorf("%s: a forgotten record came back after it was written again: %s", sideName, l)
					}
				}
				if !strings.Contains(got, `"id":"R-unchanged-unchanged"`) {
					t.Errorf("%s: the write-back lost a live record:\n%s", sideName, got)
				}
			}
		})
	}
}

// TestForgetDropsCopies: a record that supersedes a forgotten one (the
// copy a rebase made on a clone that had not heard of the forget yet) is
// dropped there on sync, and gets its own tombstone.
func TestForgetDropsCopies(t *testing.T) {
	t.Parallel()
	commit, a, b := twoClones(t)
	a.setNote(t, commit, rec("K", "bystander"), rec("R", "secret"))
	a.sync(t)
	b.sync(t)
	// B copies R onto another commit, superseding it, before A forgets it.
	other := b.fx.Commit("other", map[string]string{"g.txt": "y\n"})
	b.setNote(t, other, `{"$schema":"gloss/test/v1","id":"COPY","supersedes":["R"],"text":"secret"}`)
	if _, err := Forget(context.Background(), a.repo, ForgetOptions{IDs: []string{"R"}, Reason: "leak"}); err != nil {
		t.Fatal(err)
	}
	a.sync(t)
	res := b.sync(t)
	if got := b.note(t, other); strings.Contains(got, "secret") {
		t.Errorf("the copy survived B's sync: %s (%+v)", got, res.Merged)
	}
	ts, err := LoadTombstones(b.repo)
	if err != nil {
		t.Fatal(err)
	}
	if !ts.Forgotten("R") || !ts.Forgotten("COPY") {
		t.Errorf("tombstones on B: R %v, COPY %v", ts.Forgotten("R"), ts.Forgotten("COPY"))
	}
}

// TestImportHonoursTombstones: an export taken before the forget does not
// bring the record back, and an export carries the tombstones to a clone
// that never synced.
func TestImportHonoursTombstones(t *testing.T) {
	t.Parallel()
	commit, a, b := twoClones(t)
	a.setNote(t, commit, rec("K", "bystander"), rec("R", "secret"))
	var before strings.Builder
	if _, err := Export(a.repo, []string{Annotations}, &before); err != nil {
		t.Fatal(err)
	}
	if _, err := Forget(context.Background(), a.repo, ForgetOptions{IDs: []string{"R"}, Reason: "leak"}); err != nil {
		t.Fatal(err)
	}
	res, err := Import(context.Background(), a.repo, strings.NewReader(before.String()))
	if err != nil {
		t.Fatal(err)
	}
	if res.Forgotten != 1 || strings.Contains(a.note(t, commit), "secret") {
		t.Errorf("import of an old export: %+v, note %s", res, a.note(t, commit))
	}
	// B imports the old export, then A's full export (with tombstones).
	if _, err := Import(context.Background(), b.repo, strings.NewReader(before.String())); err != nil {
		t.Fatal(err)
	}
	var after strings.Builder
	refs, _ := ExportRefs(a.repo)
	if _, err := Export(a.repo, refs, &after); err != nil {
		t.Fatal(err)
	}
	if _, err := Import(context.Background(), b.repo, strings.NewReader(after.String())); err != nil {
		t.Fatal(err)
	}
	if got := b.note(t, commit); strings.Contains(got, "secret") || !strings.Contains(got, "bystander") {
		t.Errorf("B after importing the tombstones: %s", got)
	}
}

// TestForgetUnknownIDWritesNothing: an id stored nowhere is refused before
// anything is written.
func TestForgetUnknownIDWritesNothing(t *testing.T) {
	t.Parallel()
	commit, a, _ := twoClones(t)
	a.setNote(t, commit, rec("K", "bystander"))
	if _, err := Forget(context.Background(), a.repo, ForgetOptions{IDs: []string{"K", "NOPE"}, Reason: "x"}); err == nil {
		t.Fatal("forget of an unknown id succeeded")
	}
	if tip, _ := a.repo.RefTarget(ForgottenRef); tip != "" {
		t.Errorf("a tombstone was written: %s", tip)
	}
	if !strings.Contains(a.note(t, commit), "bystander") {
		t.Error("K was removed")
	}
	if _, err := Forget(context.Background(), a.repo, ForgetOptions{IDs: []string{"K"}}); err == nil {
		t.Error("forget without a reason succeeded")
	}
}

func TestMergeNoteCells(t *testing.T) {
	t.Parallel()
	base := []byte(rec("R", "o") + "\n")
	for _, c := range []struct {
		name               string
		ours, theirs, want string
	}{
		{"both unchanged", rec("R", "o"), rec("R", "o"), rec("R", "o")},
		{"ours edited", rec("R", "x"), rec("R", "o"), rec("R", "x")},
		{"theirs edited", rec("R", "o"), rec("R", "y"), rec("R", "y")},
		{"both edited", rec("R", "x"), rec("R", "y"), rec("R", "y")},
		{"ours deleted", "", rec("R", "o"), ""},
		{"theirs deleted", rec("R", "o"), "", ""},
		{"ours edited, theirs deleted", rec("R", "x"), "", ""},
		{"ours deleted, theirs edited", "", rec("R", "y"), ""},
		{"both deleted", "", "", ""},
	} {
		got, conflicts := MergeNote(base, []byte(c.ours), []byte(c.theirs))
		if strings.TrimSpace(string(got)) != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		wantConflict := strings.Contains(c.name, "edited") && (strings.Contains(c.name, "deleted") || strings.Contains(c.name, "both"))
		if (len(conflicts) > 0) != wantConflict {
			t.Errorf("%s: conflicts %+v", c.name, conflicts)
		}
		// The same answer whichever side merges.
		back, _ := MergeNote(base, []byte(c.theirs), []byte(c.ours))
		if strings.TrimSpace(string(back)) != c.want {
			t.Errorf("%s, sides swapped: %q, want %q", c.name, back, c.want)
		}
	}
}

// BenchmarkSweepFull is what a sync pays when new tombstones arrive: every
// note of a ref is read once and the forgotten record removed.
func BenchmarkSweepFull(b *testing.B) {
	fx := fixtures.NewRepo(b)
	fx.Commit("base", nil)
	repo, err := gitops.Open(fx.Dir)
	if err != nil {
		b.Fatal(err)
	}
	defer repo.Close()
	// 5,000 notes of 3 records on made-up object ids (notes need not name
	// existing objects to be read and swept).
	const notes = 5000
	recs := map[string][]any{}
	for i := range notes {
		obj := fmt.Sprintf("%040x", i+1)
		for j := range 3 {
			h := NewHeader("gloss/test/v1")
			h.ID = fmt.Sprintf("N%05d-%d", i, j)
			recs[obj] = append(recs[obj], syncRecord{Header: h, Who: "bench"})
		}
	}
	ctx := context.Background()
	if err := Open(repo, Annotations).AppendMany(ctx, recs); err != nil {
		b.Fatal(err)
	}
	if os.Getenv("GLOSS_BENCH_PACKED") != "" {
		fx.Git("gc", "-q")
	}
	snap, _ := repo.ReadNotes(Annotations)
	base := snap.Tip
	snap.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if err := repo.UpdateRef(Annotations, base, mustTarget(repo, Annotations), "reset"); err != nil {
			b.Fatal(err)
		}
		ts := &Tombstones{ids: map[string]Tombstone{"N02500-1": {Forgets: "N02500-1"}}}
		b.StartTimer()
		removed, err := sweep(ctx, repo, Annotations, ts, "")
		if err != nil || len(removed) != 1 {
			b.Fatalf("sweep: %v %v", removed, err)
		}
	}
}

// TestWholeNoteDeletedAgainstEditAndAdd: A removes a whole note with plain
// git notes while B edits one of its records in place and adds another:
// the edited record goes (edit/delete: deleted), the added one stays, the
// untouched one goes, on both clones, and the sync reports the conflict.
func TestWholeNoteDeletedAgainstEditAndAdd(t *testing.T) {
	t.Parallel()
	commit, a, b := twoClones(t)
	a.setNote(t, commit, rec("X", "untouched"), rec("Y", "original"))
	a.sync(t)
	b.sync(t)
	a.setNote(t, commit)
	b.setNote(t, commit, rec("X", "untouched"), rec("Y", "edited by B"), rec("Z", "added by B"))
	a.sync(t)
	res := b.sync(t)
	a.sync(t)
	want := rec("Z", "added by B")
	for name, s := range map[string]side{"A": a, "B": b} {
		if got := s.note(t, commit); got != want {
			t.Errorf("%s: note = %q, want %q", name, got, want)
		}
	}
	var conflicts []MergeConflict
	for _, m := range res.Merged {
		conflicts = append(conflicts, m.Conflicts...)
	}
	if len(conflicts) != 1 || conflicts[0].ID != "Y" || conflicts[0].Kind != "edit/delete" || conflicts[0].Kept != "deleted" || conflicts[0].Object != commit {
		t.Errorf("B's sync reported %+v", conflicts)
	}
}

// reachable reports whether any object reachable from ref in fx holds text.
func reachable(t *testing.T, fx *fixtures.Repo, ref, text string) bool {
	t.Helper()
	if _, err := fx.GitErr("rev-parse", "--verify", "-q", ref); err != nil {
		return false
	}
	cmd := fx.Command("sh", "-c", "git rev-list --objects "+ref+" | cut -d' ' -f1 | git cat-file --batch")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(out), text)
}

// TestPurgePendingThenReplacedThenAdopted walks the purge protocol: A's
// plain sync leaves the remote's old history alone (purge pending) and
// drops the tracking ref that would hold it; B, which keeps writing,
// learns the tombstone and drops the record; A's sync --purge merges B's
// records into the new history and force-updates the remote over the tip
// it fetched; B's next sync adopts the new history, keeping its records.
func TestPurgePendingThenReplacedThenAdopted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	commit, a, b := twoClones(t)
	const secret = "sk_live_PLANTED"
	a.setNote(t, commit, rec("K", "kept"), rec("S", secret))
	a.sync(t)
	b.sync(t)
	fres, err := Forget(ctx, a.repo, ForgetOptions{IDs: []string{"S"}, Reason: "leak", Purge: true})
	if err != nil || len(fres.Purged) != 1 {
		t.Fatalf("forget: %+v %v", fres, err)
	}
	if reachable(t, a.fx, Annotations, secret) {
		t.Fatal("A's purged ref still reaches the secret")
	}
	remoteTip := func() string {
		out := a.fx.Git("ls-remote", "origin", Annotations)
		tip, _, _ := strings.Cut(out, "\t")
		return tip
	}
	old := remoteTip()

	res := a.sync(t)
	if !slices.Contains(res.PurgePending, Annotations) || remoteTip() != old {
		t.Fatalf("plain sync after a purge: pending %v, remote %s (was %s)", res.PurgePending, remoteTip(), old)
	}
	if tip, _ := a.repo.RefTarget(TrackingPrefix("origin") + "annotations"); tip != "" {
		t.Errorf("the tracking ref holding the old history is still there: %s", tip)
	}

	annotate(t, b.repo, commit, "b1")
	b.sync(t) // learns the tombstone from A's plain sync; the remote is still old
	if strings.Contains(b.note(t, commit), secret) {
		t.Errorf("B still holds the forgotten record: %s", b.note(t, commit))
	}
	old = remoteTip()

	res, err = Sync(ctx, a.repo, SyncOptions{Remote: "origin", Purge: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Replaced) != 1 || res.Replaced[0].Old != old || res.Replaced[0].New != remoteTip() {
		t.Fatalf("sync --purge replaced %+v; remote was %s, is %s", res.Replaced, old, remoteTip())
	}
	if !strings.Contains(a.note(t, commit), `"who":"b1"`) {
		t.Errorf("A lost B's record in the purge sync: %s", a.note(t, commit))
	}

	annotate(t, b.repo, commit, "b2")
	res = b.sync(t)
	adopted := false
	for _, m := range res.Merged {
		adopted = adopted || m.Action == "adopted-purge"
	}
	if !adopted {
		t.Errorf("B did not adopt the purged history: %+v", res.Merged)
	}
	a.sync(t)
	for name, s := range map[string]side{"A": a, "B": b} {
		got := s.note(t, commit)
		if !strings.Contains(got, `"who":"b1"`) || !strings.Contains(got, `"who":"b2"`) || !strings.Contains(got, `"kept"`) || strings.Contains(got, secret) {
			t.Errorf("%s: %s", name, got)
		}
		for _, ref := range []string{Annotations, TrackingPrefix("origin") + "annotations"} {
			if reachable(t, s.fx, ref, secret) {
				t.Errorf("%s: %s still reaches the secret", name, ref)
			}
		}
	}
}
