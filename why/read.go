// Package why answers the question an agent asks before it changes code:
// why is this the way it is? It reads the annotations recorded when the
// code was written (package annotate) back for today's code: read (one
// region), deps (who relies on it), history (its timeline) and summary (a
// file or directory at a glance).
//
// Reads map today's lines to the commits that wrote them with blame (the
// cached blame of gitops, identical to git blame), then keep the records
// whose lines at that commit are those same lines — never comparing today's
// line numbers with commit-time ones directly.
package why

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/config"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/safepath"
	"github.com/gloss-dev/gloss/schemas"
	"github.com/gloss-dev/gloss/treesitter"
)

// Query asks about a file, or a region of it.
type Query struct {
	Path      string          `json:"path" jsonschema:"file to read, relative to the repository root"`
	Anchor    string          `json:"anchor,omitempty" jsonschema:"function, method or type, e.g. Server.Handle or Client::connect"`
	Lines     *annotate.Lines `json:"lines,omitempty" jsonschema:"line range in today's file, when there is no anchor"`
	MaxTokens int             `json:"max_tokens,omitempty" jsonschema:"budget for the answer, about 4 bytes a token; 0 for no limit"`
	Rev       string          `json:"rev,omitempty" jsonschema:"revision to read at; default the working tree"`
	All       bool            `json:"all,omitempty" jsonschema:"also return superseded, flagged and expired records, marked"`
	// Content is a version of the file that is not on disk, an editor's
	// unsaved buffer: it is read instead of the working-tree file, Lines
	// are its lines, and lines that differ from HEAD are uncommitted.
	Content []byte `json:"-"`
}

// Target is what the query resolved to.
type Target struct {
	Rev     string              `json:"rev" jsonschema:"commit id, or 'worktree'"`
	Anchors []treesitter.Anchor `json:"anchors"`
	Lines   annotate.Lines      `json:"lines"`
}

// RegionView is one annotation in an answer.
type RegionView struct {
	ID                   string                `json:"id"`
	Commit               string                `json:"commit"`
	Time                 string                `json:"time" jsonschema:"when the commit was authored"`
	File                 string                `json:"file" jsonschema:"path at the commit"`
	Anchor               *annotate.Anchor      `json:"anchor,omitempty"`
	Lines                annotate.Lines        `json:"lines" jsonschema:"lines at the commit"`
	Current              *annotate.Lines       `json:"current,omitempty" jsonschema:"where those lines are in the version read"`
	Intent               string                `json:"intent"`
	IntentFrom           string                `json:"intent_from,omitempty" jsonschema:"commit: the region records no intent of its own; this is the commit's (its subject or Intent trailer)"`
	Reasoning            string                `json:"reasoning,omitempty"`
	Constraints          []annotate.Constraint `json:"constraints,omitempty"`
	RejectedAlternatives []annotate.Rejected   `json:"rejected_alternatives,omitempty"`
	Deps                 []annotate.Dep        `json:"deps,omitempty"`
	Risks                []string              `json:"risks,omitempty"`
	Tags                 []string              `json:"tags,omitempty"`
	Author               annotate.Author       `json:"author"`
	Source               string                `json:"source"`
	Score                float64               `json:"score"`
	Stale                bool                  `json:"stale" jsonschema:"later commits changed these lines"`
	LaterCommits         int                   `json:"later_commits"`
	Expires              string                `json:"expires,omitempty"`
	Status               *annotate.Status      `json:"status,omitempty" jsonschema:"set when the record is superseded, flagged or expired (only with all)"`
	Trust                string                `json:"trust,omitempty" jsonschema:"directive (by an author the team trusts, [annotations] trusted) or claim; empty when the team trusts no one in particular"`
	Attribution          *attribution.Summary  `json:"attribution,omitempty" jsonschema:"who wrote the region's lines as they are now"`
}

// ReadStats says how the answer was found.
type ReadStats struct {
	Lines             int `json:"lines"`
	BlamedCommits     int `json:"blamed_commits"`
	AnnotatedCommits  int `json:"annotated_commits"`
	RecordsConsidered int `json:"records_considered"`
	RegionsMatched    int `json:"regions_matched"`
	RegionsReturned   int `json:"regions_returned"`
	RegionsDropped    int `json:"regions_dropped"`
	FieldsTrimmed     int `json:"fields_trimmed"`
	TokensEstimated   int `json:"tokens_estimated"`
}

