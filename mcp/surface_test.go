package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/schemas"
)

// maxDefaultToolsList is the budget of the default tools/list response:
// what every agent session pays before its first call.
const maxDefaultToolsList = 24 * 1024

// toolsListLine runs `git-gloss mcp ARGS` as a client would and returns
// the tools/list response line as the server wrote it.
func toolsListLine(t *testing.T, dir string, args ...string) string {
	t.Helper()
	input := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`
	cmd := exec.Command(fixtures.Binary(t), append([]string{"mcp"}, args...)...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(input)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git-gloss mcp %v: %v", args, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, `{"jsonrpc":"2.0","id":2,`) {
			return line
		}
	}
	t.Fatalf("no tools/list answer in %s", out)
	return ""
}

func TestDefaultToolsListFitsItsBudget(t *testing.T) {
	fx := newRepo(t)
	fx.MustGloss("init", "--no-mcp")
	line := toolsListLine(t, fx.Dir)
	if len(line) > maxDefaultToolsList {
		t.Errorf("default tools/list is %d bytes, over the %d-byte budget", len(line), maxDefaultToolsList)
	}
	for _, args := range [][]string{{"--toolsets", "all"}, {"--toolsets", "all", "--output-schemas"}, {"--dynamic-toolsets"}} {
		t.Logf("%v: %d bytes", args, len(toolsListLine(t, fx.Dir, args...)))
	}
	t.Logf("default: %d bytes", len(line))
}

// Every input and output schema of every tool is in the portable subset:
// no type lists, no bare true/false, no keyword Gemini's function
// declarations refuse.
func TestToolSchemasArePortable(t *testing.T) {
	fx := newRepo(t)
	for _, args := range [][]string{{"--toolsets", "all", "--output-schemas"}, {"--dynamic-toolsets", "--output-schemas"}} {
		var res struct {
			Result struct {
				Tools []struct {
					Name         string          `json:"name"`
					InputSchema  json.RawMessage `json:"inputSchema"`
					OutputSchema json.RawMessage `json:"outputSchema"`
				} `json:"tools"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(toolsListLine(t, fx.Dir, args...)), &res); err != nil {
			t.Fatal(err)
		}
		outputs := 0
		for _, tool := range res.Result.Tools {
			for kind, doc := range map[string]json.RawMessage{"inputSchema": tool.InputSchema, "outputSchema": tool.OutputSchema} {
				if doc == nil {
					continue
				}
				if kind == "outputSchema" {
					outputs++
				}
				lint := schemas.Lint
				if kind == "inputSchema" {
					lint = schemas.LintInput
				}
				problems, err := lint(doc)
				if err != nil {
					t.Fatalf("%s %s: %v", tool.Name, kind, err)
				}
				for _, p := range problems {
					t.Errorf("%v: %s %s: %s", args, tool.Name, kind, p)
				}
			}
		}
		if len(res.Result.Tools) < 4 || outputs == 0 {
			t.Errorf("%v: %d tools, %d output schemas: nothing was checked", args, len(res.Result.Tools), outputs)
		}
	}
}

// Unknown arguments are ignored (the Ultragit seed's rule), for every
// tool; wrong types and missing required arguments are still refused.
func TestUnknownArgumentsAreIgnored(t *testing.T) {
	fx := annotatedRepo(t)
	session := fx.StartMCP("--toolsets", "all", "--output-schemas")
	tools, err := session.Session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		raw, _ := json.Marshal(tool.InputSchema)
		if strings.Contains(string(raw), `"additionalProperties":false`) {
			t.Errorf("%s forbids unknown arguments: %s", tool.Name, raw)
		}
	}
	for tool, args := range map[string]map[string]any{
		"gloss_status":  {"unexpected": 1},
		"gloss_read":    {"path": "app.go", "anchor": "Handle", "format": "json", "verbose": true},
		"gloss_summary": {"path": ".", "depth": 2},
		"task_status":   {"by": "label"},
		"list_ids":      {"file": "plan.noma", "include_aliases": true},
	} {
		if res := session.Call(tool, args); res.IsError {
			t.Errorf("%s with an unknown argument: %s", tool, res.Text)
		}
	}
	if res := session.Call("gloss_read", map[string]any{"path": "app.go", "max_tokens": "many"}); !res.IsError {
		t.Errorf("a wrong type was accepted: %s", res.Text)
	}
	if _, err := session.CallErr("gloss_read", map[string]any{"anchor": "Handle"}); err == nil || !strings.Contains(err.Error(), "path") {
		t.Errorf("a missing path: %v, want invalid params naming it", err)
	}
}

