package fault

import (
	"os"
	"syscall"

	"github.com/gloss-dev/gloss/runenv"
)

// EnvKillAt names a kill point (see Point) for crash tests: a process
// whose environment sets it to a point's name SIGKILLs itself there, so a
// test can stop a writer between two exact steps instead of guessing with
// timers.
const EnvKillAt = runenv.KillAt

// Point marks a step of a multi-step write where a crash must leave
// things recoverable. It does nothing unless EnvKillAt names it.
func Point(name string) {
	if v := os.Getenv(EnvKillAt); v != "" && v == name {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
}
