package attribution_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/notes"
)

// traceFor is an Agent Trace 0.1.0 record in the shape of the
// specification's §6.3 "Line-level attribution" example
// (fixtures/agenttrace/rfc-6.3-line-level): one file, one conversation.
func traceFor(t *testing.T, id, commit, tool, path string, start, end int, typ, model, url string) string {
	t.Helper()
	rec := map[string]any{
		"version": "0.1.0", "id": id, "timestamp": "2026-01-24T09:00:00Z",
		"vcs":  map[string]any{"type": "git", "revision": commit},
		"tool": map[string]any{"name": tool, "version": "2.4.0"},
		"files": []any{map[string]any{"path": path, "conversations": []any{map[string]any{
			"url": url, "contributor": map[string]any{"type": typ, "model_id": model},
			"ranges": []any{map[string]any{"start_line": start, "end_line": end}},
		}}}},
	}
	data, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), id+".json")
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func importTrace(t *testing.T, fx *fixtures.Repo, file string) notes.ImportResult {
	t.Helper()
	var res notes.ImportResult
	if err := json.Unmarshal([]byte(fx.MustGloss("import", "agent-trace", file, "--json")), &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// Two Agent Trace records for the same file and commit (two conversations
// that wrote different lines, imported one after the other) both keep
// their lines: the second does not erase the first.
func TestTwoTracesOfOneFileMergeByRange(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	commit := fx.Commit("utils", map[string]string{"src/utils.ts": numbered("line", 60)})
	first := traceFor(t, "6f1c2d3e-4a5b-4c6d-8e7f-0a1b2c3d4e01", commit, "cursor", "src/utils.ts", 10, 25, "ai", "anthropic/claude-sonnet-4-20250514", "https://api.example.com/v1/conversations/abc")
	second := traceFor(t, "6f1c2d3e-4a5b-4c6d-8e7f-0a1b2c3d4e02", commit, "cursor", "src/utils.ts", 50, 52, "ai", "openai/gpt-4o", "https://api.example.com/v1/conversations/def")
	for _, f := range []string{first, second} {
		if res := importTrace(t, fx, f); res.Written != 1 {
			t.Fatalf("import of %s: %+v", f, res)
		}
	}
	got := who(blame(t, fx, "src/utils.ts", "--rev", "HEAD"))
	abc := "ai/cursor/anthropic/claude-sonnet-4-20250514/https://api.example.com/v1/conversations/abc"
	def := "ai/cursor/openai/gpt-4o/https://api.example.com/v1/conversations/def"
	expect(t, "lines after two imports", got,
		join(repeat("unknown", 9), repeat(abc, 16), repeat("unknown", 24), repeat(def, 3), repeat("unknown", 8))...)
}

// A record imported over the commit's own (hook) record either changes
// what the lines read, or is reported as skipped with its reason: never
// "imported" with no effect.
func TestTraceOverTheHooksRecord(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)
	// A person's commit: the hook says human (from the author) for every line.
	fx.Write("src/app.ts", numbered("line", 10))
	person := commitAll(t, fx, "app")
	res := importTrace(t, fx, traceFor(t, "6f1c2d3e-4a5b-4c6d-8e7f-0a1b2c3d4e11", person, "cursor", "src/app.ts", 3, 5, "ai", "openai/gpt-5", "https://api.cursor.com/v1/conversations/77"))
	if res.Written != 1 || res.Outranked != 0 {
		t.Fatalf("import over the author's lines: %+v", res)
	}
	cursor := "ai/cursor/openai/gpt-5/https://api.cursor.com/v1/conversations/77"
	expect(t, "a person's commit after Cursor's trace", who(blame(t, fx, "src/app.ts", "--rev", "HEAD")),
		join(repeat(human, 2), repeat(cursor, 3), repeat(human, 5))...)

	// An agent's commit gloss captured line by line: a trace naming the
	// same lines as a person's changes nothing, and says so.
	fx.AgentWrites("claude", "claude-opus-4", "s1", "lib/x.go", numbered("agent", 4))
	agent := commitAll(t, fx, "x")
	before := who(blame(t, fx, "lib/x.go", "--rev", "HEAD"))
	out := fx.MustGloss("import", "agent-trace", traceFor(t, "6f1c2d3e-4a5b-4c6d-8e7f-0a1b2c3d4e12", agent, "other-tool", "lib/x.go", 1, 4, "human", "", "https://example.com/c/1"))
	if !strings.Contains(out, "imported 0 record(s)") || !strings.Contains(out, "skipped 1: attribution records that would change no line") {
		t.Errorf("import over the captured lines said:\n%s", out)
	}
	expect(t, "the captured lines after the trace", who(blame(t, fx, "lib/x.go", "--rev", "HEAD")), before...)
	expect(t, "the captured lines", before, repeat(claude, 4)...)
}

// An export without a range follows the current branch: a commit an amend
// rewrote away is left out (its attribution lives on in the amended
// commit), and the export says so.
func TestTraceExportFollowsTheBranch(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)
	fx.AgentWrites("claude", "claude-opus-4", "s1", "lib/x.go", numbered("agent", 4))
	old := commitAll(t, fx, "x")
	fx.Git("commit", "-q", "--amend", "-m", "x, reworded")
	amended := fx.Git("rev-parse", "HEAD")
	file := filepath.Join(t.TempDir(), "trace.jsonl")
	out := fx.MustGloss("export", "--format", "agent-trace", "-o", file)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	revs := map[string]bool{}
	for _, l := range fixtures.Lines(string(data)) {
		var rec struct {
			VCS struct {
				Revision string `json:"revision"`
			} `json:"vcs"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		revs[rec.VCS.Revision] = true
	}
	if revs[old] || !revs[amended] {
		t.Errorf("the export is about %v: want the amended commit %s and not %s", revs, amended, old)
	}
	if !strings.Contains(out, "reachable from HEAD") || !strings.Contains(out, "1 attributed commit(s) it does not reach") {
		t.Errorf("the export did not say what it left out: %s", out)
	}
}
