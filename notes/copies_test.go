package notes

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// copyRec is a record carried from the commits in from (derived_from),
// superseding sup (none when ""), on anchor F.
func copyRec(id, sup, text string, from ...string) string {
	s := fmt.Sprintf(`{"$schema":"gloss/test/v1","id":%q,"ts":"2026-01-01T00:00:00Z","anchor":{"kind":"function","name":"F"},"text":%q`, id, text)
	if sup != "" {
		s += fmt.Sprintf(`,"supersedes":[%q]`, sup)
	}
	if len(from) > 0 {
		s += `,"derived_from":["` + strings.Join(from, `","`) + `"]`
	}
	return s + "}"
}

func exportOf(t *testing.T, s side) string {
	t.Helper()
	var b strings.Builder
	refs, _ := ExportRefs(s.repo)
	if _, err := Export(s.repo, refs, &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestImportSkipsEveryGeneration is issue 28's first point: B copies the
// record (cherry-pick: copy 1 supersedes it) and copies the copy (amend:
// copy 2 supersedes copy 1), and exports. A forgets the record; B syncs,
// losing both copies, then imports the old export: nothing comes back,
// whether the export holds the whole chain, only copy 2 (its chain lost),
// or copy 2 with other text (kept: not a copy of the forgotten text).
func TestImportSkipsEveryGeneration(t *testing.T) {
	t.Parallel()
	const secret = "uses sk_live_4eC39HqLyjWDarjtT1zdp7dc"
	for _, tc := range []struct {
		name      string
		keep      func(line string) bool // which export lines B imports
		forgotten int
	}{
		{"whole chain", func(string) bool { return true }, 3},
		{"only copy 2", func(l string) bool { return strings.Contains(l, `"C2"`) || strings.Contains(l, `"K`) }, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c1, a, b := twoClones(t)
			a.setNote(t, c1, copyRec("K", "", "a record that stays"), copyRec("R", "", secret))
			a.sync(t)
			b.sync(t)
			p := b.fx.Commit("picked", map[string]string{"p.txt": "1\n"})
			b.setNote(t, p, copyRec("C1", "R", secret, c1), copyRec("K1", "K", "a record that stays", c1))
			p2 := b.fx.Commit("amended", map[string]string{"p.txt": "2\n"})
			b.setNote(t, p2, copyRec("C2", "C1", secret, c1, p), copyRec("K2", "K1", "a record that stays", c1, p))
			old := exportOf(t, b)
			if _, err := Forget(context.Background(), a.repo, ForgetOptions{IDs: []string{"R"}, Reason: "leak", Purge: true}); err != nil {
				t.Fatal(err)
			}
			if _, err := Sync(context.Background(), a.repo, SyncOptions{Remote: "origin", Purge: true}); err != nil {
				t.Fatal(err)
			}
			b.sync(t)
			if dump := exportOf(t, b); strings.Contains(dump, secret) {
				t.Fatalf("B holds the secret after its sync:\n%s", dump)
			}
			var lines []string
			for _, l := range strings.Split(strings.TrimSpace(old), "\n") {
				if tc.keep(l) {
					lines = append(lines, l)
				}
			}
			res, err := Import(context.Background(), b.repo, strings.NewReader(strings.Join(lines, "\n")))
			if err != nil {
				t.Fatal(err)
			}
			if dump := exportOf(t, b); strings.Contains(dump, `"text":"`+secret) {
				t.Errorf("the import brought the secret back (%+v)", res)
			}
			if res.Forgotten != tc.forgotten || res.Read != res.Written+res.Present+res.Missing+res.Forgotten {
				t.Errorf("import: %+v, want %d forgotten and every record accounted for", res, tc.forgotten)
			}
			if !strings.Contains(exportOf(t, b), "a record that stays") {
				t.Error("the bystander's copies were lost")
			}
			ts, err := LoadTombstones(b.repo)
			if err != nil {
				t.Fatal(err)
			}
			if !ts.Forgotten("C2") {
				t.Error("copy 2 has no tombstone: the next path would bring it back")
			}
			// The tombstones hold no text, only fingerprints.
			if strings.Contains(exportOf(t, b), "sk_live") {
				t.Error("a tombstone or a record holds the secret")
			}
		})
	}
}

// TestCopyRules: what counts as a copy of a forgotten record, and what
// does not (copies.go).
func TestCopyRules(t *testing.T) {
	t.Parallel()
	ts := &Tombstones{ids: map[string]Tombstone{}}
	forgotten := []byte(copyRec("R", "", "the secret text", "c0"))
	p := printOf(forgotten, "c1") // on c1, carried from c0
	ts.learn(Tombstone{Forgets: "R", From: p.from, Text: p.text, Anchor: p.anchor})
	for _, c := range []struct {
		name, raw, object string
		copy              bool
	}{
		{"carried from its commit, same text", copyRec("X", "", "the secret text", "c1"), "c9", true},
		{"carried from its origin, more text", strings.TrimSuffix(copyRec("X", "", "the secret text", "c0"), "}") + `,"risk":"and a risk of its own"}`, "c9", true},
		{"carried from its commit, other text", copyRec("X", "", "some other text", "c1"), "c9", false},
		{"carried from elsewhere, same text", copyRec("X", "", "the secret text", "c7"), "c9", false},
		{"carried, same text, other anchor", strings.Replace(copyRec("X", "", "the secret text", "c1"), `"name":"F"`, `"name":"G"`, 1), "c9", false},
		{"beside it, same text (a record of its own)", copyRec("X", "", "the secret text"), "c1", false},
		{"elsewhere, same text", copyRec("X", "", "the secret text"), "c5", false},
	} {
		if got := ts.copies.copyOf([]byte(c.raw), c.object) != ""; got != c.copy {
			t.Errorf("%s: copy %v, want %v", c.name, got, c.copy)
		}
	}
	if !ts.TextForgotten(TextPrint("the secret text")) || ts.TextForgotten(TextPrint("some other text")) {
		t.Error("TextForgotten")
	}
}
