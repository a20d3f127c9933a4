package cli

import (
	"fmt"
	"strings"

	"github.com/gloss-dev/gloss/detach"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/tasks"
)

// TaskCmd groups the task commands.
type TaskCmd struct {
	Add       TaskAddCmd       `cmd:"" help:"Create a task."`
	List      TaskListCmd      `cmd:"" help:"List tasks."`
	Ready     TaskReadyCmd     `cmd:"" help:"List the tasks that can be worked on now."`
	Show      TaskShowCmd      `cmd:"" help:"Show a task in full, with its linked commits."`
	Status    TaskStatusCmd    `cmd:"" help:"Count tasks by status."`
	Search    TaskSearchCmd    `cmd:"" help:"Find tasks by text."`
	Lint      TaskLintCmd      `cmd:"" help:"Grade tasks and list rule findings."`
	Verify    TaskVerifyCmd    `cmd:"" help:"Check a task's acceptance criteria."`
	Diagnose  TaskDiagnoseCmd  `cmd:"" help:"Explain where a task stands."`
	Update    TaskUpdateCmd    `cmd:"" help:"Change a task's status or fields."`
	Split     TaskSplitCmd     `cmd:"" help:"Split a task into members, one per criterion."`
	Approve   TaskApproveCmd   `cmd:"" help:"Approve a task whose approval is required (Chant's approval gate)."`
	Reject    TaskRejectCmd    `cmd:"" help:"Reject a task's approval, with a reason."`
	Cancel    TaskCancelCmd    `cmd:"" help:"Cancel a task."`
	Archive   TaskArchiveCmd   `cmd:"" help:"Archive a completed task."`
	Work      TaskWorkCmd      `cmd:"" help:"Start the agent on a task, in its own worktree."`
	Runs      TaskRunsCmd      `cmd:"" help:"List agent runs."`
	Log       TaskLogCmd       `cmd:"" help:"Show a task's agent log."`
	Pause     TaskPauseCmd     `cmd:"" help:"Stop a task's agent and pause the task."`
	Takeover  TaskTakeoverCmd  `cmd:"" help:"Stop a task's agent and summarise its progress."`
	Reset     TaskResetCmd     `cmd:"" help:"Stop a task's agent and set it back to pending."`
	Finalize  TaskFinalizeCmd  `cmd:"" help:"Land a task's run (one commit on your branch) and mark it completed."`
	Checks    TaskChecksCmd    `cmd:"" help:"The team's checks a run must pass to land, and approving them in this clone."`
	Settle    TaskSettleCmd    `cmd:"" help:"Settle runs that ended (once; the watch does this continuously)."`
	Reconcile TaskReconcileCmd `cmd:"" hidden:"" help:"Deprecated name of settle, kept so that existing scripts work."`
	Watch     TaskWatchCmd     `cmd:"" help:"Settle runs in the background as they end: start, stop, status, or run in the foreground."`
	Supervise TaskSuperviseCmd `cmd:"" hidden:"" help:"Run a task's agent (started by work)."`
	Import    TaskImportCmd    `cmd:"" help:"Bring a Chant project (.chant: specs, archive, logs, config) over in one commit."`
}

// Help is the long help of task.
func (TaskCmd) Help() string {
	return `Work items as committed markdown files in .gloss/tasks/<id>.md (ids like
2026-11-22-001-k3x; any unambiguous part of an id works). Readiness and
blocking are computed from depends_on and never written; every change
gloss makes is a commit with Task-Id and Task-Transition trailers (set
auto_commit = false under [tasks] in .gloss/config.toml to leave changes in
the working tree instead). Commits whose subject starts "task(<id>):" are
linked to the task.

git gloss task work <id> runs the agent named by your personal git config
gloss.agent (default "claude -p"; never taken from a committed file) in a
worktree under .git/gloss/worktrees/<id> on branch gloss/task/<id>, with a
timestamped log (git gloss task log <id>). The run's state changes are
commits on that branch, not on yours. When the agent exits with every
criterion checked on its branch, the team's checks ([tasks.checks] in
.gloss/config.toml, each run only once you approved its exact text with git
gloss task checks --approve) run in the worktree, their output in the log.
If they pass, the run lands: one commit on your branch with the work, the
task completed and the log. Otherwise the task is marked needs_attention
(saying why) or failed, and your branch is untouched.`
}