// ReadResult is the answer of read: gloss-read/v1.
type ReadResult struct {
	Schema   string       `json:"$schema"`
	Query    Query        `json:"query"`
	Resolved Target       `json:"resolved"`
	Notes    []string     `json:"notes" jsonschema:"what the reader should know about how the query was answered"`
	Regions  []RegionView `json:"regions"`
	Stats    ReadStats    `json:"stats"`
	Skipped  int          `json:"skipped" jsonschema:"note lines skipped: not valid JSON, or not a known annotation record"`
}

func init() {
	schemas.Register(schemas.Entry{Name: "read", Tag: "gloss-read/v1", Description: "Why a file or region is the way it is (git gloss read, MCP gloss_read).", Type: schemas.TypeOf[ReadResult]()})
}

// anchorHistoryLimit bounds how many earlier commits of the file are
// searched for records of an anchor that no longer owns any line.
const anchorHistoryLimit = 100

// file is the version of a file a query reads.
type file struct {
	rel     string
	rev     string // "" for the working tree
	content []byte
	buffer  bool // content is an editor's buffer, not the working-tree file
	lines   int
	anchors []treesitter.Anchor
}

// openFile reads path at rev (the working tree when rev is "" and there
// is one), or takes content as that file's version when it is not nil.
func openFile(repo *gitops.Repo, p, rev string, content []byte) (*file, error) {
	root := repo.Root()
	base := root
	if base == "" {
		base = repo.GitDir()
	}
	rel, err := safepath.Clean(base, p)
	if err != nil {
		return nil, err
	}
	f := &file{rel: rel, rev: rev}
	if content != nil {
		if rev != "" || root == "" {
			return nil, fault.Usagef("a buffer's content is read against the working tree: no revision, no bare repository")
		}
		f.content, f.buffer = content, true
		f.lines = gitops.CountLines(content)
		return f, nil
	}
	if rev == "" && root == "" {
		f.rev = "HEAD"
	}
	if f.rev == "" {
		tree, err := safepath.ForRepo(repo)
		if err != nil {
			return nil, err
		}
		defer tree.Close()
		data, err := tree.ReadFile(rel, 0)
		if err != nil {
			if fault.KindOf(err) == fault.NotFound {
				return nil, fault.NotFoundf("%s: no such file in the working tree", rel)
			}
			return nil, fmt.Errorf("read %s: %w", rel, err)
		}
		f.content = data
	} else {
		id, err := repo.ResolveCommit(f.rev)
		if err != nil {
			return nil, err
		}
		f.rev = id
		data, err := repo.ReadFile(id, rel)
		if err != nil {
			if gitops.IsNotFound(err) {
				return nil, fault.NotFoundf("%s: no such file at %s", rel, gitops.ShortID(id))
			}
			return nil, err
		}
		f.content = data
	}
	f.lines = gitops.CountLines(f.content)
	return f, nil
}

// maxAnchor bounds an anchor's (and a revision's) length: no name of a
// function or a ref comes near it.
const maxAnchor = 1024

// Read answers a query.
func Read(ctx context.Context, repo *gitops.Repo, q Query) (*ReadResult, error) {
	res, _, _, err := read(ctx, repo, q)
	return res, err
}

