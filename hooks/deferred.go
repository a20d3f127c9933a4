package hooks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/capture"
	"github.com/gloss-dev/gloss/detach"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/guard"
	"github.com/gloss-dev/gloss/setup"
)

// Where annotating a commit costs more than a commit should wait — a large
// repository, whose changed files are large and whose trees are deep — the
// post-commit hook decides at once what belongs to the commit (its Job),
// queues it (capture.Enqueue), and leaves the work that depends only on
// the commit (tree-sitter outlines, tree diffs, the notes writes, the
// blame cache, the blame graph's refresh) to a detached `git gloss
// hook-worker`, one at a time per repository. A worker that dies leaves
// its job queued: the next post-commit starts another, which runs it.
//
// git config gloss.deferHooks: true, false, or auto (the default): defer
// in a large repository (gitops.Repo.LargeRepository).

// The worker's faults (runenv.HookFault, in test builds), for a test to kill it at a chosen
// point: worker-stall stops it after taking the queue, before any job;
// worker-stall-attribution after a job's annotations, before its
// attribution. They can only make gloss do less.
const (
	faultWorkerStall            = "worker-stall"
	faultWorkerStallAttribution = "worker-stall-attribution"
)

// deferred reports whether this post-commit leaves its work to the worker.
func (inv *Invocation) deferred() bool {
	inv.deferOnce.Do(func() {
		switch strings.ToLower(strings.TrimSpace(inv.Config["gloss.deferhooks"])) {
		case "true", "yes", "on", "1":
			inv.deferIt = true
		case "false", "no", "off", "0":
			inv.deferIt = false
		default:
			inv.deferIt = inv.Repo.LargeRepository()
		}
		if inv.deferIt {
			inv.note = "deferred to the worker: gloss.deferHooks, or a large repository"
		}
	})
	return inv.deferIt
}

// A commit's share of the hooks stays bounded whatever came before it.
// Its attribution reads the blame of each file it changed, derived from
// the cache its parent left; a commit made without the hooks (a GUI
// client, a teammate without gloss) leaves none, nor does a file no
// hooked commit touched yet. The hook then derives the cache of up to
// catchUpMax such commits (a diff each, gitops.CatchUpBlameCache); what
// would still be blamed whole, past wholeBlameBudget bytes, waits: the
// job goes to the worker, hooks.log says why, and `git gloss status`
// shows it queued until the worker has run it.
//
// The annotation outlines each file the commit changed (tree-sitter):
// past outlineBudget bytes of such code the job goes to the worker too.
const (
	catchUpMax       = 8
	workerCatchUpMax = 256
	wholeBlameBudget = 32 << 10
	outlineBudget    = 128 << 10
)

// waits reports whether job costs more than a commit should wait for,
// deriving on the way the blame cache the commits before it did not
// leave. gloss.deferHooks=false runs every job at once.
func (inv *Invocation) waits(ctx context.Context, job *Job) bool {
	switch strings.ToLower(strings.TrimSpace(inv.Config["gloss.deferhooks"])) {
	case "false", "no", "off", "0":
		return false
	}
	if job.Annotation != nil {
		if n, err := annotate.OutlineBytes(inv.Repo, job.Commit); err == nil && n > outlineBudget {
			inv.note = fmt.Sprintf("deferred to the worker: %d KiB of changed code to outline", n>>10)
			return true
		}
	}
	if job.Attribution == nil {
		return false // no blame to read: the blame cache's update is a diff
	}
	gap, err := inv.Repo.CatchUpBlameCache(ctx, job.Commit, catchUpMax)
	if err != nil || gap.Bytes <= wholeBlameBudget {
		return false // the run reports the error, if it is one
	}
	inv.note = fmt.Sprintf("deferred to the worker: %d file(s), %d KiB, to blame whole", len(gap.Files), gap.Bytes>>10)
	return true
}

// queueJob queues job for the worker when deferIt, and reports whether
// a worker must run: for the job, or, when the commit runs its job
// itself, for jobs a worker that died left queued. A job with nothing to
// do but the blame cache (a commit inside a rebase) is not queued: the
// worker's refresh covers it. A job the queue cannot keep is run now
// rather than lost.
func queueJob(ctx context.Context, inv *Invocation, job *Job, deferIt bool) (worker bool, err error) {
	if !deferIt {
		return len(capture.Queued(inv.Repo)) > 0, nil
	}
	if job.Annotation == nil && job.Attribution == nil {
		return true, nil
	}
	if err := capture.Enqueue(inv.Repo, job.Commit, job); err != nil {
		return true, errors.Join(err, job.run(ctx, inv.Repo, true))
	}
	return true, nil
}

