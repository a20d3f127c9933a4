package entire

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gloss-dev/gloss/agent"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/lazyregexp"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/schemas"
)

// Options are what an import reads and whether it writes.
type Options struct {
	Ref    string // the checkpoints branch; default Branch, then RemoteBranch
	DryRun bool   // count what would be written, write nothing
	// Progress, when not nil, hears what a long import is doing.
	Progress func(format string, args ...any)
}

// Result is what an import read and wrote.
type Result struct {
	Schema      string `json:"$schema"`
	Branch      string `json:"branch" jsonschema:"the checkpoints branch read"`
	Checkpoints int    `json:"checkpoints" jsonschema:"committed checkpoints read"`
	Unlinked    int    `json:"unlinked" jsonschema:"checkpoints no commit names in an Entire-Checkpoint trailer (the trailer was removed, or the commit is not on a branch here): nothing to attach them to"`
	DryRun      bool   `json:"dry_run,omitempty" jsonschema:"nothing was written; the counts say what would be"`
	// Sessions counts the session records, Attribution the line
	// attribution records, each as the other imports count them.
	Sessions    notes.ImportResult `json:"sessions"`
	Attribution notes.ImportResult `json:"attribution"`
	// Lines counts the lines attributed, by contributor type.
	Lines    map[string]int `json:"lines" jsonschema:"lines the attribution records written (or, with dry_run, to be written) name, by contributor type (ai, human, mixed)"`
	Warnings []string       `json:"warnings"`
}

func init() {
	schemas.Register(schemas.Entry{Name: "import-entire", Tag: "gloss-import-entire/v1", Description: "What git gloss import entire read from Entire's checkpoints and wrote as session records and line attribution.", Type: schemas.TypeOf[Result]()})
}

// trailerRE is Entire's checkpoint trailer on a user's commit
// (entireio/cli@f446dcfc cmd/entire/cli/trailers/trailers.go).
var trailerRE = lazyregexp.New(`(?m)^Entire-Checkpoint:[ \t]*([0-9a-f]{12})[ \t]*$`)

// Import reads Entire's committed checkpoints into session records
// (refs/notes/gloss/sessions) and line attribution
// (refs/notes/gloss/attribution) on the commits that name them.
func Import(ctx context.Context, repo *gitops.Repo, opts Options) (*Result, error) {
	ref, tip, err := resolveBranch(repo, opts.Ref)
	if err != nil {
		return nil, err
	}
	res := &Result{
		Schema: "gloss-import-entire/v1", Branch: ref, DryRun: opts.DryRun, Lines: map[string]int{}, Warnings: []string{},
		Sessions:    notes.ImportResult{Schema: "gloss-import/v1", Refs: []string{agent.Sessions}, Warnings: []string{}},
		Attribution: notes.ImportResult{Schema: "gloss-import/v1", Refs: []string{attribution.Ref}, Warnings: []string{}},
	}
	warn := func(format string, args ...any) { res.Warnings = append(res.Warnings, fmt.Sprintf(format, args...)) }
	cps, err := readCheckpoints(repo, tip, warn)
	if err != nil {
		return nil, err
	}
	if len(cps) == 0 {
		warn("%s holds no checkpoint", ref)
	}
	res.Checkpoints = len(cps)
	linked, err := linkedCommits(repo)
	if err != nil {
		return nil, err
	}
	var sessions []agent.SessionRecord
	var claims []attribution.FileClaim
	for _, cp := range cps {
		commits := linked[cp.id]
		if len(commits) == 0 {
			res.Unlinked++
			continue
		}
		for _, c := range commits {
			recs, err := sessionRecords(repo, cp, c)
			if err != nil {
				return nil, err
			}
			sessions = append(sessions, recs...)
			claims = append(claims, attribution.FileClaim{Commit: c.ID, Key: "entire\x00" + cp.id, Decide: func(introduced map[string]int) map[string]attribution.Contributor {
				return decide(cp, introduced)
			}})
		}
	}
	if err := agent.ImportSessions(ctx, repo, sessions, opts.DryRun, &res.Sessions); err != nil {
		return nil, err
	}
	var progress func(int, int)
	if opts.Progress != nil {
		progress = func(done, total int) { opts.Progress("attributing the lines of commit %d of %d", done+1, total) }
	}
	if res.Lines, err = attribution.ImportFileClaims(ctx, repo, claims, opts.DryRun, &res.Attribution, progress); err != nil {
		return nil, err
	}
	return res, nil
}