// withTasks opens the task store for a command.
func (g *Globals) withTasks(fn func(s *tasks.Store) error) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	s, err := tasks.Open(g.ctx, repo)
	if err != nil {
		return err
	}
	defer s.Close()
	return fn(s)
}

func printMessage(res *tasks.Message) func(s *styler) {
	return func(s *styler) { s.println(res.Message) }
}

func lightOf(s *styler, l string) string {
	switch l {
	case "green":
		return s.green("●") + " ready"
	case "yellow":
		return s.yellow("●") + " review"
	case "red":
		return s.red("●") + " refine"
	}
	return l
}

func statusOf(s *styler, st string) string {
	switch st {
	case "ready", "completed":
		return s.green(st)
	case "in_progress":
		return s.cyan(st)
	case "blocked", "failed", "needs_attention":
		return s.red(st)
	case "paused", "cancelled":
		return s.dim(st)
	}
	return st
}

func printTaskTable(s *styler, items []tasks.Summary) {
	if len(items) == 0 {
		s.println("no tasks")
		return
	}
	for _, t := range items {
		deps := ""
		if len(t.DependsOn) > 0 {
			deps = s.dim(" ← " + strings.Join(t.DependsOn, ", "))
		}
		title := t.Title
		if t.Problem != "" {
			title = s.red("invalid file: " + t.Problem)
		}
		s.printf("%-24s %-26s %s%s\n", t.ID, statusOf(s, t.EffectiveStatus), title, deps)
	}
}

// TaskAddCmd is `git gloss task add`.
type TaskAddCmd struct {
	Description string   `arg:"" help:"What to do (the first line or sentence becomes the title)."`
	Criterion   []string `name:"criterion" short:"c" sep:"none" help:"An acceptance criterion (repeatable)."`
	Type        string   `name:"type" default:"code" enum:"code,task,driver,documentation,research,group" help:"Task type."`
	DependsOn   []string `name:"depends-on" sep:"none" help:"A task this waits for (repeatable)."`
	Label       []string `name:"label" sep:"none" help:"A label (repeatable)."`
	Prompt      string   `name:"prompt" help:"Prompt template name."`
}

// Run adds the task.
func (c *TaskAddCmd) Run(g *Globals) error {
	return g.withTasks(func(s *tasks.Store) error {
		res, err := s.Add(g.ctx, tasks.AddInput{Description: c.Description, Criteria: c.Criterion, Type: c.Type,
			DependsOn: c.DependsOn, Labels: c.Label, Prompt: c.Prompt})
		if err != nil {
			return err
		}
		return g.emit(res, func(st *styler) {
			st.printf("%s %s  %s %s\n", res.Message, st.dim(res.Path), st.dim("lint"), lightOf(st, res.Lint.TrafficLight))
			for _, sg := range res.Lint.Suggestions {
				st.printf("  %s %s\n", st.dim("hint:"), sg)
			}
		})
	})
}

// TaskListCmd is `git gloss task list`.
type TaskListCmd struct {
	Status string `name:"status" help:"Only this status (ready and blocked are computed; archived lists the archive)."`
	Limit  int    `name:"limit" short:"n" default:"50" help:"At most this many."`
}

// Run lists tasks.
func (c *TaskListCmd) Run(g *Globals) error {
	return g.withTasks(func(s *tasks.Store) error {
		res, err := s.List(c.Status, c.Limit)
		if err != nil {
			return err
		}
		return g.emit(res, func(st *styler) {
			printTaskTable(st, res.Tasks)
			if res.Total > res.Returned {
				st.println(st.dim(fmt.Sprintf("%d more", res.Total-res.Returned)))
			}
		})
	})
}

// TaskReadyCmd is `git gloss task ready`.
type TaskReadyCmd struct {
	Limit int `name:"limit" short:"n" default:"50" help:"At most this many."`
}

