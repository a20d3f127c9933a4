package attribution

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/capture"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/safepath"
	"github.com/gloss-dev/gloss/schemas"
)

// BlameQuery asks who wrote the lines of a file.
type BlameQuery struct {
	Path  string          `json:"path" jsonschema:"file to blame, relative to the repository root"`
	Lines *annotate.Lines `json:"lines,omitempty" jsonschema:"line range; default the whole file"`
	Rev   string          `json:"rev,omitempty" jsonschema:"revision to blame at; default the working tree"`
}

// BlameLine is one line and who wrote it.
type BlameLine struct {
	Line        int         `json:"line"`
	Commit      string      `json:"commit" jsonschema:"commit that last changed the line; zeros when not committed"`
	Contributor Contributor `json:"contributor"`
	Text        string      `json:"text"`
}

// BlameHunk is a run of lines last changed by one commit, with the intent
// of the annotation that covers it.
type BlameHunk struct {
	Start      int    `json:"start"`
	End        int    `json:"end"`
	Commit     string `json:"commit"`
	Author     string `json:"author"`
	Time       string `json:"time" jsonschema:"author time of the commit"`
	Intent     string `json:"intent,omitempty" jsonschema:"one-line intent of the annotation covering these lines (or of the commit)"`
	Annotation string `json:"annotation,omitempty" jsonschema:"id of that annotation record"`
}

// BlameResult is the answer of blame: gloss-blame/v1.
type BlameResult struct {
	Schema string      `json:"$schema"`
	Path   string      `json:"path"`
	Rev    string      `json:"rev" jsonschema:"commit id, or 'worktree'"`
	Lines  []BlameLine `json:"lines"`
	Hunks  []BlameHunk `json:"hunks"`
	Totals Totals      `json:"totals"`
}

// Totals counts lines by contributor type.
type Totals struct {
	Human   int `json:"human"`
	AI      int `json:"ai"`
	Mixed   int `json:"mixed"`
	Unknown int `json:"unknown"`
}

func (t *Totals) add(typ string, n int) {
	switch typ {
	case Human:
		t.Human += n
	case AI:
		t.AI += n
	case Mixed:
		t.Mixed += n
	default:
		t.Unknown += n
	}
}

func init() {
	schemas.Register(schemas.Entry{Name: "blame", Tag: "gloss-blame/v1", Description: "Who wrote each line of a file — human, ai, mixed or unknown, with agent and model — and the intent per hunk (git gloss blame, MCP gloss_blame).", Type: schemas.TypeOf[BlameResult]()})
}

// unknownLine is the contributor of a line no record names.
var unknownLine = Contributor{Type: Unknown, Basis: BasisNone}

// uncommittedLine is the contributor of a line not committed yet.
var uncommittedLine = Contributor{Type: Unknown, Basis: "uncommitted"}

