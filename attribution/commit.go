package attribution

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"unicode"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/capture"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/runenv"
)

// computation is what attributing one commit draws on.
type computation struct {
	claims     []capture.Edit
	env        func(string) string
	carried    map[string]lineMap                 // path in the commit -> contributors carried from the commit's sources
	byHash     map[string]map[string]*Contributor // path -> line hash -> a source's contributor of that text
	source     string
	derived    []string
	supersedes []string
}

// fileLines is one changed file: the lines the commit introduced and
// their texts' hashes.
type fileLines struct {
	path    string
	lines   []int    // line numbers blame gives to the commit, ascending
	hashes  []string // parallel to lines
	trivial []bool   // parallel to lines: blank or punctuation only ("}", ");")
}

// isTrivial reports whether a line carries no word: such lines ("}", a
// blank) are written alike by everyone, so their hash alone proves nothing.
func isTrivial(text string) bool {
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// attribute computes the attribution of the commit in and appends it to
// its note.
func attribute(ctx context.Context, repo *gitops.Repo, in *input, comp computation) (*Record, error) {
	rec := compute(in, comp)
	if err := notes.Open(repo, Ref).Append(ctx, rec.Commit, *rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// input is what attributing one commit reads of it, gathered once
// (gather): the commit, the lines it introduced, and the annotation records
// on it, decoded — annotate's carried records name the commits a squash
// or a cherry-pick came from, its agent regions attribute lines nothing
// else decides.
type input struct {
	id          string
	commit      *gitops.Commit
	files       []fileLines
	annotations []annotate.Decoded
}

// gather reads the commit from the repository, once.
func (in *input) gather(ctx context.Context, repo *gitops.Repo) error {
	if in.commit != nil {
		return nil
	}
	c, files, err := changedLines(ctx, repo, in.id)
	if err != nil {
		return err
	}
	in.files = files
	if recs, err := notes.Open(repo, notes.Annotations).ReadResolved([]string{c.ID}); err == nil {
		in.annotations = annotate.Decode(recs[c.ID])
	}
	in.commit = c
	return nil
}

// changedLines reads commit id (nil when there is none) and lists, per
// file it changed, the lines blame attributes to the commit — exactly
// those a blame will look up later.
//
// On a large repository a whole-file blame of each changed file costs
// seconds, which the post-commit hook must not spend (a 10-file commit of
// git/git took 9 s): there the lines are the new side of the commit's
// diff against its first parent, which is what blame gives the commit
// for all but lines it finds moved or copied from elsewhere.
func changedLines(ctx context.Context, repo *gitops.Repo, id string) (*gitops.Commit, []fileLines, error) {
	c, err := repo.LookupCommit(id)
	if err != nil {
		return nil, nil, err
	}
	parent := ""
	if len(c.Parents) > 0 {
		parent = c.Parents[0]
	}
	byDiff := repo.LargeRepository()
	changes, err := repo.DiffTrees(parent, c.ID, gitops.DiffOptions{Hunks: byDiff})
	if err != nil {
		return c, nil, err
	}
	// What git holds first (each file's content, and the lines blame
	// gives the commit), then the lines' texts and hashes.
	type read struct {
		path  string
		data  []byte
		lines []int
	}
	var reads []read
	for _, ch := range changes {
		if ch.Status == gitops.Deleted || ch.Status == gitops.TypeChange && ch.NewBlob == "" {
			continue
		}
		data, err := repo.ReadFile(c.ID, ch.Path)
		if err != nil {
			if gitops.IsNotFound(err) {
				continue // a submodule or a path blame cannot read
			}
			return c, nil, err
		}
		if bytes.IndexByte(data, 0) >= 0 || len(data) == 0 {
			continue // binary or empty: no lines
		}
		r := read{path: ch.Path, data: data}
		if byDiff {
			for _, h := range ch.Hunks {
				for l := h.NewStart; l < h.NewStart+h.NewLines; l++ {
					r.lines = append(r.lines, l)
				}
			}
		} else {
			b, err := repo.BlameCached(ctx, c.ID, ch.Path, 0, 0)
			if err != nil {
				return c, nil, fmt.Errorf("blame %s at %s: %w", ch.Path, gitops.ShortID(c.ID), err)
			}
			for _, l := range b.Lines {
				if l.Commit == c.ID {
					r.lines = append(r.lines, l.Line)
				}
			}
		}
		reads = append(reads, r)
	}
	var out []fileLines
	for _, r := range reads {
		texts := capture.SplitLines(string(r.data))
		f := fileLines{path: r.path}
		for _, line := range r.lines {
			if line < 1 || line > len(texts) {
				continue
			}
			f.lines = append(f.lines, line)
			f.hashes = append(f.hashes, capture.HashLine(texts[line-1]))
			f.trivial = append(f.trivial, isTrivial(texts[line-1]))
		}
		if len(f.lines) > 0 {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return c, out, nil
}

// regionsByAgent are the agent-authored annotation regions of a commit.
type regionsByAgent map[string][]annotate.Region

// agentRegions picks the agent-authored regions among a commit's
// annotations.
func agentRegions(annotations []annotate.Decoded) regionsByAgent {
	out := regionsByAgent{}
	for _, d := range annotations {
		if d.Region != nil && d.Region.Author.Kind == "agent" && d.Region.Source == annotate.SourceAgent {
			out[d.Region.File] = append(out[d.Region.File], *d.Region)
		}
	}
	return out
}

func (ra regionsByAgent) at(path string, line int) *Contributor {
	for _, r := range ra[path] {
		if r.Lines.Start <= line && line <= r.Lines.End {
			return &Contributor{Type: AI, Agent: r.Author.Name, Model: r.Author.Model, Basis: BasisAnnotation}
		}
	}
	return nil
}

// Job is the attribution of one commit, decided at commit time: what it
// draws on from state that moves on once the commit is made — the
// captured agent edits (the commit takes them from the store), the
// reflog (an amend's old commit is HEAD@{1} only until the next commit)
// and the hook's environment. RunJob does the rest, at once or later in
// a detached worker: it is the attribution half of the commit's
// post-commit job (hooks.Job), run after the annotation half, whose
// carried records it reads.
type Job struct {
	Commit string `json:"commit"`
	// Claims are the captured edits pending when the commit was made.
	Claims []capture.Edit `json:"claims,omitempty"`
	// Amended is the commit an amend replaced.
	Amended string `json:"amended,omitempty"`
	// Env holds the agent run of the hook's environment (the variables of
	// runenv.AgentRunNames), where set.
	Env map[string]string `json:"env,omitempty"`
}

// NewJob is the attribution job of commit head, given the captured
// edits pending when it was made and, for an amend, the commit it
// replaced (HEAD@{1} then, which the next commit moves on): the hook
// reads how the commit was made once, for both halves of its job, and
// makes no job for a commit a rebase replays (post-rewrite carries it).
// RunJob then reads the commit's annotations to tell how it was made:
// records carried from a squash or a cherry-pick name their sources,
// whose attribution is carried over; an amend carries the amended
// commit's attribution.
func NewJob(head string, claims []capture.Edit, amended string) *Job {
	job := &Job{Commit: head, Claims: claims, Amended: amended}
	for _, k := range runenv.AgentRunNames {
		if v := os.Getenv(k); v != "" {
			if job.Env == nil {
				job.Env = map[string]string{}
			}
			job.Env[k] = v
		}
	}
	return job
}

// RunJob attributes the job's commit. It reads the commit's annotations,
// so it runs after they are written. A commit that has its attribution
// keeps it: run again after a run cut short, RunJob writes nothing twice,
// and a commit git made again byte for byte (a cherry-pick onto the same
// parent in the same second gives the same id) keeps the attribution a
// fresh computation without the consumed capture would only contradict.
func RunJob(ctx context.Context, repo *gitops.Repo, job *Job) error {
	head := job.Commit
	if have, err := notes.Open(repo, Ref).Read([]string{head}); err == nil && attributes(have[head], head) {
		return nil
	}
	env := func(k string) string { return job.Env[k] }
	comp := computation{claims: job.Claims, env: env, source: SourceHook}
	in := &input{id: head}
	if err := in.gather(ctx, repo); err != nil {
		return err
	}
	if job.Amended != "" {
		_, err := carry(ctx, repo, []string{job.Amended}, in, SourceAmend, comp, true)
		return err
	}
	if sources, kind := carriedSources(in.annotations); len(sources) > 0 {
		_, err := carry(ctx, repo, sources, in, kind, comp, true)
		return err
	}
	_, err := attribute(ctx, repo, in, comp)
	return err
}

// attributes reports whether one of recs is an attribution of commit.
// Records of another commit are there after an amend that a deferred
// worker attributes: git copies the amended commit's notes onto the new
// commit (notes.rewriteRef) once post-commit has run.
func attributes(recs []notes.Record, commit string) bool {
	for _, r := range recs {
		var rec struct {
			Commit string `json:"commit"`
		}
		if r.Schema == Schema && r.Decode(&rec) == nil && rec.Commit == commit {
			return true
		}
	}
	return false
}

// carriedSources reads, from the annotations annotate carried onto a
// commit (a squash merge or a cherry-pick), which commits they came from.
func carriedSources(annotations []annotate.Decoded) ([]string, string) {
	seen := map[string]bool{}
	var out []string
	kind := ""
	for _, d := range annotations {
		var src string
		var from []string
		switch {
		case d.Region != nil:
			src, from = d.Region.Source, d.Region.DerivedFrom
		case d.Summary != nil:
			src, from = d.Summary.Source, d.Summary.DerivedFrom
		}
		if (src != annotate.SourceSquash && src != annotate.SourceCherryPick) || len(from) == 0 {
			continue
		}
		kind = src
		if last := from[len(from)-1]; !seen[last] {
			seen[last] = true
			out = append(out, last)
		}
	}
	return out, kind
}

// PostRewrite carries attribution across a rebase (git reports the old
// and new commit of each rewritten one). An amend outside a rebase was
// carried by post-commit already.
func PostRewrite(ctx context.Context, repo *gitops.Repo, kind string, pairs [][2]string) error {
	if kind == "amend" && !repo.RebaseInProgress() {
		return nil
	}
	var order []string
	olds := map[string][]string{}
	for _, p := range pairs {
		if _, seen := olds[p[1]]; !seen {
			order = append(order, p[1])
		}
		olds[p[1]] = append(olds[p[1]], p[0])
	}
	var problems []error
	for _, to := range order {
		if _, err := carry(ctx, repo, olds[to], &input{id: to}, SourceRebase, computation{}, false); err != nil {
			problems = append(problems, err)
		}
	}
	return errors.Join(problems...)
}

// CarryOnto carries the attribution of sources (oldest first) onto target:
// what `git gloss carry` does after a forge's squash or rebase merge. It
// returns the number of records written.
func CarryOnto(ctx context.Context, repo *gitops.Repo, sources []string, target, provenance string) (int, error) {
	rec, err := carry(ctx, repo, sources, &input{id: target}, provenance, computation{}, false)
	if err != nil || rec == nil {
		return 0, err
	}
	return 1, nil
}
