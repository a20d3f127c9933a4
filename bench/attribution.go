package bench

import (
	"context"
	"os"
	"path/filepath"
	"slices"

	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// attribute writes a line attribution record on every commit the whole
// file's blame names, as a repository that had gloss from its first commit
// holds: each commit's lines of the file (numbered as at that commit),
// every third commit's written by an agent, the others by a person. It
// runs once per clone (a marker file says it ran).
func (e *RecipeEnv) attribute(ctx context.Context, repo *gitops.Repo) error {
	marker := filepath.Join(e.GitDir, "gloss-bench-attribution")
	if _, err := os.Stat(marker); err == nil {
		return nil
	}
	b, err := repo.Blame(ctx, e.Rev, e.File, 0, 0)
	if err != nil {
		return err
	}
	type lines struct {
		path string
		nums []int
	}
	byCommit := map[string]*lines{}
	for _, l := range b.Lines {
		s := byCommit[l.Commit]
		if s == nil {
			s = &lines{path: l.OrigPath}
			byCommit[l.Commit] = s
		}
		if l.OrigPath == s.path {
			s.nums = append(s.nums, l.OrigLine)
		}
	}
	recs := map[string][]any{}
	for i, c := range slices.Sorted(func(yield func(string) bool) {
		for k := range byCommit {
			if !yield(k) {
				return
			}
		}
	}) {
		s := byCommit[c]
		slices.Sort(s.nums)
		who := attribution.Contributor{Type: attribution.Human, Basis: attribution.BasisAuthor}
		if i%3 == 0 {
			who = attribution.Contributor{Type: attribution.AI, Agent: "claude", Model: "claude-opus-4", Session: "bench", Basis: attribution.BasisCapture}
		}
		f := attribution.File{Path: s.path}
		for _, n := range s.nums {
			if k := len(f.Ranges); k > 0 && f.Ranges[k-1].End == n-1 {
				f.Ranges[k-1].End = n
				continue
			}
			f.Ranges = append(f.Ranges, attribution.Range{Start: n, End: n})
		}
		recs[c] = []any{attribution.Record{Header: notes.NewHeader(attribution.Schema), Commit: c, Source: attribution.SourceImport,
			Contributors: []attribution.Contributor{who}, Files: []attribution.File{f}}}
	}
	if err := notes.Open(repo, attribution.Ref).AppendMany(ctx, recs); err != nil {
		return err
	}
	e.Attributed = len(recs)
	return os.WriteFile(marker, nil, 0o644)
}
