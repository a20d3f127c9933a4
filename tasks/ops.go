package tasks

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gloss-dev/gloss/fault"
)

// The task store's queries: list, ready, get, status, search, lint and
// verify, and the answer types and lookups the operations share. Changes
// live beside them: add.go, change.go (update, cancel, archive) and
// split.go.

const schemaTag = "gloss-task/v1"

// Summary is a task in a list.
type Summary struct {
	ID string `json:"id"`
	// Title, Status, Type, DependsOn and Labels are Chant's reply fields:
	// the status is the stored one, as Chant answers it
	// (https://github.com/lex00/chant/blob/ec4a403/src/mcp/tools/spec.rs,
	// tool_chant_ready: a ready task reads "pending"); EffectiveStatus is
	// gloss's, with the computed ready and blocked.
	Title           string   `json:"title"`
	Status          string   `json:"status" jsonschema:"the stored status, as Chant answers it"`
	Type            string   `json:"type"`
	DependsOn       []string `json:"depends_on"`
	Labels          []string `json:"labels"`
	EffectiveStatus string   `json:"effective_status" jsonschema:"status including the computed ready and blocked"`
	Problem         string   `json:"problem,omitempty" jsonschema:"why the task file cannot be used as it is"`
}

// ListResult is task_list's and task_ready's answer.
type ListResult struct {
	Schema   string    `json:"$schema"`
	Tasks    []Summary `json:"specs" jsonschema:"named as in Chant's replies"`
	Total    int       `json:"total"`
	Limit    int       `json:"limit"`
	Returned int       `json:"returned"`
}

// Message is the answer of a change: what happened.
type Message struct {
	Schema  string `json:"$schema"`
	TaskID  string `json:"spec_id"`
	Message string `json:"message"`
}

func message(id, format string, args ...any) *Message {
	return &Message{Schema: schemaTag, TaskID: id, Message: fmt.Sprintf(format, args...)}
}

func summarize(g graph, t *Task) Summary {
	return Summary{ID: t.ID, Title: t.Title, Status: t.Status, Type: t.Type, DependsOn: t.DependsOn, Labels: t.Labels, EffectiveStatus: g.effective(t), Problem: t.problem()}
}

// checkText refuses input that is not valid UTF-8 before it reaches a
// task file.
func checkText(name string, values ...string) error {
	for _, v := range values {
		if !utf8.ValidString(v) {
			return fault.Usagef("Invalid %s: not valid UTF-8", name)
		}
	}
	return nil
}

// lookup loads the tasks and finds one from a full or partial id.
func (s *Store) lookup(id string) (*Task, graph, error) {
	all, g, err := s.active()
	if err != nil {
		return nil, graph{}, err
	}
	t, err := resolveIn(all, id)
	return t, g, err
}

// active loads the tasks and their graph.
func (s *Store) active() ([]*Task, graph, error) {
	all, err := s.load()
	if err != nil {
		return nil, graph{}, err
	}
	return all, newGraph(all), nil
}

func list(items []Summary, limit int) *ListResult {
	if limit <= 0 {
		limit = 50
	}
	res := &ListResult{Schema: schemaTag, Tasks: []Summary{}, Total: len(items), Limit: limit}
	res.Tasks = append(res.Tasks, items[:min(limit, len(items))]...)
	res.Returned = len(res.Tasks)
	return res
}

// List lists tasks, cancelled and archived ones hidden unless asked for by
// status. The statuses ready and blocked are computed.
func (s *Store) List(status string, limit int) (*ListResult, error) {
	if status != "" && !slices.Contains(Statuses, status) && status != "archived" {
		return nil, fault.Usagef("Invalid status: %s. Must be one of: %s", status, strings.Join(Statuses, ", "))
	}
	all, g, err := s.active()
	if err != nil {
		return nil, err
	}
	var items []Summary
	for _, t := range all {
		eff := g.effective(t)
		switch {
		case status == "archived":
			if !t.Archived {
				continue
			}
		case t.Archived:
			continue
		case status == "":
			if t.Status == "cancelled" {
				continue
			}
		case status == "ready":
			if eff != "ready" {
				continue
			}
		case status == "pending":
			if t.Status != "pending" {
				continue
			}
		default:
			if eff != status && t.Status != status {
				continue
			}
		}
		items = append(items, summarize(g, t))
	}
	return list(items, limit), nil
}

// Ready lists the tasks that can be worked on now.
func (s *Store) Ready(limit int) (*ListResult, error) { return s.List("ready", limit) }

