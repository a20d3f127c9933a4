package detach_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/detach"
)

func TestATestBinaryIsNoGloss(t *testing.T) {
	t.Parallel()
	if _, err := detach.Self(); !errors.Is(err, detach.ErrNotGloss) {
		t.Fatalf("Self in a test binary: %v, want ErrNotGloss", err)
	}
}

// TestStartDetaches: the started process runs in a session of its own, in
// the directory asked for, with its output where it was asked to go.
func TestStartDetaches(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc to read a session id from")
	}
	// Field 6 of /proc/PID/stat is the session id.
	p, err := detach.Start("/bin/sh", []string{"-c", "pwd; echo $$; cut -d' ' -f6 /proc/$$/stat; echo done"}, detach.Options{Dir: dir, Output: out})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		data, _ := os.ReadFile(out.Name())
		if got = strings.Fields(string(data)); len(got) == 4 {
			break
		}
	}
	real, _ := filepath.EvalSymlinks(dir)
	pid := strconv.Itoa(p.Pid)
	if len(got) != 4 || (got[0] != dir && got[0] != real) || got[1] != pid || got[2] != pid {
		t.Errorf("output %q, want [%s %d %d done]: its directory, its pid, a session of its own", got, dir, p.Pid, p.Pid)
	}
}
