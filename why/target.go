package why

import (
	"fmt"
	"path"
	"strings"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/safepath"
	"github.com/gloss-dev/gloss/treesitter"
)

// The target stage: which version of which file, which lines, and the
// code that holds them.
// file is the version of a file a query reads.
type file struct {
	rel     string
	rev     string // "" for the working tree
	content []byte
	// lazy: content is read from rev the first time a stage needs it
	// (text): the line count came from the blame cache.
	lazy    bool
	buffer  bool          // content is an editor's buffer, not the working-tree file
	blame   *gitops.Blame // the buffer's whole blame, when the query brought it
	lines   int
	anchors []treesitter.Anchor
}

// openFile reads path at rev (the working tree when rev is "" and there
// is one), or takes content as that file's version when it is not nil.
// At a revision, a file whose line count count knows (a Reader's, from
// the blame cache) is read only when a stage needs its text.
func openFile(repo *gitops.Repo, p, rev string, content []byte, count func(commit, path string) (int, bool)) (*file, error) {
	root := repo.Root()
	base := root
	if base == "" {
		base = repo.GitDir()
	}
	rel, err := safepath.Clean(base, p)
	if err != nil {
		return nil, err
	}
	f := &file{rel: rel, rev: rev}
	if content != nil {
		if rev != "" || root == "" {
			return nil, fault.Usagef("a buffer's content is read against the working tree: no revision, no bare repository")
		}
		f.content, f.buffer = content, true
		f.lines = gitops.CountLines(content)
		return f, nil
	}
	if rev == "" && root == "" {
		f.rev = "HEAD"
	}
	if f.rev == "" {
		tree, err := safepath.ForReading(repo)
		if err != nil {
			return nil, err
		}
		defer tree.Close()
		data, err := tree.ReadFile(rel, 0)
		if err != nil {
			if fault.KindOf(err) == fault.NotFound {
				return nil, fault.NotFoundf("%s: no such file in the working tree", rel)
			}
			return nil, fmt.Errorf("read %s: %w", rel, err)
		}
		f.content = data
	} else {
		id, err := repo.ResolveCommit(f.rev)
		if err != nil {
			return nil, err
		}
		f.rev = id
		if n, ok := lineCount(count, id, rel); ok {
			f.lines, f.lazy = n, true
			return f, nil
		}
		data, err := repo.ReadFile(id, rel)
		if err != nil {
			if gitops.IsNotFound(err) {
				return nil, fault.NotFoundf("%s: no such file at %s", rel, gitops.ShortID(id))
			}
			return nil, err
		}
		f.content = data
	}
	f.lines = gitops.CountLines(f.content)
	return f, nil
}

// outline is the file's anchors, parsed once (through the outline cache)
// and only when a stage needs them: parsing is the largest fixed cost of
// a read, and a file without decisions bound to its anchors never pays it
// for a lines query.
func (f *file) outline(repo *gitops.Repo) []treesitter.Anchor {
	if f.anchors == nil {
		text, _ := f.text(repo) // a file that cannot be read has no anchors
		f.anchors = treesitter.OutlineCached(repo, f.rel, text)
		if f.anchors == nil {
			f.anchors = []treesitter.Anchor{}
		}
	}
	return f.anchors
}

func lineCount(count func(commit, path string) (int, bool), commit, path string) (int, bool) {
	if count == nil {
		return 0, false
	}
	return count(commit, path)
}

// text is the file's content, read from its revision the first time a
// stage needs it when the line count came from the blame cache (most
// reads of a review need no more than the count).
func (f *file) text(repo *gitops.Repo) ([]byte, error) {
	if f.lazy {
		data, err := repo.ReadFile(f.rev, f.rel)
		if err != nil {
			return nil, err
		}
		f.content, f.lazy = data, false
	}
	return f.content, nil
}

// tip is the commit whose history the file is read in: the revision, or
// HEAD for the working tree and a buffer ("" before the first commit).
func (f *file) tip(repo *gitops.Repo) string {
	if f.rev != "" {
		return f.rev
	}
	head, err := repo.Head()
	if err != nil {
		return ""
	}
	return head
}

// resolve is the target stage: it opens the file and turns the query into
// today's lines.
func (r *reading) resolve() error {
	f, err := openFile(r.repo, r.q.Path, r.q.Rev, r.q.Content, r.rd.lines)
	if err != nil {
		return err
	}
	if f.buffer && r.q.ContentBlame != nil && len(r.q.ContentBlame.Lines) == f.lines {
		f.blame = r.q.ContentBlame
	}
	r.f = f
	r.q.Path = f.rel
	res := &ReadResult{Schema: "gloss-read/v1", Query: r.q, Notes: []string{}, Regions: []RegionView{}}
	res.Resolved.Rev = f.rev
	if res.Resolved.Rev == "" {
		res.Resolved.Rev = "worktree"
	}
	res.Resolved.Anchors = []treesitter.Anchor{}
	res.Resolved.Enclosing = []treesitter.Anchor{}
	r.res = res
	r.target = r.resolveLines()
	res.Resolved.Lines = r.target
	return nil
}

// resolveLines turns the query into a line range, noting fallbacks.
func (r *reading) resolveLines() annotate.Lines {
	f, q, res := r.f, r.q, r.res
	whole := annotate.Lines{Start: 1, End: max(f.lines, 1)}
	switch {
	case q.Anchor != "":
		anchors := f.outline(r.repo)
		found := treesitter.Find(anchors, q.Anchor)
		if len(found) == 0 {
			if !treesitter.Supported(f.rel) {
				res.Notes = append(res.Notes, fmt.Sprintf("anchors are not supported for %s; showing file-level results", path.Ext(f.rel)))
			} else {
				note := fmt.Sprintf("anchor %q not found in %s", q.Anchor, f.rel)
				if near := treesitter.Suggest(anchors, q.Anchor); near != "" {
					note += fmt.Sprintf("; did you mean %q?", near)
				}
				res.Notes = append(res.Notes, note+"; showing file-level results")
			}
			return whole
		}
		if len(found) > 1 {
			var names []string
			for _, a := range found {
				names = append(names, fmt.Sprintf("%s (lines %d-%d)", a.Name, a.Start, a.End))
			}
			res.Notes = append(res.Notes, "anchor is ambiguous; reading all of: "+strings.Join(names, ", "))
		}
		res.Resolved.Anchors = found
		lo, hi := found[0].Start, found[0].End
		for _, a := range found[1:] {
			lo, hi = min(lo, a.Start), max(hi, a.End)
		}
		return annotate.Lines{Start: lo, End: hi}
	case q.Lines != nil:
		l := *q.Lines
		if l.Start > f.lines {
			res.Notes = append(res.Notes, fmt.Sprintf("the file has %d lines; showing file-level results", f.lines))
			return whole
		}
		if l.End > f.lines {
			res.Notes = append(res.Notes, fmt.Sprintf("the file has %d lines; reading %d-%d", f.lines, l.Start, f.lines))
			l.End = f.lines
		}
		return l
	}
	return whole
}

// enclosing lists the anchors of the file whose code holds some of the
// target lines, outermost first (the outline's order).
func (r *reading) enclosing() []treesitter.Anchor {
	var out []treesitter.Anchor
	for _, a := range r.f.outline(r.repo) {
		if a.Start <= r.target.End && r.target.Start <= a.End {
			out = append(out, a)
		}
	}
	return out
}
