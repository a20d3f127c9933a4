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

// TestIndexRemembersReachAtEachTip: lookups through one index at two
// tips, one after the other (a review's base and head), answer as a new
// index does, and ask the history once per tip: the worktree's reach
// file (one tip) is not consulted again when the index goes back.
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
	ix, err := Open(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	lookup := func(tip string) int {
		t.Helper()
		found, err := ix.Lookup(ctx, File{Path: "f.go", Tip: tip, Content: func() []byte { return []byte(src) }})
		if err != nil {
			t.Fatal(err)
		}
		return len(found)
	}
	if lookup(base) != 1 || lookup(head) != 1 {
		t.Fatal("the record is in both tips' history")
	}
	dir, err := repo.WorktreeGlossDir()
	if err != nil {
		t.Fatal(err)
	}
	reach := filepath.Join(dir, reachFile)
	if err := os.Remove(reach); err != nil {
		t.Fatal(err)
	}
	if lookup(base) != 1 || lookup(head) != 1 {
		t.Fatal("the record is in both tips' history, asked again")
	}
	if _, err := os.Stat(reach); !os.IsNotExist(err) {
		t.Fatalf("the index asked the history again at a tip it had asked (%v)", err)
	}
}
