package mcp

import (
	"context"
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/schemas"
	"github.com/gloss-dev/gloss/toolsets"
)

// Dynamic toolsets (--dynamic-toolsets): the session starts with core and
// two tools to grow it, like github-mcp-server's mode of the same name.
// Enabling a toolset registers its tools on the live server; the SDK then
// sends notifications/tools/list_changed, and the client lists again.

// ToolsetInfo describes one toolset for list_toolsets.
type ToolsetInfo struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Enabled     bool     `json:"enabled"`
	Tools       []string `json:"tools" jsonschema:"the toolset's tools (under --read-only, the read-only ones)"`
}

// ToolsetList is list_toolsets' answer.
type ToolsetList struct {
	Schema   string        `json:"$schema"`
	Toolsets []ToolsetInfo `json:"toolsets"`
}

// ToolsetEnabled is enable_toolset's answer.
type ToolsetEnabled struct {
	Schema  string   `json:"$schema"`
	Toolset string   `json:"toolset"`
	Already bool     `json:"already" jsonschema:"the toolset was already enabled"`
	Tools   []string `json:"tools" jsonschema:"the tools it added; list tools again to see them"`
}

func init() {
	schemas.Register(
		schemas.Entry{Name: "mcp-toolsets", Tag: "gloss-mcp-toolsets/v1", Description: "The MCP server's toolsets and whether each is enabled (list_toolsets).", Type: schemas.TypeOf[ToolsetList]()},
		schemas.Entry{Name: "mcp-toolset-enabled", Tag: "gloss-mcp-toolset-enabled/v1", Description: "A toolset turned on (enable_toolset).", Type: schemas.TypeOf[ToolsetEnabled]()},
	)
}

type enableInput struct {
	Toolset string `json:"toolset" jsonschema:"a name from list_toolsets"`
}

func registerDynamic(r *registry) {
	r.mu.Lock()
	r.dynamic = true
	r.mu.Unlock()
	addTool(r, toolDef{Name: "list_toolsets", Output: "mcp-toolsets",
		Description: "List gloss's toolsets, their tools and which are enabled. Enable one with enable_toolset."},
		func(context.Context, *call, struct{}) (any, error) {
			out := &ToolsetList{Schema: "gloss-mcp-toolsets/v1"}
			for _, ts := range allToolsets {
				out.Toolsets = append(out.Toolsets, ToolsetInfo{Name: ts.name, Description: ts.description,
					Enabled: r.isEnabled(ts.name), Tools: toolsets.ToolNames(ts.name, r.readOnly)})
			}
			return out, nil
		})
	addTool(r, toolDef{Name: "enable_toolset",
		Description: "Turn on a toolset from list_toolsets: its tools are added to this session.", Output: "mcp-toolset-enabled"},
		func(_ context.Context, _ *call, in enableInput) (any, error) {
			i := slices.IndexFunc(allToolsets, func(ts toolset) bool { return ts.name == in.Toolset })
			if i < 0 {
				return nil, fault.Usagef("unknown toolset %q (available: %s)", in.Toolset, strings.Join(toolsets.Names(), ", "))
			}
			added := r.enable(allToolsets[i])
			return &ToolsetEnabled{Schema: "gloss-mcp-toolset-enabled/v1", Toolset: in.Toolset, Already: !added,
				Tools: toolsets.ToolNames(in.Toolset, r.readOnly)}, nil
		})
}

// enable registers a toolset's tools unless they are already there, and
// reports whether it did.
func (r *registry) enable(ts toolset) bool {
	r.mu.Lock()
	if r.enabled[ts.name] {
		r.mu.Unlock()
		return false
	}
	r.enabled[ts.name] = true
	r.mu.Unlock()
	ts.register(r)
	return true
}

func (r *registry) isEnabled(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.enabled[name]
}
