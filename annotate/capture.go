package annotate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/treesitter"
)

// maxRegionsPerFile bounds the records one file of one commit gets; a
// larger change (a generated file, a reformat) is annotated as one region.
const maxRegionsPerFile = 40

// lineGap merges changed line ranges closer than this into one region
// where no anchor separates them.
const lineGap = 3

// changedFile is one file of a commit with its regions.
type changedFile struct {
	path    string
	blob    string
	content []byte
	anchors []treesitter.Anchor
	regions []Region
	changed []Lines // the lines the commit changed
}

// draftRegions computes the regions commit changed relative to its first
// parent (everything, for a root commit): for each hunk, the innermost
// anchors it touches; changed lines outside any anchor become line-range
// regions. Deleted and binary files get none.
func draftRegions(repo *gitops.Repo, commit *gitops.Commit) ([]*changedFile, error) {
	parent := ""
	if len(commit.Parents) > 0 {
		parent = commit.Parents[0]
	}
	changes, err := repo.DiffTrees(parent, commit.ID, gitops.DiffOptions{Hunks: true})
	if err != nil {
		return nil, err
	}
	var files []*changedFile
	for _, ch := range changes {
		if ch.Status == gitops.Deleted || ch.Binary || ch.NewBlob == "" {
			continue
		}
		content, err := repo.ReadBlob(ch.NewBlob)
		if err != nil {
			return nil, err
		}
		f := &changedFile{path: ch.Path, blob: ch.NewBlob, content: content, anchors: treesitter.OutlineCached(repo, ch.Path, content)}
		f.changed = hunkRanges(ch, content)
		f.regions = regionsFor(commit.ID, f, f.changed)
		files = append(files, f)
	}
	return files, nil
}

// OutlineBytes is the size of the code a commit's annotation parses: the
// files it adds or changes in a language tree-sitter outlines, at the
// commit. Parsing costs about a quarter of a millisecond per KiB: the
// post-commit hook leaves a large one to its worker.
func OutlineBytes(repo *gitops.Repo, commitID string) (int64, error) {
	commit, err := repo.LookupCommit(commitID)
	if err != nil {
		return 0, err
	}
	parent := ""
	if len(commit.Parents) > 0 {
		parent = commit.Parents[0]
	}
	changes, err := repo.DiffTrees(parent, commit.ID, gitops.DiffOptions{NoRenames: true})
	if err != nil {
		return 0, err
	}
	var n int64
	for _, ch := range changes {
		if ch.Status != gitops.Deleted && ch.NewBlob != "" && treesitter.Supported(ch.Path) {
			n += repo.BlobSize(ch.NewBlob)
		}
	}
	return n, nil
}

// hunkRanges returns the changed line ranges on the new side. A pure
// deletion marks the line where it happened.
func hunkRanges(ch gitops.Change, content []byte) []Lines {
	n := gitops.CountLines(content)
	var out []Lines
	for _, h := range ch.Hunks {
		switch {
		case h.NewLines > 0:
			out = append(out, Lines{h.NewStart, h.NewStart + h.NewLines - 1})
		case n > 0:
			l := min(max(h.NewStart, 1), n)
			out = append(out, Lines{l, l})
		}
	}
	if len(out) == 0 && n > 0 && (ch.Status == gitops.Added || ch.Status == gitops.Copied) {
		out = append(out, Lines{1, n})
	}
	return out
}

