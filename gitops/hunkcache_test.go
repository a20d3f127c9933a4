package gitops_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
)

// hunkRepo is a history whose diffs have every kind of file change: text
// edits, content-binary files, an added, a deleted and a renamed file, a
// mode change, a symlink.
func hunkRepo(t *testing.T) (*fixtures.Repo, []string) {
	t.Helper()
	fx := fixtures.NewRepo(t)
	c0 := fx.Commit("start", map[string]string{
		"a.txt": numbered(40, "a"), "b.txt": numbered(30, "b"), "img.png": "PNG\x00\x01\x02 one\n",
		"old/moved.txt": numbered(50, "moved"), "gone.txt": numbered(5, "gone"), "run.sh": "echo hi\n",
	})
	if err := os.Symlink("a.txt", fx.Path("link")); err != nil {
		t.Fatal(err)
	}
	c1 := fx.Commit("edit", map[string]string{
		"a.txt":   strings.Replace(numbered(40, "a"), "a line 7\n", "a line seven\nand more\n", 1) + "tail\n",
		"img.png": "PNG\x00\x01\x03 two\n", "new.txt": numbered(12, "new"),
	})
	fx.Git("mv", "old/moved.txt", "moved.txt")
	fx.Git("rm", "-q", "gone.txt")
	fx.Git("update-index", "--chmod=+x", "run.sh")
	c2 := fx.Commit("move", map[string]string{
		"moved.txt": strings.Replace(numbered(50, "moved"), "moved line 20\n", "", 1),
		"b.txt":     strings.Replace(numbered(30, "b"), "b line 3\n", "b line three\n", 1),
	})
	return fx, []string{c0, c1, c2}
}

// diffPairs are the ranges of the history compared.
func diffPairs(ids []string) [][2]string {
	var out [][2]string
	for i := range ids {
		for j := i + 1; j < len(ids); j++ {
			out = append(out, [2]string{ids[i], ids[j]}, [2]string{ids[j], ids[i]})
		}
	}
	return append(out, [2]string{"", ids[len(ids)-1]})
}

// sameAsUncached checks DiffTreesCached against DiffTrees for every pair.
func sameAsUncached(t *testing.T, r *gitops.Repo, ids []string, opts gitops.DiffOptions) {
	t.Helper()
	opts.Hunks = true
	for _, p := range diffPairs(ids) {
		want, err := r.DiffTrees(p[0], p[1], opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.DiffTreesCached(context.Background(), p[0], p[1], opts)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%.7s..%.7s: cached diff\n%+v\nwant\n%+v", p[0], p[1], got, want)
		}
	}
}

func hunkEntries(t *testing.T, fx *fixtures.Repo) []string {
	t.Helper()
	var files []string
	root := filepath.Join(fx.Dir, ".git", "gloss", "blame", "xhunks")
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.Contains(d.Name(), ".tmp") {
			files = append(files, p)
		}
		return nil
	})
	return files
}

// TestDiffTreesCachedMatchesDiffTrees: cold, warm, with and without
// rename detection, the cached diff is the diff.
func TestDiffTreesCachedMatchesDiffTrees(t *testing.T) {
	fx, ids := hunkRepo(t)
	r := open(t, fx.Dir)
	sameAsUncached(t, r, ids, gitops.DiffOptions{})
	if len(hunkEntries(t, fx)) == 0 {
		t.Fatal("no hunk cache entry written")
	}
	sameAsUncached(t, r, ids, gitops.DiffOptions{}) // warm
	sameAsUncached(t, r, ids, gitops.DiffOptions{NoRenames: true})
	sameAsUncached(t, r, ids, gitops.DiffOptions{Paths: []string{"a.txt", "moved.txt"}})

	// A file edited again is a new pair of blobs: a fresh answer, while
	// the files left alone come from the cache.
	ids = append(ids, fx.Commit("again", map[string]string{"a.txt": "rewritten\n" + numbered(40, "a")}))
	sameAsUncached(t, r, ids, gitops.DiffOptions{})
}

