package tasks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/config"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/frontmatter"
	"github.com/gloss-dev/gloss/safepath"
)

// settleRun settles a finished run, once. When the agent exited 0 with
// every criterion checked on its branch, the team's checks run in its
// worktree (their output goes into the run log); the log is committed on
// the run's branch; and the task moves on: landed on the person's branch
// (finalized) when the checks passed, needs_attention with the reason
// when the criteria are open or a check failed, was not approved or none
// is configured, failed when the agent failed. A run stopped on purpose
// (pause, takeover, reset, cancel) only has its log kept.
func (s *Store) settleRun(ctx context.Context, run *Run) error {
	if run.State != "exited" || run.Settled {
		return nil
	}
	// The checks run before the write lock is taken: they may take
	// minutes, and other task commands must not wait for them.
	t, terr := s.Resolve(run.TaskID)
	ok := terr == nil && !run.Stopped && t.Status == "in_progress" && run.ExitCode != nil && *run.ExitCode == 0
	var crit Criteria
	var v verdict
	if ok {
		var err error
		if crit, err = s.branchCriteria(ctx, t.ID); err != nil {
			return err
		}
		if crit.Total > 0 && crit.Unchecked == 0 {
			v = s.runChecks(ctx, run)
		}
	}
	unlock, err := s.writeLock()
	if err != nil {
		return err
	}
	defer unlock()
	if t, terr = s.Resolve(run.TaskID); terr != nil {
		t = nil
	}
	if err := s.keepLog(ctx, run.TaskID, t); err != nil {
		return err
	}
	run.Settled = true
	if err := s.saveRun(run); err != nil {
		return err
	}
	if terr != nil || run.Stopped || t.Status != "in_progress" {
		return terr
	}
	attention := func(why string) error {
		t.Body = appendSection(t.Body, "## Needs Attention", why+". The run was not merged: its work is on branch "+BranchPrefix+t.ID+
			" (git diff HEAD..."+BranchPrefix+t.ID+"); fix it there and run git gloss task finalize "+t.ID+", or git gloss task reset "+t.ID+".")
		return s.transition(ctx, t, "needs_attention", false)
	}
	switch {
	case run.ExitCode == nil || *run.ExitCode != 0:
		return s.transition(ctx, t, "failed", false)
	case crit.Total == 0:
		return attention("The agent finished, but the task has no acceptance criteria to check")
	case crit.Unchecked > 0:
		return attention(fmt.Sprintf("The agent finished with %d of %d acceptance criteria unchecked", crit.Unchecked, crit.Total))
	case !v.Passed:
		return attention("The agent finished and checked its criteria, but " + v.Reason)
	}
	_, ferr := s.Finalize(ctx, t.ID, false)
	if ferr == nil {
		return nil
	}
	// Could not land (a conflict, staged changes, the guard): a person
	// must look.
	if t, err = s.Resolve(t.ID); err != nil || t.Status != "in_progress" {
		return ferr
	}
	return attention("The agent finished and the checks passed, but landing failed: " + ferr.Error())
}

// keepLog moves the live log of a run into .gloss/tasks/logs/<id>.log,
// after the logs of earlier runs, and commits it: on the run's branch
// while it has one (it lands with the work), else on the person's.
func (s *Store) keepLog(ctx context.Context, id string, t *Task) error {
	live, err := os.ReadFile(s.liveLog(id))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	p := committedLog(id)
	var old []byte
	onRun := t != nil && t.run != ""
	if onRun {
		old, _ = s.readRunFile(t, p)
	} else {
		old, _ = safepath.ReadRegular(s.root, p, 0)
	}
	var out []byte
	if len(old) > 0 {
		out = append(append(out, old...), []byte("\n"+strings.Repeat("=", 72)+"\n")...)
	}
	out = append(out, live...)
	if onRun {
		err = s.commitOnRun(ctx, id, "run log", map[string][]byte{p: out})
	} else if err = s.writeFile(p, out); err == nil {
		err = s.record(ctx, id, "run log", p)
	}
	if err != nil {
		return err
	}
	return os.Remove(s.liveLog(id))
}

// branchCriteria reads the criteria of the task file on its branch.
func (s *Store) branchCriteria(ctx context.Context, id string) (Criteria, error) {
	branch := BranchPrefix + id
	if !s.repo.BranchExists(branch) {
		return Criteria{Start: -1}, nil
	}
	data, err := s.repo.ReadFile(branch, path.Join(Dir, id+".md"))
	if err != nil {
		return Criteria{Start: -1}, nil
	}
	doc, err := frontmatter.Parse(data)
	if err != nil {
		return criteriaOf(data), nil
	}
	return criteriaOf(doc.Body), nil
}