// linkedCommits maps checkpoint ids to the commits whose messages name
// them, over every branch (local and remote-tracking) but Entire's own.
func linkedCommits(repo *gitops.Repo) (map[string][]*gitops.Commit, error) {
	var tips []string
	for _, glob := range []string{"refs/heads/*", "refs/remotes/*"} {
		refs, err := repo.ListRefs(glob)
		if err != nil {
			return nil, err
		}
		for _, r := range refs {
			if entireBranch(r.Name) || strings.HasSuffix(r.Name, "/HEAD") {
				continue // Entire's checkpoints and shadow branches
			}
			tips = append(tips, r.Target)
		}
	}
	if head, err := repo.Head(); err == nil && head != "" {
		tips = append(tips, head) // a detached HEAD
	}
	out := map[string][]*gitops.Commit{}
	var walked []string
	for _, tip := range tips {
		if _, err := repo.LookupCommit(tip); err != nil {
			continue // a branch pointing at something other than a commit
		}
		err := repo.Walk(tip, gitops.LogOptions{Hide: walked}, func(c *gitops.Commit) bool {
			seen := map[string]bool{}
			for _, m := range trailerRE.FindAllStringSubmatch(c.Message, -1) {
				if !seen[m[1]] {
					seen[m[1]] = true
					out[m[1]] = append(out[m[1]], c)
				}
			}
			return true
		})
		if err != nil {
			return nil, err
		}
		walked = append(walked, tip)
	}
	return out, nil
}

// entireBranch reports whether ref is one of Entire's own branches
// (entire/checkpoints/v1, the shadow branches entire/<commit>-<worktree>),
// local or a remote's.
func entireBranch(ref string) bool {
	if rest, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
		return strings.HasPrefix(rest, "entire/")
	}
	if rest, ok := strings.CutPrefix(ref, "refs/remotes/"); ok {
		_, branch, _ := strings.Cut(rest, "/")
		return strings.HasPrefix(branch, "entire/")
	}
	return false
}

// sessionRecords are the checkpoint's sessions as gloss session records on
// commit c, each with the files of the commit it touched. The prompt goes
// in raw: agent.ImportSessions redacts it.
func sessionRecords(repo *gitops.Repo, cp checkpoint, c *gitops.Commit) ([]agent.SessionRecord, error) {
	parent := ""
	if len(c.Parents) > 0 {
		parent = c.Parents[0]
	}
	changes, err := repo.DiffTrees(parent, c.ID, gitops.DiffOptions{})
	if err != nil {
		return nil, err
	}
	var out []agent.SessionRecord
	for _, s := range cp.sessions {
		rec := agent.SessionRecord{
			Header:  notes.Header{Schema: agent.SessionSchema, ID: notes.DerivedID(c.CommitTime, "entire\x00"+cp.id+"\x00"+strconv.Itoa(s.index)+"\x00"+c.ID), Time: c.CommitTime.UTC().Format(timeLayout)},
			Session: s.meta.SessionID,
			Agent:   agentName(s.meta.Agent),
			Model:   s.model,
			Summary: s.prompt,
			Commit:  c.ID,
			Files:   []string{},
		}
		if !s.meta.CreatedAt.IsZero() {
			rec.Time = s.meta.CreatedAt.UTC().Format(timeLayout)
		}
		for _, ch := range changes {
			if s.touches(ch.Path) {
				rec.Files = append(rec.Files, ch.Path)
			}
		}
		sort.Strings(rec.Files)
		out = append(out, rec)
	}
	return out, nil
}

