package why

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/decisions"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/treesitter"
)

// The stages between the target and the ranking: the records bound to the
// file's code (the decisions index), the blame of the lines, and the
// records in force there.

// anchorHistoryLimit bounds the commits of the file whose history is
// walked to tell whether a commit came after a record's.
const anchorHistoryLimit = 100

// lookup is the stage that finds the records bound to this file's code:
// decisions recorded for its functions, the file, or a directory holding
// it, in the history read. A read never fails for want of the index: the
// records blame finds are still answered, with a note.
func (r *reading) lookup() ([]decisions.Bound, error) {
	ix, err := r.rd.index(r.ctx)
	if err != nil {
		if r.ctx.Err() != nil {
			return nil, r.ctx.Err()
		}
		r.res.Notes = append(r.res.Notes, "records bound to functions and paths were not looked up: "+err.Error())
		return nil, nil
	}
	tip := r.f.tip(r.repo)
	found, err := ix.Lookup(r.ctx, decisions.File{
		Path: r.f.rel, Tip: tip,
		Content: func() []byte {
			text, _ := r.f.text(r.repo) // no text, no anchor found by its body
			return text
		},
		Outline: func() []treesitter.Anchor { return r.f.outline(r.repo) },
	})
	if err != nil {
		r.res.Notes = append(r.res.Notes, "records bound to functions and paths were not looked up: "+err.Error())
		return nil, nil
	}
	if tip != "" && !r.repo.RenamesKnown(tip) {
		r.res.Notes = append(r.res.Notes, "the renames of the history are being found in the background: records made under the file's former names are not looked up yet")
	}
	// The code that holds the lines, for the reader and for ranking.
	if len(found) > 0 || r.q.Anchor != "" {
		r.res.Resolved.Enclosing = r.enclosing()
	}
	return found, nil
}

// blameLines is the stage that blames the target and the anchors bound to
// it (so that how much changed since a record is measured on all of its
// function), and reads the file's history meanwhile.
func (r *reading) blameLines(found []decisions.Bound) error {
	r.blamed = r.target
	for _, b := range found {
		for _, a := range b.Spans {
			if overlaps(a.Start, a.End, r.target) {
				r.blamed.Start, r.blamed.End = min(r.blamed.Start, a.Start), max(r.blamed.End, a.End)
			}
		}
	}
	r.blamed.End = min(r.blamed.End, r.f.lines)
	// A blame the cache cannot answer runs git for a few hundred
	// milliseconds; the file's log, which the history below needs and
	// which does not depend on the blame, is walked meanwhile. A blame
	// the cache answered leaves nothing to overlap: the history is read
	// only if a record in force asks for it.
	wait, settle, running := startBlame(r.ctx, r.repo, r.f, r.blamed)
	defer settle()
	if running {
		r.repo.PrefetchFileHistory(r.f.rev, r.f.rel, anchorHistoryLimit)
	}
	blame, err := wait()
	if err != nil {
		return err
	}
	r.blame = blame
	r.res.Stats.Lines = len(blame.Lines)
	return nil
}

// startBlame starts the blame of the lines of f: of the buffer, the
// working tree or a revision.
func startBlame(ctx context.Context, repo *gitops.Repo, f *file, lines annotate.Lines) (wait func() (*gitops.Blame, error), settle func(), running bool) {
	if f.buffer && f.blame != nil && lines.Start >= 1 && lines.End <= len(f.blame.Lines) {
		b := sliceBlame(f.blame, lines)
		return func() (*gitops.Blame, error) { return b, nil }, func() {}, false
	}
	if f.buffer {
		b, err := repo.BlameContent(ctx, f.rel, f.content, lines.Start, lines.End)
		return func() (*gitops.Blame, error) { return b, err }, func() {}, false
	}
	return repo.StartBlameCached(ctx, f.rev, f.rel, lines.Start, lines.End)
}

// sliceBlame is lines of a whole file's blame, with the commits they name:
// what blaming those lines alone gives.
func sliceBlame(b *gitops.Blame, lines annotate.Lines) *gitops.Blame {
	out := &gitops.Blame{Lines: b.Lines[lines.Start-1 : lines.End], Commits: map[string]gitops.BlameCommit{}}
	for _, l := range out.Lines {
		if c, ok := b.Commits[l.Commit]; ok {
			out.Commits[l.Commit] = c
		}
	}
	return out
}

