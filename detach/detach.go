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
}

// Start starts bin (git-gloss) with args in a session of its own. A
// goroutine reaps the process when it ends, for callers that live longer
// than it (the MCP server); a command that exits first leaves it running.
func Start(bin string, args []string, o Options) (*os.Process, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = o.Dir
	if o.Output != nil {
		cmd.Stdout, cmd.Stderr = o.Output, o.Output
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = cmd.Wait() }()
	return cmd.Process, nil
}

// The command lines of the hidden commands gloss starts itself with. Each
// names its repository with -C, so that it does not depend on the
// directory it starts in.

// CacheFill fills the blame cache for path at commit (`git gloss
// cache-fill`), in the repository whose common git dir is commonDir.
func CacheFill(commonDir, commit, path string) []string {
	return []string{"-C", commonDir, "cache-fill", commit, "--", path}
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
