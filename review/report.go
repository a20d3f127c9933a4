package review

import (
	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/forge"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/schemas"
)

// Schema tags the report.
const Schema = "gloss-review/v1"

// Report is what `git gloss review` says about a range: gloss-review/v1.
type Report struct {
	Schema string `json:"$schema"`
	Range  Range  `json:"range"`
	// Decisions are the decisions in force (constraints, rejected
	// alternatives, risks) whose scope the range's diff changes, ranked:
	// a rejected alternative brought back first, then constraints, then
	// rejected alternatives, then risks.
	Decisions []Decision `json:"decisions"`
	// Recorded are the decisions the range's own commits record.
	Recorded   []Decision `json:"recorded" jsonschema:"decisions recorded by the range's own commits"`
	Authorship Authorship `json:"authorship"`
	Sessions   Sessions   `json:"sessions"`
	Specs      []Spec     `json:"specs" jsonschema:"specs governing files the range changes"`
	Tasks      []Task     `json:"tasks" jsonschema:"task files the range changes"`
	Check      Check      `json:"check" jsonschema:"the findings of git gloss ci check over the same range"`
	ReadFirst  []FileRank `json:"read_first" jsonschema:"files a reviewer should read first, most important first"`
	// Cut says what was left out to keep the report bounded.
	Cut   []Cut    `json:"cut"`
	Notes []string `json:"notes"`
}

// Cut is one list the report shortened.
type Cut struct {
	What    string `json:"what"`
	Shown   int    `json:"shown"`
	Total   int    `json:"total"`
	LeftOut string `json:"left_out" jsonschema:"which ones were left out"`
}

// Range is the change reviewed: the diff from Base (the merge base) to Head.
type Range struct {
	Base       string `json:"base" jsonschema:"the merge base the diff starts from"`
	Head       string `json:"head"`
	BaseFrom   string `json:"base_from" jsonschema:"what the base was found from: the range given, the CI's target branch, the upstream or the default branch"`
	Commits    int    `json:"commits" jsonschema:"commits in base..head"`
	Files      int    `json:"files" jsonschema:"files the diff changes"`
	Insertions int    `json:"insertions"`
	Deletions  int    `json:"deletions"`
}

// Ranks of a decision, most important first.
const (
	RankReintroduced = "reintroduces-rejected" // the change brings back a rejected alternative
	RankConstraint   = "constraint"            // it edits a region with a constraint
	RankRejected     = "rejected"              // it edits a region with a rejected alternative
	RankRisk         = "risk"                  // it edits a region with a known risk
)

// Decision is one annotation record in force where the change lands.
type Decision struct {
	Rank        string              `json:"rank" jsonschema:"reintroduces-rejected, constraint, rejected or risk"`
	Record      string              `json:"record" jsonschema:"the record's id (git gloss read shows it)"`
	Commit      string              `json:"commit" jsonschema:"the commit the record is on"`
	File        string              `json:"file" jsonschema:"the file, as of the side read"`
	Side        string              `json:"side" jsonschema:"head: found in the range's last commit; base: found on lines the range deleted or replaced"`
	Scope       string              `json:"scope" jsonschema:"what the record is about (why.Read's scope): anchor, file, directory or lines"`
	Anchor      *annotate.Anchor    `json:"anchor,omitempty"`
	Lines       *annotate.Lines     `json:"lines,omitempty" jsonschema:"the lines the record covers on that side: an anchor's whole function; absent for a file or directory"`
	Intent      string              `json:"intent,omitempty"`
	Constraints []string            `json:"constraints,omitempty"`
	Rejected    []annotate.Rejected `json:"rejected_alternatives,omitempty"`
	Risks       []string            `json:"risks,omitempty"`
	// Reintroduced are the rejected alternatives the added lines bring
	// back, by the rule of docs/review.md.
	Reintroduced []Reintroduction `json:"reintroduced,omitempty"`
	// Changed are the diff's hunks within the record's scope.
	Changed []gitops.Hunk   `json:"changed"`
	Author  annotate.Author `json:"author"`
	Time    string          `json:"time,omitempty" jsonschema:"when the record's commit was authored"`
	Read    string          `json:"read" jsonschema:"the command that shows the record"`

	recordedHere bool // recorded by a commit of the range
}

