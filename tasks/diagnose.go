package tasks

import (
	"context"
	"fmt"
	"strings"
)

// Check is one finding of diagnose.
type Check struct {
	Name    string `json:"name"`
	Passed  bool   `json:"passed"`
	Details string `json:"details"`
}

// Diagnosis is task_diagnose's answer.
type Diagnosis struct {
	Schema     string  `json:"$schema"`
	TaskID     string  `json:"spec_id"`
	Status     string  `json:"status"`
	Location   string  `json:"location"`
	Checks     []Check `json:"checks"`
	Diagnosis  string  `json:"diagnosis"`
	Suggestion string  `json:"suggestion"`
}

// Diagnose explains where a task stands and what to do about it.
func (s *Store) Diagnose(ctx context.Context, id string) (*Diagnosis, error) {
	t, g, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	d := &Diagnosis{Schema: schemaTag, TaskID: t.ID, Status: g.effective(t), Location: t.Path, Checks: []Check{}}
	add := func(name string, ok bool, format string, args ...any) {
		d.Checks = append(d.Checks, Check{name, ok, fmt.Sprintf(format, args...)})
	}
	add("file", t.parseErr == nil, "%s", errText(t.parseErr, "frontmatter parses"))
	blockers := g.blockers(t)
	add("dependencies", len(blockers) == 0, "%s", orText(strings.Join(blockers, ", "), "all dependencies met"))
	alive := s.running(t.ID)
	add("agent", !(t.Status == "in_progress" && !alive), "running: %v", alive)
	branch := BranchPrefix + t.ID
	commits, _ := s.branchCommits(ctx, branch)
	add("commits", !s.repo.BranchExists(branch) || len(commits) > 0, "%d commit(s) on %s", len(commits), branch)
	add("log", s.hasLog(t.ID) || t.Status == "pending", "log present: %v", s.hasLog(t.ID))
	crit := criteriaOf(t.Body)
	if s.repo.BranchExists(branch) {
		crit, _ = s.branchCriteria(ctx, t.ID)
	}
	add("criteria", crit.Total > 0 && crit.Unchecked == 0 || t.Status == "pending", "%d of %d checked", crit.Checked, crit.Total)
	switch {
	case t.parseErr != nil:
		d.Diagnosis, d.Suggestion = "the task file does not parse", "fix its frontmatter (see task_lint)"
	case len(blockers) > 0:
		d.Diagnosis, d.Suggestion = "blocked by its dependencies", "finish or cancel: "+strings.Join(blockers, ", ")
	case t.Status == "in_progress" && !alive:
		d.Diagnosis, d.Suggestion = "in progress, but no agent is running", "run `git gloss task settle`, or task_takeover with force"
	case t.Status == "in_progress":
		d.Diagnosis, d.Suggestion = "an agent is working on it", "follow it with task_log"
	case t.Status == "needs_attention" || t.Status == "failed":
		d.Diagnosis, d.Suggestion = "the last run did not finish the task", "read task_log, then task_reset or finish it by hand and task_finalize"
	case crit.Total == 0:
		d.Diagnosis, d.Suggestion = "no acceptance criteria", "add a '## Acceptance Criteria' section"
	default:
		d.Diagnosis, d.Suggestion = "nothing wrong", "—"
	}
	return d, nil
}

func errText(err error, ok string) string {
	if err != nil {
		return err.Error()
	}
	return ok
}

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
