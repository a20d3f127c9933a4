package tasks_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// A run lands only when the team's checks pass, and a check is a command
// from a committed file: it runs only once the person approved its exact
// text in the clone's own config.

// setChecks commits a team file with these checks (name = command).
func (e *env) setChecks(checks map[string]string) {
	e.t.Helper()
	var b strings.Builder
	b.WriteString("[tasks.checks]\n")
	for n, c := range checks {
		b.WriteString(n + " = " + quoteTOML(c) + "\n")
	}
	e.fx.Commit("the team's checks", map[string]string{".gloss/config.toml": b.String()})
	e.reopen()
}

func quoteTOML(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// TestFailingCheckDoesNotLand: the agent ticks every box, the team's
// check fails: the person's branch is untouched, the task needs attention
// and says which check failed, and the check's output is in the run log.
func TestFailingCheckDoesNotLand(t *testing.T) {
	e := newEnv(t)
	e.setChecks(map[string]string{"test": "echo 'FAIL: TestHello (0.00s)'; exit 2"})
	e.fx.Git("config", "--local", "--add", "gloss.approvedCheck", "echo 'FAIL: TestHello (0.00s)'; exit 2")
	id := e.add("Say hello", []string{"hello.txt exists"})
	e.useAgent(goodAgent)
	before := e.fx.Git("rev-parse", "HEAD")
	e.start(id)
	waitSettled(t, id)
	if st := e.status(id); st != "needs_attention" {
		t.Fatalf("status after a failed check: %s", st)
	}
	if n := e.fx.Git("rev-list", "--count", before+"..HEAD"); n != "0" {
		t.Errorf("a run whose check failed left %s commit(s) on the person's branch", n)
	}
	if _, err := os.Stat(e.fx.Path("hello.txt")); err == nil {
		t.Errorf("the run's work reached the person's working tree")
	}
	d, _ := e.s.Get(context.Background(), id)
	if !strings.Contains(d.Body, `check "test"`) || !strings.Contains(d.Body, "failed with status 2") || !strings.Contains(d.Body, "not merged") {
		t.Errorf("the task does not say why it was not merged:\n%s", d.Body)
	}
	lg, err := e.s.Log(id, 0, 0, "")
	if err != nil || !strings.Contains(lg.Content, "FAIL: TestHello") || !strings.Contains(lg.Content, "# gloss: check test failed with status 2") {
		t.Errorf("the check's output is not in the run log: %+v %v", lg, err)
	}
	// The run's steps are commits on its branch.
	steps := e.fx.Git("log", "--format=%s", before+"..gloss/task/"+id)
	for _, want := range []string{"pending -> in_progress", "run log", "in_progress -> needs_attention"} {
		if !strings.Contains(steps, want) {
			t.Errorf("the run's branch lacks the step %q:\n%s", want, steps)
		}
	}
	// The person decides: finalize lands it anyway, as one commit.
	if _, err := e.s.Finalize(context.Background(), id, false); err != nil {
		t.Fatal(err)
	}
	if n := e.fx.Git("rev-list", "--count", before+"..HEAD"); n != "1" || e.fx.Read("hello.txt") != "hello\n" {
		t.Errorf("finalize by the person: %s commit(s)", n)
	}
}

// TestNoCheckNoLanding: ticked boxes alone do not land a run.
func TestNoCheckNoLanding(t *testing.T) {
	e := newEnv(t)
	e.setChecks(nil)
	id := e.add("Say hello", []string{"hello.txt exists"})
	e.useAgent(goodAgent)
	e.start(id)
	waitSettled(t, id)
	d, _ := e.s.Get(context.Background(), id)
	if d.Effective != "needs_attention" || !strings.Contains(d.Body, "configured no check") {
		t.Errorf("a run with no check configured: %s\n%s", d.Effective, d.Body)
	}
}

// TestHostileCheckNeverRuns: a cloned repository whose team file names a
// check: nothing runs until this clone approves the exact text; an
// approval in the global config or of another text does not count; an
// agent that rewrites the checks on its branch is not landed.
func TestHostileCheckNeverRuns(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "pwned")
	hostile := "touch " + marker
	upstream := newEnv(t)
	upstream.setChecks(map[string]string{"test": hostile})
	clone := fixtures.Clone(t, upstream.fx.Dir)
	clone.MustGloss("init", "--no-mcp")
	e := openEnv(t, clone)
	e.fx.Git("config", "--global", "--add", "gloss.approvedCheck", hostile) // another repository's review
	e.fx.Git("config", "--local", "--add", "gloss.approvedCheck", hostile+" ")
	id := e.add("Say hello", []string{"hello.txt exists"})
	e.useAgent(goodAgent)
	before := e.fx.Git("rev-parse", "HEAD")
	e.start(id)
	waitSettled(t, id)
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the committed check ran without this clone's approval")
	}
	d, _ := e.s.Get(context.Background(), id)
	if d.Effective != "needs_attention" || !strings.Contains(d.Body, "not approved in this clone") || !strings.Contains(d.Body, "git gloss task checks --approve test") {
		t.Errorf("the task does not say the check awaits approval: %s\n%s", d.Effective, d.Body)
	}
	if n := e.fx.Git("rev-list", "--count", before+"..HEAD"); n != "0" {
		t.Errorf("%s commit(s) landed", n)
	}
	out := e.fx.MustGloss("task", "checks")
	if !strings.Contains(out, "not approved") || !strings.Contains(out, hostile) {
		t.Errorf("task checks:\n%s", out)
	}

	// An agent that changes the checks on its branch is held back even
	// when the checks pass.
	e.fx.Git("config", "--local", "--unset-all", "gloss.approvedCheck")
	e.setChecks(map[string]string{"test": "true"})
	e.fx.MustGloss("task", "checks", "--approve")
	id2 := e.add("Loosen the bar", []string{"done"})
	e.useAgent(`#!/bin/sh
printf '[tasks.checks]\ntest = "true"\nextra = "true"\n' > .gloss/config.toml
git commit -q -am "task($GLOSS_TASK_ID): loosen"
sed -i 's/- \[ \]/- [x]/' "$GLOSS_TASK_FILE"
git commit -q -am "task($GLOSS_TASK_ID): done"
`)
	e.start(id2)
	waitSettled(t, id2)
	d2, _ := e.s.Get(context.Background(), id2)
	if d2.Effective != "needs_attention" || !strings.Contains(d2.Body, "changes the team's .gloss/config.toml") {
		t.Errorf("a run that rewrites the checks: %s\n%s", d2.Effective, d2.Body)
	}
}
