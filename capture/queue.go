package capture

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/gitops"
)

// The post-commit queue: <common git dir>/gloss/queue/<commit>.json, one
// job per commit, decided when the commit was made and kept until a
// worker has done it. The job's shape is the hooks' (hooks.Job); the
// queue keeps it whole and hands it back typed.

func queueDir(repo *gitops.Repo) string {
	return filepath.Join(repo.CommonDir(), "gloss", "queue")
}

// Enqueue keeps job, the work of commit, until Drain has run it. The
// write is atomic, so a killed hook leaves the whole job or none.
func Enqueue(repo *gitops.Repo, commit string, job any) error {
	data, err := json.Marshal(job)
	if err != nil {
		return err
	}
	return replaceFile(filepath.Join(queueDir(repo), commit+".json"), data, 0o644, repo.Durable())
}

// Queued returns the commits whose jobs wait, oldest first.
func Queued(repo *gitops.Repo) []string {
	ents, err := os.ReadDir(queueDir(repo))
	if err != nil {
		return nil
	}
	type queued struct {
		commit string
		at     int64
	}
	var qs []queued
	for _, e := range ents {
		c, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || len(c) < 40 {
			continue
		}
		var at int64
		if info, err := e.Info(); err == nil {
			at = info.ModTime().UnixNano()
		}
		qs = append(qs, queued{c, at})
	}
	sort.SliceStable(qs, func(i, j int) bool { return qs[i].at < qs[j].at })
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.commit
	}
	return out
}

// Drain runs the queued jobs, each decoded into a T and handed to run,
// and removes each once run succeeds; one that fails stays for the next
// drain, and one that cannot be decoded, or whose commit (commitOf) is
// not the one it is queued for, is set aside (renamed .bad, for a person
// to look at, never run). One drain runs at a
// time: when another holds the queue, Drain returns false at once, and
// that one sees the jobs queued meanwhile. The lock is an flock, so a
// drain that is killed releases it and leaves its job for the next.
func Drain[T any](ctx context.Context, repo *gitops.Repo, commitOf func(*T) string, run func(*T) error) (ran bool, err error) {
	dir := queueDir(repo)
	var errs []error
	failed := map[string]bool{}
	for {
		unlock, ok, err := atomicfile.TryLock(filepath.Join(dir, "worker.lock"))
		if err != nil || !ok {
			return ran, errors.Join(append(errs, err)...)
		}
		ran = true
		for _, c := range Queued(repo) {
			if ctx.Err() != nil {
				break
			}
			if failed[c] {
				continue
			}
			p := filepath.Join(dir, c+".json")
			data, err := os.ReadFile(p)
			if err != nil {
				continue // another drain ran it between our lock and theirs
			}
			var job T
			if err := json.Unmarshal(data, &job); err != nil || commitOf(&job) != c {
				_ = os.Rename(p, p+".bad")
				continue
			}
			if err := run(&job); err != nil {
				errs = append(errs, err)
				failed[c] = true
				continue
			}
			_ = os.Remove(p)
		}
		unlock()
		// A job queued after the last look, while the lock was held, was
		// left by the worker its hook started (it found the lock taken):
		// look again now that the lock is free.
		left := slices.DeleteFunc(Queued(repo), func(c string) bool { return failed[c] })
		if len(left) == 0 || ctx.Err() != nil {
			return ran, errors.Join(errs...)
		}
	}
}

// Backlog is the post-commit work waiting for the worker, as `git gloss
// status` shows it.
type Backlog struct {
	// Commits are the commits whose annotation and attribution wait,
	// oldest first.
	Commits []string `json:"commits"`
	// Running says a worker is running them now.
	Running bool `json:"running"`
}

// QueueBacklog returns the queue's backlog. It takes no lock a worker
// would wait for: it only tries the worker's.
func QueueBacklog(repo *gitops.Repo) Backlog {
	b := Backlog{Commits: Queued(repo)}
	if b.Commits == nil {
		b.Commits = []string{}
	}
	lock := filepath.Join(queueDir(repo), "worker.lock")
	if _, err := os.Stat(lock); err != nil {
		return b
	}
	unlock, ok, err := atomicfile.TryLock(lock)
	if ok {
		unlock()
	}
	b.Running = err == nil && !ok
	return b
}

// WaitIdle waits until the post-commit queue is empty and no worker holds
// it, or ctx ends: what the worker writes is then all written, and the
// repository may be read or removed. Tests and benchmarks wait so.
func WaitIdle(ctx context.Context, repo *gitops.Repo) error {
	for {
		if b := QueueBacklog(repo); len(b.Commits) == 0 && !b.Running {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the post-commit worker is still busy (%w): queued %v", ctx.Err(), Queued(repo))
		case <-time.After(50 * time.Millisecond):
		}
	}
}
