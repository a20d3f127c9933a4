package tasks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/detach"
	"github.com/gloss-dev/gloss/fault"
)

// The watch: a background git-gloss that settles runs as they end, one
// watch at a time under a lock, until it has been idle for five minutes.

// Watch timing.
const (
	watchPoll = 2 * time.Second
	watchIdle = 5 * time.Minute
)

func (s *Store) watchFiles() (lock, pid string, err error) {
	dir, err := s.repo.GlossDir()
	if err != nil {
		return "", "", err
	}
	if err := os.MkdirAll(filepath.Join(dir, "run"), 0o755); err != nil {
		return "", "", err
	}
	return filepath.Join(dir, "run", "watch.lock"), filepath.Join(dir, "run", "watch.pid"), nil
}

// Watch settles runs in a loop until ctx ends or nothing has run for five
// minutes. A second watch finds the lock taken and returns at once.
func (s *Store) Watch(ctx context.Context) error {
	lockPath, pidPath, err := s.watchFiles()
	if err != nil {
		return err
	}
	unlock, ok, err := atomicfile.TryLock(lockPath)
	if err != nil {
		return err
	}
	if !ok {
		return fault.Conflictf("Watch is already running")
	}
	defer unlock()
	defer os.Remove(pidPath)
	if err := os.WriteFile(pidPath, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return err
	}
	idleSince := time.Now()
	for {
		res, err := s.Settle(ctx)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gloss watch:", err)
		}
		if res != nil && len(res.Running) > 0 {
			idleSince = time.Now()
		}
		if time.Since(idleSince) > watchIdle {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(watchPoll):
		}
	}
}

// WatchStatus is task_watch_status's answer.
type WatchStatus struct {
	Schema  string    `json:"$schema"`
	Running bool      `json:"watch_running"`
	PID     int       `json:"pid,omitempty"`
	Runs    []Process `json:"runs"`
}

func (s *Store) watchPID() (int, bool) {
	lockPath, pidPath, err := s.watchFiles()
	if err != nil {
		return 0, false
	}
	if !locked(lockPath) {
		return 0, false
	}
	data, _ := os.ReadFile(pidPath)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return pid, true
}

// WatchState reports whether the watch runs, and the runs it looks after.
func (s *Store) WatchState() (*WatchStatus, error) {
	pid, running := s.watchPID()
	work, err := s.Work(true)
	if err != nil {
		return nil, err
	}
	return &WatchStatus{Schema: schemaTag, Running: running, PID: pid, Runs: work.Processes}, nil
}

// WatchStart starts the watch in the background (self is git-gloss).
func (s *Store) WatchStart(self string) (*Message, error) {
	if pid, running := s.watchPID(); running {
		return message("", "Watch is already running (PID: %d)", pid), nil
	}
	proc, err := detach.Start(self, detach.TaskWatch(s.repo.Root()), detach.Options{})
	if err != nil {
		return nil, fmt.Errorf("start watch: %w", err)
	}
	for i := 0; i < 100; i++ {
		if _, running := s.watchPID(); running {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return message("", "Started watch process (PID: %d)", proc.Pid), nil
}

// WatchStop stops the background watch.
func (s *Store) WatchStop() (*Message, error) {
	pid, running := s.watchPID()
	if !running || pid <= 0 {
		return message("", "Watch is not running"), nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return nil, fmt.Errorf("stop watch: %w", err)
	}
	for i := 0; i < 200; i++ {
		if _, running := s.watchPID(); !running {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	return message("", "Sent stop signal to watch process (PID: %d)", pid), nil
}