// Run lists ready tasks.
func (c *TaskReadyCmd) Run(g *Globals) error {
	return g.withTasks(func(s *tasks.Store) error {
		res, err := s.Ready(c.Limit)
		if err != nil {
			return err
		}
		return g.emit(res, func(st *styler) {
			if len(res.Tasks) == 0 {
				st.println("nothing is ready")
				return
			}
			st.println(st.bold("Ready to work on:"))
			for _, t := range res.Tasks {
				st.printf("  %s %s  %s\n", st.green("▸"), t.ID, t.Title)
			}
		})
	})
}

// TaskShowCmd is `git gloss task show`.
type TaskShowCmd struct {
	ID string `arg:"" help:"Task id (or part of it)."`
}

// Run shows a task.
func (c *TaskShowCmd) Run(g *Globals) error {
	return g.withTasks(func(s *tasks.Store) error {
		res, err := s.Get(g.ctx, c.ID)
		if err != nil {
			return err
		}
		return g.emit(res, func(st *styler) {
			st.printf("%s  %s  %s\n", st.bold(res.ID), statusOf(st, res.Effective), st.dim(res.Type))
			if res.Problem != "" {
				st.printf("%s %s\n", st.red("invalid file:"), res.Problem)
			}
			if len(res.BlockedBy) > 0 {
				st.printf("blocked by  %s\n", strings.Join(res.BlockedBy, ", "))
			}
			if a := res.Approval; a != nil {
				line := a.Status
				if !a.Required {
					line += " (not required)"
				}
				if a.By != "" {
					line += " by " + a.By
				}
				if a.At != "" {
					line += " at " + a.At
				}
				st.printf("approval    %s\n", line)
			}
			if res.Branch != "" {
				st.printf("branch      %s\n", res.Branch)
			}
			st.printf("criteria    %d of %d checked\n", res.Criteria.Checked, res.Criteria.Total)
			for _, l := range res.Linked {
				st.printf("commit      %s %s\n", st.dim(gitops.ShortID(l.ID)), l.Subject)
			}
			st.println()
			st.printf("%s", res.Body)
		})
	})
}

// TaskStatusCmd is `git gloss task status`.
type TaskStatusCmd struct {
	Brief    bool `name:"brief" help:"One line."`
	Activity bool `name:"activity" help:"Include what is in progress."`
}

// Run counts tasks.
func (c *TaskStatusCmd) Run(g *Globals) error {
	return g.withTasks(func(s *tasks.Store) error {
		res, err := s.Status(c.Brief, c.Activity)
		if err != nil {
			return err
		}
		return g.emit(res, func(st *styler) {
			if c.Brief {
				st.println(res.Brief)
				return
			}
			noun := "tasks"
			if res.Total == 1 {
				noun = "task"
			}
			st.printf("%s %s\n", st.bold(fmt.Sprint(res.Total)), noun)
			for _, c := range []struct {
				name string
				n    int
			}{{"ready", res.Ready}, {"pending", res.Pending - res.Ready}, {"in_progress", res.InProgress - res.Paused}, {"paused", res.Paused},
				{"completed", res.Completed}, {"failed", res.Failed}, {"needs_attention", res.NeedsAttention}, {"blocked", res.Blocked}, {"cancelled", res.Cancelled}} {
				if c.n > 0 {
					st.printf("  %-26s %d\n", statusOf(st, c.name), c.n)
				}
			}
			if a := res.Approvals; a.Pending+a.Rejected > 0 {
				st.printf("  %s %d pending, %d rejected\n", st.dim("approval"), a.Pending, a.Rejected)
			}
			for _, a := range res.InProgressWork {
				st.printf("  %s %s %s\n", st.dim("active"), a.ID, st.dim("log "+a.LogModified))
			}
		})
	})
}

// TaskSearchCmd is `git gloss task search`.
type TaskSearchCmd struct {
	Query  string `arg:"" help:"Text to find in titles and bodies."`
	Status string `name:"status" help:"Only this status."`
	Limit  int    `name:"limit" short:"n" default:"50" help:"At most this many."`
}

// Run searches.
func (c *TaskSearchCmd) Run(g *Globals) error {
	return g.withTasks(func(s *tasks.Store) error {
		res, err := s.Search(c.Query, c.Status, c.Limit)
		if err != nil {
			return err
		}
		return g.emit(res, func(st *styler) { printTaskTable(st, res) })
	})
}

// TaskLintCmd is `git gloss task lint`.
type TaskLintCmd struct {
	ID string `arg:"" optional:"" help:"One task (default: all)."`
}

