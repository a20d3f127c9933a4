package annotate

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/safepath"
)

// Annotating a commit parses every changed file with tree-sitter and reads
// and diffs trees: on large files that is most of a second, which nobody
// should wait for at `git commit`. So the post-commit hook is split in
// two. What depends on the moment of the commit is decided at once
// (PreparePostCommit): whether the commit is an amend or part of a
// rebase, which squash it completes, which staged agent contexts are its
// own. That decision is a Job, kept in <git dir>/gloss/queue until done;
// the rest (RunJob) depends only on the commit and can be done later, by a
// detached worker. A worker that dies leaves the job in the queue for the
// next one, and a job run twice writes its records once.

// Job is the annotation of one commit, decided at commit time.
type Job struct {
	Commit    string   `json:"commit"`
	Reflog    string   `json:"reflog,omitempty"` // the reflog message of the commit (cherry-picks are told by it)
	Annotator string   `json:"annotator,omitempty"`
	Squash    []string `json:"squash,omitempty"` // commits a `merge --squash` folded into this one
	// Staged are the agent contexts staged for this commit, taken from the
	// worktree when it was made.
	Staged []Context `json:"staged,omitempty"`
	// Agent is what the agent hooks captured for this commit, read from
	// the capture store when it was made (the store moves on).
	Agent []AgentWork `json:"agent,omitempty"`
	// Attribution is the commit's line attribution, decided at commit time
	// by package attribution (its Job), which sits above annotate: the
	// queue keeps it as opaque bytes and the worker hands it back, to run
	// after the annotation, whose carried records it reads. Absent in a
	// job queued before attribution was deferred (the hook attributed it).
	Attribution json.RawMessage `json:"attribution,omitempty"`
	// NotAnnotated marks a job queued for its attribution alone: the
	// commit's annotations come another way (an amend's from post-rewrite).
	NotAnnotated bool `json:"notAnnotated,omitempty"`
}

// PreparePostCommit decides what annotating the commit HEAD now points to
// takes, and takes from the worktree what belongs to it (squash state,
// staged contexts). It returns nil when the commit is not to be annotated:
//   - during a rebase, and for `commit --amend`: post-rewrite carries the
//     old commits' records over once git reports the pairs;
//
// otherwise RunJob does, depending on how the commit was made:
//   - after `git merge --squash`, the squashed commits' records are
//     carried over (the union of them), then the rest is captured;
//   - for a cherry-pick (a -x trailer, or the same patch id as a commit
//     with the same subject), the picked commit's records are carried over;
//   - otherwise the commit is captured afresh.
//
// An error with a job is a problem taking the staged contexts: the job
// still annotates the commit.
func PreparePostCommit(repo *gitops.Repo, annotator string, work []AgentWork) (*Job, error) {
	if repo.RebaseInProgress() {
		return nil, nil
	}
	reflog := repo.LastReflogMessage()
	if strings.HasPrefix(reflog, "commit (amend)") {
		return nil, nil
	}
	head, err := repo.Head()
	if err != nil || head == "" {
		return nil, err
	}
	commit, err := repo.LookupCommit(head)
	if err != nil {
		return nil, err
	}
	job := &Job{Commit: head, Reflog: reflog, Annotator: annotator, Agent: work}
	job.Squash = takeSquashSources(repo, commit)
	job.Staged, err = takePending(repo)
	return job, err
}