// read answers a query and also returns the file version it read and its
// blame (nil for an empty file), for Blame, which shows them.
func read(ctx context.Context, repo *gitops.Repo, q Query) (*ReadResult, *file, *gitops.Blame, error) {
	if q.Path == "" {
		return nil, nil, nil, fault.Usagef("a path is required")
	}
	if q.MaxTokens < 0 {
		return nil, nil, nil, fault.Usagef("max_tokens must not be negative")
	}
	if q.Lines != nil && (q.Lines.Start < 1 || q.Lines.End < q.Lines.Start) {
		return nil, nil, nil, fault.Usagef("invalid line range %d:%d", q.Lines.Start, q.Lines.End)
	}
	// The answer repeats the query: a huge anchor or revision would come
	// back whole, more than once.
	if len(q.Anchor) > maxAnchor || len(q.Rev) > maxAnchor {
		return nil, nil, nil, fault.Usagef("an anchor or a revision is at most %d bytes", maxAnchor)
	}
	f, err := openFile(repo, q.Path, q.Rev, q.Content)
	if err != nil {
		return nil, nil, nil, err
	}
	q.Path = f.rel
	res := &ReadResult{Schema: "gloss-read/v1", Query: q, Notes: []string{}, Regions: []RegionView{}}
	res.Resolved.Rev = f.rev
	if res.Resolved.Rev == "" {
		res.Resolved.Rev = "worktree"
	}
	res.Resolved.Anchors = []treesitter.Anchor{}
	target := resolveTarget(repo, f, q, res)
	res.Resolved.Lines = target
	if f.lines == 0 {
		res.Notes = append(res.Notes, "the file is empty")
		return res, f, nil, nil
	}
	// A blame the cache cannot answer runs git for a few hundred
	// milliseconds; the file's log, which the history below needs and
	// which does not depend on the blame, is walked meanwhile.
	// So are the notes of those commits, and their times, when an
	// anchor's records are looked for in them.
	wait, settle := startBlame(ctx, repo, f, target)
	defer settle()
	log := repo.PrefetchFileHistory(f.rev, f.rel, anchorHistoryLimit)
	store := notes.Open(repo, notes.Annotations)
	var early *noteRead
	if len(res.Resolved.Anchors) > 0 && len(log) > 0 {
		early = readNotes(repo, store, log)
	}
	blame, err := wait()
	if err != nil {
		return nil, nil, nil, err
	}
	res.Stats.Lines = len(blame.Lines)

	// Per blamed commit: which of its lines (by path and line number at
	// that commit) are in the target, and where they are now.
	type owned struct {
		orig    map[string]map[int]int // path -> line at commit -> line now
		current []int
	}
	byCommit := map[string]*owned{}
	var commits []string
	for _, l := range blame.Lines {
		if l.Commit == gitops.Uncommitted {
			continue
		}
		o := byCommit[l.Commit]
		if o == nil {
			o = &owned{orig: map[string]map[int]int{}}
			byCommit[l.Commit] = o
			commits = append(commits, l.Commit)
		}
		if o.orig[l.OrigPath] == nil {
			o.orig[l.OrigPath] = map[int]int{}
		}
		o.orig[l.OrigPath][l.OrigLine] = l.Line
		o.current = append(o.current, l.Line)
	}
	res.Stats.BlamedCommits = len(commits)

	// An anchor query also looks at earlier commits of the file, whose
	// records of the anchor may no longer own any line (the code was
	// rewritten since, but the reasons may still hold).
	anchorNames := map[string]bool{}
	for _, a := range res.Resolved.Anchors {
		anchorNames[a.Name] = true
	}
	hist := fileHistory(ctx, repo, f, commits)
	var older []string
	if len(anchorNames) > 0 {
		for _, c := range olderCommits(ctx, repo, f, hist) {
			if byCommit[c] == nil {
				older = append(older, c)
			}
		}
	}
	recs, skipped, err := early.rest(store, append(append([]string{}, commits...), older...))
	if err != nil {
		return nil, nil, nil, err
	}
	res.Skipped = skipped
	res.Stats.AnnotatedCommits = len(recs)

	times := commitTimes(repo, blame, recs, early.authorTimes())
	newest := time.Time{}
	for _, t := range times {
		if t.After(newest) {
			newest = t
		}
	}
	views := []RegionView{}
	now := time.Now()
	for c, rs := range recs {
		decoded, unknown := decode(rs)
		res.Skipped += unknown
		res.Stats.RecordsConsidered += len(decoded)
		var status map[string]annotate.Status
		if q.All {
			decoded, status = annotate.Classify(rs, now)
		}
		o := byCommit[c]
		filled := fillCommitIntent(decoded)
		for _, d := range decoded {
			r := d.Region
			if r == nil {
				continue
			}
			overlap, current := 0, []int{}
			if o != nil {
				for l, now := range o.orig[r.File] {
					if l >= r.Lines.Start && l <= r.Lines.End {
						overlap++
						current = append(current, now)
					}
				}
			}
			anchorMatch := r.Anchor != nil && anchorNames[r.Anchor.Name] && (r.File == f.rel || o != nil && o.orig[r.File] != nil)
			if overlap == 0 && !anchorMatch {
				continue
			}
			v := view(r, times[c])
			if st, ok := status[r.ID]; ok && st.State != annotate.StateLive {
				v.Status = &st
			}
			if filled[r] {
				v.IntentFrom = "commit"
			}
			if len(current) > 0 {
				sort.Ints(current)
				v.Current = &annotate.Lines{Start: current[0], End: current[len(current)-1]}
			}
			v.LaterCommits = laterCommits(repo, hist, blame, v.Current, target, c)
			v.Stale = v.LaterCommits > 0
			v.Score = score(overlap, r.Lines, anchorMatch, times[c], newest, v.LaterCommits)
			views = append(views, v)
		}
	}
	res.Stats.RegionsMatched = len(views)
	trusted := trustedAuthors(repo)
	if len(trusted) > 0 {
		for i := range views {
			views[i].Trust = "claim"
			if isTrusted(repo, trusted, views[i]) {
				views[i].Trust = "directive"
			}
		}
	}
	if attrs, err := attribution.OfBlame(repo, blame); err == nil {
		for i := range views {
			if cur := views[i].Current; cur != nil {
				views[i].Attribution = attrs.Summarize(cur.Start, cur.End)
			}
		}
	}
	sort.SliceStable(views, func(i, j int) bool {
		// Live records before marked ones, directives before claims.
		if (views[i].Status == nil) != (views[j].Status == nil) {
			return views[i].Status == nil
		}
		if views[i].Trust != views[j].Trust {
			return views[i].Trust == "directive"
		}
		if views[i].Score != views[j].Score {
			return views[i].Score > views[j].Score
		}
		if views[i].Time != views[j].Time {
			return views[i].Time > views[j].Time
		}
		return views[i].ID < views[j].ID
	})
	views, dropped, trimmed := trimToBudget(views, q.MaxTokens)
	res.Regions = views
	res.Stats.RegionsReturned = len(views)
	res.Stats.RegionsDropped = dropped
	res.Stats.FieldsTrimmed = trimmed
	res.Stats.TokensEstimated = tokens(views)
	if len(views) == 0 {
		res.Notes = append(res.Notes, noAnnotationsNote(repo))
	}
	if dropped > 0 || trimmed > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("trimmed to about %d tokens: %d region(s) and %d field(s) left out, lowest scores first", q.MaxTokens, dropped, trimmed))
	}
	for _, l := range blame.Lines {
		if l.Commit == gitops.Uncommitted {
			res.Notes = append(res.Notes, "some lines are not committed yet and have no annotations")
			break
		}
	}
	return res, f, blame, nil
}

