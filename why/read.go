// Package why answers the question an agent asks before it changes code:
// why is this the way it is? It reads the annotations recorded when the
// code was written (package annotate) back for today's code: read (what is
// in force in a region), deps (who relies on it), history (its timeline)
// and summary (a file or directory at a glance).
//
// A read is one lookup every door shares (the CLI, the agents' pre-edit
// hook, MCP, the web view, the editor): the records in force for some
// lines of today's file. A record written for a function, a file or a
// directory binds to that code wherever it is today (package decisions);
// a record of lines is found through blame, which maps today's lines to
// the commits that wrote them and to their numbers then — never comparing
// today's line numbers with commit-time ones directly.
package why

import (
	"context"
	"time"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
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
	All       bool            `json:"all,omitempty" jsonschema:"also return retired records (superseded, flagged, expired, or their anchor deleted), marked"`
	// Content is a version of the file that is not on disk, an editor's
	// unsaved buffer: it is read instead of the working-tree file, Lines
	// are its lines, and lines that differ from HEAD are uncommitted.
	Content []byte `json:"-"`
	// ContentBlame is the blame of all of Content's lines when the caller
	// has it already (gitops.BlameContent of Content, lines 0,0: an
	// editor's server blames each buffer version once for its gutter);
	// the read takes its lines instead of blaming the buffer again.
	ContentBlame *gitops.Blame `json:"-"`
	// BoundOnly answers with the records bound to the code alone (the
	// decisions of its functions, file and directories), without blaming
	// the lines: the answer an agent's hook falls back to when a blame
	// the cache cannot answer would not finish in its time.
	BoundOnly bool `json:"-"`
}

// Target is what the query resolved to.
type Target struct {
	Rev     string              `json:"rev" jsonschema:"commit id, or 'worktree'"`
	Anchors []treesitter.Anchor `json:"anchors"`
	Lines   annotate.Lines      `json:"lines"`
	// Enclosing are the anchors whose code holds some of the lines: the
	// function (and the type around it) whose decisions are in force
	// there.
	Enclosing []treesitter.Anchor `json:"enclosing" jsonschema:"the functions, methods and types that hold the lines, outermost first"`
}

// RegionView is one annotation in an answer.
type RegionView struct {
	ID     string           `json:"id"`
	Commit string           `json:"commit"`
	Time   string           `json:"time" jsonschema:"when the commit was authored"`
	File   string           `json:"file" jsonschema:"path at the commit"`
	Anchor *annotate.Anchor `json:"anchor,omitempty"`
	// Scope is what the record is a decision about, and Span where that
	// is in the version read.
	Scope                string                `json:"scope" jsonschema:"anchor (a function, method or type, wherever it is today), file, directory, or lines (the lines it was recorded on, found through blame)"`
	Span                 *annotate.Lines       `json:"span,omitempty" jsonschema:"where the record's scope is in the version read: the whole anchor today; absent for a file or directory"`
	Renamed              string                `json:"renamed,omitempty" jsonschema:"the anchor's name today, when it was renamed since the record (found by its unchanged body)"`
	Lines                annotate.Lines        `json:"lines" jsonschema:"lines at the commit"`
	Current              *annotate.Lines       `json:"current,omitempty" jsonschema:"where the lines that commit wrote are in the version read (absent when later commits rewrote them all)"`
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
	Stale                bool                  `json:"stale" jsonschema:"later commits changed the code it is about: its description may be out of date (its decisions stay in force)"`
	LaterCommits         int                   `json:"later_commits"`
	Expires              string                `json:"expires,omitempty"`
	Status               *annotate.Status      `json:"status,omitempty" jsonschema:"set when the record is retired: superseded, flagged, expired or deleted (only with all)"`
	Trust                string                `json:"trust,omitempty" jsonschema:"directive (by an author the team trusts, [annotations] trusted) or claim; empty when the team trusts no one in particular"`
	Attribution          *attribution.Summary  `json:"attribution,omitempty" jsonschema:"who wrote the region's lines as they are now"`
}

