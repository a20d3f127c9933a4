package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/gloss-dev/gloss/fixtures"
)

const appV1 = "package app\n\ntype Server struct{}\n\n// Handle answers.\nfunc (s *Server) Handle() int {\n\treturn 1\n}\n\nfunc helper() {}\n"

// annotatedRepo is a repository with gloss set up, one annotated commit on
// app.go (Server.Handle), a task, a note and a .noma document.
func annotatedRepo(t *testing.T) *fixtures.Repo {
	fx := newRepo(t)
	fx.MustGloss("init", "--no-mcp")
	fx.MustGloss("annotate", "--file", "app.go", "--anchor", "Server.Handle", "--intent", "answer one",
		"--constraint", "always returns 1", "--dep", "a.txt|reads it")
	fx.Commit("app: add the server", map[string]string{"app.go": appV1})
	fx.Commit("plan", map[string]string{"plan.noma": "# Plan {#plan}\n\nShip it.\n"})
	return fx
}

// registeredSchemas maps each $schema tag, and "name:" + each name, to its
// JSON Schema, as the binary prints them (git gloss schema --json, git
// gloss schema NAME).
func registeredSchemas(t *testing.T, fx *fixtures.Repo) map[string]*jsonschema.Resolved {
	var list struct {
		Schemas []struct{ Name, Tag string }
	}
	if err := json.Unmarshal([]byte(fx.MustGloss("schema", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]*jsonschema.Resolved{}
	for _, e := range list.Schemas {
		if _, dup := out[e.Tag]; dup && !strings.HasPrefix(e.Tag, "gloss/") { // gloss/… are stored records, kind-tagged
			t.Errorf("tag %s names more than one shape", e.Tag)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal([]byte(fx.MustGloss("schema", e.Name)), &s); err != nil {
			t.Fatalf("schema %s: %v", e.Name, err)
		}
		if s.Schema != "https://json-schema.org/draft/2020-12/schema" {
			continue // the spec file schema: NotarAI's draft-07 document, not an output
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("resolve schema %s: %v", e.Name, err)
		}
		out[e.Tag] = r
		out["name:"+e.Name] = r
	}
	return out
}

// Every --json output names a registered shape in $schema, one id per
// shape, and validates against that shape's schema.
func TestEveryJSONOutputMatchesItsRegisteredSchema(t *testing.T) {
	fx := annotatedRepo(t)
	shapes := registeredSchemas(t, fx)
	task := func() string {
		var add struct {
			TaskID string `json:"spec_id"`
		}
		out := fx.MustGloss("task", "add", "Write the docs", "--criterion", "README has a tour", "--json")
		if err := json.Unmarshal([]byte(out), &add); err != nil || add.TaskID == "" {
			t.Fatalf("task add: %s", out)
		}
		return add.TaskID
	}()
	fx.MustGloss("note", "create", "idea", "--content", "Cache the outline.", "--tag", "perf")
	session := fx.StartMCP("--toolsets", "all")

	cases := []struct {
		args  []string
		tag   string         // or name:NAME for Noma's Annex B shapes, which carry no $schema
		fail  bool           // the command fails; its --json output is the error shape
		tool  string         // the MCP tool that answers the same query, if any
		targs map[string]any // its arguments
	}{
		{[]string{"status"}, "gloss-status/v1", false, "gloss_status", nil},
		{[]string{"schema"}, "gloss-schemas/v1", false, "gloss_schema", nil},
		{[]string{"read", "app.go", "--anchor", "Handle"}, "gloss-read/v1", false, "gloss_read", map[string]any{"path": "app.go", "anchor": "Handle"}},
		{[]string{"read", "app.go", "--lines", "9:10"}, "gloss-read/v1", false, "gloss_read", map[string]any{"path": "app.go", "lines": "9:10"}},
		{[]string{"deps", "a.txt"}, "gloss-deps/v1", false, "gloss_deps", map[string]any{"path": "a.txt"}},
		{[]string{"history", "app.go"}, "gloss-history/v1", false, "gloss_history", map[string]any{"path": "app.go"}},
		{[]string{"summary", "."}, "gloss-summary/v1", false, "gloss_summary", map[string]any{"path": "."}},
		{[]string{"blame", "app.go"}, "gloss-blame/v1", false, "", nil},
		{[]string{"summary", "app.go", "--anchor", "Handle"}, "gloss-summary/v1", false, "gloss_summary", map[string]any{"path": "app.go", "anchor": "Handle"}},
		{[]string{"annotate", "--pending"}, "gloss-pending/v1", false, "", nil},
		{[]string{"annotate", "--file", "app.go", "--intent", "next"}, "gloss-annotate/v1", false, "", nil},
		{[]string{"task", "list"}, "gloss-task-list/v1", false, "", nil},
		{[]string{"task", "ready"}, "gloss-task-list/v1", false, "", nil},
		{[]string{"task", "show", task}, "gloss-task/v1", false, "task_get", map[string]any{"id": task}},
		{[]string{"task", "status"}, "gloss-task-status/v1", false, "task_status", nil},
		{[]string{"task", "search", "docs"}, "name:task-search", false, "task_search", map[string]any{"query": "docs"}}, // Chant's bare array
		{[]string{"task", "lint"}, "gloss-task-lint/v1", false, "", nil},
		{[]string{"task", "verify", task}, "gloss-task-verify/v1", true, "", nil}, // not verified: exit 1, with its JSON
		{[]string{"task", "diagnose", task}, "gloss-task-diagnose/v1", false, "", nil},
		{[]string{"task", "runs"}, "gloss-task-work/v1", false, "", nil},
		{[]string{"task", "settle"}, "gloss-task-settle/v1", false, "", nil},
		{[]string{"task", "reconcile"}, "gloss-task-settle/v1", false, "", nil}, // the old name, hidden
		{[]string{"task", "add", "Another", "--criterion", "it exists"}, "gloss-task-add/v1", false, "", nil},
		{[]string{"note", "show", "notes/idea.md"}, "gloss-note/v1", false, "", nil},
		{[]string{"note", "list"}, "gloss-note-list/v1", false, "", nil},
		{[]string{"note", "search", "outline"}, "gloss-note-search/v1", false, "", nil},
		{[]string{"note", "tag", "notes/idea.md", "list"}, "gloss-note-tags/v1", false, "", nil},
		{[]string{"note", "status"}, "gloss-note-status/v1", false, "", nil},
		{[]string{"note", "create", "second", "--content", "x"}, "gloss-note-op/v1", false, "", nil},
		{[]string{"doc", "read", "plan.noma"}, "name:doc-read", false, "read_doc", map[string]any{"file": "plan.noma"}},
		{[]string{"doc", "ids", "plan.noma"}, "name:doc-ids", false, "list_ids", map[string]any{"file": "plan.noma"}},
		{[]string{"doc", "check", "plan.noma"}, "name:doc-check", false, "", nil},
		{[]string{"doc", "log", "plan.noma"}, "name:doc-transcript", false, "", nil},
		{[]string{"spec", "status"}, "gloss-spec-status/v1", false, "", nil},
		{[]string{"read", "no/such/file.go"}, "gloss-error/v1", true, "", nil},
	}
	for _, c := range cases {
		name := strings.Join(c.args, " ")
		args := append(c.args, "--json")
		out, err := fx.Gloss(args...)
		if (err != nil) != c.fail {
			t.Errorf("%s: error %v\n%s", name, err, out)
			continue
		}
		line := strings.TrimSpace(fixtures.Lines(out)[0])
		var inst any
		if err := json.Unmarshal([]byte(line), &inst); err != nil {
			t.Errorf("%s: not JSON: %v\n%s", name, err, out)
			continue
		}
		v, _ := inst.(map[string]any)
		if tag, _ := v["$schema"].(string); tag != c.tag && !strings.HasPrefix(c.tag, "name:") {
			t.Errorf("%s: $schema %v, want %s", name, v["$schema"], c.tag)
		}
		r := shapes[c.tag]
		if r == nil {
			t.Errorf("%s: $schema %s is not registered", name, c.tag)
			continue
		}
		if err := r.Validate(inst); err != nil {
			t.Errorf("%s: output does not match %s: %v\n%s", name, c.tag, err, line)
		}
		if strings.Contains(line, ":null") {
			t.Errorf("%s: output contains null: %s", name, line)
		}
		if c.tool == "" {
			continue
		}
		res := session.Call(c.tool, c.targs)
		if res.IsError || res.Text != line {
			t.Errorf("%s: the MCP tool %s answers differently:\nmcp %s\ncli %s", name, c.tool, res.Text, line)
		}
	}
}
