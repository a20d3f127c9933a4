//go:build glosstest

package guard

import (
	"os"

	"github.com/gloss-dev/gloss/runenv"
)

// faults are the variables through which a test injects a failure into
// each door.
var faults = map[Door]string{GitHooks: runenv.HookFault, AgentHooks: runenv.AgentFault}

// Injected returns the failure a test asks of door, the value of its
// variable (runenv.HookFault, runenv.AgentFault). Only builds with the
// glosstest tag read it, so the variables' names are in no other build.
func Injected(door Door) string { return os.Getenv(faults[door]) }