// Decides reports whether the region holds a decision: a constraint, a
// rejected alternative or a risk.
func (v *RegionView) Decides() bool {
	return len(v.Constraints) > 0 || len(v.RejectedAlternatives) > 0 || len(v.Risks) > 0
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
	// Decisions counts the records in force holding a decision
	// (constraint, rejected alternative, risk); DecisionsReturned those
	// the budget left in the answer.
	Decisions         int `json:"decisions" jsonschema:"records in force here that hold a decision (constraint, rejected alternative or risk)"`
	DecisionsReturned int `json:"decisions_returned" jsonschema:"of those, how many the answer holds within max_tokens"`
	Retired           int `json:"retired" jsonschema:"records found here that are retired (superseded, flagged, expired, or their anchor deleted); shown only with all"`
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
	schemas.Register(schemas.Entry{Name: "read", Tag: "gloss-read/v1", Description: "What is in force in a file or region, and why it is the way it is (git gloss read, MCP gloss_read).", Type: schemas.TypeOf[ReadResult]()})
}

// maxAnchor bounds an anchor's (and a revision's) length: no name of a
// function or a ref comes near it.
const maxAnchor = 1024

// checkAnchor refuses an anchor or revision longer than maxAnchor: every
// answer repeats its query, and a huge one would come back whole, more
// than once.
func checkAnchor(names ...string) error {
	for _, n := range names {
		if len(n) > maxAnchor {
			return fault.Usagef("an anchor or a revision is at most %d bytes", maxAnchor)
		}
	}
	return nil
}

// Read answers a query. Many reads at once go through a Reader.
func Read(ctx context.Context, repo *gitops.Repo, q Query) (*ReadResult, error) {
	rd := NewReader(repo)
	defer rd.Close()
	return rd.Read(ctx, q)
}

// reading is one read going through its stages; each stage fills in what
// the next needs.
type reading struct {
	ctx  context.Context
	rd   *Reader
	repo *gitops.Repo
	q    Query
	res  *ReadResult

	// target: the file read, the lines asked and the code holding them.
	f      *file
	target annotate.Lines
	// blame: the lines blamed (the target and its enclosing anchors) and
	// the file's history, for how much changed since a record.
	blamed   annotate.Lines
	blame    *gitops.Blame
	hist     *gitops.FileHistory // see history
	histRead bool
	// blamedCommits are the commits blame names, for the history.
	blamedCommits []string
	committed     map[string]time.Time // committer times looked up
	// in force: the records found, as views.
	views []RegionView
}

// read runs the stages of a read. The reading keeps the file version it
// read and its blame (nil for an empty file), for Blame, which shows them.
func (rd *Reader) read(ctx context.Context, q Query) (*reading, error) {
	if err := q.check(); err != nil {
		return nil, err
	}
	r := &reading{ctx: ctx, rd: rd, repo: rd.repo, q: q}
	if err := r.resolve(); err != nil {
		return nil, err
	}
	if r.f.lines == 0 {
		r.res.Notes = append(r.res.Notes, "the file is empty")
		return r, nil
	}
	found, err := r.lookup()
	if err != nil {
		return nil, err
	}
	if q.BoundOnly {
		r.blamed, r.blame = r.target, &gitops.Blame{Commits: map[string]gitops.BlameCommit{}}
		r.res.Notes = append(r.res.Notes, "only the records bound to functions, files and directories: the lines were not blamed")
	} else if err := r.blameLines(found); err != nil {
		return nil, err
	}
	if err := r.inForce(found); err != nil {
		return nil, err
	}
	r.attribute()
	r.rankAndTrim()
	return r, nil
}

// check refuses a query no read can answer.
func (q Query) check() error {
	switch {
	case q.Path == "":
		return fault.Usagef("a path is required")
	case q.MaxTokens < 0:
		return fault.Usagef("max_tokens must not be negative")
	case q.Lines != nil && (q.Lines.Start < 1 || q.Lines.End < q.Lines.Start):
		return fault.Usagef("invalid line range %d:%d", q.Lines.Start, q.Lines.End)
	}
	return checkAnchor(q.Anchor, q.Rev)
}
