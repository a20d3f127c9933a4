package gitops_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
)

// TestBlameMemoServesTheHandlesSecondBlame: a handle that blamed a file
// version answers the next blame of it (another range of the same
// version, as a review's attribution and read ask) from what it decoded,
// without the cache on disk; another handle reads the disk again.
func TestBlameMemoServesTheHandlesSecondBlame(t *testing.T) {
	ctx := context.Background()
	fx := fixtures.NewRepo(t)
	fx.Commit("one", map[string]string{"a.txt": "1\n2\n3\n4\n"})
	fx.Commit("two", map[string]string{"a.txt": "1\nx\n3\n4\ny\n"})
	head := fx.Git("rev-parse", "HEAD")
	repo := open(t, fx.Dir)
	whole, err := repo.BlameCached(ctx, head, "a.txt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(repo.CommonDir(), "gloss", "blame")
	if err := os.RemoveAll(cache); err != nil {
		t.Fatal(err)
	}
	part, err := repo.BlameCached(ctx, head, "a.txt", 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	if want := whole.Lines[1:4]; !reflect.DeepEqual(part.Lines, want) {
		t.Fatalf("lines 2-4: %+v, want %+v", part.Lines, want)
	}
	if _, err := os.Stat(cache); !os.IsNotExist(err) {
		t.Fatalf("the second blame of the same version went to the cache on disk (%v): the handle's memo was not used", err)
	}
	other, err := gitops.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	again, err := other.BlameCached(ctx, head, "a.txt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, whole) {
		t.Fatalf("another handle: %+v, want %+v", again, whole)
	}
	if other.CachedBlameEntry(head, "a.txt") == nil {
		t.Fatal("another handle did not fill the cache again")
	}
}
