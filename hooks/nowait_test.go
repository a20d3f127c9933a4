package hooks_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/capture"
	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/runenv"
	"github.com/gloss-dev/gloss/setup"
)

// bigFile is a file past what a post-commit blames whole itself (the
// hooks' wholeBlameBudget), with its last line tagged.
func bigFile(tag string) string {
	var b strings.Builder
	for i := 0; i < 1500; i++ {
		fmt.Fprintf(&b, "line %04d of a file whose blame costs more than a commit should wait\n", i)
	}
	return b.String() + "// " + tag + "\n"
}

// commitBig commits big.go tagged tag, with the hooks or without them
// (a GUI client, a teammate without gloss), and returns the commit.
func commitBig(fx *fixtures.Repo, tag string, hooks bool) string {
	fx.Write("big.go", bigFile(tag))
	fx.Git("add", "big.go")
	if hooks {
		fx.Git("commit", "-q", "-m", tag)
	} else {
		fx.Git("-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", tag)
	}
	return fx.Git("rev-parse", "HEAD")
}

// lastHookLog is the last post-commit line of hooks.log.
func lastHookLog(t *testing.T, repo *gitops.Repo) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo.CommonDir(), "gloss", "hooks.log"))
	if err != nil {
		t.Fatal(err)
	}
	var last string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, " post-commit ") {
			last = l
		}
	}
	return last
}

// backlog is `git gloss status --json`'s backlog.
func backlog(t *testing.T, fx *fixtures.Repo) capture.Backlog {
	t.Helper()
	var st setup.Status
	if err := json.Unmarshal([]byte(fx.MustGloss("status", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	return st.Backlog
}

// TestNoCommitWaitsAfterCommitsWithoutTheHooks: a hooked commit after
// one made without the hooks derives the missing blame cache (a diff) and
// attributes at once; after more such commits than it catches up, the
// work that would blame a large file whole goes to the worker, hooks.log
// says why, `git gloss status` shows the commit waiting while the worker
// runs and after it died, and the next commit's worker does both jobs.
func TestNoCommitWaitsAfterCommitsWithoutTheHooks(t *testing.T) {
	t.Parallel()
	fx := setupRepo(t)
	repo, err := gitops.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(repo.Close)
	lock := filepath.Join(repo.CommonDir(), "gloss", "queue", "worker.lock")

	commitBig(fx, "hooked", true)
	commitBig(fx, "without the hooks", false)
	head := commitBig(fx, "hooked after one without", true)
	if l := lastHookLog(t, repo); strings.Contains(l, "deferred") {
		t.Fatalf("a commit after one made without the hooks deferred: %s", l)
	}
	if got := attributionRecords(t, repo, head); len(got) != 1 {
		t.Fatalf("attribution of the hooked commit right after it: %v", got)
	}
	if b := backlog(t, fx); len(b.Commits) != 0 {
		t.Fatalf("backlog %+v after a commit that ran its work", b)
	}

	for i := 0; i < 9; i++ {
		commitBig(fx, fmt.Sprintf("without the hooks %d", i), false)
	}
	stalled := commitBig(withEnv(fx, runenv.HookFault+"=worker-stall"), "hooked after nine without", true)
	if l := lastHookLog(t, repo); !strings.Contains(l, "deferred to the worker: 1 file(s)") {
		t.Fatalf("hooks.log does not say the work was deferred: %s", l)
	}
	workerPID(t, fx.Dir)
	deadline := time.Now().Add(30 * time.Second)
	b := backlog(t, fx)
	for !b.Running && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		b = backlog(t, fx)
	}
	if !slices.Equal(b.Commits, []string{stalled}) || !b.Running {
		t.Fatalf("status backlog %+v while the worker holds the job, want %.8s and running", b, stalled)
	}
	if out := fx.MustGloss("status"); !strings.Contains(out, "1 commit(s) wait for their annotations and attribution (the worker runs now)") {
		t.Errorf("status does not show the waiting commit:\n%s", out)
	}
	killStalledWorker(t, fx, lock)
	if b := backlog(t, fx); !slices.Equal(b.Commits, []string{stalled}) || b.Running {
		t.Fatalf("status backlog %+v after the worker died, want %.8s, not running", b, stalled)
	}
	if out := fx.MustGloss("status"); !strings.Contains(out, "no worker runs: the next commit made with the hooks starts one") {
		t.Errorf("status does not say no worker runs:\n%s", out)
	}

	next := commitBig(fx, "next", true)
	waitQueueDrained(t, repo)
	for _, c := range []string{stalled, next} {
		if got := attributionRecords(t, repo, c); len(got) != 1 {
			t.Errorf("attribution of %.8s after the worker: %v", c, got)
		}
	}
	if b := backlog(t, fx); len(b.Commits) != 0 || b.Running {
		t.Errorf("backlog %+v once the worker is done", b)
	}
	// The worker derived the cache the commits without the hooks did not
	// leave: the next commit blames nothing whole.
	commitBig(fx, "after the catch-up", true)
	if l := lastHookLog(t, repo); strings.Contains(l, "deferred") {
		t.Errorf("the commit after the worker's catch-up deferred: %s", l)
	}
}
