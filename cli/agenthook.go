package cli

import "io"

// PLACEHOLDER owned by helper "hook" (see CONTRACT-agent.md): the real
// AgentHookCmd replaces this file at merge. It reads the payload and
// answers nothing, which every agent takes as "carry on".

// AgentHookCmd is `git gloss agent hook --agent NAME EVENT`.
type AgentHookCmd struct {
	Agent string `name:"agent" required:"" help:"The agent whose configuration calls this."`
	Event string `arg:"" help:"The agent's event name."`
}

// Help is the long help of agent hook.
func (AgentHookCmd) Help() string {
	return "Placeholder until the hook handling lands: reads the payload and exits 0."
}

// Run drains stdin and exits 0.
func (c *AgentHookCmd) Run(g *Globals) error {
	_, _ = io.Copy(io.Discard, g.stdin)
	return nil
}
