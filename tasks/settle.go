package tasks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/frontmatter"
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
	old, _ := s.root.ReadFile(p)
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

// TakeoverResult is task_takeover's answer.
type TakeoverResult struct {
	Schema     string `json:"$schema"`
	TaskID     string `json:"task_id"`
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
	if err := s.save(t); err != nil {
		return nil, err
	}
	if err := s.record(ctx, t.ID, "taken over", t.Path); err != nil {
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

// Process is one run in task_work_list.
type Process struct {
	ProcessID   string `json:"process_id" jsonschema:"<task id>-<pid>, as task_work_start returned it"`
	TaskID      string `json:"task_id"`
	Title       string `json:"title"`
	PID         int    `json:"pid"`
	Status      string `json:"status" jsonschema:"running, exited or stale"`
	ExitCode    *int   `json:"exit_code,omitempty"`
	LogModified string `json:"log_modified,omitempty"`
	Branch      string `json:"branch"`
	Warning     string `json:"warning,omitempty"`
}

// WorkList is task_work_list's answer.
type WorkList struct {
	Schema    string         `json:"$schema"`
	Processes []Process      `json:"processes"`
	Summary   map[string]int `json:"summary"`
}

// runIDs lists the tasks that have run state.
func (s *Store) runIDs() ([]string, error) {
	dir, err := s.repo.GlossDir()
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(filepath.Join(dir, "run"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() && fileIDPattern.MatchString(e.Name()) {
			ids = append(ids, e.Name())
		}
	}
	slices.SortFunc(ids, CompareIDs)
	return ids, err
}

// Work lists agent runs; finished ones only with includeCompleted.
func (s *Store) Work(includeCompleted bool) (*WorkList, error) {
	ids, err := s.runIDs()
	if err != nil {
		return nil, err
	}
	res := &WorkList{Schema: schemaTag, Processes: []Process{}, Summary: map[string]int{"running": 0, "exited": 0, "stale": 0}}
	for _, id := range ids {
		run, err := s.loadRun(id)
		if err != nil {
			continue
		}
		p := Process{ProcessID: fmt.Sprintf("%s-%d", id, run.PID), TaskID: id, PID: run.PID, Branch: run.Branch, ExitCode: run.ExitCode}
		if t, err := s.Resolve(id); err == nil {
			p.Title = t.Title
		}
		if mod, ok := s.logModified(id); ok {
			p.LogModified = mod.UTC().Format(time.RFC3339)
		}
		switch {
		case s.running(id):
			p.Status = "running"
		case run.State == "exited":
			p.Status = "exited"
		default:
			p.Status, p.Warning = "stale", "process_dead"
		}
		res.Summary[p.Status]++
		if p.Status == "running" || includeCompleted || p.Status == "stale" {
			res.Processes = append(res.Processes, p)
		}
	}
	return res, nil
}

// Only keeps the run with this process id (or task id).
func (w *WorkList) Only(processID string) *WorkList {
	if processID == "" {
		return w
	}
	out := &WorkList{Schema: w.Schema, Processes: []Process{}, Summary: map[string]int{"running": 0, "exited": 0, "stale": 0}}
	for _, p := range w.Processes {
		if p.ProcessID == processID || p.TaskID == processID {
			out.Processes = append(out.Processes, p)
			out.Summary[p.Status]++
		}
	}
	return out
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
	unlock, ok, err := tryLock(filepath.Join(d, "lock"))
	if err != nil || !ok {
		return err
	}
	defer unlock()
	return fn()
}

// Watch timing.
const (
	watchPoll = 2 * time.Second
	watchIdle = 5 * time.Minute
)

func (s *Store) watchFiles() (lock, pid string, err error) {
	dir, err := s.repo.GlossDir()
	if err != nil {
		return "", "", err
	}
	if err := os.MkdirAll(filepath.Join(dir, "run"), 0o755); err != nil {
		return "", "", err
	}
	return filepath.Join(dir, "run", "watch.lock"), filepath.Join(dir, "run", "watch.pid"), nil
}

// Watch settles runs in a loop until ctx ends or nothing has run for five
// minutes. A second watch finds the lock taken and returns at once.
func (s *Store) Watch(ctx context.Context) error {
	lockPath, pidPath, err := s.watchFiles()
	if err != nil {
		return err
	}
	unlock, ok, err := tryLock(lockPath)
	if err != nil {
		return err
	}
	if !ok {
		return fault.Conflictf("Watch is already running")
	}
	defer unlock()
	defer os.Remove(pidPath)
	if err := os.WriteFile(pidPath, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return err
	}
	idleSince := time.Now()
	for {
		res, err := s.Settle(ctx)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gloss watch:", err)
		}
		if res != nil && len(res.Running) > 0 {
			idleSince = time.Now()
		}
		if time.Since(idleSince) > watchIdle {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(watchPoll):
		}
	}
}

// WatchStatus is task_watch_status's answer.
type WatchStatus struct {
	Schema  string    `json:"$schema"`
	Running bool      `json:"watch_running"`
	PID     int       `json:"pid,omitempty"`
	Runs    []Process `json:"runs"`
}

func (s *Store) watchPID() (int, bool) {
	lockPath, pidPath, err := s.watchFiles()
	if err != nil {
		return 0, false
	}
	if !locked(lockPath) {
		return 0, false
	}
	data, _ := os.ReadFile(pidPath)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return pid, true
}

// WatchState reports whether the watch runs, and the runs it looks after.
func (s *Store) WatchState() (*WatchStatus, error) {
	pid, running := s.watchPID()
	work, err := s.Work(true)
	if err != nil {
		return nil, err
	}
	return &WatchStatus{Schema: schemaTag, Running: running, PID: pid, Runs: work.Processes}, nil
}

// WatchStart starts the watch in the background (self is git-gloss).
func (s *Store) WatchStart(self string) (*Message, error) {
	if pid, running := s.watchPID(); running {
		return message("", "Watch is already running (PID: %d)", pid), nil
	}
	cmd := exec.Command(self, "-C", s.repo.Root(), "task", "watch", "run")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start watch: %w", err)
	}
	go func() { _ = cmd.Wait() }()
	for i := 0; i < 100; i++ {
		if _, running := s.watchPID(); running {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return message("", "Started watch process (PID: %d)", cmd.Process.Pid), nil
}

// WatchStop stops the background watch.
func (s *Store) WatchStop() (*Message, error) {
	pid, running := s.watchPID()
	if !running || pid <= 0 {
		return message("", "Watch is not running"), nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return nil, fmt.Errorf("stop watch: %w", err)
	}
	for i := 0; i < 200; i++ {
		if _, running := s.watchPID(); !running {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	return message("", "Sent stop signal to watch process (PID: %d)", pid), nil
}

// Check is one finding of diagnose.
type Check struct {
	Name    string `json:"name"`
	Passed  bool   `json:"passed"`
	Details string `json:"details"`
}

// Diagnosis is task_diagnose's answer.
type Diagnosis struct {
	Schema     string  `json:"$schema"`
	TaskID     string  `json:"task_id"`
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
