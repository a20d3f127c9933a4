package why

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/config"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// The last stages of a read: who wrote the lines, and the ranking and
// trimming of what is in force to the reader's budget.

// attribute is the stage that says who wrote each region's lines as they
// are now (line attribution of the blamed lines): a function's whole span
// for a record bound to it, the lines its commit wrote for one of lines.
func (r *reading) attribute() {
	if len(r.views) == 0 {
		return // nothing to attribute: the blame's view is not read
	}
	attrs, err := attribution.OfBlame(r.repo, r.blame)
	if err != nil {
		return
	}
	for i := range r.views {
		v := &r.views[i]
		switch {
		case v.Span != nil:
			v.Attribution = attrs.Summarize(max(v.Span.Start, r.blamed.Start), min(v.Span.End, r.blamed.End))
		case v.Current != nil:
			v.Attribution = attrs.Summarize(v.Current.Start, v.Current.End)
		}
	}
}

// rankAndTrim is the stage that orders what is in force — live records
// first, then decisions before descriptions (constraints and rejected
// alternatives, then risks, then intent), directives before claims, then
// by score — and trims it to the budget, lowest first.
func (r *reading) rankAndTrim() {
	res, views := r.res, r.views
	// With no view, the team's file of trusted authors is not read.
	if trusted := trustedOf(r.repo, views); len(trusted) > 0 {
		for i := range views {
			views[i].Trust = "claim"
			if isTrusted(r.repo, trusted, views[i]) {
				views[i].Trust = "directive"
			}
		}
	}
	sortViews(views)
	for i := range views {
		if views[i].Status == nil && views[i].Decides() {
			res.Stats.Decisions++
		}
	}
	views, dropped, trimmed := trimToBudget(views, r.q.MaxTokens)
	if views == nil {
		views = []RegionView{}
	}
	res.Regions = views
	res.Stats.RegionsReturned = len(views)
	res.Stats.RegionsDropped = dropped
	res.Stats.FieldsTrimmed = trimmed
	res.Stats.TokensEstimated = tokens(views)
	for i := range views {
		if views[i].Status == nil && views[i].Decides() {
			res.Stats.DecisionsReturned++
		}
	}
	if len(views) == 0 {
		res.Notes = append(res.Notes, r.rd.noAnnotationsNote())
	}
	if res.Stats.Retired > 0 && !r.q.All {
		res.Notes = append(res.Notes, retiredNote(res.Stats.Retired))
	}
	if dropped > 0 || trimmed > 0 {
		note := fmt.Sprintf("trimmed to about %d tokens: %d region(s) and %d field(s) left out, lowest ranked first", r.q.MaxTokens, dropped, trimmed)
		if more := res.Stats.Decisions - res.Stats.DecisionsReturned; more > 0 {
			note += fmt.Sprintf("; %d more decision(s) in force here", more)
		}
		res.Notes = append(res.Notes, note)
	}
	for _, l := range r.blame.Lines {
		if l.Commit == gitops.Uncommitted && l.Line >= r.target.Start && l.Line <= r.target.End {
			res.Notes = append(res.Notes, "some lines are not committed yet and have no annotations")
			break
		}
	}
}

// Rank is a view's class, the first key of a read's order: 0 for a
// constraint or a rejected alternative (what a change must honour), 1 for
// a risk, 2 for the rest (intent, reasoning, dependencies).
func Rank(v *RegionView) int {
	switch {
	case len(v.Constraints) > 0 || len(v.RejectedAlternatives) > 0:
		return 0
	case len(v.Risks) > 0:
		return 1
	}
	return 2
}

func sortViews(views []RegionView) {
	sort.SliceStable(views, func(i, j int) bool {
		a, b := &views[i], &views[j]
		if (a.Status == nil) != (b.Status == nil) {
			return a.Status == nil
		}
		if ra, rb := Rank(a), Rank(b); ra != rb {
			return ra < rb
		}
		if (a.Trust == "directive") != (b.Trust == "directive") {
			return a.Trust == "directive"
		}
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Time != b.Time {
			return a.Time > b.Time
		}
		return a.ID < b.ID
	})
}

// score adds to a view's placement (how much of the asked lines its scope
// or its lines cover, up to 0.45) whether its anchor is the one asked
// about, how recent it is (relative to the newest commit involved, so the
// same query always scores the same), and how much has changed since.
func score(placement float64, anchorMatch bool, at, newest time.Time, later int) float64 {
	s := placement
	if anchorMatch {
		s += 0.3
	}
	if !at.IsZero() && !newest.IsZero() {
		days := newest.Sub(at).Hours() / 24
		s += 0.25 * math.Pow(0.5, days/180)
	}
	s -= 0.05 * math.Min(float64(later), 4)
	return math.Round(s*1000) / 1000
}