func overlaps(start, end int, l annotate.Lines) bool { return start <= l.End && l.Start <= end }

// owned is what one blamed commit holds of the lines: by path and line
// number at that commit, the line it is now; and which of those are in
// the target.
type owned struct {
	orig    map[string]map[int]int
	current []int
}

// blamedCommits are the commits blame names, in the order of the lines
// (uncommitted lines have no records).
func blamedCommits(b *gitops.Blame) []string {
	seen := make(map[string]bool, len(b.Commits))
	var commits []string
	for _, l := range b.Lines {
		if l.Commit != gitops.Uncommitted && !seen[l.Commit] {
			seen[l.Commit] = true
			commits = append(commits, l.Commit)
		}
	}
	return commits
}

// ownership groups the blamed lines of the commits that have records by
// commit: mapping every line of a large span costs more than the rest of
// a read that finds nothing, so lines of commits without records are not.
func ownership(b *gitops.Blame, recs map[string][]notes.Record) map[string]*owned {
	byCommit := map[string]*owned{}
	for _, l := range b.Lines {
		if _, ok := recs[l.Commit]; !ok || l.Commit == gitops.Uncommitted {
			continue
		}
		o := byCommit[l.Commit]
		if o == nil {
			o = &owned{orig: map[string]map[int]int{}}
			byCommit[l.Commit] = o
		}
		if o.orig[l.OrigPath] == nil {
			o.orig[l.OrigPath] = map[int]int{}
		}
		o.orig[l.OrigPath][l.OrigLine] = l.Line
		o.current = append(o.current, l.Line)
	}
	return byCommit
}

// inForce is the stage that reads the records of the commits blame names
// and of those the index bound to this code, in one pass over the notes,
// and keeps those in force here: a bound record whose scope holds the
// target, and a record of lines whose lines at its commit are target
// lines now. Retired ones are counted, and kept, marked, only when all
// are asked for.
func (r *reading) inForce(found []decisions.Bound) error {
	blamed := blamedCommits(r.blame)
	r.res.Stats.BlamedCommits = len(blamed)
	bound := map[string]decisions.Bound{}
	commits := append([]string{}, blamed...)
	for _, b := range found {
		bound[b.ID] = b
		if !slices.Contains(blamed, b.Commit) {
			commits = append(commits, b.Commit)
		}
	}
	snap, err := r.rd.annotations()
	if err != nil {
		return err
	}
	recs, skipped, err := notes.ReadCountedIn(snap, commits)
	if err != nil {
		return err
	}
	r.res.Skipped = skipped
	r.res.Stats.AnnotatedCommits = len(recs)
	byCommit := ownership(r.blame, recs)
	r.blamedCommits = blamed
	times := commitTimes(r.repo, r.blame, recs)
	newest := time.Time{}
	for _, t := range times {
		if t.After(newest) {
			newest = t
		}
	}
	now := time.Now()
	for c, rs := range recs {
		all, status := annotate.Classify(rs, now)
		r.res.Skipped += unknownRecords(rs, all)
		filled := fillCommitIntent(all)
		for _, d := range all {
			if d.Region == nil {
				continue
			}
			r.res.Stats.RecordsConsidered++
			b, isBound := bound[d.Region.ID]
			v, ok := r.place(d.Region, byCommit[c], b, isBound && b.Commit == c)
			if !ok {
				continue
			}
			st := status[d.Region.ID]
			switch {
			case st.State != annotate.StateLive:
			case isBound && b.How == decisions.BoundNotFound:
				st = annotate.Status{State: annotate.StateDeleted}
			case isBound && b.SupersededBy != "":
				st = annotate.Status{State: annotate.StateSuperseded, By: b.SupersededBy}
			}
			if st.State != annotate.StateLive {
				r.res.Stats.Retired++
				if !r.q.All {
					continue
				}
				v.Status = &st
			}
			if filled[d.Region] {
				v.IntentFrom = "commit"
			}
			r.finish(&v, c, times[c], newest)
			r.views = append(r.views, v)
		}
	}
	r.res.Stats.RegionsMatched = len(r.views)
	return nil
}

