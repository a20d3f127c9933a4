package tasks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/tasks"
)

// env is a repository with gloss set up and a task store on it.
type env struct {
	t  *testing.T
	fx *fixtures.Repo
	s  *tasks.Store
}

func newEnv(t *testing.T) *env {
	t.Helper()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	// The team's check: the run's work is committed (a real team would
	// name its tests). This clone approved it, as a person would.
	fx.Commit("initial", map[string]string{"README.md": "project\n", ".gloss/config.toml": "[tasks.checks]\ncommitted = \"git diff --quiet HEAD\"\n"})
	fx.Git("config", "--local", "--add", "gloss.approvedCheck", "git diff --quiet HEAD")
	fx.MustGloss("init", "--no-mcp")
	return openEnv(t, fx)
}

func openEnv(t *testing.T, fx *fixtures.Repo) *env {
	repo, err := gitops.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(repo.Close)
	s, err := tasks.Open(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return &env{t: t, fx: fx, s: s}
}

func (e *env) add(desc string, criteria []string, deps ...string) string {
	e.t.Helper()
	res, err := e.s.Add(context.Background(), tasks.AddInput{Description: desc, Criteria: criteria, DependsOn: deps})
	if err != nil {
		e.t.Fatal(err)
	}
	return res.TaskID
}

func (e *env) status(id string) string {
	e.t.Helper()
	d, err := e.s.Get(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return d.Effective
}

var idRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}-[0-9a-z]{3}-[0-9a-z]{3}$`)

func TestAddIDsAndTrailers(t *testing.T) {
	e := newEnv(t)
	a := e.add("Add a health endpoint", []string{"GET /health answers 204"})
	if !idRE.MatchString(a) || !strings.HasPrefix(a, time.Now().UTC().Format("2006-01-02")+"-001-") {
		t.Errorf("first id %s", a)
	}
	b := e.add("Second", nil)
	if b[11:14] != "002" {
		t.Errorf("second id %s, want sequence 002", b)
	}
	// The commit carries the trailers.
	log := e.fx.Git("log", "-1", "--format=%B")
	if !strings.Contains(log, "Task-Id: "+b) || !strings.Contains(log, "Task-Transition: created") {
		t.Errorf("commit message:\n%s", log)
	}
	// Long descriptions are split into title and body.
	long := e.add("Refactor the storage layer so that writes are batched. Today every write is a round trip; batch them per request and flush at the end.", nil)
	d, _ := e.s.Get(context.Background(), long)
	if d.Title != "Refactor the storage layer so that writes are batched." || !strings.Contains(d.Body, "round trip") {
		t.Errorf("split description: %q / %q", d.Title, d.Body)
	}
}

func TestConcurrentAddsGetDistinctIDs(t *testing.T) {
	e := newEnv(t)
	const n = 6
	var wg sync.WaitGroup
	ids := make([]string, n)
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			out, err := e.fx.Gloss("task", "add", fmt.Sprintf("parallel task %d", i), "--json")
			if err != nil {
				errs[i] = fmt.Errorf("%v: %s", err, out)
				return
			}
			var res tasks.AddResult
			errs[i] = json.Unmarshal([]byte(out), &res)
			ids[i] = res.TaskID
		}(i)
	}
	wg.Wait()
	seen := map[string]bool{}
	seqs := map[string]bool{}
	for i := range ids {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if seen[ids[i]] {
			t.Errorf("duplicate id %s", ids[i])
		}
		seen[ids[i]] = true
		seqs[ids[i][11:14]] = true
	}
	if len(seqs) != n {
		t.Errorf("sequences collided: %v", ids)
	}
}

func TestResolveAndArchive(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := e.add("Alpha", []string{"done"})
	b := e.add("Beta", nil)
	for _, q := range []string{a, a[len(a)-3:], a[11:14], a[5:14]} {
		got, err := e.s.Resolve(q)
		if err != nil || got.ID != a {
			t.Errorf("Resolve(%q) = %v, %v", q, got, err)
		}
	}
	if _, err := e.s.Resolve(a[:10]); err == nil || !strings.Contains(err.Error(), "Ambiguous task ID") || !strings.Contains(err.Error(), b) {
		t.Errorf("ambiguous: %v", err)
	}
	if _, err := e.s.Resolve("zzzzzz"); err == nil || !strings.Contains(err.Error(), "Task not found") {
		t.Errorf("missing: %v", err)
	}
	if _, err := e.s.Archive(ctx, a); err == nil {
		t.Error("archived a task that is not completed")
	}
	if _, err := e.s.Update(ctx, tasks.UpdateInput{ID: a, Status: "in_progress"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.Update(ctx, tasks.UpdateInput{ID: a, Status: "completed"}); err == nil || !strings.Contains(err.Error(), "no agent execution log") {
		t.Errorf("completed without a log: %v", err)
	}
	if _, err := e.s.Update(ctx, tasks.UpdateInput{ID: a, Status: "completed", Force: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.Archive(ctx, a); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(e.fx.Path(filepath.Join(tasks.ArchiveDir, a+".md"))); err != nil {
		t.Errorf("not in the archive: %v", err)
	}
	if got, err := e.s.Resolve(a[len(a)-3:]); err != nil || got.ID != a {
		t.Errorf("archived task does not resolve: %v", err)
	}
	// The archive counts for the next sequence.
	c := e.add("Gamma", nil)
	if c[11:14] != "003" {
		t.Errorf("id after archiving = %s, want sequence 003", c)
	}
}

func TestReadinessIsComputedAndCyclesRefused(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := e.add("Base", []string{"x"})
	b := e.add("Needs base", []string{"y"}, a)
	if e.status(a) != "ready" || e.status(b) != "blocked" {
		t.Errorf("a %s, b %s", e.status(a), e.status(b))
	}
	// Never written: the file still says pending.
	if data := e.fx.Read(filepath.Join(tasks.Dir, b+".md")); !strings.Contains(data, "status: pending") || strings.Contains(data, "blocked") {
		t.Errorf("computed status written to the file:\n%s", data)
	}
	ready, _ := e.s.Ready(0)
	if len(ready.Tasks) != 1 || ready.Tasks[0].ID != a {
		t.Errorf("ready = %+v", ready.Tasks)
	}
	if _, err := e.s.Update(ctx, tasks.UpdateInput{ID: a, DependsOn: []string{b}}); err == nil || !strings.Contains(err.Error(), "Circular dependency detected: "+a+" -> "+b+" -> "+a) {
		t.Errorf("cycle: %v", err)
	}
	if _, err := e.s.Update(ctx, tasks.UpdateInput{ID: a, Status: "blocked"}); err == nil {
		t.Error("blocked accepted as a stored status")
	}
	if _, err := e.s.Update(ctx, tasks.UpdateInput{ID: a, Status: "completed"}); err == nil || !strings.Contains(err.Error(), "Invalid transition from pending to completed") {
		t.Errorf("state machine: %v", err)
	}
	if _, err := e.s.Cancel(ctx, a); err != nil {
		t.Fatal(err)
	}
	if e.status(b) != "ready" {
		t.Errorf("a cancelled dependency should satisfy: b is %s", e.status(b))
	}
	// Groups: members wait for earlier siblings; the driver for its members.
	g := e.add("Driver", []string{"one", "two", "three"})
	split, err := e.s.Split(ctx, g, false)
	if err != nil || len(split.Members) != 3 {
		t.Fatalf("split: %+v %v", split, err)
	}
	m1, m2 := split.Members[0], split.Members[1]
	if e.status(m1) != "ready" || e.status(m2) != "pending" || e.status(g) != "pending" {
		t.Errorf("members: %s %s driver %s", e.status(m1), e.status(m2), e.status(g))
	}
	if _, err := e.s.Update(ctx, tasks.UpdateInput{ID: m1, Status: "cancelled"}); err != nil {
		t.Fatal(err)
	}
	if e.status(m2) != "ready" {
		t.Errorf("second member after the first: %s", e.status(m2))
	}
}

func TestLintVerifySearchStatusDiagnose(t *testing.T) {
	e := newEnv(t)
	e.fx.Write(".gloss/config.toml", "[tasks.lint]\nvague_words = [\"somehow\"]\ncriteria_grades = [2, 3, 4]\n")
	e.fx.Commit("lint config", nil)
	e = openEnv(t, e.fx)
	good := e.add("Add retries", []string{"Add a retry loop", "Test the backoff"})
	vague := e.add("Fix the fetch code somehow", nil)
	rep, err := e.s.Lint("")
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]tasks.LintResult{}
	for _, r := range rep.Results {
		byID[r.ID] = r
	}
	if byID[vague].TrafficLight != "red" || !strings.Contains(strings.Join(byID[vague].Suggestions, " "), "vague") {
		t.Errorf("vague task: %+v", byID[vague])
	}
	if byID[good].Complexity != "B" {
		t.Errorf("configured thresholds not used: complexity %s", byID[good].Complexity)
	}
	// "fetch" does not contain the vague word "etc" as a word; only the
	// configured list counts.
	if strings.Contains(strings.Join(byID[vague].Suggestions, " "), "etc") {
		t.Errorf("default vague words used despite the config: %+v", byID[vague])
	}
	v, _ := e.s.Verify(good)
	if v.Verified || v.Criteria.Total != 2 || len(v.UncheckedItems) != 2 {
		t.Errorf("verify = %+v", v)
	}
	found, _ := e.s.Search("RETRY", "", 0)
	if len(found) != 1 || found[0].ID != good {
		t.Errorf("search = %+v", found)
	}
	st, _ := e.s.Status(true, true)
	if st.Total != 2 || st.Brief != "2 pending" || st.Ready != 2 {
		t.Errorf("status = %+v", st)
	}
	d, _ := e.s.Diagnose(context.Background(), vague)
	if d.Diagnosis != "no acceptance criteria" {
		t.Errorf("diagnose = %+v", d)
	}
}

func TestAutoCommitOff(t *testing.T) {
	e := newEnv(t)
	e.fx.Write(".gloss/config.toml", "[tasks]\nauto_commit = false\n")
	e.fx.Commit("config", nil)
	e = openEnv(t, e.fx)
	before := e.fx.Git("rev-parse", "HEAD")
	id := e.add("Left in the tree", nil)
	if e.fx.Git("rev-parse", "HEAD") != before {
		t.Error("a commit was made with auto_commit = false")
	}
	if st := e.fx.Git("status", "--porcelain", "-uall"); !strings.Contains(st, id) {
		t.Errorf("the task is not a working-tree change: %q", st)
	}
}

func TestCriteriaParserIsShared(t *testing.T) {
	e := newEnv(t)
	id := e.add("Parser", nil)
	body := "# Parser\n\n## Acceptance Criteria\n\n- [ ] old section\n\n```\n## Acceptance Criteria\n- [ ] in a fence\n```\n\n## Acceptance Criteria\n\n- [x] one\n- [X] two\n* [ ] three\n\n## Notes\n\n- [ ] not a criterion\n"
	if _, err := e.s.Update(context.Background(), tasks.UpdateInput{ID: id, Output: body, ReplaceBody: true}); err != nil {
		t.Fatal(err)
	}
	v, _ := e.s.Verify(id)
	// As Chant counts: "* [ ]" is not a box.
	if v.Criteria.Total != 2 || v.Criteria.Checked != 2 || len(v.UncheckedItems) != 0 || !v.Verified {
		t.Errorf("verify = %+v", v)
	}
	d, _ := e.s.Get(context.Background(), id)
	if d.Criteria.Total != v.Criteria.Total || d.Criteria.Checked != v.Criteria.Checked {
		t.Errorf("task_get and task_verify disagree: %+v vs %+v", d.Criteria, v.Criteria)
	}
}

