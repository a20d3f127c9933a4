package attribution_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/fixtures"
)

// traceSchema finds the Agent Trace record schema beside the project
// (../shared/conformance/agent-trace from the module root; a worktree may
// sit one directory deeper). It is read from there, never copied.
func traceSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	dir := fixtures.ModuleRoot()
	for range 3 {
		dir = filepath.Dir(dir)
		p := filepath.Join(dir, "shared", "conformance", "agent-trace", "trace-record.schema.json")
		if _, err := os.Stat(p); err != nil {
			continue
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		s, err := c.Compile(p)
		if err != nil {
			t.Fatalf("compile %s: %v", p, err)
		}
		return s
	}
	t.Fatalf("no shared/conformance/agent-trace/trace-record.schema.json above %s", fixtures.ModuleRoot())
	return nil
}

func validateTraces(t *testing.T, s *jsonschema.Schema, data string) int {
	t.Helper()
	n := 0
	for _, line := range fixtures.Lines(data) {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(line))
		if err != nil {
			t.Fatalf("not JSON: %v\n%s", err, line)
		}
		if err := s.Validate(inst); err != nil {
			t.Fatalf("record does not validate against the Agent Trace schema: %v\n%s", err, line)
		}
		n++
	}
	return n
}

func TestAgentTraceExportValidatesAndRoundTrips(t *testing.T) {
	t.Parallel()
	schema := traceSchema(t)
	fx, base := history(t)
	file := filepath.Join(t.TempDir(), "trace.jsonl")
	fx.MustGloss("export", "--format", "agent-trace", "-o", file, base+"..HEAD")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	export := string(data)
	if n := validateTraces(t, schema, export); n != 2 {
		t.Fatalf("exported %d records, want 2 (one per attributed commit)", n)
	}
	all := filepath.Join(t.TempDir(), "all.jsonl")
	fx.MustGloss("export", "--format", "agent-trace", "-o", all)
	if data, _ := os.ReadFile(all); validateTraces(t, schema, string(data)) != 3 {
		t.Errorf("without a range, every attributed commit of the current branch (gloss init's too) is exported:\n%s", data)
	}
	// The schema check is real: a record it must refuse.
	bad, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"version":"0.1.0","id":"not-a-uuid","timestamp":"2026-11-25T10:00:00Z","files":[{"path":"a","conversations":[{"contributor":{"type":"robot"},"ranges":[]}]}]}`))
	if schema.Validate(bad) == nil {
		t.Fatal("the schema accepted an invalid record")
	}

	want := map[string]string{}
	for _, f := range []string{"app/a.go", "app/b.go", "lib/c.go"} {
		want[f] = fx.MustGloss("blame", "--json", f, "--rev", "HEAD")
	}

	// A fresh clone has the annotations (fetched) but no attribution.
	cl := fixtures.Clone(t, fx.Dir)
	cl.Git("fetch", "-q", "origin", "refs/notes/gloss/annotations:refs/notes/gloss/annotations")
	if got := who(blame(t, cl, "lib/c.go", "--rev", "HEAD")); got[0] != "unknown" {
		t.Fatalf("the clone already knows: %v", got)
	}
	cl.MustGloss("import", "agent-trace", file)
	for f, w := range want {
		if got := cl.MustGloss("blame", "--json", f, "--rev", "HEAD"); got != w {
			t.Errorf("%s: blame after the round trip differs:\n got  %s\n want %s", f, got, w)
		}
	}
	if out := cl.MustGloss("import", "agent-trace", file, "--json"); !strings.Contains(out, `"written":0`) {
		t.Errorf("a second import wrote again: %s", out)
	}

	// Another tool's records (no gloss metadata), from a notes ref: types
	// and models survive; agents are guessed from the models.
	other := fixtures.Clone(t, fx.Dir)
	for _, line := range fixtures.Lines(export) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		delete(rec, "metadata")
		rec["tool"] = map[string]any{"name": "other-tool", "version": "1.0"}
		data, _ := json.Marshal(rec)
		commit := rec["vcs"].(map[string]any)["revision"].(string)
		cmd := other.Command("git", "notes", "--ref", "refs/notes/agent-trace", "add", "-F", "-", commit)
		cmd.Stdin = bytes.NewReader(data)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git notes add: %v\n%s", err, out)
		}
	}
	other.MustGloss("import", "agent-trace", "--ref", "refs/notes/agent-trace")
	for f, w := range want {
		var a, b struct {
			Lines []struct {
				Contributor struct{ Type, Agent, Model string }
			}
		}
		_ = json.Unmarshal([]byte(w), &a)
		_ = json.Unmarshal([]byte(other.MustGloss("blame", "--json", f, "--rev", "HEAD")), &b)
		if len(a.Lines) != len(b.Lines) {
			t.Fatalf("%s: %d lines, want %d", f, len(b.Lines), len(a.Lines))
		}
		for i := range a.Lines {
			if a.Lines[i].Contributor != b.Lines[i].Contributor {
				t.Errorf("%s line %d: %+v from another tool's trace, want %+v", f, i+1, b.Lines[i].Contributor, a.Lines[i].Contributor)
			}
		}
	}
}

func TestImportGitAIAuthorshipLog(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	c := fx.Commit("add main", map[string]string{"src/main.rs": numbered("main", 12)})
	note := `src/main.rs
  s_c9883b05a2487d::t_9f8e7d6c5b4a32 1-4,6
  h_31dce776f88375 8-9
  abcd1234abcd1234 11
---
{"schema_version":"authorship/3.0.0","base_commit_sha":"` + c + `",
 "prompts":{"abcd1234abcd1234":{"agent_id":{"tool":"cursor","id":"old","model":"gpt-4"},"total_additions":1,"total_deletions":0,"accepted_lines":1,"overriden_lines":0}},
 "humans":{"h_31dce776f88375":{"author":"Dev <dev@example.com>"}},
 "sessions":{"s_c9883b05a2487d":{"agent_id":{"tool":"claude","id":"conv_1","model":"claude-sonnet-4-5"}}}}
`
	cmd := fx.Command("git", "notes", "--ref", "refs/notes/ai", "add", "-F", "-", c)
	cmd.Stdin = strings.NewReader(note)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git notes add: %v\n%s", err, out)
	}
	fx.MustGloss("import", "git-ai")
	const s = "ai/claude/claude-sonnet-4-5/conv_1"
	expect(t, "main.rs from git-ai", who(blame(t, fx, "src/main.rs")),
		s, s, s, s, "unknown", s, "unknown", "human", "human", "unknown", "ai/cursor/gpt-4/old", "unknown")

	// A forgotten record stays forgotten: its id derives from the git-ai
	// note, so a re-import would bring it back without the tombstones.
	var rec struct {
		ID string `json:"id"`
	}
	for _, line := range strings.Split(fx.Git("notes", "--ref", attribution.Ref, "show", c), "\n") {
		if strings.Contains(line, `"source":"import"`) {
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatal(err)
			}
		}
	}
	if rec.ID == "" {
		t.Fatalf("no imported record on %s:\n%s", c, fx.Git("notes", "--ref", attribution.Ref, "show", c))
	}
	fx.MustGloss("forget", rec.ID, "--reason", "test")
	if out := fx.MustGloss("import", "git-ai", "--json"); !strings.Contains(out, `"forgotten":1`) || !strings.Contains(out, `"written":0`) {
		t.Errorf("import after forget: %s; want the record forgotten, nothing written", out)
	}
	if note, _ := fx.GitErr("notes", "--ref", attribution.Ref, "show", c); strings.Contains(note, rec.ID) {
		t.Error("the forgotten record came back")
	}
}
