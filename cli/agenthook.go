package cli

import (
	"os"

	"github.com/gloss-dev/gloss/agent"
)

// AgentHookCmd is `git gloss agent hook --agent NAME EVENT`: what the
// agents' own hook configurations (written by `git gloss agent install`)
// run on each event, with the event's JSON on stdin.
type AgentHookCmd struct {
	Agent string `name:"agent" default:"claude" placeholder:"NAME" help:"Which agent sends the event: claude, gemini, codex or cursor."`
	Event string `arg:"" optional:"" help:"The agent's own event name, as its docs spell it (SessionStart, PreToolUse, AfterTool, afterFileEdit, ...)."`
}

// Help is the long help of agent hook.
func (AgentHookCmd) Help() string {
	return `Answers one event of a coding agent's hook system. The agent runs this
itself (see "git gloss agent install"); you do not need to.

What it does, by event:
  session start         a short brief: what gloss holds here, ready tasks,
                        drifted specs, how to ask for more
  prompt                notebook notes that match the prompt; the prompt's
                        redacted summary is kept for the session
  before an edit        the constraints, risks, rejected alternatives and
                        dependencies recorded for the lines about to change,
                        and the specs that govern the file (Gemini: after
                        read_file, since its BeforeTool context never
                        reaches the model)
  after an edit         which lines the agent wrote (line hashes), with
                        session, agent, model and tool, for the next commit

Events per agent:
  claude, codex   SessionStart, UserPromptSubmit, PreToolUse, PostToolUse
  gemini          SessionStart, BeforeAgent, BeforeModel, AfterTool
  cursor          sessionStart, beforeSubmitPrompt, afterFileEdit

It never blocks, slows or fails the agent: each event has a time budget
([agent] timeout_ms in .gloss/config.toml, default 1500), and any problem
is logged to .git/gloss/agent.log while the command exits 0 and prints
nothing. Budgets in tokens: [agent] budget_tokens_session, _edit, _prompt.

Example:
  echo '{"session_id":"s1","cwd":".","hook_event_name":"SessionStart"}' |
    git gloss agent hook --agent claude SessionStart`
}

// Run answers the event. It always exits 0.
func (c *AgentHookCmd) Run(g *Globals) error {
	dir := g.Dir
	if dir == "" {
		dir = os.Getenv("CLAUDE_PROJECT_DIR")
	}
	if dir == "" {
		dir, _ = os.Getwd()
	}
	out := agent.Hook(g.ctx, agent.Request{Agent: c.Agent, Event: c.Event, Stdin: g.stdin, Dir: dir})
	if len(out) > 0 {
		_, _ = g.rawStdout.Write(out)
	}
	return nil
}
