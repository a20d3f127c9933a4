package why

import (
	"context"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/schemas"
	"github.com/gloss-dev/gloss/treesitter"
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

// liveRegions reads every annotation region on the ref, superseded ones
// left out.
func liveRegions(repo *gitops.Repo) ([]*annotate.Region, ScanStats, error) {
	all, st, err := notes.Open(repo, notes.Annotations).ReadAll()
	if err != nil {
		return nil, ScanStats{}, err
	}
	var out []*annotate.Region
	for _, recs := range all {
		for _, d := range annotate.Decode(notes.Resolve(recs)) {
			if d.Region != nil {
				out = append(out, d.Region)
			}
		}
	}
	return out, ScanStats{AnnotatedCommits: st.Notes, Records: st.Records}, nil
}

func cleanRel(repo *gitops.Repo, p string) (string, error) {
	if p == "" {
		return "", fault.Usagef("a path is required")
	}
	p = strings.TrimPrefix(strings.ReplaceAll(p, "\\", "/"), "./")
	if strings.HasPrefix(p, "/") || strings.Contains(p, "\x00") || slices.Contains(strings.Split(p, "/"), "..") {
		if root := repo.Root(); root != "" && strings.HasPrefix(p, root+"/") {
			return strings.TrimPrefix(p, root+"/"), nil
		}
		return "", fault.Usagef("%q: path must be inside the repository, relative to its root", p)
	}
	return strings.TrimSuffix(p, "/"), nil
}

// anchorIs reports whether a stored anchor name answers a queried one.
func anchorIs(stored, asked string) bool {
	if asked == "" {
		return true
	}
	s, a := strings.ReplaceAll(stored, "::", "."), strings.ReplaceAll(asked, "::", ".")
	return s == a || strings.HasSuffix(s, "."+a) || strings.HasSuffix(a, "."+s)
}

// Deps finds the regions whose records declared a dependency on path (and
// anchor).
func Deps(ctx context.Context, repo *gitops.Repo, q DepsQuery) (*DepsResult, error) {
	p, err := cleanRel(repo, q.Path)
	if err != nil {
		return nil, err
	}
	regions, st, err := liveRegions(repo)
	if err != nil {
		return nil, err
	}
	res := &DepsResult{Schema: "gloss-deps/v1", Query: q, Dependents: []Dependent{}, Stats: st}
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

// HistoryQuery asks for the timeline of a file or anchor.
type HistoryQuery struct {
	Path   string `json:"path"`
	Anchor string `json:"anchor,omitempty"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most recent entries to return (default 10)"`
}

// Event is one annotated change in a timeline.
type Event struct {
	Commit      string                `json:"commit"`
	Time        string                `json:"time"`
	Author      string                `json:"author"`
	Subject     string                `json:"subject"`
	Anchor      *annotate.Anchor      `json:"anchor,omitempty"`
	Lines       annotate.Lines        `json:"lines"`
	Intent      string                `json:"intent"`
	Constraints []annotate.Constraint `json:"constraints,omitempty"`
	Source      string                `json:"source"`
}

// HistoryResult is the answer of history: gloss-history/v1, oldest first.
type HistoryResult struct {
	Schema string        `json:"$schema"`
	Query  HistoryQuery  `json:"query"`
	Events []Event       `json:"events"`
	Stats  HistoryCounts `json:"stats"`
}

// HistoryCounts says how much history was looked at.
type HistoryCounts struct {
	CommitsTouchingFile int `json:"commits_touching_file"`
	AnnotatedCommits    int `json:"annotated_commits"`
}

// historyScanLimit bounds the commits of the file that history walks.
const historyScanLimit = 2000

// History returns the annotated changes of a file (or of one anchor in it),
// the newest Limit of them, in chronological order.
func History(ctx context.Context, repo *gitops.Repo, q HistoryQuery) (*HistoryResult, error) {
	p, err := cleanRel(repo, q.Path)
	if err != nil {
		return nil, err
	}
	if q.Limit < 0 {
		return nil, fault.Usagef("limit must not be negative")
	}
	if q.Limit == 0 {
		q.Limit = 10
	}
	res := &HistoryResult{Schema: "gloss-history/v1", Query: q, Events: []Event{}}
	head, err := repo.Head()
	if err != nil || head == "" {
		return res, err
	}
	if blob, _ := repo.BlobAt("HEAD", p); blob == "" {
		return nil, fault.NotFoundf("%s: no such file in HEAD", p)
	}
	ids, err := repo.LogFollow(ctx, "HEAD", p, historyScanLimit)
	if err != nil {
		return nil, err
	}
	renames, err := repo.Renames(ctx, "HEAD")
	if err != nil {
		return nil, err
	}
	var log []*gitops.Commit
	for _, id := range ids {
		c, err := repo.LookupCommit(id)
		if err != nil {
			return nil, err
		}
		log = append(log, c)
	}
	res.Stats.CommitsTouchingFile = len(log)
	store := notes.Open(repo, notes.Annotations)
	const batch = 200
	for start := 0; start < len(log) && len(res.Events) < q.Limit; start += batch {
		chunk := log[start:min(start+batch, len(log))]
		ids := make([]string, len(chunk))
		for i, c := range chunk {
			ids[i] = c.ID
		}
		recs, err := store.Read(ids)
		if err != nil {
			return nil, err
		}
		for _, c := range chunk { // newest first
			if len(recs[c.ID]) == 0 {
				continue
			}
			res.Stats.AnnotatedCommits++
			var block []Event // this commit's events, in record order
			for _, d := range annotate.Decode(notes.Resolve(recs[c.ID])) {
				r := d.Region
				if r == nil || gitops.FollowRename(renames, r.File) != p || (q.Anchor != "" && (r.Anchor == nil || !anchorIs(r.Anchor.Name, q.Anchor))) {
					continue
				}
				block = append(block, Event{Commit: c.ID, Time: c.AuthorTime.UTC().Format(time.RFC3339),
					Author: c.AuthorName, Subject: c.Subject(), Anchor: r.Anchor, Lines: r.Lines,
					Intent: r.Intent, Constraints: r.Constraints, Source: r.Source})
			}
			// Blocks are collected newest first; events within a block keep
			// their order.
			res.Events = append(block, res.Events...)
		}
	}
	if len(res.Events) > q.Limit {
		res.Events = res.Events[len(res.Events)-q.Limit:]
	}
	return res, nil
}

// SummaryQuery asks for a file or a directory at a glance.
type SummaryQuery struct {
	Path   string `json:"path" jsonschema:"file or directory; . for the whole repository"`
	Anchor string `json:"anchor,omitempty" jsonschema:"only this function, method or type (Handle matches Server.Handle)"`
}

// AnchorSummary condenses the annotations of one anchor (or of the
// file's lines outside anchors).
type AnchorSummary struct {
	Anchor      string                `json:"anchor" jsonschema:"qualified name, or (file) for lines outside any anchor"`
	Kind        string                `json:"kind"`
	Lines       *annotate.Lines       `json:"lines,omitempty" jsonschema:"where the anchor is now"`
	Intent      string                `json:"intent" jsonschema:"the latest intent"`
	Constraints []annotate.Constraint `json:"constraints,omitempty" jsonschema:"every constraint recorded, deduplicated"`
	Records     int                   `json:"records"`
	LastCommit  string                `json:"last_commit"`
	LastTime    string                `json:"last_time"`
}

// FileSummary is one file's anchors.
type FileSummary struct {
	File    string          `json:"file"`
	Anchors []AnchorSummary `json:"anchors"`
}

// SummaryResult is the answer of summary: gloss-summary/v1.
type SummaryResult struct {
	Schema string        `json:"$schema"`
	Query  SummaryQuery  `json:"query"`
	Files  []FileSummary `json:"files"`
	Stats  ScanStats     `json:"stats"`
}

// Summary condenses, per anchor that still exists, the latest intent and
// every constraint recorded for the files under path.
func Summary(ctx context.Context, repo *gitops.Repo, q SummaryQuery) (*SummaryResult, error) {
	p := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(q.Path), "./"), "/")
	if p == "." {
		p = ""
	}
	if q.Path == "" {
		return nil, fault.Usagef("a path is required (use . for the whole repository)")
	}
	if p != "" {
		var err error
		if p, err = cleanRel(repo, p); err != nil {
			return nil, err
		}
	}
	res := &SummaryResult{Schema: "gloss-summary/v1", Query: q, Files: []FileSummary{}}
	head, err := repo.Head()
	if err != nil {
		return nil, err
	}
	inScope := map[string]bool{}
	if head != "" {
		files, err := repo.ListFiles("HEAD", p)
		if err != nil && !gitops.IsNotFound(err) {
			return nil, err
		}
		for _, f := range files {
			inScope[f.Path] = true
		}
	}
	if len(inScope) == 0 {
		return nil, fault.NotFoundf("%s: no such file or directory in HEAD", q.Path)
	}
	regions, st, err := liveRegions(repo)
	if err != nil {
		return nil, err
	}
	res.Stats = st
	renames, err := repo.Renames(ctx, "HEAD")
	if err != nil {
		return nil, err
	}
	byFile := map[string][]*annotate.Region{}
	for _, r := range regions {
		if now := gitops.FollowRename(renames, r.File); inScope[now] {
			byFile[now] = append(byFile[now], r)
		}
	}
	for _, file := range slices.Sorted(mapsKeys(byFile)) {
		fs := summarizeFile(repo, file, byFile[file])
		if q.Anchor != "" {
			fs.Anchors = slices.DeleteFunc(fs.Anchors, func(a AnchorSummary) bool { return !anchorMatches(a.Anchor, q.Anchor) })
			if len(fs.Anchors) == 0 {
				continue
			}
		}
		res.Files = append(res.Files, fs)
	}
	return res, nil
}

