package tasks_test

import (
	"strings"
	"testing"
)

// The CLI and the MCP tools are two doors to the same tasks: the same
// bytes for the same question, and the same error texts.
func TestCLIAndMCPAgree(t *testing.T) {
	e := newEnv(t)
	base := e.add("Add a health endpoint", []string{"GET /health answers 204"})
	doc := e.add("Document the health endpoint in the README", []string{"README mentions /health"}, base)
	e.fx.MustGloss("task", "add", "Rotate the logs nightly", "-c", "logs older than a day are gzipped")

	session := e.fx.StartMCP("--toolsets", "tasks")
	tools, err := session.Session.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		if strings.HasPrefix(tool.Name, "task_") {
			names = append(names, tool.Name)
		}
	}
	// Chant's 23 tools, and approve/reject (commands in Chant's CLI).
	if len(names) != 25 {
		t.Errorf("%d task tools, want 25: %v", len(names), names)
	}

	for _, tc := range []struct {
		tool string
		args map[string]any
		cli  []string
	}{
		{"task_list", nil, []string{"task", "list"}},
		{"task_list", map[string]any{"status": "blocked"}, []string{"task", "list", "--status", "blocked"}},
		{"task_ready", nil, []string{"task", "ready"}},
		{"task_get", map[string]any{"id": base}, []string{"task", "show", base}},
		{"task_status", map[string]any{"brief": true}, []string{"task", "status", "--brief"}},
		{"task_search", map[string]any{"query": "HEALTH"}, []string{"task", "search", "HEALTH"}},
		{"task_lint", nil, []string{"task", "lint"}},
		{"task_verify", map[string]any{"id": base}, []string{"task", "verify", base}},
		{"task_diagnose", map[string]any{"id": base}, []string{"task", "diagnose", base}},
		{"task_work_list", map[string]any{"include_completed": true}, []string{"task", "runs", "--all"}},
	} {
		res := session.Call(tc.tool, tc.args)
		if res.IsError {
			t.Fatalf("%s: %s", tc.tool, res.Text)
		}
		args := append(tc.cli, "--json")
		if tc.tool == "task_status" {
			// Chant answers brief with the line alone; so does the CLI.
			args = tc.cli
		}
		out, err := e.fx.Gloss(args...)
		// task verify exits 1 on an unverified task (this one is), with
		// the same JSON on stdout.
		if err != nil && (tc.tool != "task_verify" || !strings.Contains(err.Error(), "exit status 1")) {
			t.Fatalf("git gloss %v: %v\n%s", tc.cli, err, out)
		}
		cli := strings.TrimRight(out, "\n")
		if res.Text != cli {
			t.Errorf("%s differs:\nmcp %s\ncli %s", tc.tool, res.Text, cli)
		}
	}

	// Errors carry the same text through both doors.
	res := session.Call("task_get", map[string]any{"id": "zzz"})
	out, err := e.fx.Gloss("task", "show", "zzz")
	if !res.IsError || err == nil || !strings.Contains(res.Text, "not found") || !strings.Contains(out, res.Text) {
		t.Errorf("unknown id: mcp %+v, cli %v %q", res, err, out)
	}
	// A missing required argument is invalid params, not a tool error.
	if _, err := session.CallErr("task_get", map[string]any{}); err == nil || !strings.Contains(err.Error(), "Missing required parameter: id") {
		t.Errorf("missing id: %v", err)
	}
	// A cycle is refused through MCP as through the CLI.
	cyc := session.Call("task_update", map[string]any{"id": base, "depends_on": []string{doc}})
	if !cyc.IsError || !strings.HasPrefix(cyc.Text, "Circular dependency detected: "+base) {
		t.Errorf("cycle through MCP: %+v", cyc)
	}
	// --read-only hides every tool that changes something.
	ro := e.fx.StartMCP("--toolsets", "tasks", "--read-only")
	if _, err := ro.CallErr("task_add", map[string]any{"description": "x"}); err == nil {
		t.Error("task_add callable on a read-only server")
	}
}

// Settling runs was once called reconcile; the old name still works for
// scripts, with the same output, but help shows only settle.
func TestTaskReconcileIsAHiddenAliasOfSettle(t *testing.T) {
	e := newEnv(t)
	settle := e.fx.MustGloss("task", "settle", "--json")
	if !strings.Contains(settle, `"$schema":"gloss-task-settle/v1"`) {
		t.Errorf("task settle: %s", settle)
	}
	if old := e.fx.MustGloss("task", "reconcile", "--json"); old != settle {
		t.Errorf("task reconcile differs from task settle:\nold %s\nnew %s", old, settle)
	}
	if old, human := e.fx.MustGloss("task", "reconcile"), e.fx.MustGloss("task", "settle"); old != human {
		t.Errorf("task reconcile differs from task settle:\nold %s\nnew %s", old, human)
	}
	help := e.fx.MustGloss("task", "--help")
	if !strings.Contains(help, "settle") || strings.Contains(help, "reconcile") {
		t.Errorf("task --help should list settle and not reconcile:\n%s", help)
	}
}
