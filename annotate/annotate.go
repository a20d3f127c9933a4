package annotate

import (
	"context"
	"errors"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/treesitter"
)

// Result reports what annotate did: contexts staged for the next commit,
// or records written on a commit.
type Result struct {
	Schema     string   `json:"$schema"`
	Commit     string   `json:"commit,omitempty"`
	Staged     int      `json:"staged" jsonschema:"contexts waiting for the next commit in this worktree"`
	Written    []string `json:"written" jsonschema:"ids of the records written"`
	Superseded []string `json:"superseded" jsonschema:"ids of the records they replace"`
	Warnings   []string `json:"warnings"`
}

func newResult() *Result {
	return &Result{Schema: "gloss-annotate/v1", Written: []string{}, Superseded: []string{}, Warnings: []string{}}
}

// Options tune a capture.
type Options struct {
	// Annotator is a command (from personal git config gloss.annotator,
	// never from a committed file) that receives the commit's context as
	// JSON on stdin and answers with contexts. Empty: none.
	Annotator string
	// ConsumePending takes the contexts staged in this worktree.
	ConsumePending bool
	// Staged are contexts taken from the worktree earlier (at commit
	// time, for a capture done later), applied as ConsumePending's are.
	Staged []Context
	// Skip leaves out regions that overlap these (already carried over).
	Skip []Region
	// NoSummary leaves out the summary record (one was carried over).
	NoSummary bool
	// Agent is what the agent hooks captured: the lines agents wrote,
	// per file, by content hash.
	Agent []AgentWork
}

// Capture annotates a commit: a region record for every changed region and
// a summary record, filled from the commit message and its trailers, the
// staged agent context and the annotator's answer.
func Capture(ctx context.Context, repo *gitops.Repo, commitID string, opts Options) (*Result, error) {
	commit, err := repo.LookupCommit(commitID)
	if err != nil {
		return nil, err
	}
	view, err := newCommitView(repo, commit)
	if err != nil {
		return nil, err
	}
	res := newResult()
	res.Commit = commit.ID
	msg := parseMessage(commit.Message)
	// The subject says why the commit was made, not why each file is the
	// way it is: it goes on the summary record only. A region's intent is
	// an Intent trailer, a staged context, an annotator's answer or, for
	// an agent's lines, its session's prompt — or nothing, and read shows
	// the commit's intent for it (marked as such).
	base := Context{Reasoning: msg.body}
	msg.apply(&base)
	hookAuthor := Author{Kind: "human", Name: commit.AuthorName}
	if a, ok := LaunchedAgent(); ok {
		hookAuthor = a // a commit of the agent `task work` launched
	}
	work := map[string]*AgentWork{}
	for i := range opts.Agent {
		work[opts.Agent[i].File] = &opts.Agent[i]
	}
	for _, f := range view.files {
		for i := range f.regions {
			r := &f.regions[i]
			r.Source, r.Author = SourceHook, hookAuthor
			base.merge(r)
		}
		attributeAgentWork(f, work[f.path])
	}
	var problems []error
	staged := opts.Staged
	if opts.ConsumePending {
		taken, err := takePending(repo)
		if err != nil {
			problems = append(problems, err)
		}
		staged = append(staged, taken...)
	}
	if len(staged) > 0 {
		view.applyAll(staged, Author{Kind: "agent"}, func(err error) {
			res.Warnings = append(res.Warnings, "staged context: "+err.Error())
		})
	}
	if opts.Annotator != "" {
		answers, err := runAnnotator(ctx, opts.Annotator, view, msg)
		if err != nil {
			problems = append(problems, err)
		}
		view.applyAll(answers, Author{Kind: "tool"}, func(err error) {
			res.Warnings = append(res.Warnings, "annotator: "+err.Error())
		})
	}
	regions := dropCovered(view.regions(), opts.Skip)
	summaryIntent := base.Intent
	if summaryIntent == "" {
		summaryIntent = msg.subject
	}
	summary := Summary{
		Header: notes.NewHeader(Schema), Kind: KindSummary, Commit: commit.ID,
		Intent: summaryIntent, Reasoning: base.Reasoning, Risks: base.Risks, Tags: base.Tags,
		Author: hookAuthor, Source: SourceHook, Files: []string{},
	}
	for _, t := range base.Constraints {
		summary.Constraints = append(summary.Constraints, Constraint{Text: t, Source: "author"})
	}
	for _, f := range view.files {
		summary.Files = append(summary.Files, f.path)
	}
	recs := make([]any, 0, len(regions)+1)
	for _, r := range regions {
		recs = append(recs, r)
		res.Written = append(res.Written, r.ID)
	}
	if !opts.NoSummary {
		recs = append(recs, summary)
		res.Written = append(res.Written, summary.ID)
	}
	if err := notes.Open(repo, notes.Annotations).Append(ctx, commit.ID, recs...); err != nil {
		return nil, err
	}
	return res, errors.Join(problems...)
}