// regionsFor turns changed ranges into region records.
func regionsFor(commit string, f *changedFile, ranges []Lines) []Region {
	seen := map[string]bool{}
	var out []Region
	var loose []Lines
	for _, rg := range ranges {
		hits := treesitter.Covering(f.anchors, rg.Start, rg.End)
		covered := make([]bool, rg.End-rg.Start+1)
		for _, a := range hits {
			for l := max(a.Start, rg.Start); l <= min(a.End, rg.End); l++ {
				covered[l-rg.Start] = true
			}
			key := fmt.Sprintf("%s@%d", a.Name, a.Start)
			if seen[key] {
				continue
			}
			seen[key] = true
			r := newRegion(commit, f.path)
			r.Anchor = &Anchor{Kind: a.Kind, Name: a.Name, Signature: a.Signature}
			r.Lines = Lines{a.Start, a.End}
			out = append(out, r)
		}
		// Changed lines outside every anchor.
		for i := 0; i < len(covered); i++ {
			if covered[i] {
				continue
			}
			j := i
			for j+1 < len(covered) && !covered[j+1] {
				j++
			}
			loose = append(loose, Lines{rg.Start + i, rg.Start + j})
			i = j
		}
	}
	if len(f.anchors) == 0 {
		loose = mergeRanges(loose) // no anchors to keep apart: join nearby changes
	}
	for _, l := range loose {
		l, ok := trimBlank(f.content, l)
		if !ok {
			continue
		}
		r := newRegion(commit, f.path)
		r.Lines = l
		out = append(out, r)
	}
	if len(out) > maxRegionsPerFile {
		r := newRegion(commit, f.path)
		r.Lines = Lines{1, max(gitops.CountLines(f.content), 1)}
		out = []Region{r}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Lines.Start < out[j].Lines.Start })
	return out
}

// trimBlank shrinks a line range past blank lines at both ends; ok is false
// when nothing but blank lines is left.
func trimBlank(content []byte, l Lines) (Lines, bool) {
	lines := strings.Split(string(content), "\n")
	blank := func(n int) bool { return n < 1 || n > len(lines) || strings.TrimSpace(lines[n-1]) == "" }
	for l.Start <= l.End && blank(l.Start) {
		l.Start++
	}
	for l.End >= l.Start && blank(l.End) {
		l.End--
	}
	return l, l.Start <= l.End
}

// mergeRanges joins ranges that overlap or lie within lineGap lines.
func mergeRanges(rs []Lines) []Lines {
	if len(rs) == 0 {
		return nil
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].Start < rs[j].Start })
	out := []Lines{rs[0]}
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		if r.Start <= last.End+lineGap {
			last.End = max(last.End, r.End)
			continue
		}
		out = append(out, r)
	}
	return out
}

// commitView is a commit being annotated: its changed files and their
// draft regions, plus any other file a context names.
type commitView struct {
	repo   *gitops.Repo
	commit *gitops.Commit
	files  []*changedFile
	paths  []Region // records about whole files and directories
}

func newCommitView(repo *gitops.Repo, commit *gitops.Commit) (*commitView, error) {
	files, err := draftRegions(repo, commit)
	if err != nil {
		return nil, err
	}
	return &commitView{repo: repo, commit: commit, files: files}, nil
}

// file returns the named file, loading it from the commit's tree (with no
// regions yet) when the commit did not change it.
func (v *commitView) file(path string) (*changedFile, error) {
	for _, f := range v.files {
		if f.path == path {
			return f, nil
		}
	}
	blob, err := v.repo.BlobAt(v.commit.ID, path)
	if err != nil {
		return nil, err
	}
	if blob == "" {
		return nil, fault.NotFoundf("%s is not in commit %s", path, gitops.ShortID(v.commit.ID))
	}
	content, err := v.repo.ReadBlob(blob)
	if err != nil {
		return nil, err
	}
	f := &changedFile{path: path, blob: blob, content: content, anchors: treesitter.OutlineCached(v.repo, path, content)}
	v.files = append(v.files, f)
	return f, nil
}

