// Package detach is the one place that knows how gloss starts itself in
// the background: which program is git-gloss, the command lines of the
// hidden commands it comes back as (package cli defines those commands and
// a test of its own parses every line here), and how the new process is
// detached, in a session of its own, so that it outlives its caller and no
// terminal signal reaches it.
//
// Only git-gloss itself starts git-gloss. A test or benchmark binary is no
// git-gloss: there Self fails with ErrNotGloss and the work stays in the
// foreground (or the test names the binary to run, fixtures.Binary).
package detach

import (
	"errors"
	"os"
	"os/exec"
	"runtime/debug"
	"sync"
	"syscall"
	"testing"
)

// mainPackage is git-gloss's main package, as the binary records it.
const mainPackage = "github.com/gloss-dev/gloss/cmd/git-gloss"

// ErrNotGloss says the running program is not git-gloss.
var ErrNotGloss = errors.New("this program is not git-gloss")

// Self returns the path of the running git-gloss, or ErrNotGloss.
func Self() (string, error) { return self() }

var self = sync.OnceValues(func() (string, error) {
	if testing.Testing() {
		return "", ErrNotGloss
	}
	if bi, ok := debug.ReadBuildInfo(); !ok || bi.Path != mainPackage {
		return "", ErrNotGloss
	}
	return os.Executable()
})

// Options say where a detached git-gloss runs.
type Options struct {
	Dir    string   // its working directory ("" for the caller's)
	Output *os.File // its standard output and error (nil: discarded)
	Env    []string // its environment (nil: the caller's)
}

// A Process is a started git-gloss.
type Process struct {
	Pid  int
	done chan error
}

// Done delivers how the process ended, once it has.
func (p *Process) Done() <-chan error { return p.done }

// Start starts bin (git-gloss) with args in a session of its own. A
// goroutine reaps the process when it ends, for callers that live longer
// than it (the MCP server); a command that exits first leaves it running.
func Start(bin string, args []string, o Options) (*Process, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = o.Dir
	cmd.Env = o.Env
	if o.Output != nil {
		cmd.Stdout, cmd.Stderr = o.Output, o.Output
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{Pid: cmd.Process.Pid, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	return p, nil
}

// The command lines of the hidden commands gloss starts itself with. Each
// names its repository with -C, so that it does not depend on the
// directory it starts in.

// CacheFill fills the blame cache for path at commit (`git gloss
// cache-fill`), in the repository whose common git dir is commonDir.
func CacheFill(commonDir, commit, path string) []string {
	return []string{"-C", commonDir, "cache-fill", commit, "--", path}
}

// CacheGraph builds the blame graph (`git gloss cache-graph`), writing
// git's progress to progressFile when it is not "".
func CacheGraph(dir, progressFile string) []string {
	args := []string{"-C", dir, "cache-graph"}
	if progressFile != "" {
		args = append(args, "--progress-file", progressFile)
	}
	return args
}

// HookWorker runs the post-commit work the hook deferred (`git gloss
// hook-worker`).
func HookWorker(dir string) []string {
	return []string{"-C", dir, "hook-worker"}
}

// TaskSupervise supervises the agent run of task id (`git gloss task
// supervise`).
func TaskSupervise(root, id string) []string {
	return []string{"-C", root, "task", "supervise", id}
}

// TaskWatch runs the task watch (`git gloss task watch run`).
func TaskWatch(root string) []string {
	return []string{"-C", root, "task", "watch", "run"}
}
