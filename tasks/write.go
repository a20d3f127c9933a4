package tasks

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
)

// Task files follow one writer discipline. Every change runs under the
// store's write lock (an flock under the git dir, re-entrant within one
// Store): the read that decides the change, the atomic write of the file
// and the commit that records it. Task commits all go through the one
// index, so serializing them also keeps gloss's own writers from failing
// on each other's index.lock.
//
// A change is committed or it is not there at all, even when the writer
// is killed. Before a file is first touched under the lock, its old bytes
// go into a journal kept in the lock file itself (one JSON line each, like
// the journal of a document patch in noma), and so does the pid of each
// git the writer starts. The journal is cleared once the change is
// committed or rolled back. Whoever takes the lock next and finds a
// journal settles it: it waits for the dead writer's git to finish, keeps
// what that git committed, and puts the old bytes back (and the index
// entry) for what it did not. So a killed `task update` never leaves its
// text in the working tree for the next update to commit as its own.

// journalEntry is one line of the write journal: a file about to be
// written (Path, with its old bytes, Existed false for a new file) or a
// git process started under the lock (Git).
type journalEntry struct {
	Path    string `json:"path,omitempty"`
	Old     []byte `json:"old,omitempty"`
	Existed bool   `json:"existed,omitempty"`
	Git     int    `json:"git_pid,omitempty"`
}

// writeLock takes the write lock and returns its release. It is
// re-entrant within one Store, which serves one call at a time (the CLI
// and each MCP call open their own); separate Stores and processes
// exclude each other through the flock. Releasing the outermost hold puts
// back whatever was written and never recorded.
func (s *Store) writeLock() (func(), error) {
	s.mu.Lock()
	if s.depth == 0 {
		s.mu.Unlock()
		dir, err := s.repo.GlossDir()
		if err != nil {
			return nil, err
		}
		f, err := atomicfile.LockFile(filepath.Join(dir, "tasks-write.lock"), syscall.LOCK_EX)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.lock, s.undo = f, map[string][]byte{}
		s.mu.Unlock()
		if err := s.settleJournal(context.Background()); err != nil {
			s.mu.Lock()
			s.lock, s.undo = nil, nil
			s.mu.Unlock()
			f.Close()
			return nil, fmt.Errorf("settle a task write interrupted earlier: %w", err)
		}
		s.mu.Lock()
	}
	defer s.mu.Unlock()
	s.depth++
	return func() {
		s.mu.Lock()
		pending := s.depth == 1 && len(s.undo) > 0
		s.mu.Unlock()
		if pending {
			s.rollback()
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.depth--; s.depth == 0 {
			s.lock.Close()
			s.lock, s.undo = nil, nil
		}
	}, nil
}

// writeFile replaces a task-folder file atomically through the resolver,
// keeping its old bytes so that a failed commit can put them back.
func (s *Store) writeFile(p string, data []byte) error {
	real, err := s.tree.Resolve(p)
	if err != nil {
		return err
	}
	if real != p {
		return fault.Usagef("%s is reached through a symbolic link (to %s); gloss writes task files only in place", p, real)
	}
	if err := s.journalFiles(p); err != nil {
		return err
	}
	fault.Point("tasks:journaled")
	if err := s.tree.WriteReal(p, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	fault.Point("tasks:written")
	return nil
}

// journalFiles records the old bytes of paths about to change (a write, a
// rename's two ends) the first time each is touched under the lock.
func (s *Store) journalFiles(paths ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.undo == nil {
		return nil
	}
	for _, p := range paths {
		if _, seen := s.undo[p]; seen {
			continue
		}
		old, err := s.tree.ReadReal(p, 0)
		if err != nil && fault.KindOf(err) != fault.NotFound {
			return err
		}
		if err := s.appendJournal(journalEntry{Path: p, Old: old, Existed: err == nil}); err != nil {
			return err
		}
		if err == nil && old == nil {
			old = []byte{}
		}
		s.undo[p] = old
	}
	return nil
}

// appendJournal adds one line to the journal in the lock file. A line torn
// by a kill is ignored when settling: its file was not touched yet.
func (s *Store) appendJournal(e journalEntry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if _, err := s.lock.Seek(0, io.SeekEnd); err != nil {
		return err
	}
	if _, err := s.lock.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("task write journal: %w", err)
	}
	if s.tree.Durable() {
		return atomicfile.DataSync(s.lock)
	}
	return nil
}

// clearJournal empties the journal: what it covered is committed or put
// back.
func (s *Store) clearJournal() {
	if s.lock == nil {
		return
	}
	_ = s.lock.Truncate(0)
	if s.tree.Durable() {
		_ = atomicfile.DataSync(s.lock)
	}
}

// rollback restores the files written under the lock since the last
// commit.
func (s *Store) rollback() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p, old := range s.undo {
		if old == nil {
			_ = s.root.Remove(p)
		} else {
			_ = s.tree.WriteReal(p, old, 0o644)
		}
	}
	clear(s.undo)
	s.clearJournal()
}

