package web

import (
	"context"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// What gloss recorded lately and where: the overview's recent decisions
// and attributed commits, the tree's per-folder counts. Both come from
// the notes the hooks already wrote (one read of each notes ref), never
// from a blame of the files.

// decisionItem is one record in force that says something: a decision
// the overview lists, linked to its code.
type decisionItem struct {
	ID, Time, File, Commit string
	Scope                  string // annotate.ScopeAnchor, ScopeFile, ScopeDir or ScopeLines
	Anchor                 string
	Line                   int // its first line when recorded (a link target for lines)
	Intent                 string
	Author                 annotate.Author
	Constraints, Risks     int
	Rejected               int
}

// liveDecisions lists the records in force (not flagged, superseded,
// corrected or expired) that say something, newest first. Paths are as
// recorded: a file renamed since keeps its records under its old name
// here (the file page follows renames).
func liveDecisions(repo *gitops.Repo) ([]decisionItem, error) {
	all, _, err := notes.Open(repo, notes.Annotations).ReadAll()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	var out []decisionItem
	for object, recs := range all {
		for _, d := range annotate.Live(recs, now) {
			r := d.Region
			if r == nil || !r.Says() {
				continue
			}
			it := decisionItem{ID: r.ID, Time: r.Time, File: r.File, Commit: object, Scope: r.ScopeOf(), Line: r.Lines.Start,
				Intent: r.Intent, Author: r.Author, Constraints: len(r.Constraints), Risks: len(r.Risks), Rejected: len(r.RejectedAlternatives)}
			if r.Anchor != nil {
				it.Anchor = r.Anchor.Name
			}
			out = append(out, it)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Time != out[j].Time {
			return out[i].Time > out[j].Time
		}
		return out[i].ID > out[j].ID
	})
	return out, nil
}

// attributedCommit is one commit's line attribution, as the post-commit
// hook recorded it: who wrote its lines (agents and models, sessions) and
// the files, each linking to the code.
type attributedCommit struct {
	Commit, Time, Subject string
	Agents                []string // "claude · opus"
	Sessions              []string
	attribution.Totals    // its new lines by who wrote them
	Files                 []string
}

// attributionRecords reads every line attribution record, newest first.
func attributionRecords(repo *gitops.Repo) ([]attribution.Record, error) {
	all, _, err := notes.Open(repo, attribution.Ref).ReadAll()
	if err != nil {
		return nil, err
	}
	var out []attribution.Record
	for object, recs := range all {
		for _, r := range recs {
			var rec attribution.Record
			if r.Schema != attribution.Schema || r.Decode(&rec) != nil || rec.Commit != object {
				continue
			}
			out = append(out, rec)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Time != out[j].Time {
			return out[i].Time > out[j].Time
		}
		return out[i].ID > out[j].ID
	})
	// A commit's newest record stands (an amend's carried record after
	// the hook's, say); the older ones are not counted twice.
	seen := map[string]bool{}
	return slices.DeleteFunc(out, func(r attribution.Record) bool {
		dup := seen[r.Commit]
		seen[r.Commit] = true
		return dup
	}), nil
}

// eachRange calls fn for every attributed range of a record: its file,
// its contributor and its count of lines.
func eachRange(rec attribution.Record, fn func(file string, c attribution.Contributor, lines int)) {
	for _, f := range rec.Files {
		for _, rg := range f.Ranges {
			if rg.C >= 0 && rg.C < len(rec.Contributors) {
				fn(f.Path, rec.Contributors[rg.C], rg.End-rg.Start+1)
			}
		}
	}
}

// recentAttributed is the n newest attribution records that name a
// writer (commits made before gloss have none), with their subjects.
func recentAttributed(repo *gitops.Repo, recs []attribution.Record, n int) []attributedCommit {
	var out []attributedCommit
	for _, rec := range recs {
		if len(out) == n {
			break
		}
		c := attributedCommit{Commit: rec.Commit, Time: rec.Time}
		for _, f := range rec.Files {
			c.Files = append(c.Files, f.Path)
		}
		seen := map[string]bool{}
		eachRange(rec, func(_ string, k attribution.Contributor, lines int) {
			addLines(&c.Totals, k.Type, lines)
			if k.Agent != "" && !seen["a"+k.Agent+k.Model] {
				seen["a"+k.Agent+k.Model] = true
				c.Agents = append(c.Agents, strings.TrimSuffix(k.Agent+" · "+k.Model, " · "))
			}
			if k.Session != "" && !seen["s"+k.Session] {
				seen["s"+k.Session] = true
				c.Sessions = append(c.Sessions, k.Session)
			}
		})
		if c.AI+c.Mixed+c.Human == 0 {
			continue
		}
		if info, err := repo.LookupCommit(rec.Commit); err == nil {
			c.Subject = info.Subject()
		}
		out = append(out, c)
	}
	return out
}

// folderCount is what the tree shows beside a folder or a file: the
// decisions in force recorded under it, and of the lines gloss attributed
// there (each commit's new lines, as its hook recorded them), how many an
// agent wrote (ai or mixed).
type folderCount struct {
	Decisions int `json:"decisions"`
	Agent     int `json:"agent_lines" jsonschema:"attributed lines an agent wrote (ai or mixed)"`
	Seen      int `json:"attributed_lines"`
}

// AgentPct is the agent's share of the attributed lines, in percent.
func (f folderCount) AgentPct() int {
	if f.Seen == 0 {
		return 0
	}
	return (f.Agent*100 + f.Seen/2) / f.Seen
}

// countUnder adds up decisions and attributed lines by the child of dir
// (a folder or a file directly in it) they fall under.
func countUnder(dir string, ds []decisionItem, recs []attribution.Record, today *pathsToday) map[string]*folderCount {
	out := map[string]*folderCount{}
	at := func(p string) *folderCount {
		child, ok := childOf(dir, today.of(p))
		if !ok {
			return nil
		}
		c := out[child]
		if c == nil {
			c = &folderCount{}
			out[child] = c
		}
		return c
	}
	for _, d := range ds {
		if c := at(d.File); c != nil {
			c.Decisions++
		}
	}
	for _, rec := range recs {
		eachRange(rec, func(file string, k attribution.Contributor, lines int) {
			c := at(file)
			switch {
			case c == nil:
			case k.Type == attribution.AI || k.Type == attribution.Mixed:
				c.Agent += lines
				c.Seen += lines
			case k.Type == attribution.Human:
				c.Seen += lines
			}
		})
	}
	return out
}

// childOf names the entry of dir ("" for the root) that p is or is under.
func childOf(dir, p string) (string, bool) {
	p = strings.Trim(p, "/")
	if dir != "" {
		if !strings.HasPrefix(p, dir+"/") {
			return "", false
		}
		p = strings.TrimPrefix(p, dir+"/")
	}
	if p == "" || p == "." {
		return "", false
	}
	first, _, _ := strings.Cut(p, "/")
	return path.Join(dir, first), true
}

// pathsToday maps a path as a record named it to the file's path at HEAD:
// a file renamed since is followed through git's rename detection
// (gitops.Renames, cached); a path still at HEAD keeps its name.
type pathsToday struct {
	head    map[string]bool
	renames map[string]string
}

func newPathsToday(ctx context.Context, repo *gitops.Repo) *pathsToday {
	p := &pathsToday{head: map[string]bool{}}
	if files, err := repo.ListFiles("HEAD", ""); err == nil {
		for _, f := range files {
			p.head[f.Path] = true
		}
	}
	p.renames, _ = repo.Renames(ctx, "HEAD")
	return p
}

func (p *pathsToday) of(path string) string {
	if p == nil || p.head[path] || p.renames == nil {
		return path
	}
	return gitops.FollowRename(p.renames, path)
}

// recordedStats is what the hooks recorded about a range, as they
// recorded it: the lines each commit introduced, by contributor type,
// agent and model, and directory, summed over the range's commits that
// have a line attribution record. It reads one notes ref and lists the
// range's commits; it blames nothing, so it answers at once where the
// line-by-line count (attribution.Stats, which blames every file the
// range changed) takes seconds on a history gloss has not seen.
type recordedStats struct {
	Commits, Attributed int // commits in the range; those with a record
	Totals              attribution.Totals
	Agents              []attribution.AgentLines
	Directories         []attribution.DirLines
}

func recorded(ctx context.Context, repo *gitops.Repo, q attribution.StatsQuery) (*recordedStats, error) {
	// The range comes from the address bar: after --end-of-options, git
	// reads it as a revision, never as an option.
	args := []string{"rev-list"}
	switch {
	case q.Since != "":
		args = append(args, "--since="+q.Since, "--end-of-options", "HEAD")
	case strings.Contains(q.Range, ".."):
		args = append(args, "--end-of-options", q.Range)
	case q.Range != "":
		args = append(args, "-1", "--end-of-options", q.Range)
	default:
		args = append(args, "HEAD")
	}
	out, err := repo.Git(ctx, append(args, "--")...)
	if err != nil {
		return nil, fault.NotFoundf("%s%s: %v", q.Range, q.Since, err)
	}
	commits := strings.Fields(string(out))
	in := make(map[string]bool, len(commits))
	for _, c := range commits {
		in[c] = true
	}
	recs, err := attributionRecords(repo)
	if err != nil {
		return nil, err
	}
	res := &recordedStats{Commits: len(commits)}
	dirs := map[string]*attribution.DirLines{}
	agents := map[[2]string]int{}
	for _, rec := range recs {
		if !in[rec.Commit] {
			continue
		}
		res.Attributed++
		eachRange(rec, func(file string, c attribution.Contributor, lines int) {
			dir := path.Dir(file)
			d := dirs[dir]
			if d == nil {
				d = &attribution.DirLines{Dir: dir}
				dirs[dir] = d
			}
			addLines(&res.Totals, c.Type, lines)
			addLines(&d.Totals, c.Type, lines)
			d.Insertions += lines
			if (c.Type == attribution.AI || c.Type == attribution.Mixed) && c.Agent != "" {
				agents[[2]string{c.Agent, c.Model}] += lines
			}
		})
	}
	for _, k := range slices.Sorted(maps.Keys(dirs)) {
		res.Directories = append(res.Directories, *dirs[k])
	}
	for k, n := range agents {
		res.Agents = append(res.Agents, attribution.AgentLines{Agent: k[0], Model: k[1], Lines: n})
	}
	sort.Slice(res.Agents, func(i, j int) bool {
		a, b := res.Agents[i], res.Agents[j]
		if a.Lines != b.Lines {
			return a.Lines > b.Lines
		}
		return a.Agent+a.Model < b.Agent+b.Model
	})
	return res, nil
}

// addLines counts n lines of a contributor type.
func addLines(t *attribution.Totals, typ string, n int) {
	switch typ {
	case attribution.Human:
		t.Human += n
	case attribution.AI:
		t.AI += n
	case attribution.Mixed:
		t.Mixed += n
	default:
		t.Unknown += n
	}
}
