// Deps answers "who relies on this code?" from the dependencies regions
// declared (Depends-On), without reading history.

package why

import (
	"context"
	"sort"
	"strings"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/schemas"
)

// DepsQuery asks who relies on a file or an anchor in it.
type DepsQuery struct {
	Path   string `json:"path" jsonschema:"file others may depend on"`
	Anchor string `json:"anchor,omitempty" jsonschema:"narrow to one function, method or type"`
}

// Dependent is a region that declared a dependency on the queried code.
type Dependent struct {
	ID     string           `json:"id"`
	Commit string           `json:"commit"`
	File   string           `json:"file"`
	Anchor *annotate.Anchor `json:"anchor,omitempty"`
	Lines  annotate.Lines   `json:"lines"`
	On     annotate.Dep     `json:"on" jsonschema:"the declared dependency"`
	Intent string           `json:"intent"`
	Author annotate.Author  `json:"author"`
	Time   string           `json:"time" jsonschema:"when the record was written"`
}

// DepsResult is the answer of deps: gloss-deps/v1.
type DepsResult struct {
	Schema     string      `json:"$schema"`
	Query      DepsQuery   `json:"query"`
	Dependents []Dependent `json:"dependents"`
	Stats      ScanStats   `json:"stats"`
	Skipped    int         `json:"skipped" jsonschema:"note lines skipped: not valid JSON, or not a known annotation record"`
}

// ScanStats counts what a scan of the notes read.
type ScanStats struct {
	AnnotatedCommits int `json:"annotated_commits"`
	Records          int `json:"records"`
}

func init() {
	schemas.Register(
		schemas.Entry{Name: "deps", Tag: "gloss-deps/v1", Description: "Regions that declared a dependency on a file or anchor (git gloss deps, MCP gloss_deps).", Type: schemas.TypeOf[DepsResult]()},
		schemas.Entry{Name: "history", Tag: "gloss-history/v1", Description: "The timeline of a file's or anchor's annotations (git gloss history, MCP gloss_history).", Type: schemas.TypeOf[HistoryResult]()},
		schemas.Entry{Name: "summary", Tag: "gloss-summary/v1", Description: "Condensed intent and constraints per anchor of a file or directory (git gloss summary, MCP gloss_summary).", Type: schemas.TypeOf[SummaryResult]()},
	)
}

// Deps finds the regions whose records declared a dependency on path (and
// anchor).
func Deps(ctx context.Context, repo *gitops.Repo, q DepsQuery) (*DepsResult, error) {
	if err := checkAnchor(q.Anchor); err != nil {
		return nil, err
	}
	p, err := cleanRel(repo, q.Path)
	if err != nil {
		return nil, err
	}
	q.Path = p
	regions, st, skipped, err := liveRegions(repo)
	if err != nil {
		return nil, err
	}
	res := &DepsResult{Schema: "gloss-deps/v1", Query: q, Dependents: []Dependent{}, Stats: st, Skipped: skipped}
	for _, r := range regions {
		for _, d := range r.Deps {
			if strings.TrimPrefix(d.File, "./") != p || (q.Anchor != "" && d.Anchor != "" && !anchorIs(d.Anchor, q.Anchor)) {
				continue
			}
			res.Dependents = append(res.Dependents, Dependent{ID: r.ID, Commit: r.Commit, File: r.File, Anchor: r.Anchor,
				Lines: r.Lines, On: d, Intent: r.Intent, Author: r.Author, Time: r.Time})
		}
	}
	sort.Slice(res.Dependents, func(i, j int) bool {
		a, b := res.Dependents[i], res.Dependents[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.ID < b.ID
	})
	return res, nil
}
