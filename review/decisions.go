package review

import (
	"context"
	"fmt"
	"sort"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/why"
)

// Sides of a diff a decision is found on.
const (
	SideHead = "head"
	SideBase = "base"
)

// lookupDecisions asks why — gloss's one "what is in force here" lookup,
// through the worker's Reader — about the lines one file's diff changes: at head for the added
// lines (and the two lines around a pure deletion), at base for the
// deleted or replaced ones (and the two lines around a pure insertion).
// One read per side covers all the file's hunks; a region it returns
// counts only when its lines meet a hunk on that side, so the unchanged
// lines between hunks bring nothing in.
func lookupDecisions(ctx context.Context, reader *why.Reader, f *fileWork, base, head string, inRange map[string]bool) error {
	ch := f.change
	byID := map[string]*Decision{}
	var order []string
	sides := []struct {
		side, rev, path string
		skip            bool
	}{
		{SideHead, head, ch.Path, ch.Status == gitops.Deleted},
		{SideBase, base, basePath(ch), ch.Status == gitops.Added || ch.Status == gitops.Copied},
	}
	for _, s := range sides {
		span, ok := sideSpan(ch.Hunks, s.side)
		if s.skip || !ok {
			continue
		}
		res, err := reader.Read(ctx, why.Query{Path: s.path, Rev: s.rev, Lines: &span})
		if err != nil {
			return fmt.Errorf("read the records of %s at %s: %w", s.path, gitops.ShortID(s.rev), err)
		}
		for _, r := range res.Regions {
			if !r.Decides() {
				continue
			}
			lines := regionLines(r)
			touched := ch.Hunks
			if !wholeFile(r) {
				touched = touching(ch.Hunks, s.side, lines)
			}
			if len(touched) == 0 {
				continue
			}
			d := byID[r.ID]
			if d == nil {
				d = newDecision(r, s.side, s.path, s.rev, lines, inRange[r.Commit])
				byID[r.ID] = d
				order = append(order, r.ID)
			}
			d.Changed = mergeHunks(d.Changed, touched)
		}
	}
	for _, id := range order {
		d := byID[id]
		if d.recordedHere {
			f.recorded = append(f.recorded, *d)
		} else {
			f.decisions = append(f.decisions, *d)
		}
	}
	return nil
}

// basePath is the file's path at base.
func basePath(ch gitops.Change) string {
	if ch.OldPath != "" {
		return ch.OldPath
	}
	return ch.Path
}

// regionLines is where a record applies in the version read: an
// anchor's whole function (type, method) as it is there, else the lines
// it was recorded on as they are there; nil for a file or directory
// record, which any change of the file touches.
func regionLines(r why.RegionView) *annotate.Lines {
	if r.Span != nil {
		return r.Span
	}
	if wholeFile(r) {
		return nil
	}
	return r.Current
}

// wholeFile reports whether a record is about the whole file (or the
// directory it is in).
func wholeFile(r why.RegionView) bool {
	return r.Scope == annotate.ScopeFile || r.Scope == annotate.ScopeDir
}

// sideLines is a hunk's line range on one side: start and count (a count
// of 0 is a pure insertion or deletion after line start).
func sideLines(h gitops.Hunk, side string) (start, count int) {
	if side == SideBase {
		return h.OldStart, h.OldLines
	}
	return h.NewStart, h.NewLines
}

// sideSpan is the lines one read of a side covers: from the first hunk to
// the last, with the lines on both sides of a hunk that has none there.
func sideSpan(hunks []gitops.Hunk, side string) (annotate.Lines, bool) {
	lo, hi := 0, 0
	for _, h := range hunks {
		start, n := sideLines(h, side)
		a, b := start, start+n-1
		if n == 0 {
			a, b = max(start, 1), start+1
		}
		if lo == 0 || a < lo {
			lo = a
		}
		hi = max(hi, b)
	}
	return annotate.Lines{Start: lo, End: hi}, lo > 0
}

// touching lists the hunks whose lines on side meet lines: a hunk with
// lines there overlaps them; one with none (a pure insertion or deletion
// after line p) falls inside them when both p and p+1 do.
func touching(hunks []gitops.Hunk, side string, lines *annotate.Lines) []gitops.Hunk {
	if lines == nil {
		return nil
	}
	var out []gitops.Hunk
	for _, h := range hunks {
		start, n := sideLines(h, side)
		hit := n > 0 && start <= lines.End && start+n-1 >= lines.Start ||
			n == 0 && start >= lines.Start && start+1 <= lines.End
		if hit {
			out = append(out, h)
		}
	}
	return out
}

// mergeHunks adds hunks not yet listed, in order.
func mergeHunks(have, more []gitops.Hunk) []gitops.Hunk {
	seen := map[gitops.Hunk]bool{}
	for _, h := range have {
		seen[h] = true
	}
	for _, h := range more {
		if !seen[h] {
			seen[h] = true
			have = append(have, h)
		}
	}
	sort.Slice(have, func(i, j int) bool { return have[i].OldStart < have[j].OldStart })
	return have
}

func newDecision(r why.RegionView, side, path, rev string, lines *annotate.Lines, recorded bool) *Decision {
	d := &Decision{
		Record: r.ID, Commit: r.Commit, File: path, Side: side, Scope: r.Scope, Anchor: r.Anchor, Lines: lines,
		Intent: r.Intent, Rejected: r.RejectedAlternatives, Risks: r.Risks, Author: r.Author, Time: r.Time,
		Changed: []gitops.Hunk{}, recordedHere: recorded,
	}
	for _, c := range r.Constraints {
		d.Constraints = append(d.Constraints, c.Text)
	}
	d.Read = fmt.Sprintf("git gloss read %s --rev %s", quoteArg(path), gitops.ShortID(rev))
	if lines != nil {
		d.Read += fmt.Sprintf(" --lines %d:%d", lines.Start, lines.End)
	}
	return d
}

// rankOf places a decision: a rejected alternative brought back first,
// then a constraint, a rejected alternative, a risk.
func rankOf(d *Decision) string {
	switch {
	case len(d.Reintroduced) > 0:
		return RankReintroduced
	case len(d.Constraints) > 0:
		return RankConstraint
	case len(d.Rejected) > 0:
		return RankRejected
	}
	return RankRisk
}

var rankOrder = map[string]int{RankReintroduced: 0, RankConstraint: 1, RankRejected: 2, RankRisk: 3}

// sortDecisions orders decisions by rank, then by file and line, so the
// same range always gives the same report.
func sortDecisions(ds []Decision) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if rankOrder[a.Rank] != rankOrder[b.Rank] {
			return rankOrder[a.Rank] < rankOrder[b.Rank]
		}
		if a.File != b.File {
			return a.File < b.File
		}
		la, lb := 0, 0
		if a.Lines != nil {
			la = a.Lines.Start
		}
		if b.Lines != nil {
			lb = b.Lines.Start
		}
		if la != lb {
			return la < lb
		}
		return a.Record < b.Record
	})
}
