package agent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/toolsets"
)

// What the hooks tell an agent to ask gloss names an MCP tool only where
// the agent's session has it. Which tools that is, the toolsets package
// decides from gloss's entry in the agent's MCP configuration (its
// --toolsets, --read-only, --dynamic-toolsets), the team's [mcp] toolsets
// and the repository, by the rules the server starts by: reading a few
// small files, starting no server. A tool the session lacks is named by
// the command that does the same, which always works, with how to turn
// its toolset on; where gloss's server is not registered for the agent at
// all, the hooks name commands only.

// ask is one way the hooks point the agent at gloss: an MCP tool, how its
// arguments look, and the command that does the same.
type ask struct {
	tool, args, command string
}

var (
	askRead     = ask{"gloss_read", " {path, anchor}", "git gloss read FILE"}
	askAnnotate = ask{"gloss_annotate", "", "git gloss annotate"}
	askTasks    = ask{"task_ready", "", "git gloss task ready"}
	askNotes    = ask{"search_notes", "", "git gloss note search WORDS"}
	askNote     = ask{"read_note", " {path}", "git gloss note show PATH"}
	askSpecs    = ask{"list_affected_specs", "", "git gloss spec affected --base REV"}
	askSpecDiff = ask{"get_spec_diff", "", "git gloss spec diff SPEC --base REV"}
)

// sessionTools are gloss's MCP tools in one agent's session.
type sessionTools struct {
	srv *toolsets.Server // nil: gloss's server is not in the session
	sel toolsets.Selection
}

// toolsFor finds gloss's MCP server as the agent starts it in the
// repository, and what its session lists — as far as the asks need: the
// pre-edit hook asks about gloss_read alone, which needs none of the
// tests of what the repository uses. A server whose arguments it would
// refuse (an unknown toolset) never starts: no tools.
func toolsFor(repo *gitops.Repo, agentName string, asks ...ask) sessionTools {
	srv := toolsets.FindServer(repo, agentName)
	if srv == nil {
		return sessionTools{}
	}
	names := make([]string, len(asks))
	for i, a := range asks {
		names[i] = a.tool
	}
	sel, err := toolsets.SelectFor(repo, srv.Options, names...)
	if err != nil {
		return sessionTools{}
	}
	return sessionTools{srv: srv, sel: sel}
}

func (t sessionTools) has(a ask) bool { return t.srv != nil && t.sel.Has(a.tool) }

// name is the tool, with its arguments, where the session has it, else
// the command.
func (t sessionTools) name(a ask) string {
	if t.has(a) {
		return a.tool + a.args
	}
	return "`" + a.command + "`"
}

// either is the tool and the command, or the command alone.
func (t sessionTools) either(a ask) string {
	if t.has(a) {
		return fmt.Sprintf("%s%s (or `%s`)", a.tool, a.args, a.command)
	}
	return "`" + a.command + "`"
}

// turnOn is a sentence saying how to get the tools of asks the session
// lacks, "" when it lacks none that a toolset would bring (a server not
// registered for the agent, a tool left out by --read-only: the command
// is the way).
func (t sessionTools) turnOn(asks ...ask) string {
	if t.srv == nil {
		return ""
	}
	var off []string
	for _, a := range asks {
		tool, ok := toolsets.ToolsetOf(a.tool)
		if !ok || t.has(a) || (t.sel.ReadOnly && tool.Writes) || slices.Contains(off, tool.Toolset) {
			continue
		}
		off = append(off, tool.Toolset)
	}
	if len(off) == 0 {
		return ""
	}
	why, how := t.sel.Off(off, t.srv)
	if len(off) == 1 {
		return fmt.Sprintf("gloss's %s toolset is %s: to get its tools, %s.", off[0], why, how)
	}
	return fmt.Sprintf("gloss's %s toolsets are %s: to get their tools, %s.", strings.Join(off, " and "), why, how)
}