// Detail is task_get's answer.
type Detail struct {
	Schema string `json:"$schema"`
	Task
	Effective string         `json:"effective_status" jsonschema:"status including the computed ready and blocked"`
	Problem   string         `json:"problem,omitempty" jsonschema:"why the task file cannot be used as it is"`
	BlockedBy []string       `json:"blocked_by"`
	Archived  bool           `json:"archived"`
	Members   []string       `json:"members"`
	Linked    []LinkedCommit `json:"linked_commits" jsonschema:"commits whose subject starts task(<id>):"`
	Criteria  Criteria       `json:"criteria"`
	Body      string         `json:"body"`
}

// Get returns a task in full, with the commits linked to it.
func (s *Store) Get(ctx context.Context, id string) (*Detail, error) {
	t, g, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	linked, err := s.linkedCommits(ctx, t.ID)
	if err != nil {
		return nil, err
	}
	d := &Detail{Schema: schemaTag, Task: *t, Effective: g.effective(t), Problem: t.problem(), BlockedBy: g.blockers(t), Archived: t.Archived,
		Members: []string{}, Linked: linked, Criteria: criteriaOf(t.Body), Body: string(t.Body)}
	if d.BlockedBy == nil {
		d.BlockedBy = []string{}
	}
	for _, m := range g.members(t.ID) {
		d.Members = append(d.Members, m.ID)
	}
	return d, nil
}

// StatusResult is task_status's answer, in Chant's shape
// (https://github.com/lex00/chant/blob/ec4a403/src/mcp/tools/spec.rs,
// tool_chant_status): flat counts where paused counts as in_progress and
// ready as pending, blocked including tasks waiting for an approval.
// Ready, paused and approvals are gloss's own, beside them.
type StatusResult struct {
	Schema         string         `json:"$schema"`
	Total          int            `json:"total"`
	Pending        int            `json:"pending" jsonschema:"pending tasks, ready ones included"`
	InProgress     int            `json:"in_progress" jsonschema:"in progress, paused included"`
	Completed      int            `json:"completed"`
	Failed         int            `json:"failed"`
	Blocked        int            `json:"blocked" jsonschema:"waiting for dependencies or an approval"`
	Cancelled      int            `json:"cancelled"`
	NeedsAttention int            `json:"needs_attention"`
	Ready          int            `json:"ready" jsonschema:"of pending, the ones that can be worked on now"`
	Paused         int            `json:"paused" jsonschema:"of in_progress, the paused ones"`
	Approvals      ApprovalCounts `json:"approvals" jsonschema:"tasks whose approval is required, by approval status"`
	Brief          string         `json:"brief,omitempty" jsonschema:"the one line of counts (MCP sends it alone, as Chant does)"`
	InProgressWork []Activity     `json:"in_progress_activity,omitempty"`
}

// ApprovalCounts counts the tasks whose approval is required.
type ApprovalCounts struct {
	Pending  int `json:"pending"`
	Approved int `json:"approved"`
	Rejected int `json:"rejected"`
}

// Activity is an in-progress task's recent activity.
type Activity struct {
	ID           string `json:"id"`
	Title        string `json:"title"`
	TaskModified string `json:"spec_modified"`
	LogModified  string `json:"log_modified,omitempty"`
	HasLog       bool   `json:"has_log"`
}

// Status counts tasks by (effective) status.
func (s *Store) Status(brief, activity bool) (*StatusResult, error) {
	all, g, err := s.active()
	if err != nil {
		return nil, err
	}
	res := &StatusResult{Schema: schemaTag}
	for _, t := range all {
		if t.Archived {
			continue
		}
		res.Total++
		switch eff := g.effective(t); eff {
		case "pending", "ready":
			res.Pending++
			if eff == "ready" {
				res.Ready++
			}
		case "in_progress", "paused":
			res.InProgress++
			if eff == "paused" {
				res.Paused++
			}
		case "completed":
			res.Completed++
		case "failed":
			res.Failed++
		case "blocked":
			res.Blocked++
		case "cancelled":
			res.Cancelled++
		case "needs_attention":
			res.NeedsAttention++
		}
		if a := t.Approval; a != nil && a.Required {
			switch a.Status {
			case ApprovalApproved:
				res.Approvals.Approved++
			case ApprovalRejected:
				res.Approvals.Rejected++
			default:
				res.Approvals.Pending++
			}
		}
		if activity && (t.Status == "in_progress" || t.Status == "paused") {
			a := Activity{ID: t.ID, Title: t.Title, TaskModified: t.ModTime.UTC().Format(time.RFC3339)}
			if mod, ok := s.logModified(t.ID); ok {
				a.HasLog, a.LogModified = true, mod.UTC().Format(time.RFC3339)
			}
			res.InProgressWork = append(res.InProgressWork, a)
		}
	}
	if brief {
		res.Brief = res.briefLine()
	}
	return res, nil
}

