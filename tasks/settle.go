package tasks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/frontmatter"
	"github.com/gloss-dev/gloss/safepath"
)

// settleRun settles a finished run, once: its log is appended to the
// task's log in git, and the task moves on — finalized when the agent
// exited 0 with every criterion checked on its branch, needs_attention
// when it exited 0 with criteria open, failed otherwise. A run stopped on
// purpose (pause, takeover, reset, cancel) only has its log kept.
func (s *Store) settleRun(ctx context.Context, run *Run) error {
	if run.State != "exited" || run.Settled {
		return nil
	}
	unlock, err := s.writeLock()
	if err != nil {
		return err
	}
	defer unlock()
	if err := s.keepLog(ctx, run.TaskID); err != nil {
		return err
	}
	run.Settled = true
	if err := s.saveRun(run); err != nil {
		return err
	}
	t, err := s.Resolve(run.TaskID)
	if err != nil || run.Stopped || t.Status != "in_progress" {
		return err
	}
	crit, err := s.branchCriteria(ctx, t.ID)
	if err != nil {
		return err
	}
	switch {
	case run.ExitCode != nil && *run.ExitCode == 0 && crit.Total > 0 && crit.Unchecked == 0:
		_, ferr := s.Finalize(ctx, t.ID, false)
		if ferr == nil {
			return nil
		}
		// Could not merge (a conflict, the guard): a person must look.
		if t, err = s.Resolve(t.ID); err != nil || t.Status != "in_progress" {
			return ferr
		}
		t.Body = appendSection(t.Body, "## Needs Attention", "The agent finished, but finalizing failed: "+ferr.Error())
		return s.transition(ctx, t, "needs_attention", false)
	case run.ExitCode != nil && *run.ExitCode == 0:
		return s.transition(ctx, t, "needs_attention", false)
	default:
		return s.transition(ctx, t, "failed", false)
	}
}

// keepLog moves the live log of a run into .gloss/tasks/logs/<id>.log,
// after the logs of earlier runs, and commits it.
func (s *Store) keepLog(ctx context.Context, id string) error {
	live, err := os.ReadFile(s.liveLog(id))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	p := committedLog(id)
	old, _ := safepath.ReadRegular(s.root, p, 0)
	var out []byte
	if len(old) > 0 {
		out = append(append(out, old...), []byte("\n"+strings.Repeat("=", 72)+"\n")...)
	}
	out = append(out, live...)
	if err := s.writeFile(p, out); err != nil {
		return err
	}
	if err := s.record(ctx, id, "run log", p); err != nil {
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

// Finalize merges a task's branch and marks it completed. Every
// acceptance criterion must be checked (force skips that), no agent may be
// running, and the branch may not touch other task files — the guard
// against Chant's data loss. The merge fast-forwards when it can and makes
// a merge commit otherwise; nothing remote is deleted.
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
	branch := BranchPrefix + t.ID
	var commits []string
	if s.repo.BranchExists(branch) {
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
		if commits, err = s.branchCommits(ctx, branch); err != nil {
			return nil, err
		}
		if err := s.mergeBranch(ctx, t.ID, branch); err != nil {
			return nil, err
		}
		if t, err = s.Resolve(t.ID); err != nil {
			return nil, err
		}
	} else if c := criteriaOf(t.Body); c.Unchecked > 0 && !force {
		return nil, fault.Checkf("Task '%s' has %d unchecked acceptance criteria. All criteria must be checked before finalization.", t.ID, c.Unchecked)
	}
	from := t.Status
	for _, kv := range []struct {
		k string
		v any
	}{{"status", "completed"}, {"completed_at", time.Now().UTC().Format(time.RFC3339)}, {"commits", commits}} {
		if err := t.set(kv.k, kv.v); err != nil {
			return nil, err
		}
	}
	// The worktree goes first, so that whoever sees "completed" sees it all.
	s.cleanupWorktree(ctx, t.ID, branch)
	if err := s.save(t); err != nil {
		return nil, err
	}
	if err := s.record(ctx, t.ID, from+" -> completed", t.Path); err != nil {
		return nil, err
	}
	return message(t.ID, "Finalized task: %s", t.ID), nil
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

// mergeBranch merges into the branch checked out in the main worktree.
func (s *Store) mergeBranch(ctx context.Context, id, branch string) error {
	unlock, err := s.lockFiles(syscall.LOCK_EX)
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := s.repo.Git(ctx, "merge", "--ff-only", "--quiet", branch); err == nil {
		return nil
	}
	msg := fmt.Sprintf("task(%s): merge %s", id, branch)
	if _, err := s.repo.Git(ctx, "merge", "--no-edit", "--no-verify", "--quiet", "-m", msg, branch); err != nil {
		_, _ = s.repo.Git(ctx, "merge", "--abort")
		return fault.Conflictf("could not merge %s: %v (nothing was changed; merge it by hand, then finalize again)", branch, err)
	}
	return nil
}

// cleanupWorktree removes a finished task's worktree and its merged
// branch, if both are clean and merged; anything else stays for a person.
func (s *Store) cleanupWorktree(ctx context.Context, id, branch string) {
	if wt, err := s.worktreePath(id); err == nil {
		if _, err := os.Stat(wt); err == nil {
			_ = s.repo.RemoveWorktree(ctx, wt)
		}
	}
	if merged, err := s.merged(ctx, branch); err == nil && merged && s.repo.BranchExists(branch) {
		_, _ = s.repo.Git(ctx, "branch", "-d", branch)
	}
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
