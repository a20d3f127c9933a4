package tasks_test

import (
	"encoding/json"
	"slices"
	"testing"
)

// The three reply shapes Chant's MCP tools answer in that a migrating
// team's scripts read (https://github.com/lex00/chant/blob/ec4a403/src/mcp/tools/spec.rs):
// chant_search answers a bare array of {id, title, status, type};
// chant_ready lists each spec with its stored status (a ready spec reads
// "pending"), inside {specs, total, limit, returned}; chant_spec_get sends
// every key of its json! literal whether set or not.
func TestChantReplyShapes(t *testing.T) {
	e := newEnv(t)
	base := e.add("Add a health endpoint", []string{"GET /health answers 204"})
	e.add("Document the health endpoint", []string{"README mentions /health"}, base)
	session := e.fx.StartMCP("--toolsets", "tasks")

	var found []map[string]any
	if res := session.Call("task_search", map[string]any{"query": "health"}); json.Unmarshal([]byte(res.Text), &found) != nil || len(found) != 2 {
		t.Fatalf("task_search is not Chant's bare array of both tasks: %s", res.Text)
	}
	for _, k := range []string{"id", "title", "status", "type"} {
		if _, ok := found[0][k]; !ok {
			t.Errorf("task_search item lacks %q: %v", k, found[0])
		}
	}

	var ready struct {
		Specs []map[string]any `json:"specs"`
		Total int              `json:"total"`
	}
	if res := session.Call("task_ready", nil); json.Unmarshal([]byte(res.Text), &ready) != nil || len(ready.Specs) != 1 {
		t.Fatalf("task_ready: %s", res.Text)
	}
	if got := ready.Specs[0]["status"]; got != "pending" {
		t.Errorf("a ready task's status is %v, Chant answers the stored %q", got, "pending")
	}
	if got := ready.Specs[0]["effective_status"]; got != "ready" {
		t.Errorf("gloss's computed status is %v, want ready", got)
	}

	var spec map[string]any
	if res := session.Call("task_get", map[string]any{"id": base}); json.Unmarshal([]byte(res.Text), &spec) != nil {
		t.Fatalf("task_get: %s", res.Text)
	}
	for _, k := range []string{"id", "title", "status", "type", "depends_on", "labels", "target_files", "context", "prompt", "branch", "commits", "completed_at", "model", "body"} {
		if _, ok := spec[k]; !ok {
			t.Errorf("task_get lacks Chant's key %q (keys: %v)", k, keys(spec))
		}
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
