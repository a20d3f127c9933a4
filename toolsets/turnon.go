package toolsets

import (
	"fmt"
	"slices"
	"strings"
)

// Off says why toolsets are off in a session with this selection ("off
// in this session", to follow "is" or "are") and how to turn them on (a
// clause starting with a verb): for the server's answer to a call of a
// tool it does not list, and for the agent hooks. srv is the client's
// entry for the session's server when known (a hook reads it); nil inside
// the server, which knows only its own options.
func (s Selection) Off(off []string, srv *Server) (why, how string) {
	if srv == nil {
		srv = &Server{Options: s.Options}
	}
	switch {
	case s.Dynamic:
		var calls []string
		for _, ts := range off {
			calls = append(calls, fmt.Sprintf("{\"toolset\":%q}", ts))
		}
		return "off in this session", "call enable_toolset with " + strings.Join(calls, ", then with ")
	case s.Source == SourceTeam:
		return "left out by this repository's team configuration",
			fmt.Sprintf("add %s to toolsets under [mcp] in .gloss/config.toml (or give this client its own list with %s), then restart the MCP server", quoted(off, " and "), srv.install(off, true))
	case s.Source == SourceFlag:
		where := "this server's --toolsets"
		if srv.File != "" {
			where = "the --toolsets of gloss's server in " + srv.File
		}
		return "left out by " + where, fmt.Sprintf("add %s with %s, then restart the MCP server", plural(off, "it", "them"), srv.install(off, false))
	}
	return "not in this repository's default",
		fmt.Sprintf("turn %s on with %s (this client's configuration) or `toolsets = [\"default\", %s]` under [mcp] in .gloss/config.toml (the team's), then restart the MCP server",
			plural(off, "it", "them"), srv.install(off, true), quoted(off, ", "))
}

func quoted(names []string, sep string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, sep)
}

func plural(names []string, one, more string) string {
	if len(names) == 1 {
		return one
	}
	return more
}

// install is the way to give this client's server a list with the
// toolsets added (to its own list, or to the default's): `git gloss mcp
// install --toolsets …` where that writes the client's entry, else the
// edit to make in the file that has it.
func (srv *Server) install(add []string, fromDefault bool) string {
	list := []string{"default"}
	if len(srv.Options.Toolsets) > 0 && !fromDefault {
		list = slices.Clone(srv.Options.Toolsets)
	}
	for _, ts := range add {
		if !slices.Contains(list, ts) && !slices.Contains(list, "all") {
			list = append(list, ts)
		}
	}
	arg := strings.Join(list, ",")
	cmd := "git gloss mcp install --toolsets " + arg
	switch {
	case srv.Client == "", srv.Client == "claude" && srv.Scope == ScopeProject:
	case srv.Client == "claude" && srv.Scope == ScopeUser:
		cmd += " --global"
	case srv.Client == "cursor":
		cmd += " --client cursor"
		if srv.Scope == ScopeUser {
			cmd += " --global"
		}
	default:
		// gloss does not write this entry (another agent's file, or
		// Claude Code's local scope): say what to change.
		return fmt.Sprintf("`--toolsets %s` in the args of gloss's server in %s", arg, srv.File)
	}
	return "`" + cmd + "`"
}
