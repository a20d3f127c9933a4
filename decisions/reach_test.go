package decisions

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// TestIndexRemembersReachAtEachTip: lookups at two tips, one after the
// other (a review's base and head), ask the history once per tip: the
// worktree's reach file keeps both tips' answers for the next process,
// and an index kept open remembers its own.
func TestIndexRemembersReachAtEachTip(t *testing.T) {
	ctx := context.Background()
	fx := fixtures.NewRepo(t)
	src := "package f\n\nfunc F() int {\n\treturn 1\n}\n"
	first := fx.Commit("one", map[string]string{"f.go": src})
	base := fx.Commit("two", map[string]string{"g.go": "package f\n"})
	fx.Git("checkout", "-q", "-b", "side", first)
	head := fx.Commit("three", map[string]string{"h.go": "package f\n"})
	repo, err := gitops.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	rec := annotate.Region{Header: notes.NewHeader(annotate.Schema), Kind: annotate.KindRegion, Commit: first, File: "f.go",
		Anchor: &annotate.Anchor{Kind: "function", Name: "F"}, Lines: annotate.Lines{Start: 3, End: 5},
		Constraints: []annotate.Constraint{{Text: "one F"}}}
	if err := notes.Open(repo, notes.Annotations).Append(ctx, first, rec); err != nil {
		t.Fatal(err)
	}
	lookup := func(ix *Index, tip string) {
		t.Helper()
		found, err := ix.Lookup(ctx, File{Path: "f.go", Tip: tip, Content: func() []byte { return []byte(src) }})
		if err != nil {
			t.Fatal(err)
		}
		if len(found) != 1 {
			t.Fatalf("at %s: %d records, want the one in both tips' history", tip[:8], len(found))
		}
	}
	dir, err := repo.WorktreeGlossDir()
	if err != nil {
		t.Fatal(err)
	}
	reach := filepath.Join(dir, reachFile)
	one, err := Open(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	lookup(one, base)
	lookup(one, head)
	kept, err := os.ReadFile(reach)
	if err != nil {
		t.Fatal(err)
	}
	// Another index (another process): both tips' answers are in the
	// worktree's reach file, which it leaves as it is.
	two, err := Open(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	defer two.Close()
	for _, tip := range []string{base, head, base} {
		lookup(two, tip)
		if now, err := os.ReadFile(reach); err != nil || string(now) != string(kept) {
			t.Fatalf("a lookup at a tip the reach file answers wrote it again:\n%s\nwas\n%s", now, kept)
		}
	}
	// The index itself remembers: without the file, it asks nothing.
	if err := os.Remove(reach); err != nil {
		t.Fatal(err)
	}
	lookup(two, base)
	lookup(two, head)
	if _, err := os.Stat(reach); !os.IsNotExist(err) {
		t.Fatalf("the index asked the history again at a tip it had asked (%v)", err)
	}
}
