package tasks

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/fault"
)

// Changes to a task that exists: its fields and status (Update, through
// the state machine), cancelling and archiving it.

// UpdateInput is task_update's input.
type UpdateInput struct {
	ID          string   `json:"id"`
	Status      string   `json:"status,omitempty"`
	Output      string   `json:"output,omitempty" jsonschema:"text to append under ## Output"`
	ReplaceBody bool     `json:"replace_body,omitempty" jsonschema:"output replaces the body (the title is kept)"`
	DependsOn   []string `json:"depends_on,omitempty"`
	Labels      []string `json:"labels,omitempty"`
	TargetFiles []string `json:"target_files,omitempty"`
	Model       string   `json:"model,omitempty"`
	Force       bool     `json:"force,omitempty" jsonschema:"skip the state machine and the agent-log check"`
}

// Update changes a task's fields and status.
func (s *Store) Update(ctx context.Context, in UpdateInput) (*Message, error) {
	unlock, err := s.writeLock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	t, g, err := s.lookup(in.ID)
	if err != nil {
		return nil, err
	}
	if in.Status == "" && in.Output == "" && in.DependsOn == nil && in.Labels == nil && in.TargetFiles == nil && in.Model == "" {
		return nil, fault.Usagef("No updates specified")
	}
	for _, err := range []error{checkText("output", in.Output), checkText("labels", in.Labels...),
		checkText("target_files", in.TargetFiles...), checkText("model", in.Model)} {
		if err != nil {
			return nil, err
		}
	}
	from := t.Status
	if in.Status != "" {
		if err := checkStatus(in.Status); err != nil {
			return nil, err
		}
		if err := canTransition(t.Status, in.Status, in.Force); err != nil {
			return nil, fault.Checkf("Failed to update task: %v", err)
		}
		if in.Status == "completed" && !in.Force && !s.hasLog(t.ID) {
			return nil, fault.Checkf("Cannot mark task as completed: no agent execution log found. Use force parameter to override.")
		}
		if err := t.set("status", in.Status); err != nil {
			return nil, err
		}
		if in.Status == "completed" && t.CompletedAt == "" {
			_ = t.set("completed_at", time.Now().UTC().Format(time.RFC3339))
		}
	}
	if in.DependsOn != nil {
		if in.DependsOn, err = g.resolveIDs(in.DependsOn); err != nil {
			return nil, err
		}
		if err := g.checkCycle(t.ID, in.DependsOn); err != nil {
			return nil, err
		}
		if err := t.set("depends_on", in.DependsOn); err != nil {
			return nil, err
		}
	}
	if in.Labels != nil {
		_ = t.set("labels", in.Labels)
	}
	if in.TargetFiles != nil {
		_ = t.set("target_files", in.TargetFiles)
	}
	if in.Model != "" {
		_ = t.set("model", in.Model)
	}
	if in.Output != "" {
		if in.ReplaceBody {
			t.Body = []byte(fmt.Sprintf("# %s\n\n%s\n", t.Title, strings.TrimSpace(in.Output)))
		} else {
			t.Body = appendSection(t.Body, "## Output", in.Output)
		}
	}
	transition := "updated"
	if in.Status != "" && in.Status != from {
		transition = from + " -> " + in.Status
	}
	if err := s.persist(ctx, t, transition); err != nil {
		return nil, err
	}
	return message(t.ID, "Updated task: %s", t.ID), nil
}

// appendSection adds "heading\n\ntext" at the end of a body.
func appendSection(body []byte, heading, text string) []byte {
	b := strings.TrimRight(string(body), "\n")
	return []byte(fmt.Sprintf("%s\n\n%s\n\n%s\n", b, heading, strings.TrimSpace(text)))
}

// transition moves a task to a status through the state machine and
// records it.
func (s *Store) transition(ctx context.Context, t *Task, to string, force bool) error {
	if err := canTransition(t.Status, to, force); err != nil {
		return err
	}
	from := t.Status
	if err := t.set("status", to); err != nil {
		return err
	}
	unlock, err := s.writeLock()
	if err != nil {
		return err
	}
	defer unlock()
	return s.persist(ctx, t, from+" -> "+to)
}

// Cancel cancels a task (the file stays; it can be reset to pending).
func (s *Store) Cancel(ctx context.Context, id string) (*Message, error) {
	t, err := s.Resolve(id)
	if err != nil {
		return nil, err
	}
	if t.Status == "cancelled" {
		return nil, fault.Checkf("Task '%s' is already cancelled", t.ID)
	}
	if t, err = s.stop(ctx, t.ID); err != nil {
		return nil, err
	}
	if err := s.transition(ctx, t, "cancelled", false); err != nil {
		return nil, fault.Checkf("Failed to transition task to cancelled: %v", err)
	}
	return message(t.ID, "Cancelled task: %s", t.ID), nil
}

// Archive moves a completed task to .gloss/tasks/archive/ (it still
// resolves). A task whose branch holds work not merged is refused.
func (s *Store) Archive(ctx context.Context, id string) (*Message, error) {
	unlock, err := s.writeLock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	t, err := s.Resolve(id)
	if err != nil {
		return nil, err
	}
	if t.Archived {
		return nil, fault.Checkf("Task '%s' is already archived", t.ID)
	}
	if t.Status != "completed" {
		return nil, fault.Checkf("Task '%s' must be completed to archive (current: %s)", t.ID, t.Status)
	}
	if branch := BranchPrefix + t.ID; s.repo.BranchExists(branch) {
		if merged, err := s.merged(ctx, branch); err != nil {
			return nil, err
		} else if !merged {
			return nil, fault.Checkf("Task '%s' has unmerged work on branch %s; finalize it first", t.ID, branch)
		}
	}
	old := t.Path
	t.Path = path.Join(ArchiveDir, t.ID+".md")
	if err := s.root.MkdirAll(ArchiveDir, 0o755); err != nil {
		return nil, err
	}
	if err := s.journalFiles(old, t.Path); err != nil {
		return nil, err
	}
	if err := s.root.Rename(old, t.Path); err != nil {
		return nil, err
	}
	if err := s.record(ctx, t.ID, "archived", old, t.Path); err != nil {
		return nil, err
	}
	return message(t.ID, "Archived task: %s -> %s", id, t.Path), nil
}

// merged reports whether a branch's commits are all in HEAD.
func (s *Store) merged(ctx context.Context, branch string) (bool, error) {
	tip, err := s.repo.RefTarget("refs/heads/" + branch)
	if err != nil || tip == "" {
		return true, err
	}
	head, err := s.repo.Head()
	if err != nil || head == "" {
		return false, err
	}
	return s.repo.IsAncestor(tip, head)
}
