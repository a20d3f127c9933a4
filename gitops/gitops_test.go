package gitops_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
)

func open(t *testing.T, dir string) *gitops.Repo {
	t.Helper()
	r, err := gitops.Open(dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(r.Close)
	return r
}

func numbered(n int, prefix string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s line %d\n", prefix, i)
	}
	return b.String()
}

func TestOpenFromSubdirWorktreeAndBare(t *testing.T) {
	fx := fixtures.NewRepo(t)
	fx.Commit("first", map[string]string{"a/b/c.txt": "hello\n"})

	sub := open(t, fx.Path("a/b"))
	root, _ := filepath.EvalSymlinks(fx.Dir)
	if got, _ := filepath.EvalSymlinks(sub.Root()); got != root {
		t.Errorf("Root from subdir = %q, want %q", got, root)
	}

	wt := filepath.Join(t.TempDir(), "wt")
	fx.Git("worktree", "add", "-q", "-b", "side", wt)
	w := open(t, wt)
	if got, _ := filepath.EvalSymlinks(w.Root()); got != mustEval(t, wt) {
		t.Errorf("worktree Root = %q, want %q", got, wt)
	}
	if !strings.Contains(w.GitDir(), filepath.Join("worktrees", "wt")) {
		t.Errorf("worktree GitDir = %q, want it under .git/worktrees", w.GitDir())
	}
	if mustEval(t, w.CommonDir()) != mustEval(t, filepath.Join(fx.Dir, ".git")) {
		t.Errorf("worktree CommonDir = %q, want the main .git", w.CommonDir())
	}
	if b, _ := w.HeadBranch(); b != "side" {
		t.Errorf("worktree branch = %q, want side", b)
	}

	bare := fixtures.NewBare(t)
	fx.Git("push", "-q", bare, "main")
	br := open(t, bare)
	if !br.IsBare() || br.Root() != "" {
		t.Errorf("bare repo: IsBare=%v Root=%q", br.IsBare(), br.Root())
	}
	if data, err := br.ReadFile("main", "a/b/c.txt"); err != nil || string(data) != "hello\n" {
		t.Errorf("ReadFile in bare repo = %q, %v", data, err)
	}

	if _, err := gitops.Open(t.TempDir()); !errors.Is(err, gitops.ErrNotRepository) {
		t.Errorf("Open(non-repo) error = %v, want ErrNotRepository", err)
	}
}