// Run lints.
func (c *TaskLintCmd) Run(g *Globals) error {
	return g.withTasks(func(s *tasks.Store) error {
		res, err := s.Lint(c.ID)
		if err != nil {
			return err
		}
		return g.emit(res, func(st *styler) {
			for _, r := range res.Results {
				st.printf("%s %s  %s\n", lightOf(st, r.TrafficLight), st.bold(r.ID), r.Title)
				st.printf("    %s\n", st.dim(fmt.Sprintf("complexity %s · confidence %s · criteria %s · splittability %s", r.Complexity, r.Confidence, r.ACQuality, r.Splittability)))
				for _, d := range r.Diagnostics {
					sev := st.yellow(d.Severity)
					if d.Severity == "error" {
						sev = st.red(d.Severity)
					}
					st.printf("    %s %s: %s\n", sev, d.Rule, d.Message)
				}
				for _, sg := range r.Suggestions {
					st.printf("    %s %s\n", st.dim("hint:"), sg)
				}
			}
			st.printf("%d checked: %d green, %d yellow, %d red\n", res.Checked, res.Green, res.Yellow, res.Red)
		})
	})
}

// TaskVerifyCmd is `git gloss task verify`.
type TaskVerifyCmd struct {
	ID string `arg:"" help:"Task id."`
}

// Run verifies.
func (c *TaskVerifyCmd) Run(g *Globals) error {
	return g.withTasks(func(s *tasks.Store) error {
		res, err := s.Verify(c.ID)
		if err != nil {
			return err
		}
		err = g.emit(res, func(st *styler) {
			st.printf("%s %s\n", st.mark(res.Verified), res.Notes)
			for _, u := range res.UncheckedItems {
				st.printf("  %s\n", u)
			}
		})
		if err == nil && !res.Verified {
			// Scripts and CI branch on the exit code: not verified is a
			// failed check, as spec validate's FAIL is.
			return fault.As(fault.Check, errSilent)
		}
		return err
	})
}

// TaskDiagnoseCmd is `git gloss task diagnose`.
type TaskDiagnoseCmd struct {
	ID string `arg:"" help:"Task id."`
}

// Run diagnoses.
func (c *TaskDiagnoseCmd) Run(g *Globals) error {
	return g.withTasks(func(s *tasks.Store) error {
		res, err := s.Diagnose(g.ctx, c.ID)
		if err != nil {
			return err
		}
		return g.emit(res, func(st *styler) {
			st.printf("%s  %s\n", st.bold(res.TaskID), statusOf(st, res.Status))
			for _, ch := range res.Checks {
				st.printf("  %s %-13s %s\n", st.mark(ch.Passed), ch.Name, st.dim(ch.Details))
			}
			st.printf("%s %s\n%s %s\n", st.bold("diagnosis:"), res.Diagnosis, st.bold("suggestion:"), res.Suggestion)
		})
	})
}

// TaskUpdateCmd is `git gloss task update`.
type TaskUpdateCmd struct {
	ID          string   `arg:"" help:"Task id."`
	Status      string   `name:"status" help:"New status."`
	Output      string   `name:"output" help:"Text to append under ## Output."`
	ReplaceBody bool     `name:"replace-body" help:"--output replaces the body (the title is kept)."`
	DependsOn   []string `name:"depends-on" sep:"none" help:"Replace the dependencies (repeatable)."`
	Label       []string `name:"label" sep:"none" help:"Replace the labels (repeatable)."`
	TargetFile  []string `name:"target-file" sep:"none" help:"Replace the target files (repeatable)."`
	Model       string   `name:"model" help:"Model."`
	Force       bool     `name:"force" help:"Skip the state machine and the agent-log check."`
}

// Run updates.
func (c *TaskUpdateCmd) Run(g *Globals) error {
	return g.withTasks(func(s *tasks.Store) error {
		res, err := s.Update(g.ctx, tasks.UpdateInput{ID: c.ID, Status: c.Status, Output: c.Output, ReplaceBody: c.ReplaceBody,
			DependsOn: c.DependsOn, Labels: c.Label, TargetFiles: c.TargetFile, Model: c.Model, Force: c.Force})
		if err != nil {
			return err
		}
		return g.emit(res, printMessage(res))
	})
}

