package tasks_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/tasks"
)

// Scripted agents: real processes in the task's worktree. They get the
// task through GLOSS_TASK_ID and GLOSS_TASK_FILE, as a real agent would.
const (
	goodAgent = `#!/bin/sh
echo "working on $GLOSS_TASK_ID in $(pwd)"
ls .gloss/tasks/ > siblings.txt
echo hello > hello.txt
git add hello.txt siblings.txt
git commit -q -m "task($GLOSS_TASK_ID): add hello"
sed -i 's/- \[ \]/- [x]/' "$GLOSS_TASK_FILE"
git commit -q -am "task($GLOSS_TASK_ID): check the criteria"
echo finished
`
	lazyAgent = "#!/bin/sh\necho 'I did nothing'\n"
	failAgent = "#!/bin/sh\necho 'cannot do it' >&2\nexit 3\n"
	// stubborn ignores SIGTERM, so stopping it takes the SIGKILL.
	stubbornAgent = `#!/bin/sh
trap '' TERM
echo started > progress.txt
git add progress.txt
git commit -q -m "task($GLOSS_TASK_ID): first step"
echo "step one committed"
while true; do sleep 1; done
`
	sleeperAgent = "#!/bin/sh\necho 'thinking'\nexec sleep 600\n"
	chattyAgent  = "#!/bin/sh\nfor i in 1 2 3 4 5 6; do echo \"line $i\"; sleep 0.3; done\nsleep 600\n"
	// vandal deletes another task's file on its branch.
	vandalAgent = `#!/bin/sh
for f in .gloss/tasks/*.md; do
  [ "$f" = "$GLOSS_TASK_FILE" ] || git rm -q "$f"
done
sed -i 's/- \[ \]/- [x]/' "$GLOSS_TASK_FILE"
git commit -q -am "task($GLOSS_TASK_ID): tidy up"
`
)

func (e *env) useAgent(script string) {
	e.t.Helper()
	p := filepath.Join(e.t.TempDir(), "agent.sh")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		e.t.Fatal(err)
	}
	e.fx.Git("config", "gloss.agent", p)
	e.reopen()
}

func (e *env) reopen() {
	*e = *openEnv(e.t, e.fx)
}