// planted rewrites every hunk cache entry to a well-formed one that says
// the file has one hunk at line 999, which no real diff here has: a diff
// that shows it was answered from the cache.
func planted(t *testing.T, fx *fixtures.Repo) {
	t.Helper()
	entries := hunkEntries(t, fx)
	if len(entries) == 0 {
		t.Fatal("no hunk cache entry")
	}
	for _, p := range entries {
		if err := os.WriteFile(p, []byte("gloss-hunks v1\nb 0\nn 1\n999 1 999 1\nend\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func hunksOf(t *testing.T, r *gitops.Repo, from, to, path string) (bool, []gitops.Hunk) {
	t.Helper()
	changes, err := r.DiffTreesCached(context.Background(), from, to, gitops.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if c.Path == path {
			return c.Binary, c.Hunks
		}
	}
	t.Fatalf("%s not in the diff", path)
	return false, nil
}

// TestHunkCacheKeyedByAttributesAndConfig: the entries are used (a planted
// entry is what comes back), and a change of .gitattributes or of a diff
// driver's binary setting asks libgit2 again.
func TestHunkCacheKeyedByAttributesAndConfig(t *testing.T) {
	fx, ids := hunkRepo(t)
	r := open(t, fx.Dir)
	from, to := ids[0], ids[1]
	if bin, h := hunksOf(t, r, from, to, "a.txt"); bin || len(h) != 2 {
		t.Fatalf("a.txt: binary %v, hunks %v; want two hunks", bin, h)
	}
	planted(t, fx)
	if _, h := hunksOf(t, r, from, to, "a.txt"); len(h) != 1 || h[0].OldStart != 999 {
		t.Fatalf("a.txt after planting: %v; want the planted entry (the cache is not read)", h)
	}

	// a.txt becomes binary for git: a new key, libgit2's answer.
	fx.Write(".gitattributes", "a.txt -diff\n")
	if bin, h := hunksOf(t, r, from, to, "a.txt"); !bin || len(h) != 0 {
		t.Fatalf("a.txt with -diff: binary %v, hunks %v; want binary, no hunks", bin, h)
	}
	// A named driver: text until its config says binary.
	fx.Write(".gitattributes", "a.txt diff=blob\n")
	if bin, h := hunksOf(t, r, from, to, "a.txt"); bin || len(h) != 2 {
		t.Fatalf("a.txt with diff=blob: binary %v, hunks %v; want two hunks", bin, h)
	}
	fx.Git("config", "diff.blob.binary", "true")
	if bin, h := hunksOf(t, r, from, to, "a.txt"); !bin || len(h) != 0 {
		t.Fatalf("a.txt with diff.blob.binary: binary %v, hunks %v; want binary", bin, h)
	}
	// And back: the key of no attribute is the planted one again.
	if err := os.Remove(fx.Path(".gitattributes")); err != nil {
		t.Fatal(err)
	}
	if _, h := hunksOf(t, r, from, to, "a.txt"); len(h) != 1 || h[0].OldStart != 999 {
		t.Fatalf("a.txt, attributes gone: %v; want the planted entry", h)
	}
}

// TestHunkCacheIgnoresBrokenEntries: an entry cut short, garbled or
// empty is not trusted; the diff is right and the entry is written again.
func TestHunkCacheIgnoresBrokenEntries(t *testing.T) {
	fx, ids := hunkRepo(t)
	r := open(t, fx.Dir)
	sameAsUncached(t, r, ids, gitops.DiffOptions{})
	whole := map[string][]byte{}
	for _, p := range hunkEntries(t, fx) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		whole[p] = data
	}
	breakers := []func([]byte) []byte{
		func(b []byte) []byte { return b[:len(b)-4] },                                       // cut before its end line
		func(b []byte) []byte { return b[:len(b)/2] },                                       // cut in half
		func([]byte) []byte { return nil },                                                  // empty
		func(b []byte) []byte { return []byte(strings.Replace(string(b), "n ", "n 9", 1)) }, // wrong count
		func(b []byte) []byte { return []byte(strings.Replace(string(b), "b ", "b x", 1)) }, // bad flag
		func(b []byte) []byte { return append([]byte("gloss-hunks v0\n"), b...) },           // another version
		func(b []byte) []byte { return []byte(strings.Replace(string(b), " 1", " -1", 1)) }, // negative line
	}
	for i, breakIt := range breakers {
		for p, data := range whole {
			if err := os.WriteFile(p, breakIt(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		sameAsUncached(t, r, ids, gitops.DiffOptions{})
		for p, data := range whole {
			got, err := os.ReadFile(p)
			if err != nil || string(got) != string(data) {
				t.Fatalf("breaker %d: %s not written again: %q", i, filepath.Base(p), got)
			}
		}
	}
}

// TestHunkCacheConcurrentRuns: processes' worth of handles filling and
// reading the same cache at once all get the diff.
func TestHunkCacheConcurrentRuns(t *testing.T) {
	fx, ids := hunkRepo(t)
	for i := 0; i < 3; i++ {
		ids = append(ids, fx.Commit(fmt.Sprint("more ", i), map[string]string{
			fmt.Sprintf("f%d.txt", i): numbered(20+i, "f"), "b.txt": numbered(30+i, "b"),
		}))
	}
	var wg sync.WaitGroup
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := gitops.Open(fx.Dir)
			if err != nil {
				t.Error(err)
				return
			}
			defer r.Close()
			for _, p := range diffPairs(ids) {
				want, err1 := r.DiffTrees(p[0], p[1], gitops.DiffOptions{Hunks: true})
				got, err2 := r.DiffTreesCached(context.Background(), p[0], p[1], gitops.DiffOptions{})
				if err1 != nil || err2 != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("%.7s..%.7s: %v %v\n%+v\nwant\n%+v", p[0], p[1], err1, err2, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}