// apply puts a context where it belongs: on the regions it names (creating
// a region when the code it names did not change in this commit), on a
// record of its own when it names a whole file or directory, or on every
// region when it names no file.
func (v *commitView) apply(c Context) error {
	if c.File == "" {
		for _, f := range v.files {
			for i := range f.regions {
				c.merge(&f.regions[i])
			}
		}
		return nil
	}
	if c.Anchor == "" && c.Lines == nil {
		return v.applyToPath(c)
	}
	target, err := v.file(c.File)
	if err != nil {
		return err
	}
	matched := false
	for i := range target.regions {
		if r := &target.regions[i]; matchesContext(r, c, target.anchors) {
			c.merge(r)
			r.Supersedes = append(r.Supersedes, c.Supersedes...)
			matched = true
		}
	}
	if matched {
		return nil
	}
	r := newRegion(v.commit.ID, target.path)
	// The region is new: whoever the context names wrote it.
	r.Source, r.Author = SourceAgent, Author{Kind: "agent"}
	if c.Author != nil {
		r.Author = *c.Author
	}
	whole := Lines{1, max(gitops.CountLines(target.content), 1)}
	switch {
	case c.Anchor != "":
		if as := treesitter.Find(target.anchors, c.Anchor); len(as) > 0 {
			a := as[0]
			r.Anchor = &Anchor{Kind: a.Kind, Name: a.Name, Signature: a.Signature}
			r.Lines = Lines{a.Start, a.End}
		} else {
			r.Anchor = &Anchor{Kind: "unresolved", Name: c.Anchor}
			r.Lines = whole
		}
	case c.Lines != nil:
		r.Lines = *c.Lines
	default:
		r.Lines = whole
	}
	c.merge(&r)
	r.Supersedes = c.Supersedes
	target.regions = append(target.regions, r)
	return nil
}

// applyToPath records a context about a whole file or directory: a
// decision in force for every line under it (Region.Scope), not merged
// into the regions this commit happened to change.
func (v *commitView) applyToPath(c Context) error {
	r := newRegion(v.commit.ID, c.File)
	r.Source, r.Author = SourceAgent, Author{Kind: "agent"}
	if c.Author != nil {
		r.Author = *c.Author
		if r.Author.Kind != "agent" {
			r.Source = SourceHook
		}
	}
	if f, err := v.file(c.File); err == nil {
		r.Scope = ScopeFile
		r.Lines = Lines{1, max(gitops.CountLines(f.content), 1)}
	} else if files, lerr := v.repo.ListFiles(v.commit.ID, c.File); lerr == nil && len(files) > 0 {
		r.Scope = ScopeDir
		r.File = strings.TrimSuffix(c.File, "/")
		r.Lines = Lines{1, 1}
	} else {
		return err
	}
	c.merge(&r)
	r.Supersedes = c.Supersedes
	v.paths = append(v.paths, r)
	return nil
}

// applyAll applies contexts about the whole change before contexts about
// one region, so that the more specific ones have the last word.
func (v *commitView) applyAll(cs []Context, defaultAuthor Author, warn func(error)) {
	ordered := make([]Context, 0, len(cs))
	for _, c := range cs {
		if c.File == "" {
			ordered = append(ordered, c)
		}
	}
	for _, c := range cs {
		if c.File != "" {
			ordered = append(ordered, c)
		}
	}
	for _, c := range ordered {
		if c.Author == nil {
			a := defaultAuthor
			c.Author = &a
		}
		if err := v.apply(c); err != nil {
			warn(err)
		}
	}
}

// regions lists every region of the view.
func (v *commitView) regions() []Region {
	var out []Region
	for _, f := range v.files {
		out = append(out, f.regions...)
	}
	return append(out, v.paths...)
}

func matchesContext(r *Region, c Context, anchors []treesitter.Anchor) bool {
	switch {
	case c.Anchor != "":
		if r.Anchor == nil {
			return false
		}
		for _, a := range treesitter.Find(anchors, c.Anchor) {
			if a.Name == r.Anchor.Name {
				return true
			}
		}
		return false
	case c.Lines != nil:
		return r.Lines.Start <= c.Lines.End && c.Lines.Start <= r.Lines.End
	}
	return true // the whole file
}