// TaskApproveCmd is `git gloss task approve`, Chant's `chant approve`.
type TaskApproveCmd struct {
	ID string `arg:"" help:"Task id (or part of it)."`
	By string `name:"by" help:"Who approves (default: git config user.name)."`
}

// Run approves.
func (c *TaskApproveCmd) Run(g *Globals) error {
	return g.withTasks(func(s *tasks.Store) error {
		res, err := s.Approve(g.ctx, tasks.ApproveInput{ID: c.ID, By: c.By})
		if err != nil {
			return err
		}
		return g.emit(res, printMessage(res))
	})
}

// TaskRejectCmd is `git gloss task reject`, Chant's `chant reject`.
type TaskRejectCmd struct {
	ID     string `arg:"" help:"Task id (or part of it)."`
	By     string `name:"by" help:"Who rejects (default: git config user.name)."`
	Reason string `name:"reason" help:"Why; recorded under ## Approval Discussion in the task."`
}

// Run rejects.
func (c *TaskRejectCmd) Run(g *Globals) error {
	return g.withTasks(func(s *tasks.Store) error {
		res, err := s.Reject(g.ctx, tasks.RejectInput{ID: c.ID, By: c.By, Reason: c.Reason})
		if err != nil {
			return err
		}
		return g.emit(res, printMessage(res))
	})
}

// TaskSplitCmd is `git gloss task split`.
type TaskSplitCmd struct {
	ID    string `arg:"" help:"Task id."`
	Force bool   `name:"force" help:"Split even if the task is not pending."`
}

// Run splits.
func (c *TaskSplitCmd) Run(g *Globals) error {
	return g.withTasks(func(s *tasks.Store) error {
		res, err := s.Split(g.ctx, c.ID, c.Force)
		if err != nil {
			return err
		}
		return g.emit(res, func(st *styler) {
			st.println(res.Message)
			for _, m := range res.Members {
				st.printf("  %s\n", m)
			}
		})
	})
}

// TaskIDCmd is the one argument of the task commands that take only an
// id; each such command is a type of its own with its own Run.
type TaskIDCmd struct {
	ID string `arg:"" help:"Task id (or part of it)."`
}

// taskMessage runs op on the task store and prints the message it answers.
func (g *Globals) taskMessage(op func(s *tasks.Store) (*tasks.Message, error)) error {
	return g.withTasks(func(s *tasks.Store) error {
		res, err := op(s)
		if err != nil {
			return err
		}
		return g.emit(res, printMessage(res))
	})
}

// TaskCancelCmd is `git gloss task cancel`.
type TaskCancelCmd TaskIDCmd

// Run cancels the task.
func (c *TaskCancelCmd) Run(g *Globals) error {
	return g.taskMessage(func(s *tasks.Store) (*tasks.Message, error) { return s.Cancel(g.ctx, c.ID) })
}

// TaskArchiveCmd is `git gloss task archive`.
type TaskArchiveCmd TaskIDCmd

// Run archives the task.
func (c *TaskArchiveCmd) Run(g *Globals) error {
	return g.taskMessage(func(s *tasks.Store) (*tasks.Message, error) { return s.Archive(g.ctx, c.ID) })
}

// TaskPauseCmd is `git gloss task pause`.
type TaskPauseCmd TaskIDCmd

// Run stops the task's agent and pauses the task.
func (c *TaskPauseCmd) Run(g *Globals) error {
	return g.taskMessage(func(s *tasks.Store) (*tasks.Message, error) { return s.Pause(g.ctx, c.ID) })
}

// TaskResetCmd is `git gloss task reset`.
type TaskResetCmd TaskIDCmd

// Run stops the task's agent and sets the task back to pending.
func (c *TaskResetCmd) Run(g *Globals) error {
	return g.taskMessage(func(s *tasks.Store) (*tasks.Message, error) { return s.Reset(g.ctx, c.ID) })
}

// TaskSuperviseCmd is the hidden `git gloss task supervise`, which work
// starts detached (detach.TaskSupervise).
type TaskSuperviseCmd TaskIDCmd

