package gitops

import (
	"context"
	"errors"
)

// A commit made without gloss's hooks (a GUI client, a teammate without
// gloss, a rebase's replays) leaves no blame cache behind it, so the next
// hooked commit would blame each file it changed whole — seconds on a
// long history — while git waits. CatchUpBlameCache derives the missing
// caches from the last commit before them that has them: a diff per
// commit instead of a blame per file.

// BlameGap is what stands between a commit and blames derived from the
// cache, once CatchUpBlameCache has done what it could.
type BlameGap struct {
	// Files are the files the commit changed whose blame at its parent is
	// not cached: reading the commit's blame of each runs git blame whole.
	Files []string
	// Bytes is their size at the commit, which a whole blame's cost grows
	// with.
	Bytes int64
	// Derived is the ancestors whose cache was derived (commits made
	// without the hooks).
	Derived int
}

// CatchUpBlameCache derives the blame cache of the first-parent ancestors
// of commit back to the nearest one (at most maxBack away) from which the
// blames of the files commit changed can be derived, then reports the gap
// left. A merge's blame is never derived: its changed files are the gap.
// With the cache bypassed (ignored revisions) every blame runs git: the
// gap is every changed file.
func (r *Repo) CatchUpBlameCache(ctx context.Context, commit string, maxBack int) (BlameGap, error) {
	var gap BlameGap
	c, err := r.LookupCommit(commit)
	if err != nil || len(c.Parents) == 0 {
		return gap, err
	}
	changes, err := r.DiffTrees(c.Parents[0], c.ID, DiffOptions{NoRenames: true})
	if err != nil {
		return gap, err
	}
	var modified []string
	for _, ch := range changes {
		if ch.Status == Modified && !ch.Binary {
			modified = append(modified, ch.Path)
		}
	}
	bypassed := r.blameCacheBypassed(ctx)
	pending := modified
	if len(c.Parents) == 1 && !bypassed {
		pending = r.uncachedAt(c.Parents[0], modified)
		if len(pending) > 0 {
			gap.Derived, err = r.deriveChain(ctx, c.Parents[0], pending, maxBack)
			if err != nil {
				return gap, err
			}
			pending = r.uncachedAt(c.Parents[0], pending)
		}
	}
	gap.Files = pending
	for _, p := range pending {
		gap.Bytes += r.blobSize(c.ID, p)
	}
	return gap, nil
}

// deriveChain walks first parents from start, at most maxBack commits,
// to the first whose blames of paths are cached (or that lacks the
// file: a later commit added it), then derives the cache of each commit
// walked, oldest first. It returns how many it derived; none when the
// walk met a merge or a root, or went past maxBack.
func (r *Repo) deriveChain(ctx context.Context, start string, paths []string, maxBack int) (int, error) {
	var chain []string
	cur := start
	for len(chain) < maxBack {
		c, err := r.LookupCommit(cur)
		if err != nil {
			return 0, err
		}
		if len(c.Parents) != 1 {
			return 0, nil
		}
		chain = append(chain, cur)
		cur = c.Parents[0]
		if len(r.uncachedAt(cur, paths)) == 0 {
			for i := len(chain) - 1; i >= 0; i-- {
				if err := r.UpdateBlameCache(ctx, chain[i]); err != nil {
					return len(chain) - 1 - i, err
				}
			}
			return len(chain), nil
		}
	}
	return 0, nil
}

// uncachedAt returns the paths whose blame at commit is not cached. A
// path commit does not hold is not among them: the commit that adds it
// starts its cache.
func (r *Repo) uncachedAt(commit string, paths []string) []string {
	var out []string
	for _, p := range paths {
		key, err := r.blamePosition(commit, p)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil || !r.hasBlame(key, p) {
			out = append(out, p)
		}
	}
	return out
}

// blobSize is the size of path at commit, 0 when it cannot be read.
func (r *Repo) blobSize(commit, path string) int64 {
	blob, err := r.BlobAt(commit, path)
	if err != nil || blob == "" {
		return 0
	}
	return r.BlobSize(blob)
}

// BlobSize is the size of a blob from its header (the content is not
// read), 0 when it cannot be read.
func (r *Repo) BlobSize(blob string) int64 {
	id, err := oid(blob)
	if err != nil {
		return 0
	}
	odb, err := r.r.Odb()
	if err != nil {
		return 0
	}
	defer odb.Free()
	size, _, err := odb.ReadHeader(id)
	if err != nil {
		return 0
	}
	return int64(size)
}
