package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/gloss-dev/gloss/agent"
	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/capture"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/guard"
)

// The commit-time pipeline. A commit's work is decided at once, from what
// moves on once the commit is made (the captured edits it takes, the
// contexts staged for it, its squash, the reflog, the environment): that
// is a Job. The rest depends only on the commit and the Job, and runs at
// once or, in a large repository, in a detached worker (deferred.go).
// Each step reads what it needs of the repository once and hands it on:
// how the commit was made is read here, for both halves; the edits it
// takes are read under capture's lock, then hashed; the sessions' state
// and the prompt rules stay in agent.CommitWork for the session records;
// the attribution half gathers its commit once (its changed lines, its
// annotations) for every path it takes (fresh, carried, amended).
//
//	post-commit:  readMade (gitops: commit, reflog, rebase, amended)
//	              ─► capture.TakeEdits ─► agent.ForCommit
//	              ─► Job{annotate.PreparePostCommit, attribution.NewJob}
//	              ─► waits? (deferred.go) ─► capture.Enqueue + worker
//	                 else run: the blame cache, annotate.RunJob, attribution.RunJob
//	              ─► CommitWork.RecordSessions (agent: the sessions' records)

// JobSchema tags a queued job; a job without it was queued by gloss 0.1
// (jobV1).
const JobSchema = "gloss/hook-job/v2"

// Job is one commit's post-commit work, decided when it was made.
type Job struct {
	Schema string `json:"$schema"`
	Commit string `json:"commit"`
	// Annotation is the annotation half; nil when the commit's
	// annotations come another way (an amend's, from post-rewrite).
	Annotation *annotate.Job `json:"annotation,omitempty"`
	// Attribution is the attribution half; nil inside a rebase
	// (post-rewrite carries it). It runs after the annotation, whose
	// carried records it reads.
	Attribution *attribution.Job `json:"attribution,omitempty"`
}

// jobV1 is a job as gloss 0.1 queued it: annotate's job at the top, the
// attribution inside it.
type jobV1 struct {
	annotate.Job
	Attribution  *attribution.Job `json:"attribution"`
	NotAnnotated bool             `json:"notAnnotated"`
}

// UnmarshalJSON reads a job of either shape, so that an upgrade loses
// none left in the queue.
func (j *Job) UnmarshalJSON(data []byte) error {
	type plain Job
	if err := json.Unmarshal(data, (*plain)(j)); err != nil {
		return err
	}
	if j.Schema == JobSchema {
		return nil
	}
	var old jobV1
	if err := json.Unmarshal(data, &old); err != nil {
		return err
	}
	*j = Job{Schema: JobSchema, Commit: old.Commit, Attribution: old.Attribution}
	if !old.NotAnnotated {
		j.Annotation = &old.Job
	}
	return nil
}

// prepared is a commit's Job with what the hook does itself once the job
// is run or queued: the agents' session records.
type prepared struct {
	job  *Job
	work *agent.CommitWork
}

// made is how the commit post-commit runs for was made, read once from
// the repository and handed to both halves of its job: the commit, the
// newest message of HEAD's reflog ("commit (amend): …", "cherry-pick: …"),
// whether a rebase is replaying it, and the commit an amend replaced.
type made struct {
	commit   *gitops.Commit
	reflog   string
	rebasing bool
	amended  string // HEAD@{1} after `commit --amend`, else ""
}

// amending reports whether the commit is an amend (post-rewrite
// annotates those).
func (m made) amending() bool { return strings.HasPrefix(m.reflog, "commit (amend)") }

// readMade reads how commit head was made. An amend's old commit is
// HEAD@{1} only until the next commit: the job keeps it.
func readMade(ctx context.Context, repo *gitops.Repo, head string) (made, error) {
	m := made{rebasing: repo.RebaseInProgress(), reflog: repo.LastReflogMessage()}
	var err error
	if m.commit, err = repo.LookupCommit(head); err != nil {
		return m, err
	}
	if m.amending() && !m.rebasing {
		out, err := repo.Git(ctx, "rev-parse", "--verify", "-q", "HEAD@{1}")
		if old := strings.TrimSpace(string(out)); err == nil && old != "" && old != head {
			m.amended = old
		}
	}
	return m, nil
}

// prepareCommit decides the work of commit head, taking from the
// worktree what belongs to it. An amend takes nothing: post-rewrite
// takes its edits and annotates it; its attribution carries the amended
// commit's. Inside a rebase only the blame cache is left to do.
func prepareCommit(ctx context.Context, inv *Invocation, head string) (*prepared, error) {
	repo := inv.Repo
	p := &prepared{job: &Job{Schema: JobSchema, Commit: head}, work: &agent.CommitWork{}}
	m, err := readMade(ctx, repo, head)
	if err != nil || m.rebasing {
		return p, err
	}
	var edits []capture.Edit
	if m.amending() {
		edits, err = capture.PendingEdits(repo)
	} else {
		taken, terr := capture.TakeEdits(repo, m.commit)
		if terr != nil {
			// A problem with the capture costs the attribution, never
			// the annotation.
			fmt.Fprintf(inv.Stderr, "gloss: agent edits not read: %v\n", terr)
		}
		edits, p.work = taken.Edits, agent.ForCommit(repo, taken)
		p.job.Annotation, err = annotate.PreparePostCommit(repo, m.commit, m.reflog, inv.annotator(), p.work.Work)
	}
	p.job.Attribution = attribution.NewJob(head, edits, m.amended)
	return p, err
}

// run does the job's work: the blame cache of the commit, its
// annotations, then its attribution, which reads the annotations carried
// onto the commit (a squash, a cherry-pick). Each part run again writes
// nothing twice, so a job cut short is run again whole; a queued job
// whose annotation failed waits for its next run (stop), and its
// attribution with it, rather than be attributed without the carried
// records.
func (j *Job) run(ctx context.Context, repo *gitops.Repo, stop bool) error {
	// The blame cache is a cache: a failure costs a later read time. A
	// job the worker runs first derives the cache the commits before it
	// did not leave (made without the hooks), however many: their diffs
	// cost less than the whole blames the attribution would run.
	if stop {
		_, _ = repo.CatchUpBlameCache(ctx, j.Commit, workerCatchUpMax)
	}
	cacheErr := repo.UpdateBlameCache(ctx, j.Commit)
	var errs []error
	if j.Annotation != nil {
		if err := annotate.RunJob(ctx, repo, j.Annotation); err != nil {
			if stop {
				return err
			}
			errs = append(errs, err)
		}
	}
	if j.Attribution == nil {
		return errors.Join(append(errs, cacheErr)...)
	}
	if stop && guard.Injected(guard.GitHooks) == faultWorkerStallAttribution {
		<-ctx.Done()
		return ctx.Err()
	}
	if j.Attribution.Commit != j.Commit {
		return fmt.Errorf("the attribution of %s names %s", gitops.ShortID(j.Commit), gitops.ShortID(j.Attribution.Commit))
	}
	errs = append(errs, attribution.RunJob(ctx, repo, j.Attribution))
	if !stop {
		errs = append(errs, cacheErr)
	}
	return errors.Join(errs...)
}
