package why

import (
	"context"
	"sort"
	"time"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/treesitter"
)

// BlameQuery asks for the annotated blame of a whole file.
type BlameQuery struct {
	Path string `json:"path" jsonschema:"file to blame, relative to the repository root"`
	Rev  string `json:"rev,omitempty" jsonschema:"revision to read at; default the working tree"`
}

// Hunk is a run of consecutive lines that one commit last changed.
type Hunk struct {
	Start   int    `json:"start" jsonschema:"first line, in the version read"`
	End     int    `json:"end" jsonschema:"last line, in the version read"`
	Commit  string `json:"commit" jsonschema:"the commit that last changed these lines; all zeros when uncommitted"`
	Author  string `json:"author,omitempty" jsonschema:"the commit's author, as git records it"`
	Time    string `json:"time,omitempty" jsonschema:"when the commit was authored"`
	Summary string `json:"summary,omitempty" jsonschema:"the commit's subject line"`
	// By is who the covering annotation says wrote the lines (human,
	// agent or tool, with the model). Line attribution, once it has its
	// own records, is the better source and fills this first.
	By      *annotate.Author `json:"by,omitempty" jsonschema:"who wrote the lines by the covering annotation: kind (human, agent, tool), name, model"`
	Regions []string         `json:"regions" jsonschema:"ids of the regions (in regions) that cover these lines"`
}

// BlameResult is the annotated blame of a file, what the file page of
// git gloss serve lays out: hunks, the regions of a read of the whole file
// that cover them, and the outline. (Who wrote each line is line
// attribution's: attribution.Blame, git gloss blame.)
type BlameResult struct {
	Schema  string              `json:"$schema"`
	Query   BlameQuery          `json:"query"`
	Rev     string              `json:"rev" jsonschema:"commit id, or 'worktree'"`
	Lines   int                 `json:"lines"`
	Hunks   []Hunk              `json:"hunks"`
	Regions []RegionView        `json:"regions"`
	Outline []treesitter.Anchor `json:"outline" jsonschema:"the file's functions, methods and types"`
	Notes   []string            `json:"notes"`
	Skipped int                 `json:"skipped" jsonschema:"note lines skipped: not valid JSON, or not a known annotation record"`

	// Source is the content blamed, for a view that shows it beside the
	// blame (not part of the JSON).
	Source []byte `json:"-"`
}

// Source returns a file's repository-relative path and content at rev
// (the working tree when rev is ""), through the same resolver as read.
func Source(repo *gitops.Repo, p, rev string) (rel string, content []byte, err error) {
	f, err := openFile(repo, p, rev, nil, nil)
	if err != nil {
		return "", nil, err
	}
	content, err = f.text(repo)
	return f.rel, content, err
}

// Blame answers "who last changed each line, and why": blame's runs of
// lines, each with the regions of a whole-file read that cover it, and the
// file's outline.
func Blame(ctx context.Context, repo *gitops.Repo, q BlameQuery) (*BlameResult, error) {
	reader := NewReader(repo)
	defer reader.Close()
	rd, err := reader.read(ctx, Query{Path: q.Path, Rev: q.Rev})
	if err != nil {
		return nil, err
	}
	read, f, b := rd.res, rd.f, rd.blame
	q.Path = read.Query.Path
	res := &BlameResult{Schema: "gloss-annotated-blame/v1", Query: q, Rev: read.Resolved.Rev, Hunks: []Hunk{},
		Regions: read.Regions, Outline: []treesitter.Anchor{}, Notes: read.Notes, Skipped: read.Skipped}
	if res.Source, err = f.text(repo); err != nil {
		return nil, err
	}
	res.Lines = f.lines
	res.Outline = f.outline(repo)
	if f.lines == 0 || b == nil {
		return res, nil
	}
	// The read blamed the whole file (no anchor, no lines asked).
	for _, l := range b.Lines {
		if n := len(res.Hunks); n > 0 && res.Hunks[n-1].Commit == l.Commit && res.Hunks[n-1].End == l.Line-1 {
			res.Hunks[n-1].End = l.Line
			continue
		}
		h := Hunk{Start: l.Line, End: l.Line, Commit: l.Commit, Regions: []string{}}
		if c, ok := b.Commits[l.Commit]; ok && l.Commit != gitops.Uncommitted {
			h.Author, h.Summary = c.Author, c.Summary
			if !c.AuthorTime.IsZero() {
				h.Time = c.AuthorTime.UTC().Format(time.RFC3339)
			}
		}
		res.Hunks = append(res.Hunks, h)
	}
	for i := range res.Hunks {
		h := &res.Hunks[i]
		var cover []*RegionView
		for j := range res.Regions {
			r := &res.Regions[j]
			if r.Commit != h.Commit || r.Current == nil || r.Current.End < h.Start || r.Current.Start > h.End {
				continue
			}
			cover = append(cover, r)
		}
		// The annotation a hunk shows first is the one that says the most
		// about it: written by its author (an agent or a person) before the
		// record the hook derives from the commit message, then the
		// narrowest; the read's score order otherwise.
		sort.SliceStable(cover, func(a, b int) bool {
			ha, hb := cover[a].Source == annotate.SourceHook, cover[b].Source == annotate.SourceHook
			if ha != hb {
				return hb
			}
			return span(cover[a].Current) < span(cover[b].Current)
		})
		for _, r := range cover {
			h.Regions = append(h.Regions, r.ID)
		}
		if len(cover) > 0 {
			by := cover[0].Author
			h.By = &by
		}
	}
	return res, nil
}

func span(l *annotate.Lines) int { return l.End - l.Start }