// anchorMatches reports whether the qualified anchor name is want, or ends
// with it after a "." or "::" (Handle matches Server.Handle).
func anchorMatches(name, want string) bool {
	return name == want || strings.HasSuffix(name, "."+want) || strings.HasSuffix(name, "::"+want)
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func summarizeFile(repo *gitops.Repo, file string, regions []*annotate.Region) FileSummary {
	var anchors []treesitter.Anchor
	if content, err := repo.ReadFile("HEAD", file); err == nil {
		anchors = treesitter.Outline(file, content)
	}
	current := map[string]treesitter.Anchor{}
	for _, a := range anchors {
		current[a.Name] = a
	}
	// Oldest first, so the latest intent wins.
	sort.SliceStable(regions, func(i, j int) bool {
		return regions[i].Time < regions[j].Time || regions[i].Time == regions[j].Time && regions[i].ID < regions[j].ID
	})
	groups := map[string]*AnchorSummary{}
	var order []string
	for _, r := range regions {
		key, kind := "(file)", "lines"
		var lines *annotate.Lines
		if r.Anchor != nil && r.Anchor.Kind != "unresolved" {
			a, ok := current[r.Anchor.Name]
			if !ok {
				continue // the anchor is gone from today's code
			}
			key, kind = a.Name, a.Kind
			lines = &annotate.Lines{Start: a.Start, End: a.End}
		}
		g := groups[key]
		if g == nil {
			g = &AnchorSummary{Anchor: key, Kind: kind, Lines: lines}
			groups[key] = g
			order = append(order, key)
		}
		g.Records++
		if r.Intent != "" {
			g.Intent = r.Intent
		}
		for _, c := range r.Constraints {
			dup := false
			for _, x := range g.Constraints {
				if x.Text == c.Text {
					dup = true
				}
			}
			if !dup {
				g.Constraints = append(g.Constraints, c)
			}
		}
		g.LastCommit, g.LastTime = r.Commit, r.Time
	}
	fs := FileSummary{File: file, Anchors: []AnchorSummary{}}
	for _, k := range order {
		fs.Anchors = append(fs.Anchors, *groups[k])
	}
	sort.SliceStable(fs.Anchors, func(i, j int) bool {
		li, lj := fs.Anchors[i].Lines, fs.Anchors[j].Lines
		switch {
		case li == nil:
			return lj != nil
		case lj == nil:
			return false
		}
		return li.Start < lj.Start
	})
	return fs
}