// tokens estimates the size of regions in tokens (about four bytes each).
func tokens(vs []RegionView) int {
	data, _ := json.Marshal(vs)
	return len(data) / 4
}

// trimToBudget keeps the answer under maxTokens: it drops the
// lowest-scored regions first; if one region alone is still too big, it
// drops that region's fields from the least to the most important — tags,
// deps, risks, rejected alternatives, then reasoning — and never its
// intent or constraints.
func trimToBudget(vs []RegionView, maxTokens int) (kept []RegionView, dropped, trimmed int) {
	if maxTokens <= 0 {
		return vs, 0, 0
	}
	for len(vs) > 1 && tokens(vs) > maxTokens {
		vs = vs[:len(vs)-1]
		dropped++
	}
	if len(vs) == 1 {
		v := &vs[0]
		steps := []func() bool{
			func() bool { ok := v.Tags != nil; v.Tags = nil; return ok },
			func() bool { ok := v.Deps != nil; v.Deps = nil; return ok },
			func() bool { ok := v.Risks != nil; v.Risks = nil; return ok },
			func() bool { ok := v.RejectedAlternatives != nil; v.RejectedAlternatives = nil; return ok },
			func() bool { ok := v.Reasoning != ""; v.Reasoning = ""; return ok },
		}
		for _, step := range steps {
			if tokens(vs) <= maxTokens {
				break
			}
			if step() {
				trimmed++
			}
		}
	}
	return vs, dropped, trimmed
}

// decode reads the live annotation records of one note (not superseded,
// flagged or expired) and counts the records it could not read as
// annotations (another schema, an unknown kind, a shape that does not
// decode; flags are read, not skipped).
func decode(recs []notes.Record) (decoded []annotate.Decoded, unknown int) {
	live := notes.Resolve(recs)
	flags := 0
	for _, r := range live {
		if annotate.IsFlag(r) {
			flags++
		}
	}
	unknown = len(live) - len(annotate.Decode(live)) - flags
	return annotate.Live(recs, time.Now()), unknown
}

// trustedOf is trustedAuthors when there are views to mark, nil otherwise.
func trustedOf(repo *gitops.Repo, views []RegionView) []string {
	if len(views) == 0 {
		return nil
	}
	return trustedAuthors(repo)
}

// trustedAuthors is the team's list of trusted authors ([annotations]
// trusted in .gloss/config.toml): names or emails.
func trustedAuthors(repo *gitops.Repo) []string {
	cfg, err := config.LoadTeam(repo)
	if err != nil {
		return nil
	}
	var sec struct {
		Trusted []string `toml:"trusted"`
	}
	if cfg.Section("annotations", &sec) != nil {
		return nil
	}
	var out []string
	for _, t := range sec.Trusted {
		if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// isTrusted reports whether a record's author is trusted: its author name,
// or the name or email of the author of the commit it is on.
func isTrusted(repo *gitops.Repo, trusted []string, v RegionView) bool {
	names := []string{strings.ToLower(v.Author.Name)}
	if c, err := repo.LookupCommit(v.Commit); err == nil && (v.Author.Kind == "human" || v.Author.Name == "") && v.Source != annotate.SourceAgent {
		names = append(names, strings.ToLower(c.AuthorName), strings.ToLower(c.AuthorEmail))
	}
	for _, n := range names {
		for _, t := range trusted {
			if n != "" && n == t {
				return true
			}
		}
	}
	return false
}

// noAnnotationsNote explains an empty answer. In a clone that has no gloss
// notes at all, the likely reason is that nobody fetched them yet, not
// that nobody wrote any.
func (rd *Reader) noAnnotationsNote() string {
	if snap, err := rd.annotations(); err == nil && snap.Tip == "" {
		if remotes, err := rd.repo.ListRefs("refs/remotes/*"); err == nil && len(remotes) > 0 {
			return "no annotations cover these lines: this clone has no gloss notes yet; " +
				"if your team uses gloss, run 'git gloss init' and 'git gloss sync' to fetch them"
		}
	}
	return "no annotations cover these lines"
}

func view(r *annotate.Region, t time.Time) RegionView {
	v := RegionView{
		ID: r.ID, Commit: r.Commit, File: r.File, Anchor: r.Anchor, Lines: r.Lines,
		Intent: r.Intent, Reasoning: r.Reasoning, Constraints: r.Constraints,
		RejectedAlternatives: r.RejectedAlternatives, Deps: r.Deps, Risks: r.Risks, Tags: r.Tags,
		Author: r.Author, Source: r.Source, Expires: r.Expires,
	}
	if !t.IsZero() {
		v.Time = t.UTC().Format(time.RFC3339)
	}
	return v
}

// commitTimes collects author times for the commits involved: from blame
