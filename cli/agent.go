package cli

// AgentCmd is `git gloss agent`. Placeholder in this branch: helper
// "install" owns this file (agent install|uninstall|status); the lead
// merges the two.
type AgentCmd struct {
	Hook AgentHookCmd `cmd:"" help:"Answer one event of an agent's hook system (agents run this)."`
}
