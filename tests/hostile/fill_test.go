package hostile

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
)

// fillLocks returns the fill locks and the pid each holds.
func fillLocks(t *testing.T, r *fixtures.Repo) map[string]int {
	t.Helper()
	ents, _ := os.ReadDir(r.Path(".git/gloss/fill"))
	locks := map[string]int{}
	for _, e := range ents {
		data, _ := os.ReadFile(r.Path(".git/gloss/fill/" + e.Name()))
		pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
		locks[e.Name()] = pid
	}
	return locks
}

func cachedBlames(r *fixtures.Repo) int {
	n := 0
	_ = filepath.WalkDir(r.Path(".git/gloss/blame/e"), func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// A background cache-fill killed before it filled leaves its lock behind,
// holding its pid. The next read trusts the pid: the process is gone, so
// it hands the fill over again at once (not five minutes later), and the
// cache gets filled.
func TestKilledCacheFillLockIsTakenOver(t *testing.T) {
	t.Parallel()
	r := fixtures.NewRepo(t)
	r.Commit("one", map[string]string{"big.txt": fixtures.LongFile(1)})
	r.Commit("two", map[string]string{"big.txt": fixtures.LongFile(2)})
	read := func(env ...string) {
		cmd := r.Command(fixtures.TestSwitches(t), "read", "big.txt", "--lines", "100:200", "--json")
		cmd.Env = append(append([]string{}, r.Env...), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("read: %v\n%s", err, out)
		}
	}
	// The fill the read starts inherits the kill point and dies there.
	read("GLOSS_TEST_KILL_AT=cache-fill:start")
	deadline := time.Now().Add(30 * time.Second)
	for {
		locks := fillLocks(t, r)
		dead := 0
		for _, pid := range locks {
			if pid > 0 && syscall.Kill(pid, 0) == syscall.ESRCH {
				dead++
			}
		}
		if len(locks) > 0 && dead == len(locks) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no fill lock left by a dead filler: %v (cached blames: %d)", locks, cachedBlames(r))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := cachedBlames(r); n != 0 {
		t.Fatalf("the killed fill cached %d blames", n)
	}
	read()
	deadline = time.Now().Add(30 * time.Second)
	for cachedBlames(r) == 0 || len(fillLocks(t, r)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the dead filler's lock still blocks the fill: locks %v, cached %d", fillLocks(t, r), cachedBlames(r))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
