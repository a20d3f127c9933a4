package tasks

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/fault"
)

// Stopping a task's agent: pause, takeover and reset (and cancel, in
// ops.go) stop the run through stop, which settles it, then move the task.

// Pause stops a running agent and marks the task paused.
func (s *Store) Pause(ctx context.Context, id string) (*Message, error) {
	t, err := s.Resolve(id)
	if err != nil {
		return nil, err
	}
	if t, err = s.stop(ctx, t.ID); err != nil {
		return nil, err
	}
	if t.Status == "in_progress" {
		if err := s.transition(ctx, t, "paused", false); err != nil {
			return nil, err
		}
	}
	return message(t.ID, "Successfully paused work for task '%s'", t.ID), nil
}

// stop stops a task's agent, settles its run and returns the task as it
// is afterwards.
func (s *Store) stop(ctx context.Context, id string) (*Task, error) {
	if err := s.stopRun(id); err != nil {
		return nil, err
	}
	if err := s.settleOrphan(ctx, id); err != nil {
		return nil, err
	}
	return s.Resolve(id)
}

// TakeoverResult is task_takeover's answer.
type TakeoverResult struct {
	Schema     string `json:"$schema"`
	TaskID     string `json:"spec_id"`
	Analysis   string `json:"analysis"`
	LogTail    string `json:"log_tail"`
	Suggestion string `json:"suggestion"`
	Worktree   string `json:"worktree_path"`
}

// Takeover stops the agent (SIGTERM, a real wait, then SIGKILL), pauses
// the task, and summarises the progress from the branch's commits and the
// log, appending the summary to the task.
func (s *Store) Takeover(ctx context.Context, id string, force bool) (*TakeoverResult, error) {
	t, err := s.Resolve(id)
	if err != nil {
		return nil, err
	}
	if !s.alive(t.ID) && !force {
		return nil, fault.Checkf("Failed to take over task '%s': Task %s is not currently running. Use force to analyze anyway.", t.ID, t.ID)
	}
	if t, err = s.stop(ctx, t.ID); err != nil {
		return nil, err
	}
	branch := BranchPrefix + t.ID
	commits, _ := s.branchCommits(ctx, branch)
	crit, _ := s.branchCriteria(ctx, t.ID)
	var subjects []string
	if len(commits) > 0 {
		out, _ := s.repo.Git(ctx, "log", "--format=- %h %s", "--reverse", "HEAD.."+branch)
		subjects = strings.Split(strings.TrimSpace(string(out)), "\n")
	}
	tail := ""
	if lg, err := s.Log(t.ID, 50, 0, ""); err == nil {
		tail = lg.Content
	}
	var a strings.Builder
	fmt.Fprintf(&a, "Taken over at %s. ", time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(&a, "%d commit(s) on %s", len(commits), branch)
	if len(subjects) > 0 {
		fmt.Fprintf(&a, ":\n%s\n", strings.Join(subjects, "\n"))
	} else {
		a.WriteString(".\n")
	}
	fmt.Fprintf(&a, "Acceptance criteria on the branch: %d of %d checked.", crit.Checked, crit.Total)
	wt, _ := s.worktreePath(t.ID)
	if _, err := os.Stat(wt); err != nil {
		wt = ""
	}
	if t.Status == "in_progress" {
		if err := t.set("status", "paused"); err != nil {
			return nil, err
		}
	}
	t.Body = appendSection(t.Body, "## Takeover Analysis", a.String())
	unlock, err := s.writeLock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := s.persist(ctx, t, "taken over"); err != nil {
		return nil, err
	}
	suggestion := "Continue in the worktree, then task_finalize; or task_reset to start again."
	if crit.Total > 0 && crit.Unchecked == 0 {
		suggestion = "Every criterion is checked on the branch: task_finalize merges it."
	}
	return &TakeoverResult{Schema: schemaTag, TaskID: t.ID, Analysis: a.String(), LogTail: tail, Suggestion: suggestion, Worktree: wt}, nil
}

// Reset stops a running agent first, then puts the task back to pending.
// Its worktree and branch stay: unmerged work is never deleted.
func (s *Store) Reset(ctx context.Context, id string) (*Message, error) {
	t, err := s.Resolve(id)
	if err != nil {
		return nil, err
	}
	if !slices.Contains([]string{"failed", "in_progress", "paused", "needs_attention"}, t.Status) {
		return nil, fault.Checkf("Failed to reset task: Task '%s' is not in failed, in_progress, paused or needs_attention state (current: %s).", t.ID, t.Status)
	}
	if t, err = s.stop(ctx, t.ID); err != nil {
		return nil, err
	}
	if err := s.transition(ctx, t, "pending", true); err != nil {
		return nil, err
	}
	msg := fmt.Sprintf("Reset task '%s' to pending", t.ID)
	if s.repo.BranchExists(BranchPrefix + t.ID) {
		msg += fmt.Sprintf("; its branch %s%s and worktree are kept", BranchPrefix, t.ID)
	}
	return message(t.ID, "%s", msg), nil
}
