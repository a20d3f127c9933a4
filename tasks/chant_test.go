package tasks_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/tasks"
)

// Each body is counted as Chant's count_total_checkboxes and
// count_unchecked_checkboxes count it: the cases where a different reading
// would flip a task's verdict.
func TestCriteriaCountLikeChant(t *testing.T) {
	cases := []struct {
		name             string
		body             string
		total, unchecked int
	}{
		{"nested lists count", "# T\n\n## Acceptance Criteria\n\n- [x] parent\n  - [ ] child\n    - [X] grandchild\n", 3, 1},
		{"heading with a suffix", "# T\n\n## Acceptance Criteria (phase 2)\n\n- [x] done\n", 1, 0},
		{"indented heading", "# T\n\n  ## Acceptance Criteria\n- [x] done\n", 1, 0},
		{"lower-case heading is not one", "# T\n\n## acceptance criteria\n\n- [ ] open\n", 0, 0},
		{"last heading wins", "# T\n\n## Acceptance Criteria\n\n- [ ] old\n\n## Acceptance Criteria\n\n- [x] new\n", 1, 0},
		{"subsections stay inside", "# T\n\n## Acceptance Criteria\n\n### API\n- [x] a\n### CLI\n- [ ] b\n\n## Notes\n- [ ] not counted\n", 2, 1},
		{"backtick fences are skipped", "# T\n\n## Acceptance Criteria\n\n- [x] a\n```md\n- [ ] example\n## Not the end\n```\n- [x] b\n", 2, 0},
		{"tilde fences are not fences", "# T\n\n## Acceptance Criteria\n\n~~~\n- [ ] inside tildes\n~~~\n", 1, 1},
		{"several boxes on one line", "# T\n\n## Acceptance Criteria\n\n- [x] a - [ ] b - [X] c\n", 3, 1},
		{"star and plus bullets are not boxes", "# T\n\n## Acceptance Criteria\n\n* [ ] star\n+ [x] plus\n- [x] dash\n", 1, 0},
		{"windows line endings", "# T\r\n\r\n## Acceptance Criteria\r\n\r\n- [x] a\r\n## Notes\r\n- [ ] b\r\n", 1, 0},
		{"no section", "# T\n\n- [ ] loose\n", 0, 0},
	}
	e := newEnv(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := e.add(c.name, nil)
			if _, err := e.s.Update(context.Background(), tasks.UpdateInput{ID: id, Output: c.body, ReplaceBody: true}); err != nil {
				t.Fatal(err)
			}
			v, err := e.s.Verify(id)
			if err != nil {
				t.Fatal(err)
			}
			if v.Criteria.Total != c.total || v.Criteria.Unchecked != c.unchecked {
				t.Fatalf("total %d unchecked %d, want %d %d", v.Criteria.Total, v.Criteria.Unchecked, c.total, c.unchecked)
			}
			if want := c.total > 0 && c.unchecked == 0; v.Verified != want {
				t.Fatalf("verified %v, want %v", v.Verified, want)
			}
		})
	}
}

// task verify answers with its exit code: 1 when the task is not verified
// (open boxes, or none at all), 0 when it is.
func TestVerifyExitCode(t *testing.T) {
	e := newEnv(t)
	open := e.add("Open work", []string{"first", "second"})
	if out, err := e.fx.Gloss("task", "verify", open); err == nil || !strings.Contains(err.Error(), "exit status 1") {
		t.Fatalf("unverified task: %v\n%s", err, out)
	}
	none := e.add("No criteria", nil)
	if _, err := e.fx.Gloss("task", "verify", none); err == nil || !strings.Contains(err.Error(), "exit status 1") {
		t.Fatalf("a task without criteria is not verified: %v", err)
	}
	done := e.add("Done work", nil)
	if _, err := e.s.Update(context.Background(), tasks.UpdateInput{ID: done, Output: "## Acceptance Criteria\n\n- [x] it works\n", ReplaceBody: true}); err != nil {
		t.Fatal(err)
	}
	if out, err := e.fx.Gloss("task", "verify", done, "--json"); err != nil || !strings.Contains(out, `"verified":true`) {
		t.Fatalf("verified task: %v\n%s", err, out)
	}
}

