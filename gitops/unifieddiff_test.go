package gitops_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
)

type fileWant struct {
	old, new string
	binary   bool
	ranges   []gitops.Hunk
	added    []int
}

func checkFiles(t *testing.T, name string, got []gitops.FileDiff, want []fileWant) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d files %+v, want %d", name, len(got), got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.OldPath != w.old || g.NewPath != w.new || g.Binary != w.binary {
			t.Errorf("%s file %d: %q -> %q binary %v, want %q -> %q binary %v", name, i, g.OldPath, g.NewPath, g.Binary, w.old, w.new, w.binary)
		}
		if w.ranges != nil && !reflect.DeepEqual(g.Ranges(), w.ranges) {
			t.Errorf("%s file %d: hunks %+v, want %+v", name, i, g.Ranges(), w.ranges)
		}
		if !reflect.DeepEqual(g.Added(), w.added) {
			t.Errorf("%s file %d: added %v, want %v", name, i, g.Added(), w.added)
		}
	}
}

// Diffs as other tools write them: no "diff --git" header, names followed
// by a tab and a label, an empty context line a tool trimmed, a removed
// line that reads like a file header.
func TestParseUnifiedDiffOfOtherTools(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, diff string
		want       []fileWant
	}{
		{"jsdiff (Gemini CLI's fileDiff)",
			"Index: a.go\n===================================================================\n--- a.go\tOriginal\n+++ a.go\tWritten\n@@ -1,3 +1,4 @@\n package a\n+// added\n \n func A() {}\n",
			[]fileWant{{old: "a.go", new: "a.go", ranges: []gitops.Hunk{{1, 3, 1, 4}}, added: []int{2}}}},
		{"trimmed context line",
			"--- a.txt\n+++ a.txt\n@@ -1,3 +1,3 @@\n one\n\n-three\n+THREE\n",
			[]fileWant{{old: "a.txt", new: "a.txt", added: []int{3}}}},
		{"a removed line that reads like a header",
			"--- a.md\n+++ a.md\n@@ -1,2 +1,2 @@\n--- a rule\n+++ a plus\n intro\n--- b.md\n+++ b.md\n@@ -4 +4,2 @@\n-x\n+y\n+z\n",
			[]fileWant{{old: "a.md", new: "a.md", added: []int{1}}, {old: "b.md", new: "b.md", ranges: []gitops.Hunk{{4, 1, 4, 2}}, added: []int{4, 5}}}},
		{"hunks alone",
			"@@ -0,0 +1,2 @@\n+a\n+b\n@@ -7 +9 @@\n-c\n+d\n\\ No newline at end of file\n",
			[]fileWant{{added: []int{1, 2, 9}}}},
		{"added and deleted files",
			"--- /dev/null\n+++ n.txt\n@@ -0,0 +1 @@\n+n\n--- d.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-d\n",
			[]fileWant{{new: "n.txt", added: []int{1}}, {old: "d.txt"}}},
	}
	for _, c := range cases {
		got, err := gitops.ParseUnifiedDiff([]byte(c.diff))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		checkFiles(t, c.name, got, c.want)
	}
	for _, bad := range []string{"--- a\n+++ a\n@@ -x +1 @@\n", "@@ -1,-2 +1 @@\n"} {
		if _, err := gitops.ParseUnifiedDiff([]byte(bad)); err == nil {
			t.Errorf("%q parsed without an error", bad)
		}
	}
}

func TestHunkAdded(t *testing.T) {
	t.Parallel()
	got := gitops.HunkAdded(10, []string{" a", "-b", "+c", "\\ No newline at end of file", "+d", " e", "+f"})
	if want := []int{11, 12, 14}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := gitops.HunkAdded(3, []string{"-x"}); got == nil || len(got) != 0 {
		t.Errorf("a deletion adds %v, want an empty list", got)
	}
}

// git's own diff of the names git quotes or ends with a tab, a rename, a
// binary file and a mode change, whatever the diff config says.
func TestParseGitDiffOfUnusualNames(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewRepo(t)
	repo := open(t, fx.Dir)
	fx.Git("config", "diff.mnemonicPrefix", "true")
	fx.Git("config", "core.quotePath", "true")
	spaced, quoted, utf := "a b.txt", "q\"t\tx.txt", "dir/ü.txt"
	fx.Commit("one", map[string]string{spaced: "1\n", quoted: "1\n", utf: "1\n", "old name.txt": "r1\nr2\nr3\nr4\nr5\n", "bin.dat": "\x00a", "mode.sh": "x\n"})
	fx.Git("mv", "old name.txt", "new name.txt")
	fx.Commit("two", map[string]string{spaced: "1\n2\n", quoted: "0\n1\n", utf: "2\n", "new name.txt": "r1\nr2\nr3\nr4\nr5\nr6\n", "bin.dat": "\x00b"})
	fx.Git("update-index", "--chmod=+x", "mode.sh")
	fx.Git("commit", "-q", "-m", "mode")
	files, err := repo.Diff(context.Background(), "-M", "HEAD~2", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, "git diff", files, []fileWant{
		{old: spaced, new: spaced, ranges: []gitops.Hunk{{1, 0, 2, 1}}, added: []int{2}},
		{old: "bin.dat", new: "bin.dat", binary: true},
		{old: utf, new: utf, added: []int{1}},
		{old: "mode.sh", new: "mode.sh"},
		{old: "old name.txt", new: "new name.txt", added: []int{6}},
		{old: quoted, new: quoted, added: []int{1}},
	})
}

// A modified working-tree file whose name holds a space is blamed through
// git diff like any other (its "+++" line ends with a tab, which the
// parser once kept in the name: the file's blame was HEAD's).
func TestWorktreeBlameOfSpacedName(t *testing.T) {
	fx := fixtures.NewRepo(t)
	repo := open(t, fx.Dir)
	fx.Commit("one", map[string]string{"a b.txt": "a1\nkeep\na2\n"})
	fx.Commit("two", map[string]string{"a b.txt": "a1\nkeep\nx\na2\n"})
	fx.Write("a b.txt", "new\na1\nkeep\nx\na2\n")
	compareBlame(t, repo, "", "a b.txt", 0, 0)
}