// drain runs the queued jobs (capture.Drain), each through run.
func drain(ctx context.Context, repo *gitops.Repo, run func(*Job) error) (bool, error) {
	return capture.Drain(ctx, repo, func(j *Job) string { return j.Commit }, run)
}

// startWorker starts `git gloss hook-worker` detached (package detach),
// so that it outlives the hook and no terminal signal reaches it. A
// program that is not git-gloss (a test binary) cannot: the jobs stay
// queued for the next hook that can, and the error says why; a hook never
// runs the worker in its own process, where the commit would wait for it.
func startWorker(ctx context.Context, repo *gitops.Repo) error {
	bin, err := detach.Self()
	if err != nil {
		return fmt.Errorf("start the hook worker: %w", err)
	}
	dir := repo.DetachedDir()
	if _, err := detach.Start(bin, detach.HookWorker(dir), detach.Options{Dir: dir, Env: workerEnv()}); err != nil {
		return fmt.Errorf("start the hook worker: %w", err)
	}
	return nil
}

// workerEnv is the hook's environment without what git set for the hook
// alone: the index of the commit (a temporary one for `commit -a`), the
// repository and prefix it ran in (the worker names its repository).
func workerEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_INDEX_FILE", "GIT_DIR", "GIT_WORK_TREE", "GIT_PREFIX", "GIT_REFLOG_ACTION", "GIT_EDITOR":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// finishRewritten runs the queued jobs of the commits a rewrite replaced
// before post-rewrite carries their records: a carry from a commit whose
// annotations and attribution a deferred worker has not written yet
// would carry nothing, and the worker would then record a commit no
// branch holds. When a worker holds the queue, it waits for it (within
// the hook's time limit).
func finishRewritten(ctx context.Context, inv *Invocation) error {
	rewrites, err := ParseRewriteInput(inv.Input)
	if err != nil {
		return nil // carryAnnotations reports it
	}
	queued := map[string]bool{}
	for _, c := range capture.Queued(inv.Repo) {
		queued[c] = true
	}
	waits := false
	for _, rw := range rewrites {
		waits = waits || queued[rw.Old]
	}
	if !waits {
		return nil
	}
	for {
		ran, err := drain(ctx, inv.Repo, func(job *Job) error { return job.run(ctx, inv.Repo, true) })
		if ran || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// workerTimeout bounds one worker's run; what it leaves stays queued.
const workerTimeout = 10 * time.Minute

// RunWorker runs the queued post-commit jobs (the blame cache of the
// commit, its annotations, then its attribution), then refreshes the blame graph and the
// renames cache with the new commits. It is what `git gloss hook-worker` does; it logs to
// hooks.log like a hook.
func RunWorker(ctx context.Context, repo *gitops.Repo) error {
	ctx, cancel := context.WithTimeout(ctx, workerTimeout)
	defer cancel()
	start := time.Now()
	n := 0
	ran, err := drain(ctx, repo, func(job *Job) error {
		if guard.Injected(guard.GitHooks) == faultWorkerStall {
			<-ctx.Done()
			return ctx.Err()
		}
		n++
		return job.run(ctx, repo, true)
	})
	if !ran {
		return err // another worker has the queue
	}
	// The graph's refresh, then the renames cache of HEAD (from its
	// parent's: the commits since are all it diffs), under the graph's
	// lock, with the fills: one at a time, and whoever waits for the
	// background fills waits for these too. When another process holds
	// it, that one refreshes the graph; the renames wait for a later run.
	if unlock, ok := repo.LockBlameGraph(); ok {
		if gerr := repo.RefreshBlameGraphLocked(ctx); gerr != nil {
			err = errors.Join(err, gerr)
		}
		if head, herr := repo.Head(); herr == nil && head != "" {
			_, _ = repo.Renames(ctx, head)
		}
		unlock()
	}
	outcome := fmt.Sprintf("ok (%d commits)", n)
	if err != nil {
		outcome = "error: " + err.Error()
	}
	logRun(repo, setup.PostCommit+" worker", time.Since(start), outcome)
	return err
}
