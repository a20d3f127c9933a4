package gitops

import (
	"fmt"

	git "github.com/libgit2/git2go/v34"
)

// LogOptions limits a history walk.
type LogOptions struct {
	Path  string   // only commits that changed this file or directory
	Limit int      // stop after this many commits (0: no limit)
	Hide  []string // leave out these commits and their ancestors
}

// Log walks history from rev, newest first (topological, then by time), and
// returns the commits that pass the options. With a Path, a commit counts
// when the path differs from its first parent, or, for a merge, from every
// parent — the commits `git log -- path` shows by default.
func (r *Repo) Log(rev string, opts LogOptions) ([]*Commit, error) {
	var out []*Commit
	err := r.Walk(rev, opts, func(c *Commit) bool {
		out = append(out, c)
		return opts.Limit == 0 || len(out) < opts.Limit
	})
	return out, err
}

// Walk is Log with a callback; fn returns false to stop early.
func (r *Repo) Walk(rev string, opts LogOptions, fn func(*Commit) bool) error {
	start, err := r.ResolveCommit(rev)
	if err != nil {
		return err
	}
	w, err := r.r.Walk()
	if err != nil {
		return fmt.Errorf("walk history: %w", err)
	}
	defer w.Free()
	w.Sorting(git.SortTopological | git.SortTime)
	so, _ := oid(start)
	if err := w.Push(so); err != nil {
		return fmt.Errorf("walk from %s: %w", rev, err)
	}
	for _, h := range opts.Hide {
		hid, err := r.ResolveCommit(h)
		if err != nil {
			return err
		}
		ho, _ := oid(hid)
		if err := w.Hide(ho); err != nil {
			return fmt.Errorf("hide %s: %w", h, err)
		}
	}
	path := cleanRepoPath(opts.Path)
	var walkErr error
	err = w.Iterate(func(c *git.Commit) bool {
		if path != "" {
			touched, err := r.touches(c, path)
			if err != nil {
				walkErr = err
				return false
			}
			if !touched {
				return true
			}
		}
		return fn(commitFrom(c))
	})
	if walkErr != nil {
		return walkErr
	}
	if err != nil {
		return fmt.Errorf("walk history: %w", err)
	}
	return nil
}

// touches reports whether commit c changed path relative to its parents.
func (r *Repo) touches(c *git.Commit, path string) (bool, error) {
	mine, err := entryID(c, path)
	if err != nil {
		return false, err
	}
	n := c.ParentCount()
	if n == 0 {
		return mine != "", nil
	}
	for i := uint(0); i < n; i++ {
		p := c.Parent(i)
		if p == nil {
			return false, fmt.Errorf("read parent %d of %s", i, c.Id())
		}
		theirs, err := entryID(p, path)
		p.Free()
		if err != nil {
			return false, err
		}
		if theirs == mine {
			return false, nil // same as a parent: not this commit's change
		}
	}
	return true, nil
}

func entryID(c *git.Commit, path string) (string, error) {
	t, err := c.Tree()
	if err != nil {
		return "", fmt.Errorf("read tree of %s: %w", c.Id(), err)
	}
	defer t.Free()
	e, err := t.EntryByPath(path)
	if err != nil {
		return "", nil
	}
	return e.Id.String(), nil
}