const timeLayout = "2006-01-02T15:04:05Z07:00"

// agentName is gloss's name for one of Entire's agent types ("Claude
// Code", "Gemini CLI"; "Agent" when Entire did not know).
func agentName(t string) string {
	l := strings.ToLower(t)
	for _, a := range []string{"claude", "gemini", "cursor", "copilot", "codex", "opencode", "droid", "junie"} {
		if strings.Contains(l, a) {
			return a
		}
	}
	if l == "agent" {
		return ""
	}
	return strings.ReplaceAll(l, " ", "-")
}

// decide says, from a checkpoint's counts, who wrote the lines a commit
// introduced, file by file. Entire keeps per commit how many lines its
// agent and the person added, and which files the agent touched — never
// which line is whose — so a line is named only where the counts leave
// no doubt:
//   - in a file the agent did not touch, the line is the person's, and in
//     every file when Entire counted no agent line;
//   - in a file the agent touched, the line is the agent's when Entire
//     counted no human line in the commit, or when the lines the commit
//     introduced in the touched files are exactly the agent's count and
//     those in the others exactly the human's;
//   - otherwise both wrote in the file and the line is mixed.
//
// Without counts (a checkpoint an older Entire wrote, or counts that are
// all zero), or when no session names a file it touched (auto-commit
// checkpoints of older Entire), no line is named.
// A checkpoint of the auto-commit strategy is a commit Entire made of the
// agent's changes itself: its lines in touched files are the agent's.
func decide(cp checkpoint, introduced map[string]int) map[string]attribution.Contributor {
	agentLines, humanLines, counted := 0, 0, false
	for _, s := range cp.sessions {
		if a := s.meta.Attribution; a != nil {
			counted = true
			agentLines = max(agentLines, a.AgentLines)
			humanLines = max(humanLines, a.HumanAdded+a.HumanModified)
		}
	}
	if agentLines == 0 && humanLines == 0 {
		counted = false // counts of nothing say nothing (Entire saw no change)
	}
	named := false
	for _, s := range cp.sessions {
		named = named || len(s.files) > 0 || len(s.dirs) > 0
	}
	if !named {
		return nil // no file named as the agent's: nothing to tell its lines from the person's
	}
	if !counted && cp.strategy != "auto-commit" {
		return nil // no counts (an older Entire): who wrote which file is not known
	}
	touched := map[string][]session{}
	for p := range introduced {
		for _, s := range cp.sessions {
			if s.touches(p) {
				touched[p] = append(touched[p], s)
			}
		}
	}
	inTouched, inOthers := 0, 0
	for p, n := range introduced {
		if len(touched[p]) > 0 {
			inTouched += n
		} else {
			inOthers += n
		}
	}
	agentOnly := cp.strategy == "auto-commit" || (counted && (humanLines == 0 || inTouched == agentLines && inOthers == humanLines))
	humanOnly := counted && agentLines == 0
	out := map[string]attribution.Contributor{}
	for p := range introduced {
		ss := touched[p]
		switch {
		case len(ss) == 0, humanOnly:
			out[p] = attribution.Contributor{Type: attribution.Human, Basis: attribution.BasisImport}
		case agentOnly:
			out[p] = contributorOf(attribution.AI, ss)
		default:
			out[p] = contributorOf(attribution.Mixed, ss)
		}
	}
	return out
}

// contributorOf names the agent, model and session when one session
// touched the file; when several did, what they share.
func contributorOf(typ string, ss []session) attribution.Contributor {
	c := attribution.Contributor{Type: typ, Basis: attribution.BasisImport, Agent: agentName(ss[0].meta.Agent), Model: ss[0].model, Session: ss[0].meta.SessionID}
	for _, s := range ss[1:] {
		if agentName(s.meta.Agent) != c.Agent {
			c.Agent = ""
		}
		if s.model != c.Model {
			c.Model = ""
		}
		if s.meta.SessionID != c.Session {
			c.Session = ""
		}
	}
	return c
}