// Bad input is refused before it reaches a file, and a broken task file
// is reported — never ready, never worked on — while the rest keep working.
func TestBadInputAndBrokenFiles(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, in := range []tasks.AddInput{
		{Description: "bad \xff bytes"},
		{Description: "fine", Criteria: []string{"\xfe"}},
		{Description: "   "},
		{Description: "fine", Type: "epic"},
	} {
		if _, err := e.s.Add(ctx, in); err == nil {
			t.Errorf("add %+q accepted", in)
		}
	}
	if out, err := e.fx.Gloss("task", "add", "bad \xff bytes"); err == nil || !strings.Contains(out, "not valid UTF-8") {
		t.Errorf("CLI add of invalid UTF-8: %v %s", err, out)
	}
	good := e.add("Keep working", []string{"x"})
	if _, err := e.s.Update(ctx, tasks.UpdateInput{ID: good, Output: "\xc3"}); err == nil {
		t.Error("update with invalid UTF-8 accepted")
	}

	day := time.Now().UTC().Format("2006-01-02")
	broken := map[string]string{
		day + "-100-aaa": "---\nstatus: [unclosed\n---\n# Broken\n",
		day + "-101-aaa": "---\na: &x [1]\nb: *x\n---\n# Aliased\n",
		day + "-102-aaa": "---\nstatus: pending\n",
	}
	for id, body := range broken {
		e.fx.Write(".gloss/tasks/"+id+".md", body)
	}
	list, err := e.s.List("", 0)
	if err != nil {
		t.Fatal(err)
	}
	problems := 0
	for _, s := range list.Tasks {
		if _, bad := broken[s.ID]; bad {
			problems++
			if s.Problem == "" || s.EffectiveStatus == "ready" {
				t.Errorf("broken task listed as %+v", s)
			}
		}
	}
	if problems != len(broken) {
		t.Errorf("%d broken tasks listed, want %d", problems, len(broken))
	}
	if ready, _ := e.s.Ready(0); len(ready.Tasks) != 1 || ready.Tasks[0].ID != good {
		t.Errorf("ready = %+v, want only %s", ready.Tasks, good)
	}
	if _, err := e.s.WorkStart(ctx, day+"-100-aaa", fixtures.Binary(t)); err == nil || !strings.Contains(err.Error(), "cannot be worked on") {
		t.Errorf("work on a broken task: %v", err)
	}
	if out := e.fx.MustGloss("task", "show", "101-aaa"); !strings.Contains(out, "invalid file:") {
		t.Errorf("show of a broken task:\n%s", out)
	}
}
