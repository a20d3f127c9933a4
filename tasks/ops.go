package tasks

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/frontmatter"
)

const schemaTag = "gloss-task/v1"

// Summary is a task in a list.
type Summary struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Status    string   `json:"status"`
	Type      string   `json:"type"`
	DependsOn []string `json:"depends_on"`
	Labels    []string `json:"labels"`
	Problem   string   `json:"problem,omitempty" jsonschema:"why the task file cannot be used as it is"`
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
	return Summary{ID: t.ID, Title: t.Title, Status: g.effective(t), Type: t.Type, DependsOn: t.DependsOn, Labels: t.Labels, Problem: t.problem()}
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
type SearchResult struct {
	Schema  string    `json:"$schema"`
	Query   string    `json:"query"`
	Results []Summary `json:"results"`
}

// Search finds tasks whose title or body contains the query (any case).
func (s *Store) Search(query, status string, limit int) (*SearchResult, error) {
	q := strings.ToLower(strings.TrimSpace(query))
	if q == "" {
		return nil, fault.Usagef("Missing required parameter: query")
	}
	all, g, err := s.active()
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = 50
	}
	res := &SearchResult{Schema: schemaTag, Query: query, Results: []Summary{}}
	for _, t := range all {
		if status != "" && g.effective(t) != status && t.Status != status {
			continue
		}
		if strings.Contains(strings.ToLower(t.Title+"\n"+string(t.Body)), q) {
			res.Results = append(res.Results, summarize(g, t))
			if len(res.Results) == limit {
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

// AddResult is task_add's answer.
type AddResult struct {
	Schema  string     `json:"$schema"`
	TaskID  string     `json:"spec_id"`
	Path    string     `json:"path"`
	Message string     `json:"message"`
	Lint    LintResult `json:"lint"`
}

// AddInput describes a new task.
type AddInput struct {
	Description string   `json:"description" jsonschema:"what to do; the first sentence or line becomes the title"`
	Prompt      string   `json:"prompt,omitempty" jsonschema:"prompt template name"`
	Type        string   `json:"type,omitempty" jsonschema:"code (default), task, driver, documentation, research or group"`
	DependsOn   []string `json:"depends_on,omitempty"`
	Labels      []string `json:"labels,omitempty"`
	Criteria    []string `json:"criteria,omitempty" jsonschema:"acceptance criteria, one per item"`
}

// Add creates a task file (and commits it).
func (s *Store) Add(ctx context.Context, in AddInput) (*AddResult, error) {
	unlock, err := s.writeLock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	desc := strings.TrimSpace(in.Description)
	if desc == "" {
		return nil, fault.Usagef("Missing required parameter: description")
	}
	for _, err := range []error{checkText("description", desc), checkText("criteria", in.Criteria...),
		checkText("labels", in.Labels...), checkText("depends_on", in.DependsOn...), checkText("prompt", in.Prompt)} {
		if err != nil {
			return nil, err
		}
	}
	if in.Type == "" {
		in.Type = "code"
	}
	if !slices.Contains(Types, in.Type) {
		return nil, fault.Usagef("Invalid type: %s. Must be one of: %s", in.Type, strings.Join(Types, ", "))
	}
	title, body := splitDescription(desc)
	id, release, err := s.newID()
	if err != nil {
		return nil, err
	}
	defer release()
	all, g, err := s.active()
	if err != nil {
		return nil, err
	}
	_ = all
	for _, d := range in.DependsOn {
		if _, ok := g.byID[d]; !ok {
			return nil, fault.NotFoundf("Task not found: %s", d)
		}
	}
	t := &Task{ID: id, Path: path.Join(Dir, id+".md"), fm: frontmatter.NewMapping()}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", title)
	if body != "" {
		fmt.Fprintf(&b, "\n%s\n", body)
	}
	if len(in.Criteria) > 0 {
		b.WriteString("\n## Acceptance Criteria\n\n")
		for _, c := range in.Criteria {
			fmt.Fprintf(&b, "- [ ] %s\n", strings.TrimSpace(c))
		}
	}
	t.Body = []byte(b.String())
	for _, kv := range []struct {
		k string
		v any
	}{{"type", in.Type}, {"status", "pending"}, {"prompt", in.Prompt}, {"depends_on", in.DependsOn}, {"labels", in.Labels}} {
		if err := t.set(kv.k, kv.v); err != nil {
			return nil, err
		}
	}
	if err := s.save(t); err != nil {
		return nil, err
	}
	if err := s.record(ctx, id, "created", t.Path); err != nil {
		return nil, err
	}
	g.add(t)
	return &AddResult{Schema: schemaTag, TaskID: id, Path: t.Path, Message: "Created task: " + id, Lint: s.lint(g, t)}, nil
}

// splitDescription takes a title off a description: the first line, or up
// to the first ". " when the description is long (over 80 characters).
func splitDescription(d string) (string, string) {
	if len(d) <= 80 && !strings.Contains(d, "\n") {
		return d, ""
	}
	if i := strings.IndexByte(d, '\n'); i >= 0 && i <= 80 {
		return strings.TrimSpace(d[:i]), strings.TrimSpace(d[i+1:])
	}
	if i := strings.Index(d, ". "); i >= 0 {
		return strings.TrimSpace(d[:i+1]), strings.TrimSpace(d[i+2:])
	}
	return d, ""
}

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
		if err := g.checkCycle(t.ID, in.DependsOn); err != nil {
			return nil, err
		}
		for _, d := range in.DependsOn {
			if _, ok := g.byID[d]; !ok {
				return nil, fault.NotFoundf("Task not found: %s", d)
			}
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
	if err := s.save(t); err != nil {
		return nil, err
	}
	transition := "updated"
	if in.Status != "" && in.Status != from {
		transition = from + " -> " + in.Status
	}
	if err := s.record(ctx, t.ID, transition, t.Path); err != nil {
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
	if err := s.save(t); err != nil {
		return err
	}
	return s.record(ctx, t.ID, from+" -> "+to, t.Path)
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

// Split turns a pending task into a driver with one member task per
// acceptance criterion (<id>.1, <id>.2, …), each depending on the one
// before. No agent is involved: the criteria are the plan.
func (s *Store) Split(ctx context.Context, id string, force bool) (*SplitResult, error) {
	unlock, err := s.writeLock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	t, g, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	if t.Status != "pending" && !force {
		return nil, fault.Checkf("Task '%s' must be in pending status to split. Current status: %s", t.ID, t.Status)
	}
	if len(g.members(t.ID)) > 0 {
		return nil, fault.Checkf("Task '%s' already has members", t.ID)
	}
	c := criteriaOf(t.Body)
	if c.Total < 2 {
		return nil, fault.Checkf("Task '%s' has %d acceptance criteria; splitting needs at least two", t.ID, c.Total)
	}
	res := &SplitResult{Schema: schemaTag, TaskID: t.ID, Members: []string{}}
	paths := []string{t.Path}
	for i, item := range append(append([]string{}, c.Open...), checkedItems(t.Body)...) {
		text := strings.TrimSpace(item[strings.Index(item, "]")+1:])
		m := &Task{ID: fmt.Sprintf("%s.%d", t.ID, i+1), fm: frontmatter.NewMapping()}
		m.Path = path.Join(Dir, m.ID+".md")
		m.Body = []byte(fmt.Sprintf("# %s\n\nPart %d of %s: %s\n\n## Acceptance Criteria\n\n- [ ] %s\n", text, i+1, t.ID, t.Title, text))
		_ = m.set("type", "code")
		_ = m.set("status", "pending")
		if err := s.save(m); err != nil {
			return nil, err
		}
		paths = append(paths, m.Path)
		res.Members = append(res.Members, m.ID)
	}
	_ = t.set("type", "driver")
	if err := s.save(t); err != nil {
		return nil, err
	}
	if err := s.record(ctx, t.ID, fmt.Sprintf("split into %d members", len(res.Members)), paths...); err != nil {
		return nil, err
	}
	res.Message = fmt.Sprintf("Split task %s into %d members", t.ID, len(res.Members))
	return res, nil
}

// SplitResult is task_split's answer.
type SplitResult struct {
	Schema  string   `json:"$schema"`
	TaskID  string   `json:"spec_id"`
	Members []string `json:"members"`
	Message string   `json:"message"`
}

func checkedItems(body []byte) []string {
	c := criteriaOf(body)
	if c.Start < 0 {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(body), "\n")[c.Start+1:] {
		if strings.HasPrefix(line, "## ") {
			break
		}
		if box(line) == "checked" {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}
