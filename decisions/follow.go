package decisions

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/treesitter"
)

// Following an anchor through the history: when a record's anchor is not
// in today's file by name, the function was renamed or deleted since the
// record's commit. The file's history from that commit to the tip (git
// log --follow, so through file renames) is searched for the first commit
// whose version no longer has the name; in that commit, the function is
// compared with the functions the commit added. One whose lines are
// mostly the same (with the names taken out) is the function renamed, and
// is followed on from there. What it can follow: a rename, with or
// without edits before and after it, in the same file or with the file;
// a chain of renames. What it cannot: a function renamed and rewritten in
// the same commit, split in two, or moved to another file (a rename of the
// function with a rename of the file is followed only when git detects the
// file's rename).

// followFile caches what a search found, per record: the name its anchor
// has now, or that it is gone. A name is checked against the file each
// time (it may be renamed again); "gone" is kept until the index is
// rebuilt.
const followFile = "follow.json"

// maxFollowRenames bounds a chain of renames followed for one record.
const maxFollowRenames = 4

// similarEnough is the share of lines two functions must have in common
// (with their names taken out) to be taken for one renamed.
const similarEnough = 0.5

type followed struct {
	Name string `json:"name"` // "" when gone
}

// follower searches and remembers, for one lookup.
type follower struct {
	ix      *Index
	ctx     context.Context
	tip     string
	path    string
	cache   map[string]followed
	changed bool
}

func (ix *Index) follower(ctx context.Context, tip, path string) *follower {
	fw := &follower{ix: ix, ctx: ctx, tip: tip, path: path, cache: map[string]followed{}}
	if data, err := ix.root.ReadFile(followFile); err == nil {
		_ = json.Unmarshal(data, &fw.cache)
	}
	return fw
}

// save keeps what this lookup found (a cache: a failed write costs a
// search next time).
func (fw *follower) save() {
	if !fw.changed {
		return
	}
	if data, err := json.Marshal(fw.cache); err == nil {
		_ = atomicfile.Replace(fw.ix.root, followFile, data, 0o644)
	}
}

// name returns the name e's anchor has in the tip's version of the file,
// or false when it is gone (or the history cannot tell).
func (fw *follower) name(e Entry, outline []treesitter.Anchor) (string, bool) {
	if f, ok := fw.cache[e.ID]; ok {
		if f.Name == "" {
			return "", false
		}
		if _, ok := byName(outline, f.Name); ok {
			return f.Name, true
		}
	}
	name := fw.search(e)
	fw.cache[e.ID] = followed{Name: name}
	fw.changed = true
	if name == "" {
		return "", false
	}
	_, ok := byName(outline, name)
	return name, ok
}

// search follows e's anchor from its commit to the tip; "" when it was
// deleted, or cannot be followed.
func (fw *follower) search(e Entry) string {
	if fw.tip == "" || e.Commit == fw.tip {
		return ""
	}
	log, err := fw.ix.repo.LogFollowPaths(fw.ctx, e.Commit+".."+fw.tip, fw.path)
	if err != nil || len(log) == 0 {
		return ""
	}
	// Oldest first; each version knows the name the file had before it.
	for i, j := 0, len(log)-1; i < j; i, j = i+1, j-1 {
		log[i], log[j] = log[j], log[i]
	}
	name, before := e.Anchor, e.Path
	from := 0
	for hop := 0; hop < maxFollowRenames; hop++ {
		gone := fw.firstWithout(log[from:], name)
		if gone < 0 {
			return name // still there at the tip: found by the name it has
		}
		at := log[from+gone]
		prev := before
		if from+gone > 0 {
			prev = log[from+gone-1].Path
		}
		if at.OldPath != "" {
			prev = at.OldPath
		}
		next := fw.renamedIn(at, prev, name)
		if next == "" {
			return ""
		}
		name, from, before = next, from+gone, at.Path
	}
	return ""
}

// firstWithout finds, by bisection, the first version of log whose file
// has no anchor called name (a function once gone stays gone, or comes
// back under its name, which the lookup finds first); -1 when the last
// still has it.
func (fw *follower) firstWithout(log []gitops.FileVersion, name string) int {
	has := func(i int) bool {
		_, ok := byName(fw.outlineAt(log[i].Commit, log[i].Path), name)
		return ok
	}
	if len(log) == 0 || has(len(log)-1) {
		return -1
	}
	return sort.Search(len(log), func(i int) bool { return !has(i) })
}

// renamedIn compares the anchor name had in the parent of v (the file
// then called prev) with the anchors v added: the one most like it, if
// it is like enough and no other is as close, is its new name.
func (fw *follower) renamedIn(v gitops.FileVersion, prev, name string) string {
	parent := v.Commit + "^"
	oldSrc, err := fw.ix.repo.ReadFile(parent, prev)
	if err != nil {
		return ""
	}
	old, ok := byName(treesitter.OutlineCached(fw.ix.repo, prev, oldSrc), name)
	if !ok {
		return ""
	}
	was := lineSet(linesOf(oldSrc, old.Start, old.End), old.Name)
	newSrc, err := fw.ix.repo.ReadFile(v.Commit, v.Path)
	if err != nil {
		return ""
	}
	before := map[string]bool{}
	for _, a := range treesitter.OutlineCached(fw.ix.repo, prev, oldSrc) {
		before[a.Name] = true
	}
	best, second, found := 0.0, 0.0, ""
	for _, a := range treesitter.OutlineCached(fw.ix.repo, v.Path, newSrc) {
		if before[a.Name] || a.Kind != old.Kind {
			continue
		}
		s := jaccard(was, lineSet(linesOf(newSrc, a.Start, a.End), a.Name))
		switch {
		case s > best:
			best, second, found = s, best, a.Name
		case s > second:
			second = s
		}
	}
	if best >= similarEnough && best-second >= 0.1 {
		return found
	}
	return ""
}

func (fw *follower) outlineAt(commit, path string) []treesitter.Anchor {
	src, err := fw.ix.repo.ReadFile(commit, path)
	if err != nil {
		return nil
	}
	return treesitter.OutlineCached(fw.ix.repo, path, src)
}

// lineSet is the set of an anchor's lines, whitespace collapsed and its
// own name taken out.
func lineSet(text []byte, name string) map[string]bool {
	short := name
	if i := strings.LastIndexAny(short, ".:"); i >= 0 {
		short = short[i+1:]
	}
	set := map[string]bool{}
	for _, l := range strings.Split(string(text), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			set[withoutWord(strings.Join(f, " "), short)] = true
		}
	}
	return set
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	in := 0
	for l := range a {
		if b[l] {
			in++
		}
	}
	return float64(in) / float64(len(a)+len(b)-in)
}
