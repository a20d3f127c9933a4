package cli

import (
	"fmt"
	"strings"

	"github.com/gloss-dev/gloss/buildinfo"
	"github.com/gloss-dev/gloss/hooks"
)

// Building the kong parser of the whole command tree costs a few
// milliseconds: more than the rest of gloss's start. The invocations no
// person types — the git hook shims, the agents' hooks, --version — run on
// every commit and every agent tool call, so fastCommand recognises their
// exact shapes and runs them without the parser. Anything else, including
// a near miss such as `hook --help`, goes through kong, which owns the
// messages for mistakes.

// fastCommand returns the command args name when args have one of the
// shapes the parser would read the same way, and nil otherwise.
func fastCommand(args []string) func(*Globals) error {
	switch {
	case len(args) == 1 && args[0] == "--version":
		return printVersion
	case len(args) >= 2 && args[0] == "hook" && hooks.Known(args[1]) && !anyFlag(args[2:]):
		cmd := &HookCmd{Name: args[1], Args: args[2:]}
		return cmd.Run
	case len(args) >= 2 && args[0] == "agent" && args[1] == "hook":
		if cmd := agentHookArgs(args[2:]); cmd != nil {
			return cmd.Run
		}
	}
	return nil
}

// agentHookArgs reads `--agent NAME EVENT`, `--agent=NAME EVENT` or
// `EVENT`: what "git gloss agent install" writes into the agents'
// settings.
func agentHookArgs(args []string) *AgentHookCmd {
	cmd := &AgentHookCmd{Agent: "claude"}
	if len(args) > 0 {
		if name, ok := strings.CutPrefix(args[0], "--agent="); ok {
			cmd.Agent, args = name, args[1:]
		} else if args[0] == "--agent" && len(args) > 1 {
			cmd.Agent, args = args[1], args[2:]
		}
	}
	if len(args) != 1 || strings.HasPrefix(args[0], "-") || strings.HasPrefix(cmd.Agent, "-") {
		return nil
	}
	cmd.Event = args[0]
	return cmd
}

// anyFlag reports whether an argument looks like a flag, which the parser
// would read as one of gloss's own.
func anyFlag(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			return true
		}
	}
	return false
}

// printVersion is what --version prints (kong's VersionFlag prints the
// same "version" variable).
func printVersion(g *Globals) error {
	_, err := fmt.Fprintln(g.stdout, versionText())
	return err
}

func versionText() string { return "git-gloss " + buildinfo.Version }
