package annotate

import (
	"context"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// Annotating a commit parses every changed file with tree-sitter and reads
// and diffs trees: on large files that is most of a second, which nobody
// should wait for at `git commit`. So the post-commit hook is split in
// two. What depends on the moment of the commit is decided at once
// (PreparePostCommit): whether the commit is an amend or part of a
// rebase, which squash it completes, which staged agent contexts are its
// own. That decision is a Job, the annotation half of the commit's
// post-commit job (package hooks queues it, with the attribution half,
// in capture's queue); the rest (RunJob) depends only on the commit and
// can be done later, by a detached worker. A job run twice writes its
// records once.

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
}

// PreparePostCommit decides what annotating commit takes, and takes from
// the worktree what belongs to it (squash state, staged contexts).
// reflog is the newest message of HEAD's reflog, which tells how the
// commit was made. The caller (the post-commit hook) reads both once and
// calls it for no commit that post-rewrite annotates: an amend, or a
// commit a rebase replays (post-rewrite carries the old commits' records
// over once git reports the pairs). RunJob then annotates, depending on
// how the commit was made:
//   - after `git merge --squash`, the squashed commits' records are
//     carried over (the union of them), then the rest is captured;
//   - for a cherry-pick (a -x trailer, or the same patch id as a commit
//     with the same subject), the picked commit's records are carried over;
//   - otherwise the commit is captured afresh.
//
// An error with a job is a problem taking the staged contexts: the job
// still annotates the commit.
func PreparePostCommit(repo *gitops.Repo, commit *gitops.Commit, reflog, annotator string, work []AgentWork) (*Job, error) {
	job := &Job{Commit: commit.ID, Reflog: reflog, Annotator: annotator, Agent: work}
	job.Squash = takeSquashSources(repo, commit)
	var err error
	job.Staged, err = takePending(repo)
	return job, err
}

// RunJob annotates the job's commit. Run again after a run that was cut
// short, it writes what is missing: the records one Append wrote are all
// there or none.
func RunJob(ctx context.Context, repo *gitops.Repo, job *Job) error {
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
