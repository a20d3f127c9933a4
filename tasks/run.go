package tasks

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/detach"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/runenv"
	"github.com/gloss-dev/gloss/safepath"
)

// Agent runs. `task_work_start` starts a supervisor process (git-gloss
// task supervise <id>, detached from the caller) that creates nothing
// itself but runs the agent — the command in personal git config
// gloss.agent, never one from a committed file — in the task's worktree,
// in its own process group, writing its output to a timestamped log. The
// supervisor holds a lock for the agent's whole life, so liveness is a lock
// test, not a PID guess. When the agent exits, the supervisor settles the
// run: the log is committed, and the task is finalized, marked failed or
// marked as needing attention.

// BranchPrefix names task branches: gloss/task/<id>.
const BranchPrefix = "gloss/task/"

// DefaultAgent runs when gloss.agent is not set.
const DefaultAgent = "claude -p"

// timeLayout stamps every log line; 24 characters, so `since` can parse it.
const timeLayout = "2006-01-02T15:04:05.000Z"

// Run is what gloss knows about one run, in <git dir>/gloss/run/<id>/run.json.
type Run struct {
	TaskID    string `json:"task_id"`
	Command   string `json:"command"`
	Worktree  string `json:"worktree"`
	Branch    string `json:"branch"`
	PID       int    `json:"pid,omitempty"`
	StartedAt string `json:"started_at"`
	EndedAt   string `json:"ended_at,omitempty"`
	ExitCode  *int   `json:"exit_code,omitempty"`
	State     string `json:"state" jsonschema:"starting, running, exited"`
	Settled   bool   `json:"reconciled"` // the key predates the name: run.json outlives upgrades
	Stopped   bool   `json:"stopped,omitempty" jsonschema:"stopped by pause, takeover, reset or cancel"`
}

func (s *Store) runDir(id string) (string, error) {
	dir, err := s.repo.GlossDir()
	if err != nil {
		return "", err
	}
	d := filepath.Join(dir, "run", id)
	return d, os.MkdirAll(d, 0o755)
}

func (s *Store) worktreePath(id string) (string, error) {
	dir, err := s.repo.GlossDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "worktrees", id), nil
}

func (s *Store) loadRun(id string) (*Run, error) {
	d, err := s.runDir(id)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(d, "run.json"))
	if err != nil {
		return nil, err
	}
	var r Run
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("read run of %s: %w", id, err)
	}
	return &r, nil
}

func (s *Store) saveRun(r *Run) error {
	d, err := s.runDir(r.TaskID)
	if err != nil {
		return err
	}
	data, _ := json.MarshalIndent(r, "", "  ")
	return atomicfile.Write(filepath.Join(d, "run.json"), data, 0o644)
}

// alive reports whether a run's supervisor still holds its lock.
func (s *Store) alive(id string) bool {
	d, err := s.runDir(id)
	if err != nil {
		return false
	}
	return locked(filepath.Join(d, "lock"))
}

// running reports whether a task's agent is running (its supervisor may
// still hold the lock a moment longer to settle the run).
func (s *Store) running(id string) bool {
	if !s.alive(id) {
		return false
	}
	run, err := s.loadRun(id)
	return err != nil || run.State != "exited"
}

// liveLog is the log of the current run.
func (s *Store) liveLog(id string) string {
	d, _ := s.runDir(id)
	return filepath.Join(d, "agent.log")
}

// committedLog is where finished logs are kept in git.
func committedLog(id string) string { return path.Join(LogsDir, id+".log") }

func (s *Store) hasLog(id string) bool {
	if _, ok := s.logModified(id); ok {
		return true
	}
	_, err := s.repo.ReadFile("refs/heads/"+BranchPrefix+id, committedLog(id))
	return err == nil
}

func (s *Store) logModified(id string) (time.Time, bool) {
	for _, p := range []string{s.liveLog(id), filepath.Join(s.repo.Root(), filepath.FromSlash(committedLog(id)))} {
		if st, err := os.Stat(p); err == nil {
			return st.ModTime(), true
		}
	}
	return time.Time{}, false
}

