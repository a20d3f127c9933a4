package annotate

import (
	"os"

	"github.com/gloss-dev/gloss/runenv"
)

// agentShells are variables coding agents set in the shells they run
// commands in (Claude Code: CLAUDECODE=1, anthropics/claude-code#531;
// Gemini CLI: GEMINI_CLI=1). They say an agent typed the command; they do
// not say the agent wrote a commit's lines, so only the author default of
// `annotate` reads them.
var agentShells = []struct{ env, agent string }{
	{"CLAUDECODE", "claude"},
	{"GEMINI_CLI", "gemini"},
}

// LaunchedAgent returns the agent this process works for, from the agent
// run's environment (runenv: `task work` sets it for the agent it
// launches; git passes it on to the hooks of that agent's commits, so the
// post-commit record names the agent and model instead of the commit's
// author).
func LaunchedAgent() (Author, bool) {
	run, ok := runenv.LookupAgentRun(os.Getenv)
	if !ok {
		return Author{}, false
	}
	return Author{Kind: "agent", Name: run.Agent, Model: run.Model}, true
}

// CommandAuthor is who speaks when a command is typed without saying who
// (`git gloss annotate` without --author-kind): the launched agent, else
// the agent whose shell runs the command, else a person.
func CommandAuthor() Author {
	if a, ok := LaunchedAgent(); ok {
		return a
	}
	for _, s := range agentShells {
		if v := os.Getenv(s.env); v != "" && v != "0" {
			return Author{Kind: "agent", Name: s.agent}
		}
	}
	return Author{Kind: "human"}
}