// place decides whether a record is in force in the target, and where:
// ok is false when it is about other code.
func (r *reading) place(reg *annotate.Region, o *owned, b decisions.Bound, isBound bool) (RegionView, bool) {
	v := view(reg, time.Time{})
	v.Scope = reg.ScopeOf()
	// Where the lines its commit wrote are now.
	overlap := 0
	var current []int
	if o != nil {
		for l, now := range o.orig[reg.File] {
			if l >= reg.Lines.Start && l <= reg.Lines.End {
				current = append(current, now)
				if now >= r.target.Start && now <= r.target.End {
					overlap++
				}
			}
		}
	}
	if len(current) > 0 {
		sort.Ints(current)
		v.Current = &annotate.Lines{Start: current[0], End: current[len(current)-1]}
	}
	if !isBound || !reg.Decides() && !r.askedFor(b) {
		// Found through blame: its lines at its commit are lines asked. A
		// record that decides nothing (an intent, reasoning) describes the
		// code it came with: it is bound to its function or file only
		// for a read of that function or file.
		if overlap == 0 {
			return v, false
		}
		v.Score = overlapShare(overlap, reg.Lines)
		return v, true
	}
	switch {
	case len(b.Spans) > 0:
		span, ok := spanHolding(b.Spans, r.target)
		if !ok {
			return v, false // another function's
		}
		v.Span = &annotate.Lines{Start: span.Start, End: span.End}
		if b.How == decisions.BoundRenamed {
			v.Renamed = span.Name
		}
		v.Score = 0.45 * specificity(v.Span, r.target)
	case b.How == decisions.BoundNotFound:
		// Its anchor is gone: retired, shown (with all) at the file level.
		v.Score = 0
	default: // a file or a directory
		v.Score = 0.25
		if v.Scope == annotate.ScopeFile {
			v.Score = 0.3
		}
	}
	return v, true
}

// askedFor reports whether the query asks about what a bound record is
// bound to: its anchor (read --anchor), or the whole file a file- or
// directory-level record covers.
func (r *reading) askedFor(b decisions.Bound) bool {
	if len(b.Spans) > 0 {
		for _, a := range r.res.Resolved.Anchors {
			for _, s := range b.Spans {
				if a.Start == s.Start && a.End == s.End {
					return true
				}
			}
		}
		return false
	}
	return b.How == decisions.BoundToPath && r.q.Anchor == "" && r.q.Lines == nil
}

// spanHolding is the first of an anchor's definitions that holds some of
// the target lines.
func spanHolding(spans []treesitter.Anchor, target annotate.Lines) (treesitter.Anchor, bool) {
	for _, a := range spans {
		if overlaps(a.Start, a.End, target) {
			return a, true
		}
	}
	return treesitter.Anchor{}, false
}

// overlapShare is the share of a record's lines that are target lines, as
// a score of up to 0.45.
func overlapShare(overlap int, lines annotate.Lines) float64 {
	size := max(lines.End-lines.Start+1, 1)
	return 0.45 * min(1, float64(overlap)/float64(size))
}

// specificity is 1 for the innermost scope around the target, less for a
// wider one (a type around the method asked about): the share of the
// span that the target is, raised to a small power so a whole function
// around one line still counts most.
func specificity(span *annotate.Lines, target annotate.Lines) float64 {
	size := float64(max(span.End-span.Start+1, 1))
	in := float64(min(span.End, target.End) - max(span.Start, target.Start) + 1)
	s := in / size
	return 0.6 + 0.4*s
}

// finish fills in what every view shows: when, how much changed since,
// and the score's remaining parts (anchor match, recency, staleness).
func (r *reading) finish(v *RegionView, commit string, at, newest time.Time) {
	if !at.IsZero() {
		v.Time = at.UTC().Format(time.RFC3339)
	}
	span := r.target
	switch {
	case v.Span != nil:
		span = *v.Span
	case v.Current != nil:
		span = *v.Current
	}
	v.LaterCommits = laterCommits(r.blame, span, commit, r.isLater)
	v.Stale = v.LaterCommits > 0
	anchorMatch := false
	if v.Anchor != nil {
		for _, a := range r.res.Resolved.Anchors {
			anchorMatch = anchorMatch || anchorIs(a.Name, v.Anchor.Name)
		}
		if len(r.res.Resolved.Anchors) == 0 && v.Span != nil {
			// A lines query: the innermost anchor holding the lines is the
			// one asked about.
			enc := r.res.Resolved.Enclosing
			anchorMatch = len(enc) > 0 && enc[len(enc)-1].Start == v.Span.Start && enc[len(enc)-1].End == v.Span.End
		}
	}
	v.Score = score(v.Score, anchorMatch, at, newest, v.LaterCommits)
}

