package gitops

import (
	"context"
	"fmt"

	git "github.com/libgit2/git2go/v34"
)

// Change statuses, as gloss reports them.
const (
	Added      = "added"
	Modified   = "modified"
	Deleted    = "deleted"
	Renamed    = "renamed"
	Copied     = "copied"
	TypeChange = "typechange"
	Untracked  = "untracked"
)

// Change is one file that differs between two sides of a diff.
type Change struct {
	Status     string `json:"status"`
	OldPath    string `json:"old_path,omitempty"`
	Path       string `json:"path"`
	Similarity int    `json:"similarity,omitempty"` // percent, for renames and copies
	Binary     bool   `json:"binary,omitempty"`
	OldBlob    string `json:"-"`
	NewBlob    string `json:"-"`
	Hunks      []Hunk `json:"hunks,omitempty"`
}

// Hunk is a changed line range, with no context lines: OldStart/OldLines on
// the old side, NewStart/NewLines on the new side (1-based; a count of 0
// means a pure insertion or deletion after that line).
type Hunk struct {
	OldStart int `json:"old_start"`
	OldLines int `json:"old_lines"`
	NewStart int `json:"new_start"`
	NewLines int `json:"new_lines"`
}

// DiffOptions tunes a diff.
type DiffOptions struct {
	Paths     []string // limit to these paths (exact paths or directories)
	Hunks     bool     // compute line hunks and the Binary flag (slower; files only otherwise)
	Untracked bool     // tree↔working tree only: report untracked files
	NoRenames bool     // skip rename detection
}

// DiffTrees compares the trees of two revisions. An empty oldRev means the
// empty tree (everything in newRev is added).
func (r *Repo) DiffTrees(oldRev, newRev string, opts DiffOptions) ([]Change, error) {
	return r.diffTrees(context.Background(), oldRev, newRev, opts, false)
}

// DiffTreesCached is DiffTrees with hunks (opts.Hunks is implied) served
// from the repository's hunk cache where it holds them (hunkcache.go), for
// a diff of many files that is asked again: the same answer as DiffTrees,
// without reading and diffing again the versions of a file seen before.
func (r *Repo) DiffTreesCached(ctx context.Context, oldRev, newRev string, opts DiffOptions) ([]Change, error) {
	opts.Hunks = true
	return r.diffTrees(ctx, oldRev, newRev, opts, true)
}

// diffTrees is DiffTrees, through the hunk cache when cached.
func (r *Repo) diffTrees(ctx context.Context, oldRev, newRev string, opts DiffOptions, cached bool) ([]Change, error) {
	var oldTree *git.Tree
	if oldRev != "" {
		t, err := r.treeAt(oldRev)
		if err != nil {
			return nil, err
		}
		defer t.Free()
		oldTree = t
	}
	newTree, err := r.treeAt(newRev)
	if err != nil {
		return nil, err
	}
	defer newTree.Free()
	do, err := diffOptions(opts)
	if err != nil {
		return nil, err
	}
	d, err := r.r.DiffTreeToTree(oldTree, newTree, &do)
	if err != nil {
		return nil, fmt.Errorf("diff %s..%s: %w", oldRev, newRev, err)
	}
	defer d.Free()
	if !cached || !opts.Hunks {
		return collectChanges(d, opts)
	}
	if !opts.NoRenames {
		if err := findRenames(d); err != nil {
			return nil, err
		}
	}
	return r.diffCached(ctx, d, do, oldTree, newTree, !opts.NoRenames)
}

// DiffWorktree compares the tree of rev with the working tree (as git diff
// rev does, through the index so that staged renames are seen). An empty
// rev compares against the empty tree, for a repository with no commits.
func (r *Repo) DiffWorktree(rev string, opts DiffOptions) ([]Change, error) {
	if r.IsBare() {
		return nil, fmt.Errorf("diff against the working tree: repository is bare")
	}
	var tree *git.Tree
	if rev != "" {
		t, err := r.treeAt(rev)
		if err != nil {
			return nil, err
		}
		defer t.Free()
		tree = t
	}
	do, err := diffOptions(opts)
	if err != nil {
		return nil, err
	}
	if opts.Untracked {
		do.Flags |= git.DiffIncludeUntracked | git.DiffRecurseUntracked | git.DiffShowUntrackedContent
	}
	d, err := r.r.DiffTreeToWorkdirWithIndex(tree, &do)
	if err != nil {
		return nil, fmt.Errorf("diff %s against the working tree: %w", rev, err)
	}
	defer d.Free()
	return collectChanges(d, opts)
}