// Blame answers a blame query from the blame cache and the attribution and
// annotation notes of the commits it names, each read in one pass.
func Blame(ctx context.Context, repo *gitops.Repo, q BlameQuery) (*BlameResult, error) {
	if q.Path == "" {
		return nil, fault.Usagef("a path is required")
	}
	if q.Lines != nil && (q.Lines.Start < 1 || q.Lines.End < q.Lines.Start) {
		return nil, fault.Usagef("invalid line range %d:%d", q.Lines.Start, q.Lines.End)
	}
	rel, rev, content, err := openVersion(repo, q.Path, q.Rev)
	if err != nil {
		return nil, err
	}
	texts := capture.SplitLines(string(content))
	res := &BlameResult{Schema: "gloss-blame/v1", Path: rel, Rev: rev, Lines: []BlameLine{}, Hunks: []BlameHunk{}}
	if rev == "" {
		res.Rev = "worktree"
	}
	if len(texts) == 0 {
		return res, nil
	}
	start, end := 0, 0
	if q.Lines != nil {
		if q.Lines.Start > len(texts) {
			return nil, fault.Usagef("%s has %d lines", rel, len(texts))
		}
		start, end = q.Lines.Start, min(q.Lines.End, len(texts))
	}
	b, err := repo.BlameCached(ctx, rev, rel, start, end)
	if err != nil {
		return nil, err
	}
	view := cachedView(repo, b)
	for i, l := range b.Lines {
		c := view.Contributors[view.Line[i]]
		text := ""
		if l.Line >= 1 && l.Line <= len(texts) {
			text = texts[l.Line-1]
		}
		res.Lines = append(res.Lines, BlameLine{Line: l.Line, Commit: l.Commit, Contributor: c, Text: text})
		res.Totals.add(c.Type, 1)
		n := len(res.Hunks)
		if n > 0 && res.Hunks[n-1].Commit == l.Commit && res.Hunks[n-1].End == l.Line-1 {
			res.Hunks[n-1].End = l.Line
			continue
		}
		h := BlameHunk{Start: l.Line, End: l.Line, Commit: l.Commit}
		if m, ok := b.Commits[l.Commit]; ok {
			h.Author = m.Author
			if !m.AuthorTime.IsZero() {
				h.Time = m.AuthorTime.UTC().Format(time.RFC3339)
			}
		}
		if k := len(res.Hunks); k < len(view.Intents) {
			h.Intent, h.Annotation = view.Intents[k][0], view.Intents[k][1]
		}
		res.Hunks = append(res.Hunks, h)
	}
	return res, nil
}

// readAttribution reads the attribution of commits from one snapshot of
// the ref; a commit without one is absent.
func readAttribution(repo *gitops.Repo, commits []string) (map[string]*commitAttribution, error) {
	recs, err := notes.Open(repo, Ref).ReadResolved(commits)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*commitAttribution, len(recs))
	for c, live := range recs {
		out[c] = attributionOf(live)
	}
	return out, nil
}

// at returns the intent and record id of the narrowest live region record
// of commit covering the line, else the commit's summary.
func (in *intents) at(commit, path string, line int) (string, string) {
	var best *annotate.Region
	var summary *annotate.Summary
	for _, d := range in.byCommit[commit] {
		switch {
		case d.Region != nil && d.Region.File == path && d.Region.Lines.Start <= line && line <= d.Region.Lines.End:
			if best == nil || d.Region.Lines.End-d.Region.Lines.Start < best.Lines.End-best.Lines.Start {
				best = d.Region
			}
		case d.Summary != nil && summary == nil:
			summary = d.Summary
		}
	}
	if best != nil {
		return firstLine(best.Intent), best.ID
	}
	if summary != nil {
		return firstLine(summary.Intent), summary.ID
	}
	return "", ""
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}

// openVersion reads path at rev, or in the working tree when rev is ""
// (HEAD in a bare repository). rev comes back resolved to a commit id, or
// "" for the working tree.
func openVersion(repo *gitops.Repo, p, rev string) (rel, resolved string, content []byte, err error) {
	root := repo.Root()
	base := root
	if base == "" {
		base = repo.GitDir()
		if rev == "" {
			rev = "HEAD"
		}
	}
	if rel, err = safepath.Clean(base, p); err != nil {
		return "", "", nil, err
	}
	if rev == "" {
		tree, err := safepath.ForRepo(repo)
		if err != nil {
			return "", "", nil, err
		}
		defer tree.Close()
		data, err := tree.ReadFile(rel, 0)
		if err != nil {
			if fault.KindOf(err) == fault.NotFound {
				return "", "", nil, fault.NotFoundf("%s: no such file in the working tree", rel)
			}
			return "", "", nil, fmt.Errorf("read %s: %w", rel, err)
		}
		return rel, "", data, nil
	}
	id, err := repo.ResolveCommit(rev)
	if err != nil {
		return "", "", nil, err
	}
	data, err := repo.ReadFile(id, rel)
	if err != nil {
		if gitops.IsNotFound(err) {
			return "", "", nil, fault.NotFoundf("%s: no such file at %s", rel, gitops.ShortID(id))
		}
		return "", "", nil, err
	}
	return rel, id, data, nil
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