// dropCovered leaves out the regions that skip already has: the same
// anchor of the same file, or lines of the file wholly inside a carried
// region's.
func dropCovered(regions, skip []Region) []Region {
	if len(skip) == 0 {
		return regions
	}
	var out []Region
	for _, r := range regions {
		covered := false
		for _, s := range skip {
			if s.File != r.File {
				continue
			}
			sameAnchor := r.Anchor != nil && s.Anchor != nil && r.Anchor.Name == s.Anchor.Name
			inside := r.Anchor == nil && s.Lines.Start <= r.Lines.Start && r.Lines.End <= s.Lines.End
			if sameAnchor || inside {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, r)
		}
	}
	return out
}

// AddToCommit writes records on a commit after the fact (`git gloss
// annotate --commit REV`): each context becomes region records on the
// regions it names, or a summary-level record when it names no file.
// Supersedes in a context marks the records it replaces.
func AddToCommit(ctx context.Context, repo *gitops.Repo, rev string, ctxs []Context) (*Result, error) {
	commit, err := repo.LookupCommit(rev)
	if err != nil {
		return nil, err
	}
	res := newResult()
	res.Commit = commit.ID
	var recs []any
	for i := range ctxs {
		if err := ctxs[i].Validate(); err != nil {
			return nil, err
		}
	}
	if err := checkFiles(repo, ctxs); err != nil {
		return nil, err
	}
	if err := checkSupersedes(repo, ctxs); err != nil {
		return nil, err
	}
	for _, c := range ctxs {
		if err := c.Validate(); err != nil {
			return nil, err
		}
		if c.Anchor != "" {
			var src []byte
			if treesitter.Supported(c.File) {
				if src, err = repo.ReadFile(commit.ID, c.File); err != nil {
					return nil, err
				}
			}
			if err := checkAnchor(c, src); err != nil {
				return nil, err
			}
		}
		author := Author{Kind: "agent"}
		if c.Author != nil {
			author = *c.Author
		}
		c.Author = &author
		if c.File == "" {
			s := Summary{Header: notes.NewHeader(Schema), Kind: KindSummary, Commit: commit.ID,
				Intent: c.Intent, Reasoning: c.Reasoning, Risks: c.Risks, Tags: c.Tags,
				Author: author, Source: SourceAgent, Files: []string{}, Expires: c.Expires}
			for _, t := range c.Constraints {
				s.Constraints = append(s.Constraints, Constraint{Text: t, Source: "author"})
			}
			s.Supersedes = c.Supersedes
			recs = append(recs, s)
			res.Written = append(res.Written, s.ID)
			res.Superseded = append(res.Superseded, c.Supersedes...)
			continue
		}
		view := &commitView{repo: repo, commit: commit} // a fresh view: each context makes its own records
		if err := view.apply(c); err != nil {
			return nil, err
		}
		for _, r := range view.regions() {
			r.Supersedes = c.Supersedes
			if r.Intent == "" {
				r.Intent = parseMessage(commit.Message).subject
			}
			recs = append(recs, r)
			res.Written = append(res.Written, r.ID)
		}
		res.Superseded = append(res.Superseded, c.Supersedes...)
	}
	if err := notes.Open(repo, notes.Annotations).Append(ctx, commit.ID, recs...); err != nil {
		return nil, err
	}
	return res, nil
}

// checkSupersedes refuses a context that supersedes a record no note
// holds: a mistyped id would retire nothing and say nothing. A record may
// supersede one on any commit (a decision replaced by a later one).
func checkSupersedes(repo *gitops.Repo, ctxs []Context) error {
	want := map[string]bool{}
	for _, c := range ctxs {
		for _, id := range c.Supersedes {
			want[id] = true
		}
	}
	if len(want) == 0 {
		return nil
	}
	all, _, err := notes.Open(repo, notes.Annotations).ReadAll()
	if err != nil {
		return err
	}
	for _, recs := range all {
		for _, r := range recs {
			delete(want, r.ID)
		}
	}
	for id := range want {
		return fault.NotFoundf("no annotation record %s to supersede", id)
	}
	return nil
}

// StageResult stages contexts for the next commit and reports how many are
// waiting.
func StageResult(repo *gitops.Repo, ctxs []Context) (*Result, error) {
	for i := range ctxs {
		if err := ctxs[i].Validate(); err != nil {
			return nil, err
		}
	}
	if err := checkStagedAnchors(repo, ctxs); err != nil {
		return nil, err
	}
	if err := checkSupersedes(repo, ctxs); err != nil {
		return nil, err
	}
	n, err := Stage(repo, ctxs)
	if err != nil {
		return nil, err
	}
	res := newResult()
	res.Staged = n
	return res, nil
}