// unknownRecords counts the records of a note that are not annotations
// this reader knows (another schema, an unknown kind, a shape that does
// not decode), flags aside.
func unknownRecords(recs []notes.Record, decoded []annotate.Decoded) int {
	flags := 0
	for _, rec := range recs {
		if annotate.IsFlag(rec) {
			flags++
		}
	}
	return len(recs) - len(decoded) - flags
}

// commitTimes collects author times for the commits involved: from blame
// where it has them, else from the commits themselves.
func commitTimes(repo *gitops.Repo, b *gitops.Blame, recs map[string][]notes.Record) map[string]time.Time {
	t := map[string]time.Time{}
	for c, m := range b.Commits {
		t[c] = m.AuthorTime
	}
	for c := range recs {
		if _, ok := t[c]; ok {
			continue
		}
		if commit, err := repo.LookupCommit(c); err == nil {
			t[c] = commit.AuthorTime
		}
	}
	return t
}

// laterCommits counts the commits made after the annotated one (and
// uncommitted changes) that own lines of span now.
func laterCommits(b *gitops.Blame, span annotate.Lines, annotated string, later func(a, b string) bool) int {
	counted := map[string]bool{}
	n := 0
	for _, l := range b.Lines {
		if l.Line < span.Start || l.Line > span.End || l.Commit == annotated || counted[l.Commit] {
			continue
		}
		counted[l.Commit] = true
		if l.Commit == gitops.Uncommitted || later(annotated, l.Commit) {
			n++
		}
	}
	return n
}

// isLater reports whether commit b came after commit a: b descends from
// a, by the file's cached history when it knows both; otherwise b was
// committed after a. (A record bound to a function may be on a commit far
// older than the file's recent history, and a descendant test through
// libgit2 walks the history between them: seconds on a large one. For
// how much changed since a record, the commit times tell.)
func (r *reading) isLater(a, b string) bool {
	if h := r.history(); h != nil {
		if yes, known := h.IsAncestor(a, b); known {
			return yes
		}
	}
	ta, tb := r.commitTime(a), r.commitTime(b)
	return !ta.IsZero() && !tb.IsZero() && tb.After(ta)
}

// commitTime is a commit's committer time, read once per read.
func (r *reading) commitTime(id string) time.Time {
	if t, ok := r.committed[id]; ok {
		return t
	}
	var t time.Time
	if c, err := r.repo.LookupCommit(id); err == nil {
		t = c.CommitTime
	}
	if r.committed == nil {
		r.committed = map[string]time.Time{}
	}
	r.committed[id] = t
	return t
}

// history is the file's history over the blamed commits, read the first
// time a record in force asks how much changed since it: a read that
// finds none (most of a review's, file after file) does without.
func (r *reading) history() *gitops.FileHistory {
	if !r.histRead {
		r.hist, r.histRead = fileHistory(r.ctx, r.repo, r.f, r.blamedCommits), true
	}
	return r.hist
}

// fileHistory is the cached history of the file read, built for the blamed
// commits; nil when there is none (the file is not committed, no HEAD yet),
// and the callers then ask the repository directly.
func fileHistory(ctx context.Context, repo *gitops.Repo, f *file, commits []string) *gitops.FileHistory {
	h, err := repo.FileHistoryCached(ctx, f.rev, f.rel, anchorHistoryLimit, commits)
	if err != nil {
		return nil
	}
	return h
}

// retiredNote says how many retired records the answer leaves out.
func retiredNote(n int) string {
	return fmt.Sprintf("%d retired record(s) here left out (superseded, flagged, expired, or their function deleted): --all shows them", n)
}
