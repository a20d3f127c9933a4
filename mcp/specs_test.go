package mcp_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/gloss-dev/gloss/fixtures"
)

// The specs tools answer with the very bytes `git gloss spec ... --json`
// prints.
func TestSpecToolsMatchCLI(t *testing.T) {
	fixtures.Binary(t)
	fx := fixtures.NewTodoService(t)
	fx.Git("checkout", "-q", "-b", "feature")
	fx.Commit("handler", map[string]string{"internal/api/handlers.go": "package api\n\nfunc Create(string) int { return 3 }\n"})
	fx.MustGloss("spec", "mark", "internal/api/pagination.go")
	session := fx.StartMCP("--toolsets", "specs")

	cases := []struct {
		tool string
		args map[string]any
		cli  []string
	}{
		{"list_affected_specs", map[string]any{"base_branch": "main"}, []string{"spec", "affected", "--base", "main"}},
		{"get_spec_diff", map[string]any{"spec_path": ".gloss/specs/api.spec.yaml", "base_branch": "main", "exclude_patterns": []string{"docs/**"}},
			[]string{"spec", "diff", ".gloss/specs/api.spec.yaml", "--base", "main", "--exclude", "docs/**"}},
		{"get_changed_artifacts", map[string]any{"spec_path": "api", "artifact_type": "code"}, []string{"spec", "changed", "api", "--type", "code"}},
	}
	for _, c := range cases {
		res := session.Call(c.tool, c.args)
		if res.IsError {
			t.Fatalf("%s: %s", c.tool, res.Text)
		}
		cli := strings.TrimRight(fx.MustGloss(append(c.cli, "--json")...), "\n")
		if res.Text != cli {
			t.Errorf("%s: MCP and CLI differ:\nmcp %s\ncli %s", c.tool, res.Text, cli)
		}
		if res.Raw.StructuredContent == nil {
			t.Errorf("%s: no structuredContent", c.tool)
		}
	}
	// A mutating tool writes what the CLI reads back.
	res := session.Call("mark_reconciled", map[string]any{"files": []string{"internal/api/handlers.go"}})
	if res.IsError || !strings.Contains(res.Text, `"updated":1`) || !strings.Contains(res.Text, `"spec_path":".gloss/specs/api.spec.yaml"`) {
		t.Fatalf("mark_reconciled: %s", res.Text)
	}
	if out := fx.MustGloss("spec", "diff", "api", "--base", "main", "--json"); !strings.Contains(out, `"skipped":["internal/api/handlers.go","internal/api/pagination.go"]`) {
		t.Fatalf("after mark over MCP: %s", out)
	}
	res = session.Call("snapshot_state", nil)
	if res.IsError || !strings.Contains(res.Text, `"state_path":".gloss/reconciliation_state.json"`) {
		t.Fatalf("snapshot_state: %s", res.Text)
	}
	res = session.Call("clear_cache", map[string]any{"spec_path": "api"})
	if res.IsError || !strings.Contains(res.Text, `"scope":".gloss/specs/api.spec.yaml"`) {
		t.Fatalf("clear_cache: %s", res.Text)
	}
}

// A missing required argument is a -32602 protocol error naming it; a
// wrong one (an unknown spec, a path outside the repository) is a tool
// error the model can read.
func TestSpecToolsArguments(t *testing.T) {
	fixtures.Binary(t)
	fx := fixtures.NewTodoService(t)
	session := fx.StartMCP()
	for _, c := range []struct {
		tool    string
		args    map[string]any
		missing string
	}{
		{"list_affected_specs", nil, "base_branch"},
		{"get_spec_diff", map[string]any{"base_branch": "main"}, "spec_path"},
		{"get_spec_diff", map[string]any{"spec_path": "api"}, "base_branch"},
		{"get_changed_artifacts", nil, "spec_path"},
		{"mark_reconciled", map[string]any{"files": []string{}}, "files"},
	} {
		_, err := session.CallErr(c.tool, c.args)
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, c.missing) {
			t.Errorf("%s %v: want -32602 naming %s, got %v", c.tool, c.args, c.missing, err)
		}
	}
	for _, args := range []map[string]any{
		{"spec_path": "nosuch", "base_branch": "main"},
		{"spec_path": "../../etc/passwd", "base_branch": "main"},
		{"spec_path": "api", "base_branch": "no-such-branch"},
	} {
		res := session.Call("get_spec_diff", args)
		if !res.IsError {
			t.Errorf("%v: want an error result, got %s", args, res.Text)
		}
	}
	// The server is still serving.
	if res := session.Call("list_affected_specs", map[string]any{"base_branch": "main"}); res.IsError {
		t.Fatalf("after errors: %s", res.Text)
	}
	// The CLI says the same clearly.
	if out, err := fx.Gloss("spec", "affected"); err == nil || !strings.Contains(out, "--base is required") {
		t.Errorf("cli: %v %s", err, out)
	}
}

// schemaNote appears in initialize when the repository's specs use an
// older spec schema than the binary's, and only where gloss is set up.
func TestInitializeSchemaNote(t *testing.T) {
	fx := fixtures.NewTodoService(t)
	fx.Commit("old spec", map[string]string{".gloss/specs/cli.spec.yaml": strings.Replace(fixtures.TodoServiceSpecs[".gloss/specs/cli.spec.yaml"], "'0.8'", "'0.6'", 1)})
	s := startServer(t, fx.Dir)
	res := s.initialize("2025-06-18")["result"].(map[string]any)
	if _, ok := res["schemaNote"]; ok {
		t.Errorf("schemaNote in a repository without gloss: %v", res)
	}
	fx.MustGloss("init", "--no-mcp")
	s2 := startServer(t, fx.Dir)
	res = s2.initialize("2025-06-18")["result"].(map[string]any)
	note, _ := res["schemaNote"].(string)
	// The advice is the newest version NotarAI accepts (0.7), never 0.8.
	if !strings.Contains(note, "spec schema 0.6") || !strings.Contains(note, "schema_version: '0.7'") || !strings.Contains(note, ".gloss/specs/cli.spec.yaml") {
		t.Fatalf("schemaNote = %q", note)
	}
	for _, v := range []string{"'0.7'", "'0.8'"} {
		fx.Commit("spec at "+v, map[string]string{".gloss/specs/cli.spec.yaml": strings.Replace(fixtures.TodoServiceSpecs[".gloss/specs/cli.spec.yaml"], "'0.8'", v, 1)})
		s3 := startServer(t, fx.Dir)
		res = s3.initialize("2025-06-18")["result"].(map[string]any)
		if _, ok := res["schemaNote"]; ok {
			t.Errorf("schemaNote with specs at %s: %v", v, res["schemaNote"])
		}
	}
}

// The specs toolset lists exactly NotarAI's six tools; --read-only keeps
// the three that change nothing.
func TestSpecsToolset(t *testing.T) {
	fixtures.Binary(t)
	fx := fixtures.NewTodoService(t)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--toolsets", "specs"}, []string{"clear_cache", "get_changed_artifacts", "get_spec_diff", "list_affected_specs", "mark_reconciled", "snapshot_state"}},
		{[]string{"--toolsets", "specs", "--read-only"}, []string{"get_changed_artifacts", "get_spec_diff", "list_affected_specs"}},
	} {
		session := fx.StartMCP(c.args...)
		lt, err := session.Session.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range lt.Tools {
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		if !slices.Equal(names, c.want) {
			t.Errorf("%v: tools %v, want %v", c.args, names, c.want)
		}
	}
}