// chantSpec writes a task file as Chant does: frontmatter, a title and
// criteria.
func chantSpec(status string, deps []string, criteria string) string {
	fm := "---\ntype: code\nstatus: " + status + "\n"
	if len(deps) > 0 {
		fm += "depends_on:\n"
		for _, d := range deps {
			fm += "- " + d + "\n"
		}
	}
	return fm + "---\n# A task\n\n## Acceptance Criteria\n\n" + criteria + "\n"
}

// Archived tasks in dated folders still satisfy dependencies, hand-named
// task files are tasks (id = file name), and a file whose name is no id is
// listed with a problem rather than skipped.
func TestTasksFromDatedArchivesAndOtherNames(t *testing.T) {
	e := newEnv(t)
	e.fx.Commit("tasks", map[string]string{
		".gloss/tasks/archive/2026-02-13/2026-02-12-001-abc.md": chantSpec("completed", nil, "- [x] done"),
		".gloss/tasks/archive/2026-02-12-002-old.md":            chantSpec("completed", nil, "- [x] done"),
		".gloss/tasks/2026-02-14-001-def.md":                    chantSpec("pending", []string{"2026-02-12-001-abc", "2026-02-12-002-old"}, "- [ ] next"),
		".gloss/tasks/fix-login.md":                             chantSpec("pending", nil, "- [ ] log in"),
		".gloss/tasks/2026-02-14-002-ghi.md":                    chantSpec("pending", []string{"fix-login"}, "- [ ] after login"),
		".gloss/tasks/notes about login.md":                     chantSpec("pending", nil, "- [ ] odd"),
	})
	if st := e.status("2026-02-14-001-def"); st != "ready" {
		t.Fatalf("a task whose dependencies sit in the (dated) archive must be ready, is %s", st)
	}
	if st := e.status("fix-login"); st != "ready" {
		t.Fatalf("a hand-named task is a task: %s", st)
	}
	if st := e.status("2026-02-14-002-ghi"); st != "blocked" {
		t.Fatalf("a dependency on a hand-named task counts: %s", st)
	}
	d, err := e.s.Get(context.Background(), "notes about login")
	if err != nil || d.Problem == "" || !strings.Contains(d.Problem, "not a usable task id") {
		t.Fatalf("an odd file name must be reported: %+v %v", d, err)
	}
	out := e.fx.MustGloss("task", "ready")
	if !strings.Contains(out, "fix-login") || strings.Contains(out, "notes about login") {
		t.Fatalf("task ready:\n%s", out)
	}
}

