// Summary condenses a file's or a directory's annotations: the latest
// intent and every constraint per anchor.

package why

import (
	"context"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/treesitter"
)

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
	Schema  string        `json:"$schema"`
	Query   SummaryQuery  `json:"query"`
	Files   []FileSummary `json:"files"`
	Stats   ScanStats     `json:"stats"`
	Skipped int           `json:"skipped" jsonschema:"note lines skipped: not valid JSON, or not a known annotation record"`
}

// Summary condenses, per anchor that still exists, the latest intent and
// every constraint recorded for the files under path.
func Summary(ctx context.Context, repo *gitops.Repo, q SummaryQuery) (*SummaryResult, error) {
	if strings.TrimSpace(q.Path) == "" {
		return nil, fault.Usagef("a path is required (use . for the whole repository)")
	}
	if err := checkAnchor(q.Anchor); err != nil {
		return nil, err
	}
	p, err := cleanRel(repo, strings.TrimSpace(q.Path))
	if err != nil {
		return nil, err
	}
	q.Path = p
	if p == "." {
		p = ""
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
	regions, st, skipped, err := liveRegions(repo)
	if err != nil {
		return nil, err
	}
	res.Stats, res.Skipped = st, skipped
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
	for _, file := range slices.Sorted(maps.Keys(byFile)) {
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

func summarizeFile(repo *gitops.Repo, file string, regions []*annotate.Region) FileSummary {
	var anchors []treesitter.Anchor
	if content, err := repo.ReadFile("HEAD", file); err == nil {
		anchors = treesitter.OutlineCached(repo, file, content)
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
