package gitops

import (
	"fmt"

	git "github.com/libgit2/git2go/v34"
)

// DiffBlobs returns the changed line ranges between two blobs (no context
// lines). An empty id stands for an empty file. gloss uses it to carry
// line ranges from one version of a file to another.
func (r *Repo) DiffBlobs(oldID, newID string) ([]Hunk, error) {
	load := func(id string) (*git.Blob, error) {
		if id == "" {
			return nil, nil
		}
		o, err := oid(id)
		if err != nil {
			return nil, err
		}
		b, err := r.r.LookupBlob(o)
		if err != nil {
			return nil, fmt.Errorf("blob %s: %w", id, ErrNotFound)
		}
		return b, nil
	}
	oldB, err := load(oldID)
	if err != nil {
		return nil, err
	}
	if oldB != nil {
		defer oldB.Free()
	}
	newB, err := load(newID)
	if err != nil {
		return nil, err
	}
	if newB != nil {
		defer newB.Free()
	}
	opts, err := git.DefaultDiffOptions()
	if err != nil {
		return nil, err
	}
	opts.ContextLines, opts.InterhunkLines = 0, 0
	opts.Flags |= git.DiffForceText
	var hunks []Hunk
	err = git.DiffBlobs(oldB, "", newB, "", &opts, func(git.DiffDelta, float64) (git.DiffForEachHunkCallback, error) {
		return func(h git.DiffHunk) (git.DiffForEachLineCallback, error) {
			hunks = append(hunks, Hunk{OldStart: h.OldStart, OldLines: h.OldLines, NewStart: h.NewStart, NewLines: h.NewLines})
			return nil, nil
		}, nil
	}, git.DiffDetailHunks)
	if err != nil {
		return nil, fmt.Errorf("diff blobs: %w", err)
	}
	return hunks, nil
}

// BlobAt returns the id of the blob at path in revision rev, or "" if the
// path is not a file there.
func (r *Repo) BlobAt(rev, path string) (string, error) {
	t, err := r.treeAt(rev)
	if err != nil {
		return "", err
	}
	defer t.Free()
	e, err := t.EntryByPath(cleanRepoPath(path))
	if err != nil || e.Type != git.ObjectBlob {
		return "", nil
	}
	return e.Id.String(), nil
}

// MapLines carries the inclusive line range start..end of the old side of
// hunks to the new side. Lines that survive unchanged keep their place;
// where a hunk rewrote part of the range, its replacement lines are
// included. ok is false when nothing of the range is left.
func MapLines(hunks []Hunk, start, end int) (newStart, newEnd int, ok bool) {
	lo, hi := 0, -1
	include := func(a, b int) {
		if b < a {
			return
		}
		if hi < lo || a < lo {
			lo = a
		}
		if hi < lo || b > hi {
			hi = b
		}
	}
	for l := start; l <= end; l++ {
		if n, ok := mapLine(hunks, l); ok {
			include(n, n)
		}
	}
	for _, h := range hunks {
		if h.OldLines > 0 && h.OldStart <= end && start <= h.OldStart+h.OldLines-1 {
			include(h.NewStart, h.NewStart+h.NewLines-1)
		}
	}
	if hi < lo {
		return 0, 0, false
	}
	return lo, hi, true
}

// mapLine maps one old line to its new number, if the line is unchanged.
func mapLine(hunks []Hunk, l int) (int, bool) {
	shift := 0
	for _, h := range hunks {
		if h.OldLines > 0 {
			if l >= h.OldStart && l < h.OldStart+h.OldLines {
				return 0, false
			}
			if h.OldStart+h.OldLines-1 < l {
				shift += h.NewLines - h.OldLines
			}
		} else if h.OldStart < l {
			shift += h.NewLines
		}
	}
	return l + shift, true
}
