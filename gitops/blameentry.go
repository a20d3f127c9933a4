package gitops

import (
	"fmt"
	"sort"
)

// blameEntry is a whole-file blame, stored as runs of lines that share a
// commit and have consecutive original line numbers.
type blameEntry struct {
	lines   int
	runs    []blameRun
	commits []string
	paths   []string
	meta    map[string]BlameCommit
}

type blameRun struct {
	start, count, commit, origStart, path int // commit and path index the tables
}

func entryFromBlame(b *Blame) *blameEntry {
	e := &blameEntry{meta: map[string]BlameCommit{}}
	ci, pi := map[string]int{}, map[string]int{}
	index := func(tab *[]string, idx map[string]int, v string) int {
		if i, ok := idx[v]; ok {
			return i
		}
		idx[v] = len(*tab)
		*tab = append(*tab, v)
		return idx[v]
	}
	for _, l := range b.Lines {
		c := index(&e.commits, ci, l.Commit)
		p := index(&e.paths, pi, l.OrigPath)
		if n := len(e.runs); n > 0 {
			last := &e.runs[n-1]
			if last.commit == c && last.path == p && last.start+last.count == l.Line && last.origStart+last.count == l.OrigLine {
				last.count++
				continue
			}
		}
		e.runs = append(e.runs, blameRun{start: l.Line, count: 1, commit: c, origStart: l.OrigLine, path: p})
	}
	e.lines = len(b.Lines)
	for c, m := range b.Commits {
		e.meta[c] = m
	}
	return e
}

func newFileEntry(commit, path string, lines int, meta BlameCommit) *blameEntry {
	e := &blameEntry{lines: lines, commits: []string{commit}, paths: []string{path}, meta: map[string]BlameCommit{commit: meta}}
	if lines > 0 {
		e.runs = []blameRun{{start: 1, count: lines, commit: 0, origStart: 1, path: 0}}
	}
	return e
}

// pass derives the blame of the new version of a file from e, the blame of
// its old version, and the hunks between them: lines outside the hunks
// keep their attribution (shifted to their new line numbers), lines a hunk
// added belong to commit, at their own line numbers in path.
func (e *blameEntry) pass(hunks []Hunk, commit, path string, meta BlameCommit) *blameEntry {
	old := e.expand()
	var out []BlameLine
	oldLine := 1 // next old line not yet placed
	add := func(b BlameLine) {
		b.Line = len(out) + 1
		out = append(out, b)
	}
	for _, h := range hunks {
		// unchanged lines before the hunk's old side
		oldEnd := h.OldStart // lines < OldStart are before the change (OldStart is the line after which a pure insertion goes)
		if h.OldLines > 0 {
			oldEnd = h.OldStart - 1
		}
		for ; oldLine <= oldEnd && oldLine <= len(old); oldLine++ {
			add(old[oldLine-1])
		}
		oldLine += h.OldLines
		for i := 0; i < h.NewLines; i++ {
			add(BlameLine{Commit: commit, OrigLine: h.NewStart + i, OrigPath: path})
		}
	}
	for ; oldLine <= len(old); oldLine++ {
		add(old[oldLine-1])
	}
	b := &Blame{Lines: out, Commits: map[string]BlameCommit{}}
	for c, m := range e.meta {
		b.Commits[c] = m
	}
	b.Commits[commit] = meta
	n := entryFromBlame(b)
	n.dropUnusedMeta()
	return n
}

func (e *blameEntry) dropUnusedMeta() {
	used := map[string]bool{}
	for _, r := range e.runs {
		used[e.commits[r.commit]] = true
	}
	for c := range e.meta {
		if !used[c] {
			delete(e.meta, c)
		}
	}
}

func (e *blameEntry) expand() []BlameLine {
	out := make([]BlameLine, 0, e.lines)
	for _, r := range e.runs {
		for i := 0; i < r.count; i++ {
			out = append(out, BlameLine{Line: r.start + i, Commit: e.commits[r.commit], OrigLine: r.origStart + i, OrigPath: e.paths[r.path]})
		}
	}
	return out
}

// slice returns lines start..end (0,0 for all) as a Blame, with the
// metadata of the commits those lines name.
func (e *blameEntry) slice(start, end int) (*Blame, error) {
	if start <= 0 {
		start, end = 1, e.lines
	}
	if end < start {
		end = start
	}
	if start > e.lines {
		return nil, fmt.Errorf("blame: line %d is past the end of the file (%d lines)", start, e.lines)
	}
	end = min(end, e.lines)
	b := &Blame{Lines: make([]BlameLine, 0, end-start+1), Commits: map[string]BlameCommit{}}
	i := sort.Search(len(e.runs), func(i int) bool { return e.runs[i].start+e.runs[i].count > start })
	for ; i < len(e.runs) && e.runs[i].start <= end; i++ {
		r := e.runs[i]
		c := e.commits[r.commit]
		b.Commits[c] = e.meta[c]
		for l := max(r.start, start); l < r.start+r.count && l <= end; l++ {
			b.Lines = append(b.Lines, BlameLine{Line: l, Commit: c, OrigLine: r.origStart + (l - r.start), OrigPath: e.paths[r.path]})
		}
	}
	return b, nil
}
