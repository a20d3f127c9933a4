package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/toolsets"
)

// debugToolset names the test builds' debug tools (debug.go).
const debugToolset = "debug"

// Which toolsets a session starts with is the toolsets package's to
// decide (the agent hooks ask it too, to name only tools a session has);
// this file turns its selection into the server's and explains a call of
// a tool the session does not list.

// selectToolsets applies toolsets.Select to the session's first
// repository handle (a directory that is no repository leaves the team's
// list and the repository's use with nothing to read: the base default).
func selectToolsets(opts Options, handles *handlePool) (toolsets.Selection, error) {
	var repo *gitops.Repo
	if h, err := handles.get(); err == nil {
		defer handles.put(h)
		repo = h.repo
	}
	sel, err := toolsets.Select(repo, sessionOptions(opts))
	for _, w := range sel.Warnings {
		slog.Warn("mcp: " + w)
	}
	return sel, err
}

// sessionOptions are the server's options as the toolsets rules read them.
func sessionOptions(opts Options) toolsets.Options {
	o := toolsets.Options{Toolsets: opts.Toolsets, ReadOnly: opts.ReadOnly, Dynamic: opts.Dynamic, OutputSchemas: opts.OutputSchemas}
	if debugEnabled() {
		o.Extra = []string{debugToolset}
	}
	return o
}

// explainUnknownTools answers a call to a tool this session does not
// expose with the same invalid-params error (-32602) the SDK sends, but
// saying which toolset has it and how to turn that on.
func (r *registry) explainUnknownTools(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		p, ok := req.GetParams().(*sdk.CallToolParamsRaw)
		if !ok {
			return next(ctx, method, req)
		}
		r.mu.Lock()
		_, registered := r.required[p.Name]
		sel := r.selection
		r.mu.Unlock()
		if registered {
			return next(ctx, method, req)
		}
		tool, known := toolsets.ToolsetOf(p.Name)
		if !known || tool.Toolset == toolsets.Dynamic {
			return next(ctx, method, req)
		}
		ts := tool.Toolset
		var msg string
		if r.readOnly && tool.Writes {
			msg = fmt.Sprintf("unknown tool %q: it changes the repository, and this server runs with --read-only", p.Name)
		} else {
			why, how := sel.Off([]string{ts}, nil)
			msg = fmt.Sprintf("unknown tool %q: it is in the %s toolset, which is %s; %s", p.Name, ts, why, how)
			if sel.Dynamic {
				msg += ", then list tools again"
			}
		}
		data, _ := json.Marshal(map[string]string{"tool": p.Name, "toolset": ts})
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg, Data: data}
	}
}
