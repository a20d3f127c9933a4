package review

import (
	"fmt"
	"sort"
)

// Limits bound the lists of a report, so that a 500-commit range or a
// 10,000-file diff still gives a report of bounded size (Cut says what
// was left out).
type Limits struct {
	Decisions int // decisions in force listed
	Recorded  int // decisions the range records
	Files     int // rows of the per-file authorship
	Sessions  int
	Findings  int // ci check findings
	Specs     int
	Tasks     int
	ReadFirst int
	Changed   int // hunks listed per decision
}

// Default is the bound of every report.
var Default = Limits{Decisions: 50, Recorded: 20, Files: 100, Sessions: 20, Findings: 50, Specs: 30, Tasks: 30, ReadFirst: 10, Changed: 10}

func (l Limits) orDefault() Limits {
	if l == (Limits{}) {
		return Default
	}
	return l
}

// bound cuts the report's lists to the limits, saying what went. Run
// again with smaller limits it cuts further, keeping each list's total.
func bound(rep *Report, l Limits) {
	cutList(rep, "decisions in force", &rep.Decisions, l.Decisions, "the lowest ranked")
	cutList(rep, "decisions recorded by the range", &rep.Recorded, l.Recorded, "the lowest ranked")
	cutList(rep, "files in the authorship table", &rep.Authorship.Files, l.Files, "those with the fewest agent and added lines; the totals count every file")
	cutList(rep, "sessions", &rep.Sessions.List, l.Sessions, "those behind the fewest commits")
	cutList(rep, "check findings", &rep.Check.Findings, l.Findings, "the last ones; git gloss ci check lists all")
	cutList(rep, "specs", &rep.Specs, l.Specs, "the last by path")
	cutList(rep, "tasks", &rep.Tasks, l.Tasks, "the last by id")
	cutList(rep, "files to read first", &rep.ReadFirst, l.ReadFirst, "the lower ranked")
	most := 0
	for _, ds := range [][]Decision{rep.Decisions, rep.Recorded} {
		for i := range ds {
			if n := len(ds[i].Changed); n > l.Changed {
				most = max(most, n)
				ds[i].Changed = ds[i].Changed[:l.Changed]
			}
		}
	}
	if most > 0 {
		noteCut(rep, "changed hunks per decision", l.Changed, most, "the later hunks")
	}
	for i := range rep.Sessions.List {
		s := &rep.Sessions.List[i]
		s.Commits = s.Commits[:min(len(s.Commits), 10)]
		s.Files = s.Files[:min(len(s.Files), 10)]
	}
}

func cutList[T any](rep *Report, what string, list *[]T, n int, which string) {
	if len(*list) <= n {
		return
	}
	noteCut(rep, what, n, len(*list), which)
	*list = (*list)[:n]
}

// noteCut records a cut, or updates the one already made of the same list.
func noteCut(rep *Report, what string, shown, total int, which string) {
	for i := range rep.Cut {
		if rep.Cut[i].What == what {
			rep.Cut[i].Shown = shown
			return
		}
	}
	rep.Cut = append(rep.Cut, Cut{What: what, Shown: shown, Total: total, LeftOut: which})
}

// readFirst ranks the examined files for a reviewer: a rejected
// alternative brought back weighs most, then a constraint, a rejected
// alternative and a risk in force there, then the share of the file's
// added lines an agent wrote, then the size of the change.
func readFirst(files []*fileWork) []FileRank {
	var out []FileRank
	for _, f := range files {
		if !f.examined {
			continue
		}
		r := FileRank{Path: f.change.Path, Reasons: []string{}}
		counts := map[string]int{}
		for _, d := range f.decisions {
			counts[d.Rank]++
		}
		for _, k := range []struct {
			rank   string
			weight int
			text   string
		}{
			{RankReintroduced, 100, "brings back %d rejected alternative(s)"},
			{RankConstraint, 30, "edits %d region(s) with a constraint"},
			{RankRejected, 20, "edits %d region(s) with a rejected alternative"},
			{RankRisk, 10, "edits %d region(s) with a known risk"},
		} {
			if n := counts[k.rank]; n > 0 {
				r.Score += k.weight * n
				r.Reasons = append(r.Reasons, fmt.Sprintf(k.text, n))
			}
		}
		a := f.auth
		if agentLines := a.AI + a.Mixed; agentLines > 0 && f.added > 0 {
			share := agentLines * 100 / f.added
			r.Score += share / 5
			r.Reasons = append(r.Reasons, fmt.Sprintf("%d%% of its added lines by an agent", share))
		}
		if len(r.Reasons) == 0 {
			r.Reasons = append(r.Reasons, fmt.Sprintf("%d line(s) changed", f.added+f.deleted))
		}
		out = append(out, r)
	}
	sizes := map[string]int{}
	for _, f := range files {
		sizes[f.change.Path] = f.added + f.deleted
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		if sizes[out[i].Path] != sizes[out[j].Path] {
			return sizes[out[i].Path] > sizes[out[j].Path]
		}
		return out[i].Path < out[j].Path
	})
	if out == nil {
		out = []FileRank{}
	}
	return out
}
