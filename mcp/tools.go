package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/gloss-dev/gloss/fault"
	"log/slog"
	"reflect"
	"runtime/debug"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/schemas"
	"github.com/gloss-dev/gloss/toolsets"
)

// registry adds tools to the server, applying --read-only.
type registry struct {
	server        *sdk.Server
	dir           string
	handles       *handlePool // the session's repository handles
	readOnly      bool
	outputSchemas bool // list each tool's output schema (--output-schemas)

	mu       sync.Mutex
	required map[string][]string // tool name → its required arguments
	enabled  map[string]bool     // toolsets whose tools are registered
	defs     []*sdk.Tool         // the tools registered, as listed
	dynamic  bool                // list_toolsets and enable_toolset are there
	// selection is what the session started with (who chose it, how to
	// turn on the rest).
	selection toolsets.Selection
}

// toolDef describes one tool.
type toolDef struct {
	Name        string
	Description string
	Mutates     bool   // changes the repository: left out under --read-only
	Output      string // name of the output shape in the schemas registry
	// Input, when set, adjusts the input schema generated from the Go
	// type, for an argument the type cannot describe (one that takes a
	// string or an object).
	Input func(*jsonschema.Schema)
}

// call is what a tool handler gets besides its input: the repository,
// a handle of the session's that no other call uses while this one runs
// (libgit2 handles are not shared between concurrent calls).
type call struct {
	dir     string
	handles *handlePool
	h       *handle
}

// Repo takes a fresh handle from the session's pool on first use.
func (c *call) Repo() (*gitops.Repo, error) {
	if c.h == nil {
		h, err := c.handles.get()
		if err != nil {
			return nil, err
		}
		c.h = h
	}
	return c.h.repo, nil
}

// Dir is the directory the server works in.
func (c *call) Dir() string { return c.dir }

func (c *call) close() {
	if c.h != nil {
		c.handles.put(c.h)
		c.h = nil
	}
}

// addTool registers a typed tool. The handler's result is encoded with
// schemas.Encode — the bytes `git gloss <cmd> --json` prints — and sent
// both as the text content and as structuredContent. A returned error
// becomes an isError result the model can read and act on, except a
// *jsonrpc.Error, which is sent as a protocol error (for example -32602
// for a missing argument).
func addTool[In any](r *registry, def toolDef, fn func(ctx context.Context, c *call, in In) (any, error)) {
	if def.Mutates && r.readOnly {
		return
	}
	in, err := schemas.ForType(reflect.TypeFor[In]())
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", def.Name, err))
	}
	if def.Input != nil {
		def.Input(in)
	}
	t := &sdk.Tool{Name: def.Name, Description: def.Description, InputSchema: in}
	if !def.Mutates {
		// Only the read-only hint: the other hints' defaults are right
		// for a tool that writes, and each costs bytes in every session.
		t.Annotations = &sdk.ToolAnnotations{ReadOnlyHint: true}
	}
	if def.Output != "" && r.outputSchemas {
		s, err := schemas.OutputSchema(def.Output)
		if err != nil {
			panic(fmt.Sprintf("tool %s: %v", def.Name, err))
		}
		t.OutputSchema = s
	}
	r.mu.Lock()
	r.required[def.Name] = in.Required
	r.defs = append(r.defs, t)
	r.mu.Unlock()
	dir, handles := r.dir, r.handles
	sdk.AddTool(r.server, t, func(ctx context.Context, _ *sdk.CallToolRequest, in In) (*sdk.CallToolResult, any, error) {
		c := &call{dir: dir, handles: handles}
		defer c.close()
		out, err := fn(ctx, c, in)
		if err != nil {
			return nil, nil, fault.Bounded(err)
		}
		if t, ok := out.(preformatted); ok {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(t)}}}, nil, nil
		}
		data, err := schemas.Encode(out)
		if err != nil {
			return nil, nil, fmt.Errorf("encode result: %w", err)
		}
		res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(data)}}}
		if def.Output != "" {
			res.StructuredContent = json.RawMessage(data)
		}
		return res, nil, nil
	})
}

// preformatted is a tool answer already rendered as text (a pretty-printed
// result a caller asked for); it is sent as it is.
type preformatted string

// recoverPanics is the receiving middleware that keeps one broken tool from
// taking the server down: a panic becomes an isError result for tools/call
// and an internal error (-32603) for any other method, and its stack goes
// to stderr.
func recoverPanics(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (res sdk.Result, err error) {
		defer func() {
			if p := recover(); p != nil {
				slog.Error("mcp: panic while handling a request", "method", method, "panic", p, "stack", string(debug.Stack()))
				if method == "tools/call" {
					res = &sdk.CallToolResult{
						IsError: true,
						Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("internal error: %v (the server is still running)", p)}},
					}
					err = nil
					return
				}
				res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("internal error: %v", p)}
			}
		}()
		return next(ctx, method, req)
	}
}

// requireArguments answers a tools/call that lacks a required argument
// with invalid params (-32602) naming it: the caller's mistake is a
// protocol error, not a tool failure. Wrong types are left to the SDK's
// schema validation (an isError result); unknown arguments are ignored,
// because the input schemas do not forbid them (see schemas.Portable).
func (r *registry) requireArguments(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		p, ok := req.GetParams().(*sdk.CallToolParamsRaw)
		if !ok {
			return next(ctx, method, req)
		}
		var args map[string]json.RawMessage
		if len(p.Arguments) > 0 && json.Unmarshal(p.Arguments, &args) != nil {
			return next(ctx, method, req) // not an object: the SDK says so
		}
		r.mu.Lock()
		required := r.required[p.Name]
		r.mu.Unlock()
		for _, name := range required {
			if _, ok := args[name]; !ok {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("Missing required parameter: %s", name)}
			}
		}
		return next(ctx, method, req)
	}
}