// briefLine is Chant's brief: "3 pending | 2 in_progress | …" in its
// order, or "No specs".
func (r *StatusResult) briefLine() string {
	var parts []string
	for _, c := range []struct {
		n    int
		name string
	}{{r.Pending, "pending"}, {r.InProgress, "in_progress"}, {r.Completed, "completed"}, {r.Failed, "failed"},
		{r.Blocked, "blocked"}, {r.Cancelled, "cancelled"}, {r.NeedsAttention, "needs_attention"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.name))
		}
	}
	if len(parts) == 0 {
		return "No specs"
	}
	return strings.Join(parts, " | ")
}

// SearchResult is task_search's answer.
// SearchResult is task_search's answer: the matching tasks as a bare
// list, as Chant answers chant_search (no wrapping object: a script that
// walks Chant's array walks this one).
type SearchResult []Summary

// Search finds tasks whose title or body contains the query (any case).
func (s *Store) Search(query, status string, limit int) (SearchResult, error) {
	q := strings.ToLower(strings.TrimSpace(query))
	if q == "" {
		return nil, fault.Usagef("Missing required parameter: query")
	}
	// The answer repeats the query.
	if len(query) > fault.MaxQuote {
		return nil, fault.Usagef("a query is at most %d bytes (this one is %d)", fault.MaxQuote, len(query))
	}
	all, g, err := s.active()
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = 50
	}
	res := SearchResult{}
	for _, t := range all {
		if status != "" && g.effective(t) != status && t.Status != status {
			continue
		}
		if strings.Contains(strings.ToLower(t.Title+"\n"+string(t.Body)), q) {
			res = append(res, summarize(g, t))
			if len(res) == limit {
				break
			}
		}
	}
	return res, nil
}

// LintReport is task_lint's answer.
type LintReport struct {
	Schema  string       `json:"$schema"`
	Checked int          `json:"specs_checked" jsonschema:"named as in Chant's replies"`
	Red     int          `json:"red"`
	Yellow  int          `json:"yellow"`
	Green   int          `json:"green"`
	Results []LintResult `json:"results"`
}

// Lint grades one task or all active ones.
func (s *Store) Lint(id string) (*LintReport, error) {
	all, g, err := s.active()
	if err != nil {
		return nil, err
	}
	targets := []*Task{}
	if id != "" {
		t, err := resolveIn(all, id)
		if err != nil {
			return nil, err
		}
		targets = append(targets, t)
	} else {
		for _, t := range all {
			if !t.Archived {
				targets = append(targets, t)
			}
		}
	}
	rep := &LintReport{Schema: schemaTag, Results: []LintResult{}}
	for _, t := range targets {
		r := s.lint(g, t)
		rep.Results = append(rep.Results, r)
		rep.Checked++
		switch r.TrafficLight {
		case "red":
			rep.Red++
		case "yellow":
			rep.Yellow++
		default:
			rep.Green++
		}
	}
	return rep, nil
}

// VerifyResult is task_verify's answer.
type VerifyResult struct {
	Schema         string   `json:"$schema"`
	TaskID         string   `json:"spec_id"`
	Verified       bool     `json:"verified"`
	Criteria       Criteria `json:"criteria"`
	UncheckedItems []string `json:"unchecked_items"`
	Notes          string   `json:"verification_notes"`
}

// Verify checks the acceptance criteria mechanically.
func (s *Store) Verify(id string) (*VerifyResult, error) {
	t, err := s.Resolve(id)
	if err != nil {
		return nil, err
	}
	c := criteriaOf(t.Body)
	res := &VerifyResult{Schema: schemaTag, TaskID: t.ID, Criteria: c, UncheckedItems: []string{}, Verified: c.Total > 0 && c.Unchecked == 0}
	res.UncheckedItems = append(res.UncheckedItems, c.Open...)
	switch {
	case c.Total == 0:
		res.Notes = "No acceptance criteria found"
	case c.Unchecked == 0:
		res.Notes = "All acceptance criteria met"
	default:
		res.Notes = fmt.Sprintf("%d criteria not yet checked", c.Unchecked)
	}
	return res, nil
}
