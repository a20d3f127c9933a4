package tasks

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
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
// on each other's index.lock. If the commit fails, the files written under
// the lock get their old bytes back: a change is committed or it is not
// there at all.

// writeLock takes the write lock and returns its release. It is
// re-entrant within one Store, which serves one call at a time (the CLI
// and each MCP call open their own); separate Stores and processes
// exclude each other through the flock.
func (s *Store) writeLock() (func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.depth == 0 {
		dir, err := s.repo.GlossDir()
		if err != nil {
			return nil, err
		}
		unlock, err := atomicfile.Lock(filepath.Join(dir, "tasks-write.lock"))
		if err != nil {
			return nil, err
		}
		s.unlockFn, s.undo = unlock, map[string][]byte{}
	}
	s.depth++
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.depth--; s.depth == 0 {
			s.unlockFn()
			s.unlockFn, s.undo = nil, nil
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
	s.mu.Lock()
	if s.undo != nil {
		if _, seen := s.undo[p]; !seen {
			old, err := s.tree.ReadReal(p, 0)
			if err != nil && fault.KindOf(err) != fault.NotFound {
				s.mu.Unlock()
				return err
			}
			s.undo[p] = old
		}
	}
	s.mu.Unlock()
	if err := s.tree.WriteReal(p, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	return nil
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
}

// committed forgets the undo bytes once a commit has recorded them.
func (s *Store) committed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.undo)
}

// gitRetrying runs a git command that takes the index lock, retrying
// while another process (the user's own git, an editor) holds it.
func (s *Store) gitRetrying(ctx context.Context, args ...string) ([]byte, error) {
	delay := 20 * time.Millisecond
	for attempt := 0; ; attempt++ {
		out, err := s.repo.Git(ctx, args...)
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
