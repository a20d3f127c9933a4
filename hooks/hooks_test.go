package hooks_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/hooks"
	"github.com/gloss-dev/gloss/runenv"
)

func setupRepo(t *testing.T) *fixtures.Repo {
	t.Helper()
	fixtures.TestSwitches(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("first", map[string]string{"a.txt": "a\n"})
	fx.MustGloss("init", "--no-mcp")
	return fx
}

func withEnv(fx *fixtures.Repo, kv ...string) *fixtures.Repo {
	c := *fx
	c.Env = append(append([]string{}, fx.Env...), kv...)
	return &c
}

func TestHookFailuresNeverFailTheCommit(t *testing.T) {
	for _, fault := range []string{"error", "panic"} {
		t.Run(fault, func(t *testing.T) {
			fx := withEnv(setupRepo(t), runenv.HookFault+"="+fault)
			before := fx.Git("rev-parse", "HEAD")
			out, err := fx.GitErr("commit", "--allow-empty", "-m", "despite a "+fault)
			if err != nil {
				t.Fatalf("commit failed because of the hook: %v\n%s", err, out)
			}
			if fx.Git("rev-parse", "HEAD") == before {
				t.Fatal("no commit was made")
			}
			if !strings.Contains(out, "gloss: post-commit hook:") || !strings.Contains(out, "git continues") {
				t.Errorf("the failure was not reported on one line: %q", out)
			}
			if strings.Contains(out, "goroutine ") && fault == "error" {
				t.Errorf("stack trace shown to the user: %s", out)
			}
			if log := fx.Read(".git/gloss/hooks.log"); !strings.Contains(log, "post-commit") || !strings.Contains(log, "error:") {
				t.Errorf("failure not logged: %q", log)
			}
		})
	}
}

func TestHookTimeLimit(t *testing.T) {
	fx := setupRepo(t)
	fx.Git("config", "gloss.hookTimeout", "300ms")
	slow := withEnv(fx, runenv.HookFault+"=sleep")
	start := time.Now()
	out, err := slow.GitErr("commit", "--allow-empty", "-m", "slow hook")
	if err != nil {
		t.Fatalf("commit failed: %v\n%s", err, out)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the time limit did not stop the hook: commit took %s", took)
	}
	if !strings.Contains(out, "timed out after 300ms") {
		t.Errorf("timeout not reported: %q", out)
	}
}

func TestHookRecursionGuard(t *testing.T) {
	fx := setupRepo(t)
	// GLOSS_INTERNAL is what gloss sets on the git commands it runs; with it
	// the hook must do nothing at all, not even log.
	inner := withEnv(fx, "GLOSS_INTERNAL=1", runenv.HookFault+"=panic")
	out, err := inner.GitErr("commit", "--allow-empty", "-m", "inner")
	if err != nil || strings.Contains(out, "gloss") {
		t.Fatalf("guarded hook ran: %v\n%s", err, out)
	}
	if data, _ := os.ReadFile(fx.Path(".git/gloss/hooks.log")); strings.Contains(string(data), "panic") {
		t.Errorf("guarded hook logged a run: %s", data)
	}
}

func TestPrePushChainsAndPassesInput(t *testing.T) {
	fx := fixtures.NewRepo(t)
	fixtures.Binary(t)
	fx.Commit("first", nil)
	// Another tool's pre-push that records its input and can refuse.
	fx.Write(".git/hooks/pre-push", `#!/bin/sh
cat > "$(git rev-parse --git-dir)/prepush-input"
echo "$1 $2" > "$(git rev-parse --git-dir)/prepush-args"
[ -f "$(git rev-parse --git-dir)/refuse" ] && exit 3
exit 0
`)
	if err := os.Chmod(fx.Path(".git/hooks/pre-push"), 0o755); err != nil {
		t.Fatal(err)
	}
	fx.MustGloss("init", "--no-mcp")
	bare := fixtures.NewBare(t)
	fx.Git("remote", "add", "origin", bare)

	out, err := fx.GitErr("push", "origin", "main")
	if err != nil {
		t.Fatalf("push failed: %v\n%s", err, out)
	}
	head := fx.Git("rev-parse", "HEAD")
	if in := fx.Read(".git/prepush-input"); !strings.Contains(in, "refs/heads/main "+head+" refs/heads/main") {
		t.Errorf("chained pre-push got input %q", in)
	}
	if args := fx.Read(".git/prepush-args"); !strings.HasPrefix(args, "origin "+bare) {
		t.Errorf("chained pre-push got args %q", args)
	}
	if log := fx.Read(".git/gloss/hooks.log"); !strings.Contains(log, "pre-push") {
		t.Errorf("gloss pre-push did not run: %q", log)
	}

	// The other tool's refusal still stands.
	fx.Write(".git/refuse", "")
	fx.Commit("second", nil)
	if out, err := fx.GitErr("push", "origin", "main"); err == nil {
		t.Errorf("push went through although the chained hook refused:\n%s", out)
	}

	// And a gloss failure in pre-push does not block.
	if err := os.Remove(fx.Path(".git/refuse")); err != nil {
		t.Fatal(err)
	}
	failing := withEnv(fx, runenv.HookFault+"=error")
	if out, err := failing.GitErr("push", "origin", "main"); err != nil {
		t.Errorf("gloss's internal error blocked the push: %v\n%s", err, out)
	}
}

func TestPostRewriteRunsOnAmendAndRebase(t *testing.T) {
	fx := setupRepo(t)
	fx.Commit("second", map[string]string{"b.txt": "b\n"})
	fx.Git("commit", "--amend", "-q", "-m", "second, amended")
	fx.Commit("third", map[string]string{"c.txt": "c\n"})
	fx.Git("rebase", "-q", "--exec", "true", "HEAD~2")
	fx.Git("rebase", "-q", "-f", "HEAD~1")
	log := fx.Read(".git/gloss/hooks.log")
	if n := strings.Count(log, "post-rewrite"); n < 2 {
		t.Errorf("post-rewrite ran %d times, want at least 2 (amend, rebase):\n%s", n, log)
	}
	if strings.Contains(log, "post-rewrite") && strings.Contains(log, "error") {
		t.Errorf("post-rewrite reported an error:\n%s", log)
	}
}

func TestParseInputs(t *testing.T) {
	ups, err := hooks.ParsePushInput([]byte("refs/heads/a 1111 refs/heads/a 0000\n\nrefs/heads/b 2222 refs/heads/b 3333\n"))
	if err != nil || len(ups) != 2 || ups[1].RemoteSHA != "3333" {
		t.Errorf("ParsePushInput = %+v, %v", ups, err)
	}
	if _, err := hooks.ParsePushInput([]byte("garbage\n")); err == nil {
		t.Error("malformed pre-push input accepted")
	}
	rw, err := hooks.ParseRewriteInput([]byte("aaa bbb\nccc ddd extra\n"))
	if err != nil || len(rw) != 2 || rw[1].New != "ddd" {
		t.Errorf("ParseRewriteInput = %+v, %v", rw, err)
	}
}

func TestInvalidHookTimeoutWarns(t *testing.T) {
	fx := setupRepo(t)
	fx.Git("config", "gloss.hookTimeout", "banana")
	out, err := fx.GitErr("commit", "--allow-empty", "-m", "with a bad timeout")
	if err != nil {
		t.Fatalf("commit failed: %v\n%s", err, out)
	}
	if n := strings.Count(out, `gloss: ignoring git config gloss.hookTimeout="banana"`); n != 1 {
		t.Errorf("invalid gloss.hookTimeout reported %d times, want once per commit: %q", n, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "banana") && !strings.Contains(l, "using ") {
			t.Errorf("warning does not say what is used instead: %q", l)
		}
	}
}