// A Chant user's project comes over in one command and one commit.
func TestImportFromChant(t *testing.T) {
	e := newEnv(t)
	e.fx.Commit("chant project", map[string]string{
		".chant/config.md":                                "---\nproject:\n  name: bells\ndefaults:\n  prompt: standard\n---\n# Config\n",
		".chant/prompts/standard.md":                      "---\nname: standard\npurpose: work\n---\nDo {{spec.title}}.\n",
		".chant/specs/2026-02-14-001-def.md":              chantSpec("blocked", []string{"2026-02-12-001-abc"}, "- [ ] next"),
		".chant/specs/auth-2026-02-14-002-k7m.md":         chantSpec("pending", nil, "- [x] a\n  - [x] nested"),
		".chant/archive/2026-02-13/2026-02-12-001-abc.md": chantSpec("completed", nil, "- [x] done"),
	})
	e.fx.Write(".chant/logs/2026-02-14-001-def.log", "# Agent Log: 2026-02-14-001-def\nfirst run\n")
	e.fx.Write(".chant/logs/2026-02-14-001-def.2.log", "second run\n")
	e.fx.Write(".chant/.gitignore", "logs/\n")
	e.fx.Git("add", ".chant/.gitignore")
	e.fx.Git("commit", "-q", "-m", "ignore logs")

	before := e.fx.Git("rev-list", "--count", "HEAD")
	var res tasks.ImportResult
	out := e.fx.MustGloss("task", "import", "--from", ".chant", "--json")
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Tasks) != 2 || len(res.Archived) != 1 || len(res.Logs) != 1 || len(res.Kept) != 2 || !res.Commit {
		t.Fatalf("import: %+v", res)
	}
	if after := e.fx.Git("rev-list", "--count", "HEAD"); after == before || e.fx.Git("status", "--porcelain", ".gloss") != "" {
		t.Fatalf("one commit with everything: %s -> %s, status %q", before, after, e.fx.Git("status", "--porcelain", ".gloss"))
	}
	if len(res.Fixed) != 1 || res.Fixed[0] != "2026-02-14-001-def" {
		t.Fatalf("a stored blocked becomes pending: %v", res.Fixed)
	}
	if st := e.status("def"); st != "ready" {
		t.Fatalf("its dependency is archived and completed: %s", st)
	}
	v, err := e.s.Verify("auth-2026-02-14-002-k7m")
	if err != nil || !v.Verified || v.Criteria.Total != 2 {
		t.Fatalf("a project-prefixed id and nested criteria: %+v %v", v, err)
	}
	lg, err := e.s.Log("2026-02-14-001-def", 100, 0, "")
	if err != nil || !strings.Contains(lg.Content, "first run") || !strings.Contains(lg.Content, "second run") {
		t.Fatalf("log: %+v %v", lg, err)
	}
	if got := e.fx.Read(".gloss/imported/chant/prompts/standard.md"); !strings.Contains(got, "{{spec.title}}") {
		t.Fatalf("prompt kept verbatim: %q", got)
	}

	// Again: nothing new, nothing overwritten, no commit.
	head := e.fx.Git("rev-parse", "HEAD")
	out = e.fx.MustGloss("task", "import", "--json")
	var again tasks.ImportResult
	if err := json.Unmarshal([]byte(out), &again); err != nil {
		t.Fatal(err)
	}
	if len(again.Tasks)+len(again.Archived)+len(again.Logs)+len(again.Kept) != 0 || e.fx.Git("rev-parse", "HEAD") != head {
		t.Fatalf("second import: %+v", again)
	}
}

// What the import leaves in the Chant folder it names, folder by folder:
// research outputs and the runtime store as in Chant's own example
// https://github.com/lex00/chant/tree/ec4a403/examples/oss-maintainer-workflow/.chant
// (research/issue-42-*.md, store/rotation.json), spec templates
// (.chant/templates/, `chant template`) and MCP process records
// (.chant/processes/<id>-<pid>.json, src/mcp/tools/work.rs).
func TestImportFromChantSaysWhatItLeft(t *testing.T) {
	e := newEnv(t)
	e.fx.Commit("chant project", map[string]string{
		".chant/config.md":                              "---\nproject:\n  name: oss\n---\n# Config\n",
		".chant/.gitignore":                             ".locks/\n.store/\nstore/\nlogs/\nprocesses/\n",
		".chant/specs/2026-02-14-001-def.md":            chantSpec("pending", nil, "- [ ] next"),
		".chant/research/issue-42-comprehension.md":     "# Comprehension\n",
		".chant/research/issue-42-root-cause.md":        "# Root cause\n",
		".chant/store/rotation.json":                    "{\"index\":0}\n",
		".chant/templates/bugfix.md":                    "---\nname: bugfix\n---\n# Fix {{title}}\n",
		".chant/processes/2026-02-14-001-def-4242.json": "{\"spec_id\":\"2026-02-14-001-def\",\"pid\":4242}\n",
	})
	var res tasks.ImportResult
	if err := json.Unmarshal([]byte(e.fx.MustGloss("task", "import", "--json")), &res); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, l := range res.Left {
		if l.Why == "" {
			t.Errorf("%s left without a reason", l.Path)
		}
		got[l.Path] = l.Files
	}
	want := map[string]int{".gitignore": 1, "processes/": 1, "research/": 2, "store/": 1, "templates/": 1}
	if len(got) != len(want) {
		t.Fatalf("left %v, want %v", got, want)
	}
	for p, n := range want {
		if got[p] != n {
			t.Errorf("left %v, want %v", got, want)
		}
	}
	out := e.fx.MustGloss("task", "import")
	if !strings.Contains(out, "not imported: templates/ (1 file(s))") || !strings.Contains(out, "research/ (2 file(s))") {
		t.Fatalf("the human answer says what it left:\n%s", out)
	}
}
