package gitops_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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

// TestLineCounterCountsAsTheFile: the line count a blame cache entry
// gives is the file's (no trailing newline, empty, CRLF, a lone CR,
// binary), none is given for a version not cached, and none at all once
// a textconv driver is configured, in the repository or through git -c
// (git blame then counts the converted text's lines).
func TestLineCounterCountsAsTheFile(t *testing.T) {
	ctx := context.Background()
	fx := fixtures.NewRepo(t)
	files := map[string]string{
		"plain.txt": "a\nb\nc\n", "open.txt": "a\nb", "empty.txt": "", "crlf.txt": "a\r\nb\r\n",
		"cr.txt": "a\rb\rc\n", "bin.dat": "\x00\x01\n\x02\x00", "one.txt": "x",
	}
	fx.Commit("files", files)
	head := fx.Git("rev-parse", "HEAD")
	repo := open(t, fx.Dir)
	count := repo.LineCounter()
	if _, ok := count(head, "plain.txt"); ok {
		t.Fatal("a count for a version the cache has no blame of")
	}
	for name := range files {
		if _, err := repo.BlameCached(ctx, head, name, 0, 0); err != nil && name != "empty.txt" {
			t.Fatalf("blame %s: %v", name, err)
		}
		data, err := repo.ReadFile(head, name)
		if err != nil {
			t.Fatal(err)
		}
		n, ok := count(head, name)
		if want := gitops.CountLines(data); ok && n != want || !ok && name != "empty.txt" {
			t.Errorf("%s: %d lines (%v), want %d", name, n, ok, want)
		}
	}
	fx.Git("config", "diff.twice.textconv", "sed p")
	if n, ok := repo.LineCounter()(head, "plain.txt"); ok {
		t.Errorf("with a textconv driver configured: %d lines", n)
	}
	fx.Git("config", "--unset", "diff.twice.textconv")
	t.Setenv("GIT_CONFIG_PARAMETERS", "'diff.twice.textconv'='sed p'")
	if n, ok := repo.LineCounter()(head, "plain.txt"); ok {
		t.Errorf("with a textconv driver given through git -c: %d lines", n)
	}
}

// TestCutBlameEntryIsNotTrusted: an entry cut at the end of one of its
// lines still reads as lines (a run short, a count too few); it is not
// trusted, and the blame is git's again, stored whole.
func TestCutBlameEntryIsNotTrusted(t *testing.T) {
	ctx := context.Background()
	fx := fixtures.NewRepo(t)
	fx.Commit("one", map[string]string{"a.txt": "1\n2\n3\n4\n5\n6\n"})
	fx.Commit("two", map[string]string{"a.txt": "1\nx\n3\n4\ny\n6\nz\n"})
	head := fx.Git("rev-parse", "HEAD")
	fill := open(t, fx.Dir)
	if _, err := fill.BlameCached(ctx, head, "a.txt", 0, 0); err != nil {
		t.Fatal(err)
	}
	var entry string
	_ = filepath.WalkDir(filepath.Join(fill.CommonDir(), "gloss", "blame", "e"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			entry = p
		}
		return nil
	})
	data, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	whole := string(data)
	for _, cut := range []int{strings.LastIndex(whole[:len(whole)-1], "\n") + 1, strings.Index(whole, "\nr ") + 1} {
		if err := os.WriteFile(entry, data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		compareBlame(t, open(t, fx.Dir), head, "a.txt", 0, 0)
		if again, err := os.ReadFile(entry); err != nil || string(again) != whole {
			t.Errorf("cut at %d: the entry was not stored whole again (%v):\n%s", cut, err, again)
		}
	}
}
