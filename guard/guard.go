// Package guard holds the rules every door gloss opens to another
// program follows — git's hooks (package hooks) and the coding agents'
// hooks (package agent) — so that they are written once:
//
//   - the work runs under a deadline, and on timeout the door returns at
//     once (the abandoned work ends with the process);
//   - a panic becomes an error, never a crash of the caller's command;
//   - tests can inject a failure (Injected), in builds with the glosstest
//     tag only: the release binary has no such switch;
//   - each run leaves one line in a log under the git dir, kept to a
//     bounded size and readable by its owner only (AppendLog).
package guard

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/runenv"
)

// Door is one of the doors the guard keeps.
type Door int

const (
	GitHooks   Door = iota // package hooks: git's hooks and their worker
	AgentHooks             // package agent: the coding agents' hooks
)

// TimeoutError is the error of work that ran past its deadline.
type TimeoutError struct{ After time.Duration }

func (e *TimeoutError) Error() string { return fmt.Sprintf("timed out after %s", e.After) }

// Reentered reports whether this process runs for a git command gloss
// itself started (gitops sets runenv.Internal on each): a door then does
// nothing, so that a git command run from a hook cannot run gloss's hooks
// again.
func Reentered() bool { return os.Getenv(runenv.Internal) != "" }

// Panicked turns a recovered panic value into an error with its stack.
func Panicked(r any) error {
	return fmt.Errorf("internal error: %v\n%s", r, debug.Stack())
}

// Run runs work for door under the rules: with a deadline of timeout, a
// panic turned into an error, and the failure a test injected into the
// door (Injected): "error", "panic", or "sleep" (past any deadline). On timeout Run returns a *TimeoutError
// at once; work's context is cancelled, and what it leaves running ends
// with the process.
func Run(ctx context.Context, door Door, timeout time.Duration, work func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- Panicked(r)
			}
		}()
		switch Injected(door) {
		case "error":
			done <- errors.New("injected failure")
			return
		case "panic":
			panic("injected panic")
		case "sleep":
			<-ctx.Done()
			done <- ctx.Err()
			return
		}
		done <- work(ctx)
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return &TimeoutError{After: timeout}
	}
}

// maxLogSize bounds a door's log; past it the log starts over, the
// previous one kept as <name>.1.
const maxLogSize = 1 << 20

// logMode is every door log's mode: its lines name files, commands and
// errors of the owner's work, for the owner alone.
const logMode = 0o600

// AppendLog appends one line to the log at path: the time, then fields
// joined by spaces, a newline in them shown as " | ". It never fails the
// door: a log that cannot be written is skipped.
func AppendLog(path string, fields ...string) {
	if st, err := os.Stat(path); err == nil && st.Size() > maxLogSize {
		_ = os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, logMode)
	if err != nil {
		return
	}
	defer f.Close()
	_ = f.Chmod(logMode) // a log made before, with a wider mode
	line := time.Now().UTC().Format(time.RFC3339) + " " + strings.Join(fields, " ")
	fmt.Fprintln(f, strings.ReplaceAll(line, "\n", " | "))
}
