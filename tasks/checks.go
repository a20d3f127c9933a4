package tasks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/runenv"
)

// Checks decide whether a run lands. The team names them in its committed
// file, [tasks.checks] in .gloss/config.toml (name = command), so that
// everyone's runs are held to the same bar; ticking its own acceptance
// boxes never lands a run. A committed file must never make gloss run a
// command (a cloned hostile repository would run its own), so a check
// runs only when the person approved its exact text in this clone's own
// git config (`git gloss task checks --approve`, which writes
// gloss.approvedCheck with --local). A changed text is a new command and
// needs a new approval; the approvals are never read from the global or
// system config, where another repository's review would count here; and
// the checks are read from the person's working tree, never from the
// run's branch, so an agent cannot rewrite the bar it is measured by.

// approvedKey is the git config key that holds the approved texts.
const approvedKey = "gloss.approvedCheck"

// defaultCheckTimeout bounds one check when the team sets none.
const defaultCheckTimeout = 30 * time.Minute

// RunCheck is one configured check and whether this clone approved it.
type RunCheck struct {
	Name     string `json:"name"`
	Command  string `json:"command"`
	Approved bool   `json:"approved" jsonschema:"the exact command text is approved in this clone's git config (gloss.approvedCheck)"`
}

// ChecksResult is `git gloss task checks`.
type ChecksResult struct {
	Schema string     `json:"$schema"`
	Checks []RunCheck `json:"checks"`
	// Approved lists the checks this call approved (--approve).
	Approved []string `json:"approved,omitempty"`
}

// approvedTexts reads the approved command texts from this clone's own
// config only (--local).
func (s *Store) approvedTexts(ctx context.Context) map[string]bool {
	out, err := s.repo.Git(ctx, "config", "--local", "--null", "--get-all", approvedKey)
	ok := map[string]bool{}
	if err != nil {
		return ok
	}
	for _, v := range strings.Split(string(out), "\x00") {
		if v != "" {
			ok[v] = true
		}
	}
	return ok
}

// Checks lists the team's checks with their approval in this clone.
func (s *Store) Checks(ctx context.Context) *ChecksResult {
	approved := s.approvedTexts(ctx)
	res := &ChecksResult{Schema: "gloss-task-checks/v1", Checks: []RunCheck{}}
	for _, name := range slices.Sorted(mapKeys(s.settings.Checks)) {
		cmd := s.settings.Checks[name]
		res.Checks = append(res.Checks, RunCheck{Name: name, Command: cmd, Approved: approved[cmd]})
	}
	return res
}

// ApproveChecks approves the exact current text of the named checks (all
// of them when names is empty) in this clone's git config. It is a
// person's act: the CLI offers it, the MCP tools do not.
func (s *Store) ApproveChecks(ctx context.Context, names []string) (*ChecksResult, error) {
	if len(s.settings.Checks) == 0 {
		return nil, fault.NotFoundf("no checks are configured: add them to [tasks.checks] in .gloss/config.toml (name = \"command\")")
	}
	if len(names) == 0 {
		names = slices.Sorted(mapKeys(s.settings.Checks))
	}
	approved := s.approvedTexts(ctx)
	var done []string
	for _, n := range names {
		cmd, ok := s.settings.Checks[n]
		if !ok {
			return nil, fault.NotFoundf("no check %q in .gloss/config.toml (checks: %s)", n, strings.Join(slices.Sorted(mapKeys(s.settings.Checks)), ", "))
		}
		if !approved[cmd] {
			if _, err := s.repo.Git(ctx, "config", "--local", "--add", approvedKey, cmd); err != nil {
				return nil, err
			}
			approved[cmd] = true
		}
		done = append(done, n)
	}
	res := s.Checks(ctx)
	res.Approved = done
	return res, nil
}

func mapKeys(m map[string]string) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// verdict is what the checks said about a run.
type verdict struct {
	Passed bool
	Reason string // why the run does not land, for the task and the log
}

// runChecks runs the team's approved checks in the run's worktree, one
// after the other, each in its own process group and under the timeout,
// writing their output into the run's live log, and stops at the first
// that fails. With no check configured, or one not approved, nothing runs
// and the run does not land.
func (s *Store) runChecks(ctx context.Context, run *Run) verdict {
	checks := s.Checks(ctx).Checks
	if len(checks) == 0 {
		return verdict{Reason: "the team configured no check ([tasks.checks] in .gloss/config.toml, e.g. test = \"make test\"), and ticked boxes alone do not land a run"}
	}
	for _, c := range checks {
		if !c.Approved {
			return verdict{Reason: fmt.Sprintf("check %q (`%s`) is not approved in this clone, so it was not run: review it, then git gloss task checks --approve %s", c.Name, c.Command, c.Name)}
		}
	}
	timeout := defaultCheckTimeout
	if d, err := time.ParseDuration(s.settings.CheckTimeout); err == nil && d > 0 {
		timeout = d
	}
	logFile, err := os.OpenFile(s.liveLog(run.TaskID), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return verdict{Reason: "could not open the run log for the checks: " + err.Error()}
	}
	defer logFile.Close()
	logw := &stampWriter{w: logFile}
	for _, c := range checks {
		fmt.Fprintf(logw, "# gloss: check %s: %s\n", c.Name, c.Command)
		start := time.Now()
		code, err := runCheck(ctx, run, c.Command, timeout, logw)
		logw.flush()
		took := time.Since(start).Round(100 * time.Millisecond)
		switch {
		case err != nil:
			fmt.Fprintf(logw, "# gloss: check %s failed: %v (after %s)\n", c.Name, err, took)
			return verdict{Reason: fmt.Sprintf("check %q (`%s`) failed: %v; its output is in the run log", c.Name, c.Command, err)}
		case code != 0:
			fmt.Fprintf(logw, "# gloss: check %s failed with status %d (after %s)\n", c.Name, code, took)
			return verdict{Reason: fmt.Sprintf("check %q (`%s`) failed with status %d; its output is in the run log", c.Name, c.Command, code)}
		}
		fmt.Fprintf(logw, "# gloss: check %s passed (%s)\n", c.Name, took)
	}
	return verdict{Passed: true}
}

// errCheckTimeout is a check stopped by its time limit.
var errCheckTimeout = errors.New("timed out")

// runCheck runs one command with sh in the run's worktree and returns its
// exit status. At the time limit its process group gets SIGTERM, then
// SIGKILL.
func runCheck(ctx context.Context, run *Run, command string, timeout time.Duration, out io.Writer) (int, error) {
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = run.Worktree
	cmd.Env = append(os.Environ(), runenv.TaskID+"="+run.TaskID, runenv.Worktree+"="+run.Worktree, runenv.Branch+"="+run.Branch)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return -1, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(timeout):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		return -1, fmt.Errorf("%w after %s", errCheckTimeout, timeout)
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return -1, ctx.Err()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	return 0, err
}