// startBlame starts the blame of the target lines of f: of the buffer,
// the working tree or a revision.
func startBlame(ctx context.Context, repo *gitops.Repo, f *file, target annotate.Lines) (wait func() (*gitops.Blame, error), settle func()) {
	if f.buffer {
		b, err := repo.BlameContent(ctx, f.rel, f.content, target.Start, target.End)
		return func() (*gitops.Blame, error) { return b, err }, func() {}
	}
	return repo.StartBlameCached(ctx, f.rev, f.rel, target.Start, target.End)
}

// noteRead is the notes of some commits, read ahead of knowing all the
// commits a read needs.
type noteRead struct {
	asked   map[string]bool
	recs    map[string][]notes.Record
	skipped int
	err     error
	times   map[string]time.Time // author times of the commits in recs
}

func readNotes(repo *gitops.Repo, store *notes.Store, ids []string) *noteRead {
	n := &noteRead{asked: map[string]bool{}}
	for _, id := range ids {
		n.asked[id] = true
	}
	n.recs, n.skipped, n.err = store.ReadCounted(ids)
	n.times = map[string]time.Time{}
	for id := range n.recs {
		if c, err := repo.LookupCommit(id); err == nil {
			n.times[id] = c.AuthorTime
		}
	}
	return n
}

// authorTimes are the author times of the annotated commits read ahead.
func (n *noteRead) authorTimes() map[string]time.Time {
	if n == nil {
		return nil
	}
	return n.times
}