// Reintroduction is a rejected alternative that an added line brings back.
type Reintroduction struct {
	Alternative string `json:"alternative"`
	Reason      string `json:"reason,omitempty" jsonschema:"why it was rejected"`
	Match       string `json:"match" jsonschema:"the text of the alternative found in the added line"`
	Line        int    `json:"line" jsonschema:"the added line, in the head version of the file"`
	Text        string `json:"text" jsonschema:"the added line (cut at 200 bytes)"`
}

// Authorship is who wrote the lines the range adds: each added line
// blamed at head and looked up in line attribution, as git gloss blame
// does.
type Authorship struct {
	Totals attribution.Totals       `json:"totals"`
	Agents []attribution.AgentLines `json:"agents" jsonschema:"ai and mixed lines by agent and model"`
	Files  []FileAuthorship         `json:"files" jsonschema:"per file, most agent lines first"`
}

// FileAuthorship is one changed file.
type FileAuthorship struct {
	Path    string `json:"path"`
	OldPath string `json:"old_path,omitempty" jsonschema:"the path at base, for a rename"`
	Status  string `json:"status" jsonschema:"added, modified, deleted, renamed, copied or typechange"`
	Added   int    `json:"added"`
	Deleted int    `json:"deleted"`
	attribution.Totals
	Agents []attribution.AgentLines `json:"agents,omitempty"`
	// Examined is false for a file beyond the report's bound: its lines
	// are counted but not attributed, its decisions not looked up.
	Examined bool `json:"examined"`
	Binary   bool `json:"binary,omitempty"`
}

// Sessions are the agent sessions behind the range's commits.
type Sessions struct {
	Shared bool      `json:"shared" jsonschema:"whether the team shares sessions ([sync] sessions = true); no prompt is shown otherwise"`
	List   []Session `json:"list"`
}

// Session is one agent session's part in the range.
type Session struct {
	ID      string   `json:"id"`
	Agent   string   `json:"agent"`
	Model   string   `json:"model,omitempty"`
	Summary string   `json:"summary,omitempty" jsonschema:"the session's prompt, redacted and cut short"`
	Commits []string `json:"commits"`
	Files   []string `json:"files"`
}

// Spec is a spec governing files the range changes.
type Spec struct {
	Path       string   `json:"path"`
	Governed   []string `json:"governed" jsonschema:"changed files the spec governs"`
	Changed    bool     `json:"changed" jsonschema:"the spec's own file changed"`
	Reconciled bool     `json:"reconciled" jsonschema:"no drift or problem: its governed files match its last reconciliation"`
}

// Task is a task file the range changes.
type Task struct {
	ID        string `json:"id"`
	Title     string `json:"title,omitempty"`
	From      string `json:"from,omitempty" jsonschema:"status at base; empty for a task the range adds"`
	To        string `json:"to,omitempty" jsonschema:"status at head; empty for a task the range deletes"`
	Completed bool   `json:"completed" jsonschema:"the range completes the task"`
}

// Check is git gloss ci check over the range.
type Check struct {
	Failed   bool            `json:"failed"`
	Findings []forge.Finding `json:"findings"`
	Notes    []string        `json:"notes"`
}

// FileRank is a file a reviewer should read early, and why.
type FileRank struct {
	Path    string   `json:"path"`
	Score   int      `json:"score"`
	Reasons []string `json:"reasons"`
}

func init() {
	schemas.Register(schemas.Entry{Name: "review", Tag: Schema, Description: "A pull-request report: decisions in force the range changes, who wrote it, specs, tasks and check findings (git gloss review).", Type: schemas.TypeOf[Report]()})
}