// Run runs the task's agent to its end.
func (c *TaskSuperviseCmd) Run(g *Globals) error {
	return g.withTasks(func(s *tasks.Store) error { return s.Supervise(g.ctx, c.ID) })
}

// TaskWorkCmd is `git gloss task work`.
type TaskWorkCmd TaskIDCmd

// Run starts the agent on the task.
func (c *TaskWorkCmd) Run(g *Globals) error {
	return g.withTasks(func(s *tasks.Store) error {
		bin, err := detach.Self()
		if err != nil {
			return err
		}
		start, err := s.WorkStart(g.ctx, c.ID, bin)
		if err != nil {
			return err
		}
		return g.emit(start, func(st *styler) {
			st.printf("started %s (pid %d) in %s on %s\n", start.TaskID, start.PID, shown(s.Repo().Root(), start.Worktree), start.Branch)
			st.printf("follow it: git gloss task log %s\n", start.TaskID)
			if start.Quality != nil {
				st.println(st.yellow("note: ") + start.Quality.Message)
			}
		})
	})
}

// TaskTakeoverCmd is `git gloss task takeover`.
type TaskTakeoverCmd struct {
	ID    string `arg:"" help:"Task id (or part of it)."`
	Force bool   `name:"force" help:"Analyze even when no agent runs."`
}

// Run stops the task's agent and summarises its progress.
func (c *TaskTakeoverCmd) Run(g *Globals) error {
	return g.withTasks(func(s *tasks.Store) error {
		res, err := s.Takeover(g.ctx, c.ID, c.Force)
		if err != nil {
			return err
		}
		return g.emit(res, func(st *styler) {
			st.println(res.Analysis)
			st.printf("%s %s\n", st.bold("next:"), res.Suggestion)
			if res.Worktree != "" {
				st.printf("%s %s\n", st.bold("worktree:"), shown(s.Repo().Root(), res.Worktree))
			}
		})
	})
}

// TaskFinalizeCmd is `git gloss task finalize`.
type TaskFinalizeCmd struct {
	ID    string `arg:"" help:"Task id (or part of it)."`
	Force bool   `name:"force" help:"Ignore unchecked criteria."`
}

// Run merges the task's branch and marks the task completed.
func (c *TaskFinalizeCmd) Run(g *Globals) error {
	return g.taskMessage(func(s *tasks.Store) (*tasks.Message, error) { return s.Finalize(g.ctx, c.ID, c.Force) })
}

// TaskChecksCmd is `git gloss task checks`.
type TaskChecksCmd struct {
	Approve bool     `name:"approve" help:"Approve the exact current text of the named checks (all when none is named) in this clone's git config."`
	Names   []string `arg:"" optional:"" help:"Checks to approve (with --approve)."`
}

// Help is the long help of task checks.
func (TaskChecksCmd) Help() string {
	return `Lists the checks the team configured in .gloss/config.toml, which a task
run must pass before it lands on your branch:

  [tasks.checks]
  test = "make test"
  vet = "go vet ./..."

A committed file never makes gloss run a command: a check runs only once you
approved its exact text in this clone (--approve writes it to
gloss.approvedCheck with git config --local; approvals in your global
config do not count). When its text changes in the team file, it needs a
new approval, and until then runs are not landed. The checks are read from
your working tree, never from the run's branch, and a run whose branch
changes .gloss/config.toml is not landed: an agent cannot rewrite the bar it
is measured by.`
}

// Run lists or approves the checks.
func (c *TaskChecksCmd) Run(g *Globals) error {
	if len(c.Names) > 0 && !c.Approve {
		return fault.Usagef("name checks only with --approve")
	}
	return g.withTasks(func(s *tasks.Store) error {
		res := s.Checks(g.ctx)
		if c.Approve {
			var err error
			if res, err = s.ApproveChecks(g.ctx, c.Names); err != nil {
				return err
			}
		}
		return g.emit(res, func(st *styler) {
			if len(res.Checks) == 0 {
				st.println("no checks configured: a run lands only after checks pass; add them to .gloss/config.toml:")
				st.println("  [tasks.checks]")
				st.println(`  test = "make test"`)
				return
			}
			for _, ch := range res.Checks {
				state := st.yellow("not approved")
				if ch.Approved {
					state = st.green("approved")
				}
				st.printf("  %-12s %s  %s\n", ch.Name, state, ch.Command)
			}
			if len(res.Approved) > 0 {
				st.printf("approved in this clone: %s\n", strings.Join(res.Approved, ", "))
			} else if !c.Approve {
				for _, ch := range res.Checks {
					if !ch.Approved {
						st.println("review them, then: git gloss task checks --approve")
						break
					}
				}
			}
		})
	})
}