// StartResult is task_work_start's answer.
type StartResult struct {
	Schema    string         `json:"$schema"`
	ProcessID string         `json:"process_id"`
	TaskID    string         `json:"spec_id"`
	PID       int            `json:"pid"`
	StartedAt string         `json:"started_at"`
	Mode      string         `json:"mode"`
	Started   bool           `json:"started"`
	Worktree  string         `json:"worktree"`
	Branch    string         `json:"branch"`
	Monitor   Monitor        `json:"monitor"`
	Quality   *QualityNotice `json:"quality_warning,omitempty"`
}

// Monitor tells an orchestrating agent how to follow the run.
type Monitor struct {
	Instruction  string   `json:"instruction"`
	PollTool     string   `json:"poll_tool"`
	PollInterval int      `json:"poll_interval_seconds"`
	DoneStatuses []string `json:"done_statuses"`
}

// QualityNotice is the advisory on a red task.
type QualityNotice struct {
	Status      string   `json:"status"`
	Suggestions []string `json:"suggestions"`
	Message     string   `json:"message"`
}

// WorkStart starts an agent on a task. self is the git-gloss binary that
// will supervise the run.
func (s *Store) WorkStart(ctx context.Context, id, self string) (*StartResult, error) {
	// The write lock covers the claim (lookup to the status commit); the
	// start itself runs without it, since the run settles under it.
	unlock, err := s.writeLock()
	if err != nil {
		return nil, err
	}
	claimed := false
	defer func() {
		if !claimed {
			unlock()
		}
	}()
	t, g, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	switch t.Status {
	case "paused":
		return nil, fault.Checkf("Task '%s' is paused. Cannot start work on a paused task; reset it or take it over.", t.ID)
	case "in_progress":
		return nil, fault.Checkf("Task '%s' is already in progress. Use task_takeover to take it over.", t.ID)
	case "completed":
		return nil, fault.Checkf("Task '%s' is already completed.", t.ID)
	case "cancelled":
		return nil, fault.Checkf("Task '%s' is cancelled.", t.ID)
	}
	if b := g.blockers(t); len(b) > 0 {
		return nil, fault.Checkf("Task '%s' is blocked by: %s", t.ID, strings.Join(b, ", "))
	}
	if p := t.problem(); p != "" {
		return nil, fault.Checkf("Task '%s' cannot be worked on: %s. Fix its file first.", t.ID, p)
	}
	if t.Archived {
		return nil, fault.Checkf("Task '%s' is archived.", t.ID)
	}
	if s.running(t.ID) {
		return nil, fault.Conflictf("An agent is already running for task '%s'.", t.ID)
	}
	agent := strings.TrimSpace(s.agent)
	if agent == "" {
		agent = DefaultAgent
	}
	lint := s.lint(g, t)

	// The status change lands first, so the worktree starts from it.
	from := t.Status
	branch := BranchPrefix + t.ID
	if err := t.set("status", "in_progress"); err != nil {
		return nil, err
	}
	if err := t.set("branch", branch); err != nil {
		return nil, err
	}
	// The change is the first commit of the run's own branch (made from
	// HEAD here, or the branch of an earlier run): the person's branch
	// gets nothing until the run lands.
	t.run = branch
	if err := s.persist(ctx, t, from+" -> in_progress"); err != nil {
		return nil, err
	}
	claimed = true
	unlock()
	wt, err := s.worktreePath(t.ID)
	if err != nil {
		return nil, s.undoStart(ctx, t, from, err)
	}
	run := &Run{TaskID: t.ID, Command: agent, Worktree: wt, Branch: branch, StartedAt: time.Now().UTC().Format(time.RFC3339), State: "starting"}
	if err := s.saveRun(run); err != nil {
		return nil, err
	}
	if err := s.writePrompt(t); err != nil {
		return nil, err
	}
	d, _ := s.runDir(t.ID)
	supLog, err := os.OpenFile(filepath.Join(d, "supervisor.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	defer supLog.Close()
	if _, err := detach.Start(self, detach.TaskSupervise(s.repo.Root(), t.ID), detach.Options{Output: supLog}); err != nil {
		return nil, s.undoStart(ctx, t, from, fmt.Errorf("start the supervisor: %w", err))
	}
	// Wait until the agent is running (or the start failed), so that an
	// error is reported here and not lost.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		r, err := s.loadRun(t.ID)
		if err == nil && r.State != "starting" {
			run = r
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if run.State == "starting" {
		return nil, fmt.Errorf("the agent for %s did not start within 10 s; see %s", t.ID, s.rel(filepath.Join(d, "supervisor.log")))
	}
	res := &StartResult{Schema: schemaTag, ProcessID: fmt.Sprintf("%s-%d", t.ID, run.PID), TaskID: t.ID, PID: run.PID,
		StartedAt: run.StartedAt, Mode: "single", Started: true, Worktree: wt, Branch: branch,
		Monitor: Monitor{Instruction: "Poll task_get (or task_log) every 60 seconds until the status is completed, failed or needs_attention.",
			PollTool: "task_get", PollInterval: 60, DoneStatuses: []string{"completed", "failed", "needs_attention"}}}
	if lint.TrafficLight == "red" {
		res.Quality = &QualityNotice{Status: "refine", Suggestions: lint.Suggestions, Message: "Quality advisory: the task is vague or large; the agent may struggle. Work started anyway."}
	}
	return res, nil
}

// undoStart puts the status back when a start fails after the change.
func (s *Store) undoStart(ctx context.Context, t *Task, from string, cause error) error {
	_ = t.set("status", from)
	if unlock, err := s.writeLock(); err == nil {
		defer unlock()
	}
	_ = s.persist(ctx, t, "in_progress -> "+from+" (start failed)")
	return cause
}

// ensureWorktree makes (or reuses) the task's worktree under the git dir.
// Existing work is never deleted: a worktree left by an earlier run is
// used again, and so is an existing branch.
func (s *Store) ensureWorktree(ctx context.Context, id, branch string) (string, error) {
	wt, err := s.worktreePath(id)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(wt, ".git")); err == nil {
		return wt, nil
	}
	if err := os.MkdirAll(filepath.Dir(wt), 0o755); err != nil {
		return "", err
	}
	if s.repo.BranchExists(branch) {
		return wt, s.repo.AddWorktree(ctx, wt, branch, "")
	}
	return wt, s.repo.AddWorktree(ctx, wt, branch, "HEAD")
}

// rel names a path as the task log and messages show it: relative to the
// repository's root when it is inside (a run's worktree under .git/gloss
// is), as docs/cli.md promises for every output.
func (s *Store) rel(p string) string {
	if r, err := filepath.Rel(s.repo.Root(), p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(r)
	}
	return p
}

// writePrompt writes what the agent is asked to do.
func (s *Store) writePrompt(t *Task) error {
	d, err := s.runDir(t.ID)
	if err != nil {
		return err
	}
	prompt := fmt.Sprintf(`You are working on task %[1]s in a git worktree on branch %[2]s%[1]s.
The task file is %[3]s. Do the work it describes.

- Commit your work with commit subjects that start "task(%[1]s): ".
- When an acceptance criterion is met, check its box ("- [x]") in %[3]s and commit that too.
- Never edit, move or delete other task files.

%[4]s`, t.ID, BranchPrefix, t.Path, strings.TrimSpace(string(t.Body)))
	return atomicfile.Write(filepath.Join(d, "prompt.md"), []byte(prompt+"\n"), 0o644)
}

// agentIdentity names the agent a run command starts and, when the command
// says, its model: "claude -p --model opus" is claude with opus. The name
// is the program's base name; a command starting with environment
// assignments or env skips them.
func agentIdentity(command string) (name, model string) {
	fields := strings.Fields(command)
	i := 0
	for i < len(fields) && (strings.Contains(fields[i], "=") || fields[i] == "env") {
		i++
	}
	if i < len(fields) {
		name = path.Base(fields[i])
	}
	for j := i + 1; j < len(fields); j++ {
		switch f := fields[j]; {
		case (f == "--model" || f == "-m") && j+1 < len(fields):
			model = fields[j+1]
		case strings.HasPrefix(f, "--model="):
			model = strings.TrimPrefix(f, "--model=")
		}
	}
	return name, model
}

// Supervise runs the agent of a started task and settles the run when it ends.
// It is the body of the hidden `git gloss task supervise` command.
func (s *Store) Supervise(ctx context.Context, id string) error {
	d, err := s.runDir(id)
	if err != nil {
		return err
	}
	unlock, ok, err := atomicfile.TryLock(filepath.Join(d, "lock"))
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("task %s already has a supervisor", id)
	}
	defer unlock()
	run, err := s.loadRun(id)
	if err != nil {
		return err
	}
	// The run's commits (the agent's, gloss's own, the landing) run git's
	// hooks, which call git-gloss: the one supervising this run, found
	// first on PATH even where another or none is installed. This process
	// exists only for the run, so its environment is the run's.
	if exe, err := os.Executable(); err == nil {
		_ = os.Setenv("PATH", filepath.Dir(exe)+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	prompt, err := os.ReadFile(filepath.Join(d, "prompt.md"))
	if err != nil {
		return err
	}
	logFile, err := os.OpenFile(s.liveLog(id), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close()
	logw := &stampWriter{w: logFile}
	fmt.Fprintf(logw, "# gloss: run of %s started in %s: %s\n", id, s.rel(run.Worktree), run.Command)

	cmd := exec.Command("sh", "-c", run.Command+` "$`+runenv.TaskPrompt+`"`)
	cmd.Dir = run.Worktree
	name, model := agentIdentity(run.Command)
	// The agent's commits are recorded as its own: annotate and
	// attribution read the agent run in the post-commit hook.
	cmd.Env = append(runenv.AgentRun{Agent: name, Model: model, Session: id}.Environ(os.Environ()),
		runenv.TaskID+"="+id, runenv.TaskFile+"="+path.Join(Dir, id+".md"), runenv.TaskPrompt+"="+string(prompt),
		runenv.Worktree+"="+run.Worktree, runenv.Branch+"="+run.Branch)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		code := 127
		run.State, run.ExitCode, run.EndedAt = "exited", &code, time.Now().UTC().Format(time.RFC3339)
		fmt.Fprintf(logw, "# gloss: could not start the agent: %v\n", err)
		_ = s.saveRun(run)
		return s.settleRun(ctx, run)
	}
	run.PID, run.State = cmd.Process.Pid, "running"
	if err := s.saveRun(run); err != nil {
		return err
	}
	_, _ = io.Copy(logw, out)
	werr := cmd.Wait()
	logw.flush()
	code := 0
	if werr != nil {
		code = -1
		var ee *exec.ExitError
		if errors.As(werr, &ee) {
			code = ee.ExitCode()
		}
	}
	fmt.Fprintf(logw, "# gloss: the agent exited with status %d\n", code)
	// Re-read: pause or takeover may have marked the run as stopped.
	if latest, err := s.loadRun(id); err == nil {
		run.Stopped = latest.Stopped
	}
	run.State, run.ExitCode, run.EndedAt = "exited", &code, time.Now().UTC().Format(time.RFC3339)
	if err := s.saveRun(run); err != nil {
		return err
	}
	// Settle still holding the lock, so that nobody settles this run at
	// the same time.
	return s.settleRun(ctx, run)
}

// stampWriter prefixes every line with the time it was written.
type stampWriter struct {
	w       io.Writer
	partial []byte
}

func (sw *stampWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := strings.IndexByte(string(p), '\n')
		if i < 0 {
			sw.partial = append(sw.partial, p...)
			break
		}
		line := append(sw.partial, p[:i]...)
		sw.partial = nil
		if _, err := fmt.Fprintf(sw.w, "%s %s\n", time.Now().UTC().Format(timeLayout), line); err != nil {
			return 0, err
		}
		p = p[i+1:]
	}
	return n, nil
}

func (sw *stampWriter) flush() {
	if len(sw.partial) > 0 {
		fmt.Fprintf(sw.w, "%s %s\n", time.Now().UTC().Format(timeLayout), sw.partial)
		sw.partial = nil
	}
}

// stopRun stops a running agent: SIGTERM to its process group, a real wait,
// then SIGKILL. It marks the run as stopped so that settling does not
// mistake the stop for a failure.
func (s *Store) stopRun(id string) error {
	if !s.alive(id) {
		return nil
	}
	run, err := s.loadRun(id)
	if err != nil {
		return err
	}
	run.Stopped = true
	if err := s.saveRun(run); err != nil {
		return err
	}
	if run.PID <= 0 {
		return nil
	}
	_ = syscall.Kill(-run.PID, syscall.SIGTERM)
	if s.waitDead(id, 10*time.Second) {
		return nil
	}
	_ = syscall.Kill(-run.PID, syscall.SIGKILL)
	if !s.waitDead(id, 10*time.Second) {
		return fmt.Errorf("the agent of %s (process group %d) did not stop", id, run.PID)
	}
	return nil
}

func (s *Store) waitDead(id string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if !s.alive(id) {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// LogResult is task_log's answer.
type LogResult struct {
	Schema     string `json:"$schema"`
	TaskID     string `json:"spec_id"`
	Content    string `json:"content"`
	ByteOffset int    `json:"byte_offset" jsonschema:"the log's size: pass it back as offset to read only what is new"`
	LineCount  int    `json:"line_count"`
	HasMore    bool   `json:"has_more" jsonschema:"more lines than returned"`
	Live       bool   `json:"live" jsonschema:"the run is still going"`
}

// Log returns the end of a task's log: the live log while a run goes on,
// else the one kept in git. offset skips bytes already read; since keeps
// lines stamped at or after a time; lines keeps the last N (default 100).
func (s *Store) Log(id string, lines, offset int, since string) (*LogResult, error) {
	t, err := s.Resolve(id)
	if err != nil {
		return nil, err
	}
	data, live := []byte(nil), false
	if b, err := os.ReadFile(s.liveLog(t.ID)); err == nil {
		data, live = b, s.alive(t.ID)
	} else if b, ok := s.readRunFile(t, committedLog(t.ID)); ok {
		data = b // a run that has not landed keeps its log on its branch
	} else if b, err := safepath.ReadRegular(s.root, committedLog(t.ID), 0); err == nil {
		data = b
	} else {
		return nil, fault.NotFoundf("No log file found for task '%s'. Logs are created when a task is worked on with task_work_start.", t.ID)
	}
	if lines <= 0 {
		lines = 100
	}
	if offset < 0 || offset > len(data) {
		offset = min(max(offset, 0), len(data))
	}
	for offset > 0 && offset < len(data) && data[offset]&0xC0 == 0x80 {
		offset++ // never split a UTF-8 character
	}
	var sinceT time.Time
	if since != "" {
		if sinceT, err = time.Parse(time.RFC3339, since); err != nil {
			return nil, fault.Usagef("since must be an RFC 3339 time: %v", err)
		}
	}
	var kept []string
	sc := bufio.NewScanner(strings.NewReader(string(data[offset:])))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if !sinceT.IsZero() && len(line) >= 24 {
			if ts, err := time.Parse(timeLayout, line[:24]); err == nil && ts.Before(sinceT) {
				continue
			}
		}
		kept = append(kept, line)
	}
	res := &LogResult{Schema: schemaTag, TaskID: t.ID, ByteOffset: len(data), Live: live, HasMore: len(kept) > lines}
	if len(kept) > lines {
		kept = kept[len(kept)-lines:]
	}
	res.LineCount = len(kept)
	res.Content = strings.Join(kept, "\n")
	return res, nil
}
