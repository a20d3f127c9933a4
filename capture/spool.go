// Package capture is the home of what the commit-time pipeline keeps
// between processes, under the git dir, never committed or pushed:
//
//   - the captured edits (edits.go): which lines of which file an agent
//     wrote, written by the agent hooks, taken by the commit that
//     contains them;
//   - the staged contexts (Stage): what `git gloss annotate` and
//     gloss_annotate say about the next commit, taken by it;
//   - the post-commit queue (queue.go): the jobs a detached worker does
//     after the commit.
//
// Each is a file (or a folder of them) behind an flock lock, so a writer
// and the hook that takes what it wrote never lose a line to each other.
// The records' meaning belongs to the packages above; the files, their
// locks and their line hash are here, once.
package capture

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/gitops"
)

// spool is a JSON Lines file of records for this worktree's next commit,
// with its lock beside it.
type spool struct {
	path     func(repo *gitops.Repo) (string, error)
	mode     os.FileMode
	maxBytes int // the longest line read
}

// with runs fn on the spool's path under its lock.
func (s spool) with(repo *gitops.Repo, fn func(p string) error) error {
	p, err := s.path(repo)
	if err != nil {
		return err
	}
	unlock, err := atomicfile.Lock(p + ".lock")
	if err != nil {
		return fmt.Errorf("lock %s: %w", filepath.Base(p), err)
	}
	defer unlock()
	return fn(p)
}

// appendLines appends encoded records to the file at p.
func (s spool) appendLines(p string, data []byte) error {
	f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, s.mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// encodeLines encodes records as JSON Lines.
func encodeLines[T any](recs []T) ([]byte, error) {
	var buf bytes.Buffer
	for i := range recs {
		line, err := json.Marshal(recs[i])
		if err != nil {
			return nil, err
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}

// readLines reads the records of the file at p; keep drops a record that
// decoded but is not one (another schema). A damaged line is skipped: it
// must not lose the others.
func readLines[T any](p string, maxBytes int, keep func(*T) bool) ([]T, error) {
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []T
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxBytes)
	for sc.Scan() {
		var rec T
		if len(bytes.TrimSpace(sc.Bytes())) == 0 || json.Unmarshal(sc.Bytes(), &rec) != nil || keep != nil && !keep(&rec) {
			continue
		}
		out = append(out, rec)
	}
	return out, sc.Err()
}

// The staged contexts: <worktree git dir>/gloss/pending.jsonl, one
// context a line, for this worktree's next commit. The record is
// annotate's (annotate.Context); the spool does not look inside it.
var staged = spool{
	path: func(repo *gitops.Repo) (string, error) {
		dir, err := repo.WorktreeGlossDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(dir, "pending.jsonl"), nil
	},
	mode:     0o644,
	maxBytes: 16 << 20,
}

// Stage appends records to the staged contexts and returns how many
// are staged now.
func Stage[T any](repo *gitops.Repo, recs []T) (total int, err error) {
	data, err := encodeLines(recs)
	if err != nil {
		return 0, err
	}
	err = staged.with(repo, func(p string) error {
		if err := staged.appendLines(p, data); err != nil {
			return err
		}
		all, err := readLines[T](p, staged.maxBytes, nil)
		total = len(all)
		return err
	})
	return total, err
}

// Staged returns the staged contexts, oldest first.
func Staged[T any](repo *gitops.Repo) ([]T, error) {
	var out []T
	err := staged.with(repo, func(p string) error {
		var err error
		out, err = readLines[T](p, staged.maxBytes, nil)
		return err
	})
	return out, err
}

// TakeStaged returns the staged contexts and removes them, in one step
// under the lock: a context staged meanwhile waits for the next commit,
// whole.
func TakeStaged[T any](repo *gitops.Repo) ([]T, error) {
	var out []T
	err := staged.with(repo, func(p string) error {
		var err error
		if out, err = readLines[T](p, staged.maxBytes, nil); err != nil {
			return err
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	})
	return out, err
}

// replaceFile replaces the file at p (creating its folder) atomically: a
// killed process leaves the old content or the new. It is synced to
// stable storage when durable, that is when gloss's writes are
// (gitops.Repo.Durable: gloss.fsync, or a core.fsync that syncs refs), as
// the commit itself is — syncing by default cost 50–160 ms of a commit on
// a busy disk.
func replaceFile(p string, data []byte, mode os.FileMode, durable bool) error {
	if durable {
		return atomicfile.Write(p, data, mode)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(filepath.Dir(p))
	if err != nil {
		return err
	}
	defer root.Close()
	return atomicfile.Replace(root, filepath.Base(p), data, mode)
}
