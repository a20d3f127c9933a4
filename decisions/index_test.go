package decisions

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// TestIndexFollowsTheNotesRef changes the notes ref every way it changes
// (records added to a note, a note added, a note removed, the notes tree
// re-split into fanout directories as it grows past 256 notes) and checks
// after each that the index, patched from what changed, holds exactly what
// an index rebuilt from nothing holds.
func TestIndexFollowsTheNotesRef(t *testing.T) {
	ctx := context.Background()
	fx := fixtures.NewRepo(t)
	var commits []string
	for i := 0; i < 300; i++ {
		fx.Write(fmt.Sprintf("f%d.go", i%7), fmt.Sprintf("package f\n\nfunc F%d() int {\n\treturn %d\n}\n", i%7, i))
		fx.Git("add", "-A")
		fx.Git("commit", "-q", "-m", fmt.Sprintf("c%d", i))
		commits = append(commits, fx.Git("rev-parse", "HEAD"))
	}
	repo, err := gitops.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	store := notes.Open(repo, notes.Annotations)
	record := func(commit string, i int) any {
		r := annotate.Region{Header: notes.NewHeader(annotate.Schema), Kind: annotate.KindRegion, Commit: commit,
			File: fmt.Sprintf("f%d.go", i%7), Anchor: &annotate.Anchor{Kind: "function", Name: fmt.Sprintf("F%d", i%7)},
			Lines: annotate.Lines{Start: 3, End: 5}, Constraints: []annotate.Constraint{{Text: fmt.Sprintf("decision %d", i)}}}
		return r
	}
	check := func(stage string) {
		t.Helper()
		patched := entriesNow(t, ctx, repo)
		gd, _ := repo.GlossDir()
		if err := os.RemoveAll(filepath.Join(gd, indexDir)); err != nil {
			t.Fatal(err)
		}
		rebuilt := entriesNow(t, ctx, repo)
		if !slices.Equal(patched, rebuilt) {
			t.Fatalf("%s: the patched index holds %d entries, a rebuilt one %d:\n%v\n%v", stage, len(patched), len(rebuilt), patched, rebuilt)
		}
	}
	// A few notes (a flat notes tree).
	for i := 0; i < 10; i++ {
		if err := store.Append(ctx, commits[i], record(commits[i], i)); err != nil {
			t.Fatal(err)
		}
	}
	check("ten notes")
	// A record added to an existing note.
	if err := store.Append(ctx, commits[3], record(commits[3], 100)); err != nil {
		t.Fatal(err)
	}
	check("a record added to a note")
	// Past 256 notes: gloss writes the tree in fanout directories.
	batch := map[string][]any{}
	for i := 10; i < 290; i++ {
		batch[commits[i]] = []any{record(commits[i], i)}
	}
	if err := store.AppendMany(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if n := len(entriesNow(t, ctx, repo)); n != 291 {
		t.Fatalf("%d entries after 290 notes, want 291", n)
	}
	check("the tree re-split into fanout directories")
	// A note removed (what a purge does).
	fx.Git("notes", "--ref", notes.Annotations, "remove", commits[5])
	check("a note removed")
	if n := len(entriesNow(t, ctx, repo)); n != 290 {
		t.Fatalf("%d entries after one note went, want 290", n)
	}
}

// entriesNow opens the index (bringing it up to date) and lists every
// entry of the seven files, sorted.
func entriesNow(t *testing.T, ctx context.Context, repo *gitops.Repo) []string {
	t.Helper()
	ix, err := Open(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var paths []string
	for i := 0; i < 7; i++ {
		paths = append(paths, fmt.Sprintf("f%d.go", i))
	}
	es, err := ix.ForFiles(paths)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, strings.Join([]string{e.Path, e.Anchor, e.Commit[:8], e.ID}, " "))
	}
	slices.Sort(out)
	return out
}