func (e *env) start(id string) *tasks.StartResult {
	e.t.Helper()
	res, err := e.s.WorkStart(context.Background(), id, fixtures.Binary(e.t))
	if err != nil {
		e.t.Fatalf("work start: %v", err)
	}
	e.t.Cleanup(func() {
		// Never leave an agent running: stop whatever is left.
		_, _ = e.s.Pause(context.Background(), id)
	})
	return res
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestRunToCompletion(t *testing.T) {
	e := newEnv(t)
	other := e.add("Another task", []string{"x"})
	id := e.add("Say hello", []string{"hello.txt exists"})
	e.useAgent(goodAgent)
	before := e.fx.Git("rev-parse", "HEAD")
	res := e.start(id)
	if n := e.fx.Git("rev-list", "--count", before+"..HEAD"); n != "0" {
		t.Errorf("task work made %s commit(s) on the person's branch", n)
	}
	if res.Branch != "gloss/task/"+id || !strings.HasPrefix(res.Worktree, filepath.Join(e.fx.Dir, ".git", "gloss", "worktrees")) || res.PID <= 0 {
		t.Errorf("start = %+v", res)
	}
	waitSettled(t, id)
	if st := e.status(id); st != "completed" {
		t.Fatalf("status after the run: %s", st)
	}
	if e.fx.Read("hello.txt") != "hello\n" {
		t.Error("the agent's work was not merged")
	}
	// The agent saw every task file in its worktree: nothing was deleted.
	if sib := e.fx.Read("siblings.txt"); !strings.Contains(sib, other) || !strings.Contains(sib, id) {
		t.Errorf("the worktree lacked task files: %q", sib)
	}
	d, _ := e.s.Get(context.Background(), id)
	if len(d.Linked) < 1 || d.Linked[0].Subject != "task("+id+"): Say hello" {
		t.Errorf("linked commits = %+v", d.Linked)
	}
	if d.CompletedAt == "" {
		t.Errorf("completion fields: %+v", d.Task)
	}
	// The finished log is kept in git, with timestamps.
	lg, err := e.s.Log(id, 0, 0, "")
	if err != nil || lg.Live || !strings.Contains(lg.Content, "finished") {
		t.Fatalf("log after the run: %+v %v", lg, err)
	}
	// Paths in the log are the repository's, as docs/cli.md promises.
	if !strings.Contains(lg.Content, "started in .git/gloss/worktrees/"+id+":") {
		t.Errorf("the log does not name the worktree by its repository path: %q", lg.Content)
	}
	for _, l := range strings.Split(lg.Content, "\n") {
		if strings.Contains(l, "# gloss:") && strings.Contains(l, e.fx.Dir) {
			t.Errorf("gloss's log line names an absolute path: %q", l)
		}
	}
	if !matches(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z `, strings.Split(lg.Content, "\n")[0]) {
		t.Errorf("log lines are not timestamped: %q", lg.Content)
	}
	if files := e.fx.Git("ls-files", tasks.LogsDir); !strings.Contains(files, id+".log") {
		t.Errorf("log not committed: %q", files)
	}
	// The person's branch has the task's creation and one commit for the
	// whole run: the work, the task completed, the log with the check's
	// output. The run's own transitions were commits on its branch.
	trail := e.fx.Git("log", "--format=%(trailers:key=Task-Transition,valueonly)", "--grep=Task-Id: "+id)
	if got := strings.Fields(strings.Join(strings.Split(trail, "\n"), " ")); strings.Join(got, " ") != "in_progress -> completed created" {
		t.Errorf("transitions on the person's branch: %q", trail)
	}
	if n := e.fx.Git("rev-list", "--count", before+"..HEAD"); n != "1" || !strings.Contains(e.fx.Git("log", "-1", "--format=%s%n%b"), "gloss(task): "+id+" pending -> in_progress") {
		t.Errorf("the landing commit does not list the run's steps:\n%s", e.fx.Git("log", "-3", "--format=%s%n%b"))
	}
	if !strings.Contains(lg.Content, "# gloss: check committed passed") {
		t.Errorf("the check's result is not in the log: %q", lg.Content)
	}
	if e.fx.Git("branch", "--list", "gloss/task/*") != "" {
		t.Errorf("the run's branch is left after it landed")
	}
	// The worktree is gone once merged, and nothing remote was touched.
	if _, err := os.Stat(res.Worktree); !os.IsNotExist(err) {
		t.Errorf("worktree left after finalize: %v", err)
	}
}

func TestRunOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name, agent, want string
	}{
		{"unchecked criteria", lazyAgent, "needs_attention"},
		{"agent fails", failAgent, "failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			id := e.add("Do a thing", []string{"the thing is done"})
			e.useAgent(tc.agent)
			e.start(id)
			waitFor(t, tc.want, func() bool { return e.status(id) == tc.want })
			if lg, err := e.s.Log(id, 0, 0, ""); err != nil || !strings.Contains(lg.Content, "exited with status") {
				t.Errorf("log = %+v, %v", lg, err)
			}
		})
	}
}

func TestFinalizeGuardsOtherTaskFiles(t *testing.T) {
	e := newEnv(t)
	other := e.add("Keep me", []string{"x"})
	id := e.add("Tidy", []string{"tidied"})
	e.useAgent(vandalAgent)
	e.start(id)
	waitFor(t, "needs_attention", func() bool { return e.status(id) == "needs_attention" })
	if _, err := os.Stat(e.fx.Path(filepath.Join(tasks.Dir, other+".md"))); err != nil {
		t.Fatalf("another task's file was deleted on main: %v", err)
	}
	d, _ := e.s.Get(context.Background(), id)
	if !strings.Contains(d.Body, "changes other task files") {
		t.Errorf("the refusal is not recorded:\n%s", d.Body)
	}
	if _, err := e.s.Finalize(context.Background(), id, true); err == nil {
		t.Error("force finalize merged a branch that deletes another task")
	}
}

func TestLogWhileRunning(t *testing.T) {
	e := newEnv(t)
	id := e.add("Chat", []string{"x"})
	e.useAgent(chattyAgent)
	e.start(id)
	var first *tasks.LogResult
	waitFor(t, "two lines", func() bool {
		lg, err := e.s.Log(id, 0, 0, "")
		first = lg
		return err == nil && strings.Contains(lg.Content, "line 2")
	})
	if !first.Live {
		t.Error("log of a running agent not marked live")
	}
	waitFor(t, "more lines", func() bool {
		lg, _ := e.s.Log(id, 0, first.ByteOffset, "")
		return strings.Contains(lg.Content, "line 5")
	})
	next, _ := e.s.Log(id, 0, first.ByteOffset, "")
	if strings.Contains(next.Content, "line 1") {
		t.Errorf("offset did not skip what was read: %q", next.Content)
	}
	last, _ := e.s.Log(id, 2, 0, "")
	if last.LineCount != 2 || !last.HasMore {
		t.Errorf("lines=2: %+v", last)
	}
	future, _ := e.s.Log(id, 0, 0, time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	if future.Content != "" {
		t.Errorf("since in the future kept %q", future.Content)
	}
	runs, _ := e.s.Work(false)
	if runs.Summary["running"] != 1 || runs.Processes[0].TaskID != id {
		t.Errorf("work list = %+v", runs)
	}
}

func TestPauseTakeoverReset(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := e.add("Think", []string{"x"})
	e.useAgent(sleeperAgent)
	res := e.start(a)
	waitFor(t, "the agent", func() bool {
		lg, err := e.s.Log(a, 0, 0, "")
		return err == nil && strings.Contains(lg.Content, "thinking")
	})
	if _, err := e.s.Pause(ctx, a); err != nil {
		t.Fatal(err)
	}
	if e.status(a) != "paused" || groupAlive(res.PID) {
		t.Errorf("after pause: status %s, process group alive: %v", e.status(a), groupAlive(res.PID))
	}
	if _, err := e.s.Reset(ctx, a); err != nil {
		t.Fatal(err)
	}
	if e.status(a) != "ready" {
		t.Errorf("after reset: %s", e.status(a))
	}
	// Reset stops a running agent first.
	res = e.start(a)
	waitFor(t, "the agent again", func() bool { runs, _ := e.s.Work(false); return runs.Summary["running"] == 1 })
	if _, err := e.s.Reset(ctx, a); err != nil {
		t.Fatal(err)
	}
	if groupAlive(res.PID) {
		t.Error("reset left the agent running")
	}

	// Takeover of an agent that ignores SIGTERM: it takes the SIGKILL.
	b := e.add("Stubborn", []string{"first step", "second step"})
	e.useAgent(stubbornAgent)
	res = e.start(b)
	waitFor(t, "the first step", func() bool {
		lg, err := e.s.Log(b, 0, 0, "")
		return err == nil && strings.Contains(lg.Content, "step one committed")
	})
	tk, err := e.s.Takeover(ctx, b, false)
	if err != nil {
		t.Fatal(err)
	}
	if groupAlive(res.PID) {
		t.Error("the stubborn agent survived the takeover")
	}
	if e.status(b) != "paused" || !strings.Contains(tk.Analysis, "first step") || !strings.Contains(tk.Analysis, "0 of 2 checked") || tk.Worktree == "" {
		t.Errorf("takeover = %+v, status %s", tk, e.status(b))
	}
	if d, _ := e.s.Get(ctx, b); !strings.Contains(d.Body, "## Takeover Analysis") {
		t.Error("analysis not appended to the task")
	}
	if _, err := e.s.Takeover(ctx, b, false); err == nil || !strings.Contains(err.Error(), "not currently running") {
		t.Errorf("takeover of a stopped task: %v", err)
	}
	// The worktree and branch stay for a person to continue.
	if _, err := os.Stat(tk.Worktree); err != nil {
		t.Errorf("worktree removed: %v", err)
	}
}

func TestWatchAndSettleAfterACrash(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	id := e.add("Crash", []string{"x"})
	e.useAgent(sleeperAgent)
	res := e.start(id)
	waitFor(t, "the agent", func() bool { runs, _ := e.s.Work(false); return runs.Summary["running"] == 1 })
	// Kill the supervisor and the agent without a word: a crash.
	sup := findSupervisor(t, id)
	_ = syscall.Kill(sup, syscall.SIGKILL)
	_ = syscall.Kill(-res.PID, syscall.SIGKILL)
	waitFor(t, "the crash", func() bool { runs, _ := e.s.Work(true); return runs.Summary["running"] == 0 })
	if runs, _ := e.s.Work(false); runs.Summary["stale"] != 1 {
		t.Errorf("crashed run not reported stale: %+v", runs)
	}
	rec, err := e.s.Settle(ctx)
	if err != nil || len(rec.Settled) != 1 {
		t.Fatalf("settle = %+v %v", rec, err)
	}
	if e.status(id) != "failed" {
		t.Errorf("after settle: %s", e.status(id))
	}
	again, _ := e.s.Settle(ctx)
	if len(again.Settled) != 0 {
		t.Errorf("second settle settled again: %+v", again)
	}

	// The watch: one at a time, stoppable.
	bin := fixtures.Binary(t)
	if _, err := e.s.WatchStart(bin); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = e.s.WatchStop() })
	st, _ := e.s.WatchState()
	if !st.Running {
		t.Fatal("watch not running after start")
	}
	second, _ := e.s.WatchStart(bin)
	if !strings.Contains(second.Message, "already running") {
		t.Errorf("second watch: %s", second.Message)
	}
	out, _ := e.fx.Gloss("task", "watch", "run")
	if !strings.Contains(out, "already running") {
		t.Errorf("a second watch in the foreground: %s", out)
	}
	if _, err := e.s.WatchStop(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the watch to stop", func() bool { st, _ := e.s.WatchState(); return !st.Running })
}

// findSupervisor finds the `git-gloss task supervise <id>` process.
func findSupervisor(t *testing.T, id string) int {
	t.Helper()
	pid, ok := supervisorPID(id)
	if !ok {
		t.Fatal("supervisor not found")
	}
	return pid
}

func supervisorPID(id string) (int, bool) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(data), "supervise\x00"+id) {
			if pid, err := strconv.Atoi(e.Name()); err == nil {
				return pid, true
			}
		}
	}
	return 0, false
}

// waitSettled waits until a task's run is over: its supervisor has
// settled it and exited.
func waitSettled(t *testing.T, id string) {
	t.Helper()
	waitFor(t, "the supervisor to finish", func() bool { _, ok := supervisorPID(id); return !ok })
}

func TestAgentCommandIsPersonalOnly(t *testing.T) {
	e := newEnv(t)
	id := e.add("Default agent", []string{"x"})
	// A committed file cannot name the agent.
	e.fx.Write(".gloss/config.toml", "[tasks]\nagent = \"touch pwned\"\n")
	e.fx.Commit("sneaky config", nil)
	if _, err := e.fx.Gloss("task", "work", id); err == nil {
		t.Error("a committed agent setting was accepted")
	}
	if _, err := os.Stat(e.fx.Path("pwned")); err == nil {
		t.Fatal("a command from a committed file ran")
	}
	e.fx.Git("rm", "-q", ".gloss/config.toml")
	e.fx.Git("commit", "-q", "-m", "drop it")
	e.reopen()
	// Without gloss.agent the default runs (and here, where claude is not
	// installed, fails cleanly).
	e.start(id)
	waitFor(t, "the run to end", func() bool { return e.status(id) == "failed" })
	dir := filepath.Join(e.fx.Dir, ".git", "gloss", "run", id)
	var run tasks.Run
	data, _ := os.ReadFile(filepath.Join(dir, "run.json"))
	if err := json.Unmarshal(data, &run); err != nil || run.Command != tasks.DefaultAgent {
		t.Errorf("run = %+v, %v", run, err)
	}
}

func matches(pattern, s string) bool {
	return regexp.MustCompile(pattern).MatchString(s)
}

// groupAlive reports whether a process group has a live member. Zombies do
// not count: an orphaned agent's children wait for init to reap them, and
// kill(-pgid, 0) would still find them.
func groupAlive(pgid int) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces, so split after ')'.
		rest := string(data[strings.LastIndexByte(string(data), ')')+2:])
		f := strings.Fields(rest)
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			return true
		}
	}
	return false
}
