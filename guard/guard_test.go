package guard_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/guard"
)

func TestRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if err := guard.Run(ctx, guard.GitHooks, time.Second, func(context.Context) error { return nil }); err != nil {
		t.Errorf("work that succeeds: %v", err)
	}
	failed := errors.New("failed")
	if err := guard.Run(ctx, guard.GitHooks, time.Second, func(context.Context) error { return failed }); !errors.Is(err, failed) {
		t.Errorf("work that fails: %v", err)
	}
	err := guard.Run(ctx, guard.AgentHooks, time.Second, func(context.Context) error { panic("boom") })
	if err == nil || !strings.Contains(err.Error(), "internal error: boom") || !strings.Contains(err.Error(), "guard_test.go") {
		t.Errorf("work that panics: %v", err)
	}
	// Work that ignores its deadline: Run returns at once, a TimeoutError.
	stuck := make(chan struct{})
	defer close(stuck)
	start := time.Now()
	err = guard.Run(ctx, guard.GitHooks, 50*time.Millisecond, func(context.Context) error { <-stuck; return nil })
	var late *guard.TimeoutError
	if !errors.As(err, &late) || late.After != 50*time.Millisecond || err.Error() != "timed out after 50ms" {
		t.Errorf("stuck work: %v", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("Run waited %s for stuck work", took)
	}
}

// The log is its owner's alone, even one an older gloss made readable by
// all, and starts over past its bound, keeping the one before.
func TestAppendLog(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "hooks.log")
	if err := os.WriteFile(p, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	guard.AppendLog(p, "post-commit", "12ms", "error: a\nb")
	data, _ := os.ReadFile(p)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[1], " post-commit 12ms error: a | b") {
		t.Errorf("log = %q", data)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v, want 0600", st.Mode().Perm())
	}
	big := strings.Repeat("x", 1<<20+1)
	if err := os.WriteFile(p, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	guard.AppendLog(p, "post-commit", "1ms", "ok")
	if st, _ := os.Stat(p + ".1"); st == nil || st.Size() != int64(len(big)) {
		t.Errorf("the full log was not kept as .1: %v", st)
	}
	if data, _ := os.ReadFile(p); strings.Count(string(data), "\n") != 1 {
		t.Errorf("the new log holds %q", data)
	}
}
