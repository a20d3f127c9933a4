package hostile

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
)

// fifoWorld is a repository with a named pipe planted wherever gloss reads
// files from the repository's folders: a note, a spec, a document, a task,
// a Chant spec to import, the team config. Opening a pipe for reading
// waits for a writer that never comes.
func fifoWorld(t *testing.T) *fixtures.Repo {
	t.Helper()
	r := fixtures.NewRepo(t)
	r.Commit("base", map[string]string{
		"a.go":                               "package a\n",
		"docs/plan.noma":                     "---\nnoma: \"0.1\"\ntitle: Plan\n---\n\n# Plan {#plan}\n\nText. {#p1}\n",
		".chant/specs/2026-01-01-001-abc.md": "---\nstatus: pending\n---\n# A Chant spec\n",
	})
	r.MustGloss("init", "--no-mcp")
	r.MustGloss("spec", "new", "s", "--govern", "a.go")
	r.MustGloss("note", "create", "real", "-m", "a real note about pipes")
	r.MustGloss("task", "add", "a real task", "-c", "done")
	for _, p := range []string{
		".gloss/notebook/notes/pipe.md",
		".gloss/specs/pipe.spec.yaml",
		"docs/pipe.noma",
		".gloss/tasks/2026-01-01-001-fif.md",
		".chant/specs/2026-01-01-002-fif.md",
	} {
		if err := syscall.Mkfifo(r.Path(p), 0o644); err != nil {
			t.Fatalf("mkfifo %s: %v", p, err)
		}
	}
	return r
}

// TestFIFOsInFoldersDoNotBlock is issue 28's point: a named pipe in a
// notebook, spec, document, task or import folder blocked note list, MCP
// initialize and task import for good. Each command must finish within
// its bound, the real files still served and the pipe named or skipped.
func TestFIFOsInFoldersDoNotBlock(t *testing.T) {
	t.Parallel()
	r := fifoWorld(t)
	run := func(stdin string, args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := r.Command(fixtures.Binary(t), args...)
		cmd.Stdin = strings.NewReader(stdin)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			return out.String(), err
		case <-ctx.Done():
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("%v blocked (killed after 60 s):\n%s", args, out.String())
			return out.String(), ctx.Err()
		}
	}
	for _, c := range []struct {
		args []string
		want string // in the output when the command succeeds
	}{
		{[]string{"note", "list"}, "notes/real.md"},
		{[]string{"note", "search", "pipes"}, "notes/real.md"},
		{[]string{"note", "show", "notes/pipe.md"}, ""},
		{[]string{"spec", "status"}, "s.spec.yaml"},
		{[]string{"spec", "validate"}, ""},
		{[]string{"doc", "read", "docs/pipe.noma"}, ""},
		{[]string{"doc", "read", "docs/plan.noma"}, "plan"},
		{[]string{"task", "list"}, "a real task"},
		{[]string{"status"}, ""},
	} {
		out, err := run("", c.args...)
		if c.want != "" && !strings.Contains(out, c.want) {
			t.Errorf("%v (err %v): the real files are not served:\n%s", c.args, err, out)
		}
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_notes","arguments":{}}}` + "\n"
	if out, _ := run(init, "mcp", "--toolsets", "all"); !strings.Contains(out, `"id":1`) || !strings.Contains(out, "notes/real.md") {
		t.Errorf("mcp: no answer to initialize and list_notes:\n%.2000s", out)
	}
	out, err := run("", "task", "import", "--from", ".chant")
	if err == nil || !strings.Contains(out, "2026-01-01-002-fif.md") {
		t.Errorf("task import with a pipe among the specs: %v, want a refusal naming it:\n%s", err, out)
	}
	if st := r.Git("status", "--porcelain", "--untracked-files=all", ".gloss/tasks"); strings.Contains(st, "abc") {
		t.Errorf("a refused import left files behind:\n%s", st)
	}
	if log := r.Git("log", "--oneline"); strings.Contains(log, "import") {
		t.Errorf("a refused import committed:\n%s", log)
	}
}

// TestTaskImportStopsOnSignal: an import stuck on a pipe (the reader of
// an old binary, or a slow file system) stops on SIGTERM and on SIGINT,
// and a SIGKILL leaves no partial import.
func TestTaskImportStopsOnSignal(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			r := fifoWorld(t)
			cmd := r.Command(fixtures.Binary(t), "task", "import", "--from", ".chant")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(1500 * time.Millisecond)
			_ = cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				<-done
				t.Errorf("task import ignored %v for 20 s", sig)
			}
			if st := r.Git("status", "--porcelain", "--untracked-files=all"); strings.Contains(st, ".gloss/tasks/2026-01-01-001-abc") || strings.Contains(st, ".gloss/imported") {
				t.Errorf("after %v the import is half done:\n%s", sig, st)
			}
		})
	}
}

// TestWaitingCommandStopsOnSignal: a command waiting on input that never
// comes (an import read from a named pipe nobody writes, which is the
// user's own choice of file) stops within seconds of SIGTERM or SIGINT,
// with the signal's exit code, instead of ignoring it.
func TestWaitingCommandStopsOnSignal(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			t.Parallel()
			r := fixtures.NewRepo(t)
			r.Commit("base", nil)
			pipe := filepath.Join(t.TempDir(), "export.jsonl")
			if err := syscall.Mkfifo(pipe, 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := r.Command(fixtures.Binary(t), "import", pipe)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Second)
			start := time.Now()
			_ = cmd.Process.Signal(c.sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				var ee *exec.ExitError
				if !asExit(err, &ee) || ee.ExitCode() != c.code {
					t.Errorf("after %v: %v, want exit %d", c.sig, err, c.code)
				}
				t.Logf("stopped %v after %v", c.sig, time.Since(start).Round(time.Millisecond))
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				<-done
				t.Errorf("import ignored %v for 20 s", c.sig)
			}
		})
	}
}