// The seed's shapes: gloss_read takes lines as "A:B" as well as {start,
// end}; gloss_summary narrows to one anchor.
func TestSeedArgumentShapes(t *testing.T) {
	fx := annotatedRepo(t)
	session := fx.StartMCP()
	asString := session.Call("gloss_read", map[string]any{"path": "app.go", "lines": "6:8"})
	asObject := session.Call("gloss_read", map[string]any{"path": "app.go", "lines": map[string]any{"start": 6, "end": 8}})
	if asString.IsError || asString.Text != asObject.Text {
		t.Errorf("lines \"6:8\" and {start:6,end:8} differ:\n%s\n%s", asString.Text, asObject.Text)
	}
	if !strings.Contains(asString.Text, `"intent":"answer one"`) {
		t.Errorf("gloss_read lines 6:8 misses the annotation: %s", asString.Text)
	}
	if res := session.Call("gloss_read", map[string]any{"path": "app.go", "lines": "8:6"}); !res.IsError {
		t.Errorf("a reversed range was accepted: %s", res.Text)
	}
	res := session.Call("gloss_summary", map[string]any{"path": "app.go", "anchor": "Handle"})
	var sum struct {
		Files []struct {
			Anchors []struct{ Anchor string }
		}
	}
	if err := json.Unmarshal([]byte(res.Text), &sum); err != nil || res.IsError {
		t.Fatalf("gloss_summary: %v %s", err, res.Text)
	}
	if len(sum.Files) != 1 || len(sum.Files[0].Anchors) != 1 || sum.Files[0].Anchors[0].Anchor != "Server.Handle" {
		t.Errorf("gloss_summary anchor Handle = %s, want Server.Handle alone", res.Text)
	}
}

// --dynamic-toolsets starts small; enable_toolset adds a toolset's tools
// and the client is told to list again.
func TestDynamicToolsets(t *testing.T) {
	fx := newRepo(t)
	changed := make(chan struct{}, 10)
	cmd := exec.Command(fixtures.Binary(t), "mcp", "--dynamic-toolsets")
	cmd.Dir, cmd.Env = fx.Dir, fx.Env
	client := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	names := func() []string {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tool := range res.Tools {
			out = append(out, tool.Name)
		}
		return out
	}
	if got := names(); !slices.Contains(got, "enable_toolset") || !slices.Contains(got, "gloss_status") || slices.Contains(got, "task_list") {
		t.Fatalf("dynamic start: %v, want core and the toolset tools only", got)
	}
	call := func(name string, args map[string]any) (string, bool) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res.Content[0].(*sdk.TextContent).Text, res.IsError
	}
	text, _ := call("list_toolsets", nil)
	if !strings.Contains(text, `{"name":"tasks","description":`) || !strings.Contains(text, `"enabled":false,"tools":["task_add",`) {
		t.Errorf("list_toolsets: %s", text)
	}
	text, isErr := call("enable_toolset", map[string]any{"toolset": "tasks"})
	if isErr || !strings.Contains(text, `"toolset":"tasks","already":false`) {
		t.Fatalf("enable_toolset: %s", text)
	}
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no notifications/tools/list_changed after enable_toolset")
	}
	if got := names(); !slices.Contains(got, "task_list") {
		t.Errorf("after enable_toolset tasks: %v", got)
	}
	if text, _ := call("enable_toolset", map[string]any{"toolset": "tasks"}); !strings.Contains(text, `"already":true`) {
		t.Errorf("enabling twice: %s", text)
	}
	if _, isErr := call("enable_toolset", map[string]any{"toolset": "nope"}); !isErr {
		t.Error("an unknown toolset was enabled")
	}
}

// The real MCP Inspector CLI, in its strict mode, finds no portability
// problem in any tool's schemas (tests/mcp-client installs it with npm ci).
func TestInspectorStrictToolsList(t *testing.T) {
	dir := filepath.Join(fixtures.ModuleRoot(), "tests", "mcp-client")
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		t.Skip("tests/mcp-client/node_modules is not installed (make test runs npm ci there)")
	}
	inspector := filepath.Join(dir, "node_modules", ".bin", "mcp-inspector")
	if _, err := os.Stat(inspector); err != nil {
		t.Fatalf("%s is missing: run npm ci in tests/mcp-client (package.json lists @modelcontextprotocol/inspector)", inspector)
	}
	fx := newRepo(t)
	for _, args := range [][]string{nil, {"--toolsets", "all", "--output-schemas"}, {"--dynamic-toolsets"}} {
		cmdArgs := append([]string{"--cli", fixtures.Binary(t), "mcp"}, args...)
		cmdArgs = append(cmdArgs, "--cwd", fx.Dir, "--method", "tools/list", "--strict", "--format", "json", "-q")
		cmd := exec.Command(inspector, cmdArgs...)
		cmd.Dir, cmd.Env = fx.Dir, fx.Env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("inspector %v: %v\n%s", args, err, out)
		}
		var res struct {
			Result struct {
				Tools []json.RawMessage `json:"tools"`
			} `json:"result"`
			SchemaFindings []json.RawMessage `json:"schemaFindings"`
		}
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("inspector %v output: %v\n%s", args, err, out)
		}
		if len(res.Result.Tools) == 0 {
			t.Errorf("inspector %v listed no tools", args)
		}
		for _, f := range res.SchemaFindings {
			t.Errorf("inspector %v: %s", args, f)
		}
	}
}

// gloss_schema answers with what git gloss schema prints, by name or by
// the $schema tag a result carries.
func TestSchemaToolMatchesCLI(t *testing.T) {
	fx := newRepo(t)
	session := fx.StartMCP()
	for _, name := range []string{"task-list", "gloss-task-list/v1", "read"} {
		res := session.Call("gloss_schema", map[string]any{"name": name})
		if cli := strings.TrimRight(fx.MustGloss("schema", name), "\n"); res.IsError || res.Text != cli {
			t.Errorf("gloss_schema %s differs from git gloss schema:\nmcp %s\ncli %s", name, res.Text, cli)
		}
	}
	if res := session.Call("gloss_schema", map[string]any{"name": "nope"}); !res.IsError {
		t.Errorf("an unknown schema: %s", res.Text)
	}
}
