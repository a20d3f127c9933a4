package decisions

import (
	"context"
	"strings"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/treesitter"
)

// File is the version of a file decisions are looked up for.
type File struct {
	Path    string                     // repository-relative, today's name
	Content func() []byte              // the version read (the working tree, a revision, a buffer), asked for only when an anchor is looked for by its body
	Outline func() []treesitter.Anchor // its anchors, asked for only when a record has one
	Tip     string                     // the commit whose history it is read in (HEAD for the working tree)
}

// How a record was bound to today's code.
const (
	BoundByName   = "name"    // its anchor, by its qualified name
	BoundRenamed  = "renamed" // a function renamed since: followed through the history, or the same body
	BoundToPath   = "path"    // a file- or directory-level record
	BoundNotFound = "deleted" // its anchor is no longer in the file: retired
)

// Bound is a record found for a file, and where its scope is today.
type Bound struct {
	Entry
	How string // BoundByName, BoundRenamed, BoundToPath or BoundNotFound
	// Spans are the anchor's definitions today: one, or several where a
	// language lets a name be defined more than once (Python's overloads,
	// C++ and Java's). None for a path-level record, or one not found.
	Spans []treesitter.Anchor
	// SupersededBy is the record on another note, in the history read,
	// that supersedes this one ("" if none).
	SupersededBy string
}

// Lookup finds the records that bind to code of f: those recorded on the
// file under any of its names (following renames up to f.Tip), or on a
// directory holding it, whose commits are in f.Tip's history, each bound
// to where its anchor is in f today.
func (ix *Index) Lookup(ctx context.Context, f File) ([]Bound, error) {
	names := formerNames(ctx, ix.repo, f.Tip, f.Path)
	entries, err := ix.ForFiles(names)
	if err != nil || len(entries) == 0 {
		return nil, err
	}
	links, err := ix.superseded()
	if err != nil {
		return nil, err
	}
	commits := make([]string, 0, len(entries))
	for _, e := range entries {
		commits = append(commits, e.Commit)
		if l, ok := links[e.ID]; ok {
			commits = append(commits, l.Commit)
		}
	}
	in := map[string]bool{}
	if f.Tip != "" {
		if in, err = ix.reachable(f.Tip, commits); err != nil {
			return nil, err
		}
	}
	b := binder{file: f, follow: ix.follower(ctx, f.Tip, f.Path)}
	defer b.follow.save()
	var out []Bound
	for _, e := range entries {
		if !in[e.Commit] {
			continue // recorded on another branch, or on a commit rewritten away
		}
		bd := b.bind(e)
		if l, ok := links[e.ID]; ok && in[l.Commit] {
			bd.SupersededBy = l.By
		}
		out = append(out, bd)
	}
	return out, nil
}

// formerNames are path and the names it had before renames in tip's
// history (git log -M, cached by gitops). When the renames are not known
// yet (a large repository right after init: the background refresh finds
// them) it is path alone: a reader does not wait for a log of every
// commit (why notes that records under former names may be missing).
func formerNames(ctx context.Context, repo *gitops.Repo, tip, path string) []string {
	names := []string{path}
	if tip == "" {
		return names
	}
	former, err := repo.FormerNamesAtHand(ctx, tip, path)
	if err != nil {
		return names
	}
	return append(names, former...)
}

// binder binds entries to one file's anchors: it asks for the outline
// once, and hashes the anchors' bodies once, when a record's anchor is
// not found by name.
type binder struct {
	file    File
	follow  *follower
	outline []treesitter.Anchor
	bodies  map[string][]int // body hash -> indexes into the outline
}

func (b *binder) anchors() []treesitter.Anchor {
	if b.outline == nil {
		if b.file.Outline != nil {
			b.outline = b.file.Outline()
		}
		if b.outline == nil {
			b.outline = []treesitter.Anchor{}
		}
	}
	return b.outline
}

func (b *binder) bind(e Entry) Bound {
	bd := Bound{Entry: e, How: BoundToPath}
	if e.Scope != annotate.ScopeAnchor {
		return bd
	}
	if as := allByName(b.anchors(), e.Anchor); len(as) > 0 {
		bd.How, bd.Spans = BoundByName, as
		return bd
	}
	bd.How = BoundNotFound
	if a, ok := b.sameBody(e); ok {
		bd.How, bd.Spans = BoundRenamed, []treesitter.Anchor{a}
		return bd
	}
	if name, ok := b.follow.name(e, b.outline); ok {
		if as := allByName(b.outline, name); len(as) > 0 {
			bd.How, bd.Spans = BoundRenamed, as
		}
	}
	return bd
}

// sameBody finds the one anchor today whose body is, names aside, the
// body the record's anchor had at its commit.
func (b *binder) sameBody(e Entry) (treesitter.Anchor, bool) {
	if e.Body == "" {
		return treesitter.Anchor{}, false
	}
	if b.bodies == nil {
		b.bodies = map[string][]int{}
		var src []byte
		if b.file.Content != nil {
			src = b.file.Content()
		}
		for i, a := range b.outline {
			if h := BodyHash(linesOf(src, a.Start, a.End), a.Name); h != "" {
				b.bodies[h] = append(b.bodies[h], i)
			}
		}
	}
	// A rename: exactly one anchor today has the body the record's had,
	// under a name the record's anchor does not have.
	if hits := b.bodies[e.Body]; len(hits) == 1 {
		return b.outline[hits[0]], true
	}
	return treesitter.Anchor{}, false
}

// allByName finds the anchors of a qualified name, in any notation of the
// separators ("Client::connect" is "Client.connect"). Only the whole name
// binds: a record about a top-level parse is not about Parser.parse.
func allByName(outline []treesitter.Anchor, name string) []treesitter.Anchor {
	want := strings.ReplaceAll(name, "::", ".")
	var out []treesitter.Anchor
	for _, a := range outline {
		if a.Name == name || strings.ReplaceAll(a.Name, "::", ".") == want {
			out = append(out, a)
		}
	}
	return out
}

// byName is the first anchor of a name.
func byName(outline []treesitter.Anchor, name string) (treesitter.Anchor, bool) {
	if as := allByName(outline, name); len(as) > 0 {
		return as[0], true
	}
	return treesitter.Anchor{}, false
}
