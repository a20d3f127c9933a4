package cli

import (
	"io"
	"testing"

	"github.com/gloss-dev/gloss/detach"
)

// TestDetachedCommandLinesParse: every command line gloss starts itself
// with in the background (package detach) reaches the hidden command it
// means, with its arguments, so that renaming a command cannot silently
// break a detached start.
func TestDetachedCommandLinesParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args    []string
		command string
		check   func(c *CLI) bool
	}{
		{detach.CacheFill("/repo/.git", "abc123", "-dash/file.go"), "cache-fill <commit> <path>",
			func(c *CLI) bool { return c.CacheFill.Commit == "abc123" && c.CacheFill.Path == "-dash/file.go" }},
		{detach.CacheGraph("/repo", "/repo/.git/gloss/graph.progress"), "cache-graph",
			func(c *CLI) bool { return c.CacheGraph.ProgressFile == "/repo/.git/gloss/graph.progress" }},
		{detach.CacheGraph("/repo", ""), "cache-graph",
			func(c *CLI) bool { return c.CacheGraph.ProgressFile == "" }},
		{detach.HookWorker("/repo"), "hook-worker", func(*CLI) bool { return true }},
		{detach.TaskSupervise("/repo", "2026-11-22-001-k3x"), "task supervise <id>",
			func(c *CLI) bool { return c.Task.Supervise.ID == "2026-11-22-001-k3x" }},
		{detach.TaskWatch("/repo"), "task watch <action>",
			func(c *CLI) bool { return c.Task.Watch.Action == "run" }},
	} {
		var c CLI
		parser, err := newParser(&c, io.Discard, io.Discard, func(int) {})
		if err != nil {
			t.Fatal(err)
		}
		ctx, err := parser.Parse(tc.args)
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if ctx.Command() != tc.command || !tc.check(&c) {
			t.Errorf("%q parsed as %q (%+v), want %q", tc.args, ctx.Command(), c, tc.command)
		}
		if c.Globals.Dir != "/repo" && c.Globals.Dir != "/repo/.git" {
			t.Errorf("%q: -C gave %q", tc.args, c.Globals.Dir)
		}
	}
}