// RunJob annotates the job's commit. Run again after a run that was cut
// short, it writes what is missing: the records one Append wrote are all
// there or none.
func RunJob(ctx context.Context, repo *gitops.Repo, job *Job) error {
	if job.NotAnnotated {
		return nil
	}
	commit, err := repo.LookupCommit(job.Commit)
	if err != nil {
		return err
	}
	have, err := notes.Open(repo, notes.Annotations).Read([]string{job.Commit})
	if err != nil {
		return err
	}
	sources := map[string]bool{}
	for _, d := range Decode(have[job.Commit]) {
		switch {
		case d.Region != nil:
			sources[d.Region.Source] = true
		case d.Summary != nil:
			sources[d.Summary.Source] = true
		}
	}
	if sources[SourceHook] {
		return nil // captured already: the run before was cut short after it
	}
	opts := Options{Annotator: job.Annotator, Staged: job.Staged, Agent: job.Agent}
	if len(job.Squash) > 0 {
		return carryAndCapture(ctx, repo, job.Squash, job.Commit, SourceSquash, opts, sources[SourceSquash])
	}
	if src := cherryPickSource(ctx, repo, commit, job.Reflog); src != "" {
		return carryAndCapture(ctx, repo, []string{src}, job.Commit, SourceCherryPick, opts, sources[SourceCherryPick])
	}
	_, err = Capture(ctx, repo, job.Commit, opts)
	return err
}

// The queue: one file per job, named for its commit.

func queueDir(repo *gitops.Repo) string {
	return filepath.Join(repo.CommonDir(), "gloss", "queue")
}

// Enqueue keeps the job until DrainQueue has run it. The write is atomic,
// so a killed hook leaves the whole job or none; it is synced to stable
// storage when gloss's writes are (safepath.Durable: gloss.fsync, or a
// core.fsync that syncs refs), as the commit itself is — syncing by
// default cost 50–160 ms of a commit on a busy disk.
func Enqueue(repo *gitops.Repo, job *Job) error {
	data, err := json.Marshal(job)
	if err != nil {
		return err
	}
	dir := queueDir(repo)
	name := job.Commit + ".json"
	if safepath.Durable(repo) {
		return atomicfile.Write(filepath.Join(dir, name), data, 0o644)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return atomicfile.Replace(root, name, data, 0o644)
}

// Queued returns the commits whose jobs wait, oldest first.
func Queued(repo *gitops.Repo) []string {
	ents, err := os.ReadDir(queueDir(repo))
	if err != nil {
		return nil
	}
	type queued struct {
		commit string
		at     int64
	}
	var qs []queued
	for _, e := range ents {
		c, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || len(c) < 40 {
			continue
		}
		var at int64
		if info, err := e.Info(); err == nil {
			at = info.ModTime().UnixNano()
		}
		qs = append(qs, queued{c, at})
	}
	sort.SliceStable(qs, func(i, j int) bool { return qs[i].at < qs[j].at })
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.commit
	}
	return out
}

// DrainQueue runs the queued jobs, each through run (which annotates, and
// may keep caches warm), and removes each once run succeeds. One drain
// runs at a time: when another holds the queue, DrainQueue returns
// false at once, and that one sees the jobs queued meanwhile. The lock is
// an flock, so a drain that is killed releases it and leaves its job for
// the next.
func DrainQueue(ctx context.Context, repo *gitops.Repo, run func(*Job) error) (ran bool, err error) {
	dir := queueDir(repo)
	var errs []error
	failed := map[string]bool{}
	for {
		unlock, ok, err := atomicfile.TryLock(filepath.Join(dir, "worker.lock"))
		if err != nil || !ok {
			return ran, errors.Join(append(errs, err)...)
		}
		ran = true
		for _, c := range Queued(repo) {
			if ctx.Err() != nil {
				break
			}
			if failed[c] {
				continue
			}
			p := filepath.Join(dir, c+".json")
			data, err := os.ReadFile(p)
			if err != nil {
				continue // another drain ran it between our lock and theirs
			}
			var job Job
			if err := json.Unmarshal(data, &job); err != nil || job.Commit != c {
				_ = os.Rename(p, p+".bad") // kept for a person to look at, never run
				continue
			}
			if err := run(&job); err != nil {
				errs = append(errs, err)
				failed[c] = true // left for the next drain
				continue
			}
			_ = os.Remove(p)
		}
		unlock()
		// A job queued after the last look, while the lock was held, was
		// left by the worker its hook started (it found the lock taken):
		// look again now that the lock is free.
		left := slices.DeleteFunc(Queued(repo), func(c string) bool { return failed[c] })
		if len(left) == 0 || ctx.Err() != nil {
			return ran, errors.Join(errs...)
		}
	}
}