// Finalize lands a task's run and marks it completed. Every acceptance
// criterion must be checked (force skips that), no agent may be running,
// and the branch may not touch other task files or the team's config —
// the guard against Chant's data loss and against a run that rewrites its
// own bar. The run lands as one commit on the person's branch (land); a
// task without a run branch is marked completed there. Finalize is also
// how a person lands a run the checks held back: that is their call.
func (s *Store) Finalize(ctx context.Context, id string, force bool) (*Message, error) {
	unlock, err := s.writeLock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	t, err := s.Resolve(id)
	if err != nil {
		return nil, err
	}
	if t.Status != "in_progress" && t.Status != "completed" && t.Status != "failed" && t.Status != "needs_attention" {
		return nil, fault.Checkf("Task '%s' must be in_progress, completed, or failed to finalize. Current status: %s", t.ID, t.Status)
	}
	if s.running(t.ID) {
		return nil, fault.Conflictf("Task '%s' still has a running agent; pause or take it over first", t.ID)
	}
	from := t.Status
	branch := BranchPrefix + t.ID
	if t.run != "" {
		crit, err := s.branchCriteria(ctx, t.ID)
		if err != nil {
			return nil, err
		}
		if crit.Unchecked > 0 && !force {
			return nil, fault.Checkf("Task '%s' has %d unchecked acceptance criteria. All criteria must be checked before finalization.", t.ID, crit.Unchecked)
		}
		if err := s.guardBranch(ctx, t.ID, branch); err != nil {
			return nil, err
		}
		if err := s.land(ctx, t, from, s.runSubjects(ctx, branch)); err != nil {
			return nil, err
		}
		return message(t.ID, "Finalized task: %s", t.ID), nil
	}
	if c := criteriaOf(t.Body); c.Unchecked > 0 && !force {
		return nil, fault.Checkf("Task '%s' has %d unchecked acceptance criteria. All criteria must be checked before finalization.", t.ID, c.Unchecked)
	}
	if err := completed(t); err != nil {
		return nil, err
	}
	if err := s.persist(ctx, t, from+" -> completed"); err != nil {
		return nil, err
	}
	return message(t.ID, "Finalized task: %s", t.ID), nil
}

// completed marks a task completed, now.
func completed(t *Task) error {
	if err := t.set("status", "completed"); err != nil {
		return err
	}
	return t.set("completed_at", time.Now().UTC().Format(time.RFC3339))
}

// guardBranch refuses a branch that deletes or changes other task files.
func (s *Store) guardBranch(ctx context.Context, id, branch string) error {
	out, err := s.repo.Git(ctx, "diff", "--name-status", "--no-renames", "HEAD..."+branch, "--", Dir)
	if err != nil {
		return err
	}
	own := path.Join(Dir, id+".md")
	var bad []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[len(f)-1] == own || strings.HasPrefix(f[len(f)-1], LogsDir+"/") {
			continue
		}
		if f[0] == "A" && strings.HasPrefix(path.Base(f[len(f)-1]), id+".") {
			continue // a member the agent created
		}
		bad = append(bad, f[0]+" "+f[len(f)-1])
	}
	if len(bad) > 0 {
		return fault.Checkf("refusing to merge %s: it changes other task files (%s); fix the branch or merge it by hand", branch, strings.Join(bad, ", "))
	}
	if out, err := s.repo.Git(ctx, "diff", "--name-only", "HEAD..."+branch, "--", config.TeamFile); err != nil {
		return err
	} else if strings.TrimSpace(string(out)) != "" {
		return fault.Checkf("refusing to merge %s: it changes the team's %s (its checks among them); review that change and merge it by hand", branch, config.TeamFile)
	}
	return nil
}

func (s *Store) branchCommits(ctx context.Context, branch string) ([]string, error) {
	head, err := s.repo.Head()
	if err != nil {
		return nil, err
	}
	rng := branch
	if head != "" {
		rng = "HEAD.." + branch
	}
	out, err := s.repo.Git(ctx, "log", "--format=%h", "--reverse", rng)
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// settleOrphan settles a run whose supervisor is gone (it may have crashed
// before it got there). Holding the run's lock proves the supervisor is
// gone; when it still holds the lock it settles the run itself.
func (s *Store) settleOrphan(ctx context.Context, id string) error {
	return s.withRunLock(id, func() error {
		run, err := s.loadRun(id)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if run.State != "exited" {
			code := -1
			run.State, run.ExitCode, run.EndedAt = "exited", &code, time.Now().UTC().Format(time.RFC3339)
		}
		return s.settleRun(ctx, run)
	})
}

// SettleResult says what a settling pass did.
type SettleResult struct {
	Schema  string   `json:"$schema"`
	Settled []string `json:"settled" jsonschema:"runs whose end was processed"`
	Running []string `json:"running"`
}

// Settle processes every run that ended and was not settled yet — one
// whose supervisor crashed included. Running it again, or from two places
// at once, changes nothing more: each run settles once, under its lock.
func (s *Store) Settle(ctx context.Context) (*SettleResult, error) {
	ids, err := s.runIDs()
	if err != nil {
		return nil, err
	}
	res := &SettleResult{Schema: schemaTag, Settled: []string{}, Running: []string{}}
	for _, id := range ids {
		if s.alive(id) {
			res.Running = append(res.Running, id)
			continue
		}
		run, err := s.loadRun(id)
		if err != nil || run.Settled {
			continue
		}
		if err := s.settleOrphan(ctx, id); err != nil {
			return res, fmt.Errorf("settle %s: %w", id, err)
		}
		res.Settled = append(res.Settled, id)
	}
	return res, nil
}

// withRunLock runs fn holding a run's lock (skipping it when another
// process has it).
func (s *Store) withRunLock(id string, fn func() error) error {
	d, err := s.runDir(id)
	if err != nil {
		return err
	}
	unlock, ok, err := atomicfile.TryLock(filepath.Join(d, "lock"))
	if err != nil || !ok {
		return err
	}
	defer unlock()
	return fn()
}