func mustEval(t *testing.T, p string) string {
	t.Helper()
	e, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestReadFileAndListFiles(t *testing.T) {
	fx := fixtures.NewRepo(t)
	c1 := fx.Commit("one", map[string]string{"x.txt": "v1\n", "dir/y.txt": "y\n", "dir/sub/z.txt": "z\n"})
	fx.Commit("two", map[string]string{"x.txt": "v2\n"})
	r := open(t, fx.Dir)

	for _, tc := range []struct{ rev, path, want string }{
		{"HEAD", "x.txt", "v2\n"}, {c1, "x.txt", "v1\n"}, {"HEAD~1", "dir/sub/z.txt", "z\n"},
	} {
		got, err := r.ReadFile(tc.rev, tc.path)
		if err != nil || string(got) != tc.want {
			t.Errorf("ReadFile(%s, %s) = %q, %v; want %q", tc.rev, tc.path, got, err, tc.want)
		}
	}
	if _, err := r.ReadFile("HEAD", "missing.txt"); !gitops.IsNotFound(err) {
		t.Errorf("ReadFile(missing) error = %v, want not found", err)
	}
	if _, err := r.ReadFile("no-such-rev", "x.txt"); !gitops.IsNotFound(err) {
		t.Errorf("ReadFile(bad rev) error = %v, want not found", err)
	}
	files, err := r.ListFiles("HEAD", "dir")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	if strings.Join(paths, ",") != "dir/sub/z.txt,dir/y.txt" && strings.Join(paths, ",") != "dir/y.txt,dir/sub/z.txt" {
		t.Errorf("ListFiles(dir) = %v", paths)
	}
}

func TestDiffTreesDetectsRenamesAndHunks(t *testing.T) {
	fx := fixtures.NewRepo(t)
	body := numbered(50, "stable")
	a := fx.Commit("one", map[string]string{"old/name.go": body, "keep.txt": "1\n2\n3\n", "gone.txt": "bye\n"})
	if err := os.MkdirAll(fx.Path("new"), 0o755); err != nil {
		t.Fatal(err)
	}
	fx.Git("mv", "old/name.go", "new/name.go")
	fx.Git("rm", "-q", "gone.txt")
	fx.Write("keep.txt", "1\nTWO\n3\n4\n")
	fx.Write("fresh.txt", "new\n")
	fx.Git("add", "-A")
	fx.Git("commit", "-q", "-m", "two")
	r := open(t, fx.Dir)

	changes, err := r.DiffTrees(a, "HEAD", gitops.DiffOptions{Hunks: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]gitops.Change{}
	for _, c := range changes {
		got[c.Path] = c
	}
	if c := got["new/name.go"]; c.Status != gitops.Renamed || c.OldPath != "old/name.go" || c.Similarity != 100 {
		t.Errorf("rename = %+v", c)
	}
	if c := got["gone.txt"]; c.Status != gitops.Deleted {
		t.Errorf("deletion = %+v", c)
	}
	if c := got["fresh.txt"]; c.Status != gitops.Added {
		t.Errorf("addition = %+v", c)
	}
	keep := got["keep.txt"]
	if keep.Status != gitops.Modified || len(keep.Hunks) != 2 {
		t.Fatalf("keep.txt = %+v, want 2 hunks", keep)
	}
	if h := keep.Hunks[0]; h.OldStart != 2 || h.OldLines != 1 || h.NewStart != 2 || h.NewLines != 1 {
		t.Errorf("first hunk = %+v", h)
	}
	if h := keep.Hunks[1]; h.NewStart != 4 || h.NewLines != 1 || h.OldLines != 0 {
		t.Errorf("second hunk = %+v", h)
	}

	plain, err := r.DiffTrees(a, "HEAD", gitops.DiffOptions{NoRenames: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range plain {
		if c.Status == gitops.Renamed {
			t.Errorf("NoRenames still reported a rename: %+v", c)
		}
	}
}

func TestDiffWorktreeSeesUntrackedAndStagedRename(t *testing.T) {
	fx := fixtures.NewRepo(t)
	fx.Commit("one", map[string]string{"a.go": numbered(30, "a"), "b.txt": "b\n"})
	fx.Git("mv", "a.go", "c.go")
	fx.Write("b.txt", "b changed\n")
	fx.Write("untracked/new.txt", "u\n")
	r := open(t, fx.Dir)

	changes, err := r.DiffWorktree("HEAD", gitops.DiffOptions{Untracked: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range changes {
		got[c.Path] = c.Status
	}
	want := map[string]string{"c.go": gitops.Renamed, "b.txt": gitops.Modified, "untracked/new.txt": gitops.Untracked}
	for p, s := range want {
		if got[p] != s {
			t.Errorf("%s: status %q, want %q (all: %v)", p, got[p], s, got)
		}
	}
	without, _ := r.DiffWorktree("HEAD", gitops.DiffOptions{})
	for _, c := range without {
		if c.Status == gitops.Untracked {
			t.Errorf("untracked file reported without Untracked: %+v", c)
		}
	}
}

func TestBlameRangeFollowsRenames(t *testing.T) {
	fx := fixtures.NewRepo(t)
	c1 := fx.Commit("one", map[string]string{"orig.go": numbered(20, "v1")})
	fx.Git("mv", "orig.go", "moved.go")
	fx.Git("commit", "-q", "-m", "rename")
	lines := strings.Split(fx.Read("moved.go"), "\n")
	lines = append([]string{"inserted 1", "inserted 2"}, lines...)
	lines[11] = "changed in three"
	c3 := fx.Commit("three", map[string]string{"moved.go": strings.Join(lines, "\n")})
	r := open(t, fx.Dir)

	b, err := r.Blame(context.Background(), "HEAD", "moved.go", 10, 14)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Lines) != 5 {
		t.Fatalf("blame returned %d lines, want 5", len(b.Lines))
	}
	for _, l := range b.Lines {
		switch l.Line {
		case 12:
			if l.Commit != c3 {
				t.Errorf("line 12 blamed on %s, want %s", l.Commit, c3)
			}
		default:
			if l.Commit != c1 || l.OrigPath != "orig.go" || l.OrigLine != l.Line-2 {
				t.Errorf("line %d = %+v, want commit %s orig.go:%d", l.Line, l, c1, l.Line-2)
			}
		}
	}
	if b.Commits[c3].Summary != "three" || b.Commits[c1].AuthorTime.IsZero() {
		t.Errorf("commit info = %+v", b.Commits)
	}

	fx.Write("moved.go", "uncommitted\n"+fx.Read("moved.go"))
	wb, err := r.Blame(context.Background(), "", "moved.go", 1, 1)
	if err != nil || len(wb.Lines) != 1 || wb.Lines[0].Commit != gitops.Uncommitted {
		t.Errorf("working-tree blame = %+v, %v", wb, err)
	}

	lg, err := r.BlameLibgit2("HEAD", "moved.go", 10, 14)
	if err != nil {
		t.Fatal(err)
	}
	if len(lg.Lines) != 5 || lg.Lines[2].Commit != c3 {
		t.Errorf("libgit2 blame = %+v", lg.Lines)
	}
	if _, err := r.Blame(context.Background(), "HEAD", "nope.go", 0, 0); !gitops.IsNotFound(err) {
		t.Errorf("blame missing file error = %v", err)
	}
}

func TestLogWithPathAndLimit(t *testing.T) {
	fx := fixtures.NewRepo(t)
	var touching []string
	for i := 0; i < 6; i++ {
		files := map[string]string{"other.txt": fmt.Sprint(i)}
		if i%2 == 0 {
			files["watched/f.txt"] = fmt.Sprint(i)
		}
		id := fx.Commit(fmt.Sprintf("c%d", i), files)
		if i%2 == 0 {
			touching = append([]string{id}, touching...)
		}
	}
	r := open(t, fx.Dir)
	all, err := r.Log("HEAD", gitops.LogOptions{})
	if err != nil || len(all) != 6 {
		t.Fatalf("Log = %d commits, %v", len(all), err)
	}
	if all[0].Subject() != "c5" {
		t.Errorf("newest first: got %q", all[0].Subject())
	}
	watched, err := r.Log("HEAD", gitops.LogOptions{Path: "watched"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range watched {
		ids = append(ids, c.ID)
	}
	if strings.Join(ids, " ") != strings.Join(touching, " ") {
		t.Errorf("Log(path) = %v, want %v", ids, touching)
	}
	two, _ := r.Log("HEAD", gitops.LogOptions{Limit: 2})
	if len(two) != 2 {
		t.Errorf("Limit 2 gave %d", len(two))
	}
	hidden, _ := r.Log("HEAD", gitops.LogOptions{Hide: []string{"HEAD~2"}})
	if len(hidden) != 2 {
		t.Errorf("Hide HEAD~2 gave %d commits, want 2", len(hidden))
	}
}

func TestNotesWriteReadListAndFanout(t *testing.T) {
	fx := fixtures.NewRepo(t)
	var commits []string
	for i := 0; i < 300; i++ {
		fx.Git("commit", "-q", "--allow-empty", "-m", fmt.Sprint("c", i))
		commits = append(commits, fx.Git("rev-parse", "HEAD"))
	}
	r := open(t, fx.Dir)
	const ref = "refs/notes/test"

	// One note per commit, written in batches so the tree grows past the
	// fanout threshold.
	for start := 0; start < len(commits); start += 100 {
		snap, err := r.ReadNotes(ref)
		if err != nil {
			t.Fatal(err)
		}
		var changes []gitops.NoteChange
		for _, c := range commits[start : start+100] {
			changes = append(changes, gitops.NoteChange{Object: c, Data: []byte("note " + c + "\n")})
		}
		if _, err := r.CommitNotes(snap, changes, nil, "batch"); err != nil {
			t.Fatal(err)
		}
		snap.Close()
	}
	// git itself must read every note gloss wrote, in whatever layout.
	for _, c := range []string{commits[0], commits[150], commits[299]} {
		if got := fx.Git("notes", "--ref", ref, "show", c); got != "note "+c {
			t.Errorf("git notes show %s = %q", c, got)
		}
	}
	if top := fx.Git("ls-tree", ref); !strings.Contains(top, "tree") {
		t.Errorf("300 notes should be fanned out, root tree is:\n%s", top)
	}
	snap, err := r.ReadNotes(ref)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	list, err := snap.List()
	if err != nil || len(list) != 300 {
		t.Fatalf("List = %d entries, %v", len(list), err)
	}
	many, err := snap.GetMany(commits[10:20])
	if err != nil || len(many) != 10 {
		t.Fatalf("GetMany = %d, %v", len(many), err)
	}
	// Again, every note, through the fanout directories the snapshot has
	// read already.
	all, err := snap.GetMany(commits)
	if err != nil || len(all) != len(commits) {
		t.Fatalf("GetMany of all = %d, %v", len(all), err)
	}
	for _, c := range commits {
		if string(all[c]) != "note "+c+"\n" {
			t.Fatalf("note of %s = %q", c, all[c])
		}
	}

	// git writes a note into our fanned-out tree; we read it and keep
	// writing without creating a second layout.
	fx.Git("notes", "--ref", ref, "add", "-f", "-m", "by git", commits[5])
	snap2, _ := r.ReadNotes(ref)
	defer snap2.Close()
	if data, ok, _ := snap2.Get(commits[5]); !ok || string(data) != "by git\n" {
		t.Errorf("note written by git = %q, %v", data, ok)
	}
	if _, err := r.CommitNotes(snap2, []gitops.NoteChange{{Object: commits[5], Data: nil}}, nil, "remove"); err != nil {
		t.Fatal(err)
	}
	if out, err := fx.GitErr("notes", "--ref", ref, "show", commits[5]); err == nil {
		t.Errorf("removed note still shown: %s", out)
	}
	if out := fx.Git("fsck", "--no-progress"); strings.Contains(out, "error") {
		t.Errorf("fsck: %s", out)
	}
}

func TestUpdateRefCompareAndSwap(t *testing.T) {
	fx := fixtures.NewRepo(t)
	a := fx.Commit("a", nil)
	b := fx.Commit("b", nil)
	r := open(t, fx.Dir)
	const ref = "refs/gloss-test/x"
	if err := r.UpdateRef(ref, a, "", "create"); err != nil {
		t.Fatal(err)
	}
	if err := r.UpdateRef(ref, b, "", "create again"); !errors.Is(err, gitops.ErrRefChanged) {
		t.Errorf("create over existing: %v, want ErrRefChanged", err)
	}
	if err := r.UpdateRef(ref, b, b, "wrong old"); !errors.Is(err, gitops.ErrRefChanged) {
		t.Errorf("wrong old value: %v, want ErrRefChanged", err)
	}
	if err := r.UpdateRef(ref, b, a, "move"); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.RefTarget(ref); got != b {
		t.Errorf("ref = %s, want %s", got, b)
	}
	// A lock a live process holds is left alone; the write is retryable.
	lock := filepath.Join(fx.Dir, ".git", "refs", "gloss-test", "x.lock")
	held, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.UpdateRef(ref, a, b, "locked"); !errors.Is(err, gitops.ErrRefChanged) {
		t.Errorf("held lock: %v, want ErrRefChanged (retryable)", err)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Errorf("a lock a live process holds must not be broken: %v", err)
	}
	// Its holder dies without renaming it: the lock is stale at once.
	held.Close()
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc: stale locks are told by age alone here")
	}
	logs := captureLogs(t)
	if err := r.UpdateRef(ref, a, b, "stale lock"); !errors.Is(err, gitops.ErrRefChanged) {
		t.Errorf("stale lock first attempt: %v", err)
	}
	if !strings.Contains(logs.String(), "removed a stale ref lock") || !strings.Contains(logs.String(), gitops.StaleNoHolder) {
		t.Errorf("lock not removed as held by no process; log:\n%s", logs.String())
	}
	if err := r.UpdateRef(ref, a, b, "after stale lock"); err != nil {
		t.Errorf("update after breaking a stale lock: %v", err)
	}
	refs, err := r.ListRefs("refs/gloss-test/*")
	if err != nil || len(refs) != 1 || refs[0].Target != a {
		t.Errorf("ListRefs = %+v, %v", refs, err)
	}
	if ok, _ := r.IsAncestor(a, b); !ok {
		t.Error("a should be an ancestor of b")
	}
	if ok, _ := r.IsAncestor(b, a); ok {
		t.Error("b is not an ancestor of a")
	}
}

func TestMapLines(t *testing.T) {
	// old: 10 lines. Insert 2 lines after line 2, rewrite line 5, delete 8-9.
	hunks := []gitops.Hunk{
		{OldStart: 2, OldLines: 0, NewStart: 3, NewLines: 2},
		{OldStart: 5, OldLines: 1, NewStart: 7, NewLines: 1},
		{OldStart: 8, OldLines: 2, NewStart: 9, NewLines: 0},
	}
	for _, tc := range []struct {
		start, end, ws, we int
		ok                 bool
	}{
		{1, 2, 1, 2, true},     // before every change
		{3, 4, 5, 6, true},     // shifted by the insertion
		{4, 6, 6, 8, true},     // spans the rewritten line: includes its replacement
		{5, 5, 7, 7, true},     // only the rewritten line: its replacement
		{8, 9, 0, 0, false},    // deleted
		{10, 10, 10, 10, true}, // after the deletion: +2 inserted, -2 deleted
	} {
		s, e, ok := gitops.MapLines(hunks, tc.start, tc.end)
		if s != tc.ws || e != tc.we || ok != tc.ok {
			t.Errorf("MapLines(%d,%d) = %d,%d,%v; want %d,%d,%v", tc.start, tc.end, s, e, ok, tc.ws, tc.we, tc.ok)
		}
	}
}

func TestDiffBlobsReflogAndPatchID(t *testing.T) {
	fx := fixtures.NewRepo(t)
	c1 := fx.Commit("one", map[string]string{"f": "a\nb\nc\n"})
	c2 := fx.Commit("two", map[string]string{"f": "a\nB\nc\nd\n"})
	r := open(t, fx.Dir)
	b1, _ := r.BlobAt(c1, "f")
	b2, _ := r.BlobAt(c2, "f")
	h, err := r.DiffBlobs(b1, b2)
	if err != nil || len(h) != 2 {
		t.Fatalf("DiffBlobs = %+v, %v", h, err)
	}
	if msg := r.LastReflogMessage(); msg != "commit: two" {
		t.Errorf("reflog message = %q", msg)
	}
	fx.Git("checkout", "-q", "-b", "side", c1)
	fx.Git("cherry-pick", c2)
	if msg := r.LastReflogMessage(); !strings.HasPrefix(msg, "cherry-pick: two") {
		t.Errorf("reflog after cherry-pick = %q", msg)
	}
	p1, _ := r.PatchID(context.Background(), c2)
	p2, _ := r.PatchID(context.Background(), "HEAD")
	if p1 == "" || p1 != p2 {
		t.Errorf("patch ids %q and %q should match", p1, p2)
	}
}

// Of writers racing to create the same ref, or to move it from the value
// they all read, exactly one wins and the others are told to retry. (The
// check libgit2 makes for a non-forced create runs before it takes the
// ref's lock, so two creators could both pass it.)
func TestRefRacesHaveOneWinner(t *testing.T) {
	fx := fixtures.NewRepo(t)
	var commits, moves []string
	for i := range 8 {
		commits = append(commits, fx.Commit(fmt.Sprintf("c%d", i), nil))
	}
	for i := range 8 {
		moves = append(moves, fx.Commit(fmt.Sprintf("m%d", i), nil))
	}
	repos := make([]*gitops.Repo, len(commits))
	for i := range repos {
		repos[i] = open(t, fx.Dir)
	}
	for round := range 40 {
		ref := fmt.Sprintf("refs/gloss-test/race%d", round)
		var wg sync.WaitGroup
		won := make([]bool, len(commits))
		for i := range commits {
			wg.Go(func() {
				err := repos[i].UpdateRef(ref, commits[i], "", "create")
				if err != nil && !errors.Is(err, gitops.ErrRefChanged) {
					t.Errorf("writer %d: %v", i, err)
				}
				won[i] = err == nil
			})
		}
		wg.Wait()
		var winners []int
		for i, w := range won {
			if w {
				winners = append(winners, i)
			}
		}
		got, _ := repos[0].RefTarget(ref)
		if len(winners) != 1 || got != commits[winners[0]] {
			t.Fatalf("round %d: winners %v, ref at %s", round, winners, got)
		}
		// Moving it (never to the value it holds) from the value everyone
		// read: again one winner.
		winners = winners[:0]
		for i := range commits {
			wg.Go(func() {
				err := repos[i].UpdateRef(ref, moves[i], got, "move")
				if err != nil && !errors.Is(err, gitops.ErrRefChanged) {
					t.Errorf("writer %d: %v", i, err)
				}
				won[i] = err == nil
			})
		}
		wg.Wait()
		for i, w := range won {
			if w {
				winners = append(winners, i)
			}
		}
		if moved, _ := repos[0].RefTarget(ref); len(winners) != 1 || moved != moves[winners[0]] {
			t.Fatalf("round %d: %d writers moved the ref", round, len(winners))
		}
	}
}

// captureLogs routes slog to a buffer for the rest of the test.
func captureLogs(t *testing.T) *syncBuffer {
	t.Helper()
	buf := &syncBuffer{}
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(old) })
	return buf
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
