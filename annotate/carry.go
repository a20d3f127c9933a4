package annotate

import (
	"context"
	"slices"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/treesitter"
)

// carrier moves records from one version of the code to another: an amended
// or rebased commit, a cherry-pick, a squash. Each record is copied with a
// new id, the new commit, its lines remapped, and `supersedes` naming the
// original — so that a copy git itself made (notes.rewriteRef concatenates
// the old note onto the new commit) is hidden behind the corrected one.
type carrier struct {
	repo     *gitops.Repo
	from, to string
	renames  map[string]string // old path -> new path, computed on demand
	files    map[string]*carriedFile
}

type carriedFile struct {
	path    string // in `to`
	hunks   []gitops.Hunk
	anchors []treesitter.Anchor
	lines   int
}

func newCarrier(repo *gitops.Repo, from, to string) *carrier {
	return &carrier{repo: repo, from: from, to: to, files: map[string]*carriedFile{}}
}

// file prepares the mapping of one path; nil when the file is gone.
func (c *carrier) file(path string) (*carriedFile, error) {
	if f, ok := c.files[path]; ok {
		return f, nil
	}
	newPath := path
	toBlob, err := c.repo.BlobAt(c.to, path)
	if err != nil {
		return nil, err
	}
	if toBlob == "" {
		if c.renames == nil {
			c.renames = map[string]string{}
			changes, err := c.repo.DiffTrees(c.from, c.to, gitops.DiffOptions{})
			if err != nil {
				return nil, err
			}
			for _, ch := range changes {
				if ch.Status == gitops.Renamed {
					c.renames[ch.OldPath] = ch.Path
				}
			}
		}
		if newPath = c.renames[path]; newPath == "" {
			c.files[path] = nil
			return nil, nil
		}
		if toBlob, err = c.repo.BlobAt(c.to, newPath); err != nil || toBlob == "" {
			c.files[path] = nil
			return nil, err
		}
	}
	fromBlob, err := c.repo.BlobAt(c.from, path)
	if err != nil {
		return nil, err
	}
	hunks, err := c.repo.DiffBlobs(fromBlob, toBlob)
	if err != nil {
		return nil, err
	}
	content, err := c.repo.ReadBlob(toBlob)
	if err != nil {
		return nil, err
	}
	f := &carriedFile{path: newPath, hunks: hunks, anchors: treesitter.OutlineCached(c.repo, newPath, content), lines: gitops.CountLines(content)}
	c.files[path] = f
	return f, nil
}

// region remaps one region; ok is false when its code is gone.
func (c *carrier) region(r Region, source string) (Region, bool, error) {
	f, err := c.file(r.File)
	if err != nil || f == nil {
		return Region{}, false, err
	}
	out := r
	out.Header = notes.NewHeader(Schema)
	out.Supersedes = []string{r.ID}
	out.Commit, out.File, out.Source = c.to, f.path, source
	out.DerivedFrom = appendUnique(slices.Clone(r.DerivedFrom), c.from)
	// An anchor that still exists is the best guide; else follow the diff.
	if r.Anchor != nil && r.Anchor.Kind != "unresolved" {
		for _, a := range treesitter.Find(f.anchors, r.Anchor.Name) {
			if a.Name == r.Anchor.Name {
				out.Lines = Lines{a.Start, a.End}
				anchor := *r.Anchor
				anchor.Signature = a.Signature
				out.Anchor = &anchor
				return out, true, nil
			}
		}
	}
	s, e, ok := gitops.MapLines(f.hunks, r.Lines.Start, r.Lines.End)
	if !ok || s > f.lines {
		return Region{}, false, nil
	}
	out.Lines = Lines{s, min(e, max(f.lines, s))}
	return out, true, nil
}

// summary copies a summary record.
func (c *carrier) summary(s Summary, source string) Summary {
	out := s
	out.Header = notes.NewHeader(Schema)
	out.Supersedes = []string{s.ID}
	out.Commit, out.Source = c.to, source
	out.DerivedFrom = appendUnique(slices.Clone(s.DerivedFrom), c.from)
	return out
}

// carryRecords copies the live annotation records of `from` onto `to`.
// When the subject changed (a reword), records that took their intent
// from the old subject take the new one. Records `to` already has a copy of
// (git reports some rewrites twice: a reword inside a rebase is an amend
// and then part of the rebase) are not copied again; their regions are
// still returned, as covered.
func carryRecords(ctx context.Context, repo *gitops.Repo, recs []notes.Record, from, to, source string) ([]any, []Region, error) {
	// A forgotten record (git gloss forget), or a copy of one, is never
	// copied, even when the source's note still holds it (a clone that has
	// not synced the tombstone's sweep yet, a note written back by hand, a
	// copy whose chain to the forgotten record was lost). A copy found here
	// gets its tombstone, and no note keeps it.
	ts, err := notes.LoadTombstones(repo)
	if err != nil {
		return nil, nil, err
	}
	recs, found := ts.Keep(notes.Annotations, from, recs)
	if err := ts.Record(ctx, repo, notes.Annotations, found); err != nil {
		return nil, nil, err
	}
	existing, err := notes.Open(repo, notes.Annotations).Read([]string{to})
	if err != nil {
		return nil, nil, err
	}
	copied := map[string]bool{}
	for _, r := range existing[to] {
		for _, s := range r.Supersedes {
			copied[s] = true
		}
	}
	oldC, err := repo.LookupCommit(from)
	if err != nil {
		return nil, nil, err
	}
	newC, err := repo.LookupCommit(to)
	if err != nil {
		return nil, nil, err
	}
	oldSubject, newSubject := parseMessage(oldC.Message).subject, parseMessage(newC.Message).subject
	c := newCarrier(repo, from, to)
	var out []any
	var regions []Region
	for _, d := range Decode(notes.Resolve(recs)) {
		switch {
		case copied[d.Record.ID]:
			if d.Region != nil {
				if r, ok, err := c.region(*d.Region, source); err == nil && ok {
					regions = append(regions, r)
				}
			}
		case d.Region != nil:
			r, ok, err := c.region(*d.Region, source)
			if err != nil {
				return nil, nil, err
			}
			if !ok {
				continue
			}
			if r.Intent == oldSubject {
				r.Intent = newSubject
			}
			out = append(out, r)
			regions = append(regions, r)
		case d.Summary != nil:
			s := c.summary(*d.Summary, source)
			if s.Intent == oldSubject {
				s.Intent = newSubject
			}
			out = append(out, s)
		}
	}
	return out, regions, nil
}