// rest returns the notes of want: those read ahead and the others. When
// more was read ahead than is wanted (or reading failed), it reads want
// afresh, so the answer is always exactly ReadCounted(want)'s.
func (n *noteRead) rest(store *notes.Store, want []string) (map[string][]notes.Record, int, error) {
	if n == nil || n.err != nil {
		return store.ReadCounted(want)
	}
	wanted := map[string]bool{}
	var more []string
	for _, id := range want {
		if wanted[id] {
			continue
		}
		wanted[id] = true
		if !n.asked[id] {
			more = append(more, id)
		}
	}
	for id := range n.asked {
		if !wanted[id] {
			return store.ReadCounted(want)
		}
	}
	recs, skipped, err := store.ReadCounted(more)
	if err != nil {
		return nil, 0, err
	}
	for id, rs := range n.recs {
		recs[id] = rs
	}
	return recs, skipped + n.skipped, nil
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
func noAnnotationsNote(repo *gitops.Repo) string {
	if tip, err := repo.RefTarget(notes.Annotations); err == nil && tip == "" {
		if remotes, err := repo.ListRefs("refs/remotes/*"); err == nil && len(remotes) > 0 {
			return "no annotations cover these lines: this clone has no gloss notes yet; " +
				"if your team uses gloss, run 'git gloss init' and 'git gloss sync' to fetch them"
		}
	}
	return "no annotations cover these lines"
}

// resolveTarget turns the query into a line range, noting fallbacks.
func resolveTarget(repo *gitops.Repo, f *file, q Query, res *ReadResult) annotate.Lines {
	whole := annotate.Lines{Start: 1, End: max(f.lines, 1)}
	switch {
	case q.Anchor != "":
		// Only anchors need the outline, the largest fixed cost of a read.
		f.anchors = treesitter.OutlineCached(repo, f.rel, f.content)
		found := treesitter.Find(f.anchors, q.Anchor)
		if len(found) == 0 {
			if !treesitter.Supported(f.rel) {
				res.Notes = append(res.Notes, fmt.Sprintf("anchors are not supported for %s; showing file-level results", path.Ext(f.rel)))
			} else {
				note := fmt.Sprintf("anchor %q not found in %s", q.Anchor, f.rel)
				if near := treesitter.Suggest(f.anchors, q.Anchor); near != "" {
					note += fmt.Sprintf("; did you mean %q?", near)
				}
				res.Notes = append(res.Notes, note+"; showing file-level results")
			}
			return whole
		}
		if len(found) > 1 {
			var names []string
			for _, a := range found {
				names = append(names, fmt.Sprintf("%s (lines %d-%d)", a.Name, a.Start, a.End))
			}
			res.Notes = append(res.Notes, "anchor is ambiguous; reading all of: "+strings.Join(names, ", "))
		}
		res.Resolved.Anchors = found
		lo, hi := found[0].Start, found[0].End
		for _, a := range found[1:] {
			lo, hi = min(lo, a.Start), max(hi, a.End)
		}
		return annotate.Lines{Start: lo, End: hi}
	case q.Lines != nil:
		l := *q.Lines
		if l.Start > f.lines {
			res.Notes = append(res.Notes, fmt.Sprintf("the file has %d lines; showing file-level results", f.lines))
			return whole
		}
		if l.End > f.lines {
			res.Notes = append(res.Notes, fmt.Sprintf("the file has %d lines; reading %d-%d", f.lines, l.Start, f.lines))
			l.End = f.lines
		}
		return l
	}
	return whole
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
// where it has them, else from the commits themselves.
func commitTimes(repo *gitops.Repo, b *gitops.Blame, recs map[string][]notes.Record, known map[string]time.Time) map[string]time.Time {
	t := map[string]time.Time{}
	for c, m := range b.Commits {
		t[c] = m.AuthorTime
	}
	for c := range recs {
		if _, ok := t[c]; ok {
			continue
		}
		if at, ok := known[c]; ok {
			t[c] = at
		} else if commit, err := repo.LookupCommit(c); err == nil {
			t[c] = commit.AuthorTime
		}
	}
	return t
}

// laterCommits counts the commits made after the annotated one (its
// descendants, and uncommitted changes) that own lines of the region now —
// or of the target, when the region owns none.
func laterCommits(repo *gitops.Repo, hist *gitops.FileHistory, b *gitops.Blame, current *annotate.Lines, target annotate.Lines, annotated string) int {
	span := target
	if current != nil {
		span = *current
	}
	counted := map[string]bool{}
	n := 0
	for _, l := range b.Lines {
		if l.Line < span.Start || l.Line > span.End || l.Commit == annotated || counted[l.Commit] {
			continue
		}
		counted[l.Commit] = true
		if l.Commit == gitops.Uncommitted || isAncestor(repo, hist, annotated, l.Commit) {
			n++
		}
	}
	return n
}

// isAncestor answers from the file's cached history when it knows both
// commits, else asks the repository.
func isAncestor(repo *gitops.Repo, hist *gitops.FileHistory, a, b string) bool {
	if hist != nil {
		if yes, known := hist.IsAncestor(a, b); known {
			return yes
		}
	}
	later, err := repo.IsAncestor(a, b)
	return err == nil && later
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

// olderCommits are the latest commits that changed the file, newest first.
func olderCommits(ctx context.Context, repo *gitops.Repo, f *file, hist *gitops.FileHistory) []string {
	if hist != nil {
		return hist.Log
	}
	rev := f.rev
	if rev == "" {
		rev = "HEAD"
	}
	log, err := repo.FileLog(ctx, rev, f.rel, anchorHistoryLimit)
	if err != nil {
		return nil
	}
	return log
}

// score ranks a region: how much of it is in the asked lines, whether its
// anchor is the one asked for, how recent it is (relative to the newest
// commit involved, so the same query always scores the same), and how much
// has changed since.
func score(overlap int, lines annotate.Lines, anchorMatch bool, at, newest time.Time, later int) float64 {
	size := max(lines.End-lines.Start+1, 1)
	s := 0.45 * math.Min(1, float64(overlap)/float64(size))
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