// TaskRunsCmd is `git gloss task runs`.
type TaskRunsCmd struct {
	All bool `name:"all" short:"a" help:"Include finished runs."`
}

// Run lists runs.
func (c *TaskRunsCmd) Run(g *Globals) error {
	return g.withTasks(func(s *tasks.Store) error {
		res, err := s.Work(c.All)
		if err != nil {
			return err
		}
		return g.emit(res, func(st *styler) {
			if len(res.Processes) == 0 {
				st.println("no agent runs")
				return
			}
			for _, p := range res.Processes {
				code := ""
				if p.ExitCode != nil {
					code = fmt.Sprintf(" (exit %d)", *p.ExitCode)
				}
				st.printf("%-24s %-8s pid %-7d %s%s\n", p.TaskID, p.Status, p.PID, p.Title, code)
			}
		})
	})
}

// TaskLogCmd is `git gloss task log`.
type TaskLogCmd struct {
	ID     string `arg:"" help:"Task id."`
	Lines  int    `name:"lines" short:"n" default:"100" help:"Last N lines."`
	Offset int    `name:"offset" help:"Start at this byte (a previous byte_offset)."`
	Since  string `name:"since" help:"Only lines stamped at or after this RFC 3339 time."`
}

// Run prints the log.
func (c *TaskLogCmd) Run(g *Globals) error {
	return g.withTasks(func(s *tasks.Store) error {
		res, err := s.Log(c.ID, c.Lines, c.Offset, c.Since)
		if err != nil {
			return err
		}
		return g.emit(res, func(st *styler) {
			if res.Content != "" {
				st.println(res.Content)
			}
		})
	})
}

// TaskSettleCmd is `git gloss task settle`.
type TaskSettleCmd struct{}

// Run settles once.
func (c *TaskSettleCmd) Run(g *Globals) error {
	return g.withTasks(func(s *tasks.Store) error {
		res, err := s.Settle(g.ctx)
		if err != nil {
			return err
		}
		return g.emit(res, func(st *styler) {
			st.printf("settled %d run(s); %d still running\n", len(res.Settled), len(res.Running))
		})
	})
}

// TaskReconcileCmd is `git gloss task reconcile`, the name settle had
// before "reconcile" came to mean specs only. It is hidden from help and
// does exactly what settle does, output included; a person at a terminal is
// told the new name on stderr, where scripts never look.
type TaskReconcileCmd struct{ TaskSettleCmd }

// Run settles once, like settle.
func (c *TaskReconcileCmd) Run(g *Globals) error {
	if !g.JSON && isTerminal(g.stderr) {
		fmt.Fprintln(g.stderr, "note: git gloss task reconcile is now git gloss task settle")
	}
	return c.TaskSettleCmd.Run(g)
}

// TaskWatchCmd is `git gloss task watch start|stop|status|run`.
type TaskWatchCmd struct {
	Action string `arg:"" enum:"start,stop,status,run" default:"status" help:"start, stop, status, or run (in the foreground)."`
}

// Run manages the watch.
func (c *TaskWatchCmd) Run(g *Globals) error {
	return g.withTasks(func(s *tasks.Store) error {
		switch c.Action {
		case "run":
			return s.Watch(g.ctx)
		case "status":
			res, err := s.WatchState()
			if err != nil {
				return err
			}
			return g.emit(res, func(st *styler) {
				if res.Running {
					st.printf("watch running (pid %d), %d run(s) known\n", res.PID, len(res.Runs))
				} else {
					st.println("watch not running")
				}
			})
		}
		var res *tasks.Message
		var err error
		if c.Action == "start" {
			bin, e := detach.Self()
			if e != nil {
				return e
			}
			res, err = s.WatchStart(bin)
		} else {
			res, err = s.WatchStop()
		}
		if err != nil {
			return err
		}
		return g.emit(res, printMessage(res))
	})
}
