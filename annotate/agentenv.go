package annotate

import (
	"os"
	"strings"
)

// The agent a process works for travels in its environment. `task work`
// sets EnvAgent (and EnvAgentModel when it knows the model) for the agent
// it launches; git passes the environment on to the hooks of the commits
// that agent makes, so the post-commit record names the agent and model
// instead of the commit's (human) author.
const (
	EnvAgent      = "GLOSS_AGENT"
	EnvAgentModel = "GLOSS_AGENT_MODEL"
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

// LaunchedAgent returns the agent `task work` launched this process for,
// from EnvAgent and EnvAgentModel.
func LaunchedAgent() (Author, bool) {
	name := strings.TrimSpace(os.Getenv(EnvAgent))
	if name == "" {
		return Author{}, false
	}
	return Author{Kind: "agent", Name: name, Model: strings.TrimSpace(os.Getenv(EnvAgentModel))}, true
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