// committed forgets the undo bytes once a commit has recorded them.
func (s *Store) committed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.undo)
	s.clearJournal()
}

// settleJournal finishes what a killed writer left: every file it
// journaled is either what HEAD has (its commit happened: kept) or gets
// its old bytes back, with its index entry reset when gloss had staged it.
func (s *Store) settleJournal(ctx context.Context) error {
	if _, err := s.lock.Seek(0, io.SeekStart); err != nil {
		return err
	}
	data, err := io.ReadAll(s.lock)
	if err != nil || len(data) == 0 {
		return err
	}
	var files []journalEntry
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for sc.Scan() {
		var e journalEntry
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			break // torn by the kill: nothing after it was touched
		}
		if e.Git > 0 {
			waitGone(e.Git, 30*time.Second)
		}
		if e.Path != "" && !seen[e.Path] {
			seen[e.Path] = true
			files = append(files, e)
		}
	}
	var restored []string
	for _, e := range files {
		cur, err := s.tree.ReadReal(e.Path, 0)
		if err != nil && fault.KindOf(err) != fault.NotFound {
			return err
		}
		exists := err == nil
		head, headErr := s.repo.Git(ctx, "cat-file", "blob", "HEAD:"+e.Path)
		inHead := headErr == nil
		if exists == inHead && bytes.Equal(cur, head) {
			continue // committed (or never changed from what HEAD has)
		}
		if exists == e.Existed && bytes.Equal(cur, e.Old) {
			continue // the write never happened
		}
		if e.Existed {
			err = s.tree.WriteReal(e.Path, e.Old, 0o644)
		} else {
			err = s.root.Remove(e.Path)
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		restored = append(restored, e.Path)
	}
	if len(restored) > 0 && s.autoCommit() {
		// The dead writer may have staged them; it staged nothing else.
		if _, err := s.gitRetrying(ctx, append([]string{"reset", "--quiet", "--"}, restored...)...); err != nil {
			return err
		}
	}
	s.clearJournal()
	return nil
}

// waitGone waits (at most limit) for a process to end: a git a killed
// writer started goes on and may still commit.
func waitGone(pid int, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		// A zombie nobody reaps has finished all the same.
		if alive, known := atomicfile.ProcessAlive(pid); known && !alive {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// gitRetrying runs a git command that takes the index lock, retrying
// while another process (the user's own git, an editor) holds it. Under
// the write lock the git's pid is journaled first.
func (s *Store) gitRetrying(ctx context.Context, args ...string) ([]byte, error) {
	delay := 20 * time.Millisecond
	for attempt := 0; ; attempt++ {
		out, err := s.git(ctx, args...)
		var ge *gitops.GitError
		if err == nil || attempt >= 8 || !errors.As(err, &ge) || !strings.Contains(ge.Stderr, "index.lock") {
			return out, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(delay):
		}
		delay *= 2
	}
}

// git runs one git command, journaling its pid when under the write lock.
func (s *Store) git(ctx context.Context, args ...string) ([]byte, error) {
	cmd := s.repo.Command(ctx, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("run git: %w", err)
	}
	s.mu.Lock()
	if s.lock != nil {
		_ = s.appendJournal(journalEntry{Git: cmd.Process.Pid})
	}
	s.mu.Unlock()
	if err := cmd.Wait(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("git %s: %w", strings.Join(args, " "), ctx.Err())
			}
			return nil, fmt.Errorf("run git: %w", err)
		}
		return stdout.Bytes(), &gitops.GitError{Args: args, ExitCode: ee.ExitCode(), Stderr: stderr.String()}
	}
	return stdout.Bytes(), nil
}