func diffOptions(opts DiffOptions) (git.DiffOptions, error) {
	do, err := git.DefaultDiffOptions()
	if err != nil {
		return do, err
	}
	do.ContextLines = 0
	do.InterhunkLines = 0
	do.Pathspec = opts.Paths
	do.Flags |= git.DiffIncludeTypeChange
	if !opts.Hunks {
		// Without hunks nobody needs to know whether a file is binary, and
		// finding out means reading every changed blob.
		do.Flags |= git.DiffSkipBinaryCheck
	}
	return do, nil
}

func collectChanges(d *git.Diff, opts DiffOptions) ([]Change, error) {
	if !opts.NoRenames {
		if err := findRenames(d); err != nil {
			return nil, err
		}
	}
	if opts.Hunks {
		return walkHunks(d)
	}
	// Walking the deltas directly is several times faster than
	// git_diff_foreach, which prepares each file's content.
	deltas, err := allDeltas(d)
	if err != nil {
		return nil, err
	}
	out := make([]Change, 0, len(deltas))
	for _, delta := range deltas {
		out = append(out, changeFrom(delta))
	}
	return out, nil
}

// findRenames pairs deleted and added files into renames, as gloss's
// diffs do unless told not to.
func findRenames(d *git.Diff) error {
	fo, err := git.DefaultDiffFindOptions()
	if err != nil {
		return err
	}
	fo.Flags = git.DiffFindRenames | git.DiffFindForUntracked
	if err := d.FindSimilar(&fo); err != nil {
		return fmt.Errorf("detect renames: %w", err)
	}
	return nil
}

// walkHunks lists the changes of a diff with their hunks.
func walkHunks(d *git.Diff) ([]Change, error) {
	var out []Change
	err := d.ForEach(func(delta git.DiffDelta, _ float64) (git.DiffForEachHunkCallback, error) {
		out = append(out, changeFrom(delta))
		// libgit2 reports a file's hunks before the next file, so this
		// pointer is still into the live backing array when they arrive.
		last := &out[len(out)-1]
		return func(h git.DiffHunk) (git.DiffForEachLineCallback, error) {
			last.Hunks = append(last.Hunks, Hunk{OldStart: h.OldStart, OldLines: h.OldLines, NewStart: h.NewStart, NewLines: h.NewLines})
			return nil, nil
		}, nil
	}, git.DiffDetailHunks)
	if err != nil {
		return nil, fmt.Errorf("read diff: %w", err)
	}
	return out, nil
}

func changeFrom(delta git.DiffDelta) Change {
	ch := Change{
		Status:     statusName(delta.Status),
		Path:       delta.NewFile.Path,
		Similarity: int(delta.Similarity),
		Binary:     delta.Flags&git.DiffFlagBinary != 0,
		OldBlob:    blobID(delta.OldFile),
		NewBlob:    blobID(delta.NewFile),
	}
	if delta.Status == git.DeltaDeleted {
		ch.Path = delta.OldFile.Path
	}
	if delta.Status == git.DeltaRenamed || delta.Status == git.DeltaCopied {
		ch.OldPath = delta.OldFile.Path
	} else {
		ch.Similarity = 0
	}
	return ch
}

func blobID(f git.DiffFile) string {
	if f.Oid == nil || f.Oid.IsZero() {
		return ""
	}
	return f.Oid.String()
}

func statusName(d git.Delta) string {
	switch d {
	case git.DeltaAdded:
		return Added
	case git.DeltaDeleted:
		return Deleted
	case git.DeltaRenamed:
		return Renamed
	case git.DeltaCopied:
		return Copied
	case git.DeltaTypeChange:
		return TypeChange
	case git.DeltaUntracked:
		return Untracked
	default:
		return Modified
	}
}
