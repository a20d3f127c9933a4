package tasks_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/tasks"
)

// chantProject commits a Chant project copied from testdata (each file
// names the upstream file it follows).
func chantProject(t *testing.T, e *env, dir string) {
	t.Helper()
	files := map[string]string{}
	root := filepath.Join("testdata", dir)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		data, err := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	e.fx.Commit("chant project", files)
}

func readyIDs(t *testing.T, raw string) []string {
	t.Helper()
	var res tasks.ListResult
	if err := json.Unmarshal([]byte(raw), &res); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	ids := []string{}
	for _, s := range res.Tasks {
		ids = append(ids, s.ID)
	}
	return ids
}

// Chant's approval example: a pending or rejected approval holds a
// pending task back (Spec::is_blocked), so `task ready` lists exactly what
// `chant list --ready` would — the one spec without a gate — in the CLI
// and over MCP; approving one makes it ready, with who and when written as
// chant approve writes them.
func TestChantApprovalGates(t *testing.T) {
	e := newEnv(t)
	chantProject(t, e, "chant-approval")
	e.fx.MustGloss("task", "import", "--from", ".chant")

	session := e.fx.StartMCP("--toolsets", "tasks")
	ready := func() (cli, mcp []string) {
		t.Helper()
		res := session.Call("task_ready", nil)
		if res.IsError {
			t.Fatal(res.Text)
		}
		return readyIDs(t, e.fx.MustGloss("task", "ready", "--json")), readyIDs(t, res.Text)
	}
	cli, mcp := ready()
	if want := []string{"004-no-gate"}; !slices.Equal(cli, want) || !slices.Equal(mcp, want) {
		t.Fatalf("ready: cli %v mcp %v, want %v (gated specs, the rejected one above all, are not ready)", cli, mcp, want)
	}

	var st tasks.StatusResult
	if err := json.Unmarshal([]byte(e.fx.MustGloss("task", "status", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	if st.Blocked != 3 || st.Pending != 1 || st.Approvals != (tasks.ApprovalCounts{Pending: 2, Rejected: 1}) {
		t.Fatalf("status: %+v", st)
	}
	var d tasks.Detail
	res := session.Call("task_get", map[string]any{"id": "003-rejected-change"})
	if err := json.Unmarshal([]byte(res.Text), &d); err != nil {
		t.Fatal(err)
	}
	if d.Approval == nil || d.Approval.Status != "rejected" || d.Approval.By != "bob" || d.Approval.At != "2026-02-01T14:45:12Z" ||
		d.Effective != "blocked" || !slices.Contains(d.BlockedBy, "approval rejected by bob") {
		t.Fatalf("task_get: %+v", d)
	}

	// Approve one from the CLI, the rejected one over MCP.
	e.fx.MustGloss("task", "approve", "001-risky", "--by", "marcos")
	if res := session.Call("task_approve", map[string]any{"id": "003-rejected-change", "by": "alice"}); res.IsError || !strings.Contains(res.Text, `"spec_id":"003-rejected-change"`) {
		t.Fatalf("task_approve: %s", res.Text)
	}
	cli, mcp = ready()
	if want := []string{"001-risky-refactor", "003-rejected-change", "004-no-gate"}; !slices.Equal(cli, want) || !slices.Equal(mcp, want) {
		t.Fatalf("after approving: cli %v mcp %v, want %v", cli, mcp, want)
	}
	file := e.fx.Read(".gloss/tasks/001-risky-refactor.md")
	if !regexp.MustCompile(`(?m)^approval:\n  required: true\n  status: approved\n  by: marcos\n  at: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n`).MatchString(file) {
		t.Fatalf("approval as Chant writes it:\n%s", file)
	}
	if !regexp.MustCompile(`## Approval Discussion\n\nThis spec is awaiting approval before work can begin.\n\n\*\*marcos\*\* - \d{4}-\d\d-\d\d \d\d:\d\d - APPROVED\n$`).MatchString(file) {
		t.Fatalf("discussion entry as Chant appends it:\n%s", file)
	}
	if log := e.fx.Git("log", "-1", "--format=%B"); !strings.Contains(log, "Task-Id: 003-rejected-change") {
		t.Fatalf("each decision is a commit: %s", log)
	}

	// Rejecting takes readiness away again, with the reason recorded.
	e.fx.MustGloss("task", "reject", "001-risky-refactor", "--by", "bob", "--reason", "Split token handling first")
	if cli, _ = ready(); slices.Contains(cli, "001-risky-refactor") {
		t.Fatalf("a rejected task is not ready: %v", cli)
	}
	file = e.fx.Read(".gloss/tasks/001-risky-refactor.md")
	if !strings.Contains(file, "status: rejected\n  by: bob\n") || !regexp.MustCompile(`\*\*bob\*\* - [0-9: -]+ - REJECTED\nSplit token handling first\n$`).MatchString(file) {
		t.Fatalf("rejection:\n%s", file)
	}
	// Approving what is approved changes nothing.
	head := e.fx.Git("rev-parse", "HEAD")
	if out := e.fx.MustGloss("task", "approve", "003-rejected-change", "--by", "alice"); !strings.Contains(out, "already approved by alice") || e.fx.Git("rev-parse", "HEAD") != head {
		t.Fatalf("second approval: %s", out)
	}
}

// Lint checks an approval as Chant's validate_approval_schema does
// (https://github.com/lex00/chant/blob/ec4a403/src/cmd/spec/lint.rs).
func TestLintApprovalLikeChant(t *testing.T) {
	e := newEnv(t)
	e.fx.Commit("tasks", map[string]string{
		".gloss/tasks/a-1.md": "---\napproval:\n  required: true\n  status: approved\n---\n# A\n",
		".gloss/tasks/b-1.md": "---\napproval:\n  required: true\n  status: pending\n  by: bob\n---\n# B\n",
		".gloss/tasks/c-1.md": "---\napproval:\n  required: true\n  status: rejected\n  by: bob\n  at: 2026-02-01T14:45:12Z\n---\n# C\n",
	})
	rep, err := e.s.Lint("")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, r := range rep.Results {
		for _, d := range r.Diagnostics {
			if d.Rule == "approval" {
				got[r.ID] = append(got[r.ID], d.Message)
			}
		}
	}
	want := map[string][]string{
		"a-1": {"Approval status is Approved but 'by' field is missing", "Approval status is Approved but 'at' timestamp is missing"},
		"b-1": {"Approval has 'by' field set but status is still 'pending'"},
	}
	if len(got) != len(want) || !slices.Equal(got["a-1"], want["a-1"]) || !slices.Equal(got["b-1"], want["b-1"]) {
		t.Fatalf("approval findings %q, want %q", got, want)
	}
}
