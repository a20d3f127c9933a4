package cli

import (
	"fmt"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/setup"
)

// AgentCmd groups `git gloss agent install|uninstall|status|hook`.
type AgentCmd struct {
	Install   AgentInstallCmd   `cmd:"" help:"Write the coding agents' hook configuration so they run gloss before and after edits."`
	Uninstall AgentUninstallCmd `cmd:"" help:"Remove exactly what agent install added."`
	Status    AgentStatusCmd    `cmd:"" help:"Which agents run gloss's hooks here and for this user."`
	Hook      AgentHookCmd      `cmd:"" help:"Entry point the agents' hook configurations call (payload on stdin)."`
	Redact    AgentRedactCmd    `cmd:"" help:"Print text as gloss keeps it from a prompt: secrets replaced (try a team's rules)."`
}

// AgentInstallCmd is `git gloss agent install`.
type AgentInstallCmd struct {
	Agent  []string `name:"agent" placeholder:"NAME" help:"Agent(s) to install for: claude, gemini, codex, cursor, or all (repeat or comma-separate). Default: claude plus every agent whose project folder (.gemini, .codex, .cursor, ...) is in this working tree; the others are listed with the command that adds them."`
	Global bool     `name:"global" help:"Write the user's own configuration (~/.claude/settings.json, ~/.gemini/settings.json, ~/.codex/hooks.json, ~/.cursor/hooks.json) instead of the repository's; no AGENTS.md / CLAUDE.md block."`
}

// Help is the long help of agent install.
func (AgentInstallCmd) Help() string {
	return `Adds entries to each agent's documented hook configuration that run
"git gloss agent hook --agent <name> <event>", so that gloss reaches the agent
by itself: a brief when the session starts, the notes that match a prompt,
and the constraints, risks and rejected alternatives recorded for a region
before the agent edits it; and gloss learns which lines the agent wrote.

  claude   .claude/settings.json   SessionStart, UserPromptSubmit,
                                   PreToolUse and PostToolUse (Edit, Write,
                                   MultiEdit, NotebookEdit)
  gemini   .gemini/settings.json   SessionStart, BeforeAgent, BeforeModel,
                                   AfterTool (read_file, write_file, replace)
  codex    .codex/hooks.json       SessionStart, UserPromptSubmit,
                                   PreToolUse and PostToolUse (apply_patch)
  cursor   .cursor/hooks.json      sessionStart, beforeSubmitPrompt,
                                   afterFileEdit

Every other entry and byte of those files is kept. A file that is not valid
JSON is left untouched and reported (exit 2 after the others are written).
It also adds a short marked block to AGENTS.md (and CLAUDE.md for Claude
Code) telling agents what gloss gives them and to record their reasons with
gloss_annotate before committing; a file it creates is deleted again by
uninstall. Codex runs new hooks only once you trust them in its /hooks
screen, and Gemini CLI only in a trusted folder: install says so.

Running it again changes nothing that is in place. "git gloss agent
uninstall" (or "git gloss uninstall") removes exactly what it added.
docs/agents.md lists the agents covered and why others are not.`
}

// Run installs the agents' hooks.
func (c *AgentInstallCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	agents, err := setup.ParseAgents(c.Agent)
	if err != nil {
		return err
	}
	res, err := setup.InstallAgents(g.ctx, repo, setup.AgentOptions{Agents: agents, Global: c.Global})
	if err != nil {
		return err
	}
	if err := g.emit(res, func(s *styler) { printSetupResult(s, repo.Root(), res, "gloss's agent hooks are installed") }); err != nil {
		return err
	}
	return refusedError(res)
}

// refusedError is the usage error for files install or uninstall left
// untouched (already reported in the output).
func refusedError(res *setup.Result) error {
	var paths []string
	for _, a := range res.Agents {
		if a.Action == "refused" {
			paths = append(paths, a.Path)
		}
	}
	if len(paths) == 0 {
		return nil
	}
	return fault.Usagef("left %s untouched (see above)", strings.Join(paths, ", "))
}

// AgentUninstallCmd is `git gloss agent uninstall`.
type AgentUninstallCmd struct{}

// Help is the long help of agent uninstall.
func (AgentUninstallCmd) Help() string {
	return `Removes the hook entries and the AGENTS.md / CLAUDE.md blocks that
"agent install" (or "init --agents") added, as recorded when it added them:
the files are given back byte for byte apart from gloss's entries, and a file
gloss created is deleted. The rest of gloss's setup stays; "git gloss
uninstall" removes everything.`
}

// Run removes the agents' hooks.
func (c *AgentUninstallCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	res, err := setup.UninstallAgents(g.ctx, repo)
	if err != nil {
		return err
	}
	if err := g.emit(res, func(s *styler) { printSetupResult(s, repo.Root(), res, "gloss's agent hooks are removed") }); err != nil {
		return err
	}
	return refusedError(res)
}

// AgentStatusCmd is `git gloss agent status`.
type AgentStatusCmd struct{}

// Help is the long help of agent status.
func (AgentStatusCmd) Help() string {
	return `For every agent gloss supports, the repository's and the user's hook
configuration file, whether gloss's entries are in it (and are this
version's), and whether AGENTS.md and CLAUDE.md carry gloss's block.`
}

// Run prints the agents' status.
func (c *AgentStatusCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	st, err := setup.AgentStatus(g.ctx, repo)
	if err != nil {
		return err
	}
	return g.emit(st, func(s *styler) {
		for _, a := range st.Agents {
			scope := "project"
			if a.Global {
				scope = "user"
			}
			state := s.dim("not installed")
			switch {
			case a.Error != "":
				state = s.red(a.Error)
			case len(a.Events) > 0 && a.Current:
				state = s.green("installed") + " " + s.dim(strings.Join(a.Events, ", "))
			case len(a.Events) > 0:
				state = s.yellow("older entries") + " (run git gloss agent install)"
			}
			s.printf("  %-11s %-7s %s %s\n", a.Name, scope, shown(repo.Root(), a.Path), state)
		}
		for _, f := range st.Instructions {
			state := s.dim("absent")
			switch {
			case f.Block && f.Current:
				state = s.green("gloss block")
			case f.Block:
				state = s.yellow("older gloss block")
			case f.Exists:
				state = s.dim("no gloss block")
			}
			s.printf("  %s %s\n", shown(repo.Root(), f.Path), state)
		}
	})
}

// agentsFlag is init's --agents[=LIST]: alone it means the default agents,
// with a value the agents named. It takes no separate argument, so
// "init --agents" never swallows what follows.
type agentsFlag struct {
	set  bool
	list []string
}

// IsBool makes kong accept --agents without a value.
func (f *agentsFlag) IsBool() bool { return true }

// Decode reads the optional =LIST.
func (f *agentsFlag) Decode(ctx *kong.DecodeContext) error {
	f.set = true
	if tok := ctx.Scan.Peek(); tok.Type == kong.FlagValueToken {
		ctx.Scan.Pop()
		v := fmt.Sprint(tok.Value)
		switch strings.ToLower(v) {
		case "true", "":
			return nil
		case "false":
			f.set = false
			return nil
		}
		list, err := setup.ParseAgents([]string{v})
		if err != nil {
			return err
		}
		f.list = list
	}
	return nil
}

// agents is what init passes on: nil when the flag is absent, an empty
// list for the default agents.
func (f agentsFlag) agents() []string {
	if !f.set {
		return nil
	}
	if f.list == nil {
		return []string{}
	}
	return f.list
}
