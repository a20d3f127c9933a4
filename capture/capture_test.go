package capture_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/capture"
	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
)

func openRepo(t *testing.T, fx *fixtures.Repo) *gitops.Repo {
	t.Helper()
	repo, err := gitops.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(repo.Close)
	return repo
}

// lookup is the commit id names.
func lookup(t *testing.T, repo *gitops.Repo, id string) *gitops.Commit {
	t.Helper()
	c, err := repo.LookupCommit(id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestTakeEditsTakesWhatACommitUsed(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewRepo(t)
	fx.Commit("base", map[string]string{"a.txt": "one\n", "b.txt": "x\n"})
	repo := openRepo(t, fx)
	h := capture.HashLine
	must(t, capture.AppendEdits(repo,
		capture.Edit{Session: "s1", Agent: "claude", Model: "m", Tool: "Edit", File: "a.txt",
			Lines: []capture.LineRange{{Start: 2, End: 3}}, Hashes: []string{h("two"), h("three")}},
		capture.Edit{Session: "s1", Agent: "claude", Tool: "Write", File: "b.txt",
			Lines: []capture.LineRange{{Start: 1, End: 1}}, Hashes: []string{h("y")}},
	))
	edits, err := capture.PendingEdits(repo)
	must(t, err)
	if len(edits) != 2 || edits[0].Schema != capture.EditSchema || edits[0].Time == "" {
		t.Fatalf("pending = %+v", edits)
	}
	// The commit takes a.txt with only one of the agent's lines ("three"
	// is in the working tree, not staged): the other line stays pending,
	// b.txt (not committed) stays whole.
	fx.Write("a.txt", "one\ntwo\nthree\n")
	fx.Write("b.txt", "y\n")
	stageBlob(t, fx, "a.txt", "one\ntwo\n")
	fx.Git("commit", "-q", "-m", "a")
	taken, err := capture.TakeEdits(repo, lookup(t, repo, fx.Git("rev-parse", "HEAD")))
	must(t, err)
	if len(taken.Edits) != 2 {
		t.Errorf("the commit saw %d edits, want both pending ones", len(taken.Edits))
	}
	if hs := taken.Committed["a.txt"]; len(taken.Committed) != 1 || !hs[h("one")] || !hs[h("two")] || hs[h("three")] {
		t.Errorf("committed hashes %v, want a.txt's one and two only", taken.Committed)
	}
	edits, err = capture.PendingEdits(repo)
	must(t, err)
	if len(edits) != 2 || len(edits[0].Hashes) != 1 || edits[0].Hashes[0] != h("three") || edits[1].File != "b.txt" {
		t.Fatalf("after a partial commit: %+v", edits)
	}
	// A person rewrites the agent's "three" and commits everything: the
	// line is gone, so nothing of it waits any more.
	head := fx.Commit("b", map[string]string{"a.txt": "one\ntwo\nTHREE\n"})
	_, err = capture.TakeEdits(repo, lookup(t, repo, head))
	must(t, err)
	head = fx.Commit("c", map[string]string{"b.txt": "y\n"})
	_, err = capture.TakeEdits(repo, lookup(t, repo, head))
	must(t, err)
	if edits, _ = capture.PendingEdits(repo); len(edits) != 0 {
		t.Fatalf("everything was committed or rewritten, still pending: %+v", edits)
	}
	if _, err := os.Stat(filepath.Join(repo.GitDir(), "gloss", "agent", "pending.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an empty store is left behind: %v", err)
	}
}

// Edits appended while commits take theirs are all kept or taken, none
// lost: the appends and the takes share the store's lock.
func TestEditsAppendedDuringTakesAreKept(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewRepo(t)
	head := fx.Commit("base", map[string]string{"a.txt": "one\n"})
	repo := openRepo(t, fx)
	const writers, each = 4, 25
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				e := capture.Edit{Session: "s", Agent: "claude", Tool: "Edit", File: "other.txt",
					Lines: []capture.LineRange{{Start: 1, End: 1}}, Hashes: []string{capture.HashLine(strings.Repeat("x", w*each+i))}}
				if err := capture.AppendEdits(repo, e); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	for range 20 {
		if _, err := capture.TakeEdits(repo, lookup(t, repo, head)); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	edits, err := capture.PendingEdits(repo)
	must(t, err)
	if len(edits) != writers*each {
		t.Errorf("%d edits kept, want %d (the commit did not change other.txt)", len(edits), writers*each)
	}
}

func TestLineHashIgnoresLineEnds(t *testing.T) {
	t.Parallel()
	h := capture.HashLine
	if h("x\r\n") != h("x") || h("x\n") != h("x") || h("x") == h("y") {
		t.Fatal("HashLine must hash the text without its end of line")
	}
	if got := capture.SplitLines("a\nb\n"); len(got) != 2 || got[1] != "b" {
		t.Errorf("SplitLines = %q", got)
	}
}

type note struct {
	Text string `json:"text"`
}

// The staged spool: what is staged is read back whole and taken once; a
// damaged line does not lose the others.
func TestStagedSpool(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewRepo(t)
	fx.Commit("base", map[string]string{"a.txt": "one\n"})
	repo := openRepo(t, fx)
	n, err := capture.Stage(repo, []note{{"a"}, {"b"}})
	must(t, err)
	if n != 2 {
		t.Errorf("staged %d, want 2", n)
	}
	p := filepath.Join(repo.GitDir(), "gloss", "pending.jsonl")
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, _ = f.WriteString("{not json\n")
	f.Close()
	n, err = capture.Stage(repo, []note{{"c"}})
	must(t, err)
	if n != 3 {
		t.Errorf("staged %d after a damaged line, want 3", n)
	}
	got, err := capture.Staged[note](repo)
	must(t, err)
	if len(got) != 3 || got[2].Text != "c" {
		t.Errorf("staged = %+v", got)
	}
	taken, err := capture.TakeStaged[note](repo)
	must(t, err)
	if len(taken) != 3 {
		t.Errorf("took %+v", taken)
	}
	if again, _ := capture.TakeStaged[note](repo); len(again) != 0 {
		t.Errorf("taken twice: %+v", again)
	}
}

type job struct {
	Commit string `json:"commit"`
	N      int    `json:"n"`
}

// The queue: jobs come back typed, oldest first; a failed one stays, one
// that cannot be read or names another commit is set aside, never run.
func TestQueueDrain(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewRepo(t)
	fx.Commit("base", map[string]string{"a.txt": "one\n"})
	repo := openRepo(t, fx)
	c := func(i int) string { return strings.Repeat(string(rune('a'+i)), 40) }
	for i := range 3 {
		must(t, capture.Enqueue(repo, c(i), job{Commit: c(i), N: i}))
	}
	dir := filepath.Join(repo.CommonDir(), "gloss", "queue")
	must(t, os.WriteFile(filepath.Join(dir, c(3)+".json"), []byte("{"), 0o644))
	data, _ := json.Marshal(job{Commit: c(0)})
	must(t, os.WriteFile(filepath.Join(dir, c(4)+".json"), data, 0o644))
	if q := capture.Queued(repo); len(q) != 5 {
		t.Fatalf("queued %v", q)
	}
	var ran []int
	ok, err := capture.Drain(context.Background(), repo, func(j *job) string { return j.Commit }, func(j *job) error {
		ran = append(ran, j.N)
		if j.N == 1 {
			return errors.New("not now")
		}
		return nil
	})
	if !ok || err == nil || !strings.Contains(err.Error(), "not now") {
		t.Errorf("drain: %v %v", ok, err)
	}
	if len(ran) != 3 {
		t.Errorf("ran %v, want the three good jobs", ran)
	}
	if q := capture.Queued(repo); len(q) != 1 || q[0] != c(1) {
		t.Errorf("left %v, want the failed job only", q)
	}
	for _, bad := range []string{c(3), c(4)} {
		if _, err := os.Stat(filepath.Join(dir, bad+".json.bad")); err != nil {
			t.Errorf("%s... not set aside: %v", bad[:4], err)
		}
	}
}

// stageBlob stages content for path without touching the working tree,
// as `git add -p` does.
func stageBlob(t *testing.T, fx *fixtures.Repo, path, content string) {
	t.Helper()
	cmd := fx.Command("git", "hash-object", "-w", "--stdin")
	cmd.Stdin = strings.NewReader(content)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	fx.Git("update-index", "--add", "--cacheinfo", "100644,"+strings.TrimSpace(string(out))+","+path)
}

// WaitIdle returns once the queue is empty and no worker holds its lock,
// and says what is still queued when its context ends first.
func TestWaitIdle(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewRepo(t)
	fx.Commit("base", map[string]string{"a.txt": "one\n"})
	repo := openRepo(t, fx)
	commit := strings.Repeat("a", 40)
	must(t, capture.Enqueue(repo, commit, job{Commit: commit}))
	short, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := capture.WaitIdle(short, repo); err == nil || !strings.Contains(err.Error(), commit) {
		t.Errorf("a queued job: WaitIdle said %v", err)
	}
	// A worker holds the lock while it runs the last job.
	unlock, ok, err := atomicfile.TryLock(filepath.Join(repo.CommonDir(), "gloss", "queue", "worker.lock"))
	if err != nil || !ok {
		t.Fatalf("take the worker's lock: %v %v", ok, err)
	}
	done := make(chan error, 1)
	go func() { done <- capture.WaitIdle(context.Background(), repo) }()
	must(t, os.Remove(filepath.Join(repo.CommonDir(), "gloss", "queue", commit+".json")))
	select {
	case err := <-done:
		t.Fatalf("WaitIdle returned while the worker held its lock: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	unlock()
	if err := <-done; err != nil {
		t.Errorf("after the worker: %v", err)
	}
}
