package cli

import (
	"fmt"
	"os"
	"syscall"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/hooks"
)

// HookCmd is `git gloss hook NAME [ARGS...]`, what the hook shims call.
type HookCmd struct {
	Name string   `arg:"" help:"Hook name: prepare-commit-msg, post-commit, pre-push or post-rewrite."`
	Args []string `arg:"" optional:"" passthrough:"" help:"The hook's own arguments, as git passed them."`
}

// Help is the long help of hook.
func (HookCmd) Help() string {
	return `Runs gloss's part of a git hook. "git gloss init" installs shims that call
this; you do not need to run it yourself.

A hook never fails your git command because of a problem inside gloss: it
prints one line, logs to .git/gloss/hooks.log and exits 0. Only pre-push may
refuse, when a strict spec policy finds real drift, and it says what to run.
git config gloss.hookTimeout (a duration such as 10s) bounds every hook.`
}

// Run runs the hook and exits with its code.
func (c *HookCmd) Run(g *Globals) error {
	if !hooks.Known(c.Name) {
		return fault.Usagef("unknown hook %q (gloss handles prepare-commit-msg, post-commit, pre-push, post-rewrite)", c.Name)
	}
	if g.Dir != "" {
		if st, err := os.Stat(g.Dir); err != nil {
			return fmt.Errorf("-C %s: %w", g.Dir, err)
		} else if !st.IsDir() {
			return fmt.Errorf("-C %s: not a directory", g.Dir)
		}
	}
	if code := hooks.Run(g.ctx, g.Dir, c.Name, c.Args, g.stdin, g.stderr); code != 0 {
		return fault.As(fault.Check, errSilent)
	}
	return nil
}

// HookWorkerCmd is the hidden `git gloss hook-worker`: it annotates the
// commits post-commit queued (hooks.RunWorker), at low priority.
type HookWorkerCmd struct{}

// Run drains the queue.
func (c *HookWorkerCmd) Run(g *Globals) error {
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, 0, 10) // git inherits it
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	return hooks.RunWorker(g.ctx, repo)
}
