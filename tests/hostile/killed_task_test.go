package hostile

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
)

// taskRepo is a repository with gloss set up and one committed task.
func taskRepo(t *testing.T) (*fixtures.Repo, string) {
	t.Helper()
	r := fixtures.NewRepo(t)
	r.Commit("base", map[string]string{"README.md": "x\n"})
	r.MustGloss("init")
	r.Git("add", "-A")
	r.Git("commit", "-qm", "init")
	var added struct {
		ID string `json:"spec_id"`
	}
	if err := json.Unmarshal([]byte(r.MustGloss("task", "add", "Shared task", "--json")), &added); err != nil || added.ID == "" {
		t.Fatalf("task add: %v", err)
	}
	return r, added.ID
}

// killedUpdate starts `task update --output text` and SIGKILLs it: at a
// kill point when point is set, else after delay. It reports whether the
// process died by the signal.
func killedUpdate(t *testing.T, r *fixtures.Repo, id, text, point string, delay time.Duration) bool {
	t.Helper()
	cmd := r.Command(fixtures.TestSwitches(t), "task", "update", id, "--output", text)
	if point != "" {
		cmd.Env = append(append([]string{}, r.Env...), "GLOSS_TEST_KILL_AT="+point)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if point == "" {
		time.Sleep(delay)
		_ = cmd.Process.Signal(syscall.SIGKILL)
	}
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	return ok && ee.Sys().(syscall.WaitStatus).Signaled()
}

var marker = regexp.MustCompile(`(?:killed|ok)-[a-z0-9:-]+`)

// checkTaskCommits: the task folder is clean, and no commit carries the
// text of two commands (each update is its own commit or nothing).
func checkTaskCommits(t *testing.T, r *fixtures.Repo, id string) {
	t.Helper()
	if st := r.Git("status", "--porcelain", "--", ".gloss/tasks"); st != "" {
		t.Errorf("task changes left uncommitted:\n%s", st)
	}
	// One git log for all the task's commits, split at each commit.
	log := r.Git("log", "-p", "--format=commit %H", "--grep", "Task-Id: "+id)
	for _, c := range strings.Split(log, "commit ")[1:] {
		var added []string
		for _, line := range strings.Split(c, "\n") {
			if strings.HasPrefix(line, "+") && !strings.HasPrefix(line, "+++") {
				added = append(added, marker.FindAllString(line, -1)...)
			}
		}
		if len(added) > 1 {
			t.Errorf("commit %.10s carries the text of more than one command: %v", c, added)
		}
	}
}

// A task update killed at any step leaves the task as it was or commits
// it whole; the next update never sweeps the killed one's text into its
// own commit. Each kill point is a step of the write (journal written,
// file written, staged, committed); the random kills land anywhere,
// including while the dead writer's git is still committing.
func TestKilledTaskUpdateIsAllOrNothing(t *testing.T) {
	t.Parallel()
	r, id := taskRepo(t)
	points := []string{"tasks:journaled", "tasks:written", "tasks:staged", "tasks:committed"}
	for n, p := range points {
		killed := "killed-" + strings.ReplaceAll(p, ":", "-")
		if !killedUpdate(t, r, id, killed, p, 0) {
			t.Fatalf("%s: the update was not killed at its kill point", p)
		}
		body := r.Read(r.Git("ls-files", ".gloss/tasks"))
		if want := p == "tasks:committed"; strings.Contains(body, killed) != want && r.Git("status", "--porcelain", "--", ".gloss/tasks") == "" {
			t.Errorf("%s: killed update in the committed task: %v, want %v", p, !want, want)
		}
		r.MustGloss("task", "update", id, "--output", fmt.Sprintf("ok-after-%d", n))
		body = r.Read(r.Git("ls-files", ".gloss/tasks"))
		if strings.Contains(body, killed) != (p == "tasks:committed") {
			t.Errorf("%s: after the next update the killed text is there: %v (want it only when its commit had happened)", p, !(p == "tasks:committed"))
		}
		checkTaskCommits(t, r, id)
	}
	// Time one update, then kill others at random moments of their run.
	begin := time.Now()
	r.MustGloss("task", "update", id, "--output", "ok-warmup")
	span := time.Since(begin)
	kills := 0
	for i := range 8 {
		if killedUpdate(t, r, id, fmt.Sprintf("killed-random-%d", i), "", span/4+time.Duration(rand.Int64N(int64(span)))) {
			kills++
		} else {
			span = span * 2 / 3 // it finished first: aim earlier
		}
		r.MustGloss("task", "update", id, "--output", fmt.Sprintf("ok-random-%d", i))
		checkTaskCommits(t, r, id)
		if t.Failed() {
			t.Fatalf("after random kill %d", i)
		}
	}
	t.Logf("%d kill points and %d of 8 random kills; clean after each", len(points), kills)
	if out, err := r.GitErr("fsck", "--no-progress"); err != nil {
		t.Errorf("git fsck: %v %s", err, out)
	}
}
