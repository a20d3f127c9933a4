//go:build glosstest

package fault

import (
	"os"
	"syscall"

	"github.com/gloss-dev/gloss/runenv"
)

// Point marks a step of a multi-step write where a crash must leave
// things recoverable. In a build with the glosstest tag, a process whose
// environment sets runenv.KillAt to the point's name SIGKILLs itself
// there, so a test can stop a writer between two exact steps instead of
// guessing with timers.
func Point(name string) {
	if v := os.Getenv(runenv.KillAt); v != "" && v == name {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
}
