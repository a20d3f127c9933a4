package agent

import (
	"context"
	"sort"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/capture"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/schemas"
)

// Sessions is the notes ref of session records: which agent session, with
// which model and which (redacted) prompt, made a commit. It is private by
// default: `git gloss sync` exchanges it only when .gloss/config.toml says
// [sync] sessions = true.
const Sessions = notes.Sessions

// SessionSchema tags session records.
const SessionSchema = "gloss/session/v1"

// SessionRecord is one session's part in a commit, on refs/notes/gloss/sessions.
type SessionRecord struct {
	notes.Header
	Session string   `json:"session"`
	Agent   string   `json:"agent"`
	Model   string   `json:"model,omitempty"`
	Summary string   `json:"summary,omitempty" jsonschema:"the session's last prompt, redacted and cut short; never the transcript"`
	Started string   `json:"started,omitempty"`
	Commit  string   `json:"commit"`
	Files   []string `json:"files" jsonschema:"files of the commit the session wrote lines of"`
}

func init() {
	schemas.Register(schemas.Entry{Name: "session", Tag: SessionSchema, Description: "An agent session's part in a commit, on refs/notes/gloss/sessions (private unless [sync] sessions = true).", Type: schemas.TypeOf[SessionRecord]()})
}

// CommitWork is what the captured edits hold for one commit: the agent
// lines of the files it changed, for annotate, and the sessions that wrote
// them, for the session records. It keeps what both read of the
// repository, read once: the sessions' state, and the tombstones and
// redaction rules the prompts pass through.
type CommitWork struct {
	Work     []annotate.AgentWork
	sessions map[string]*sessionUse
	states   map[string]*Session // session id -> its state; nil when it has none
	rules    *promptRules        // loaded for the first prompt (promptRules)
}

// promptRules is what a session's prompt passes through before it is
// kept: the tombstones of forgotten prompts, and the redactor.
type promptRules struct {
	ts  *notes.Tombstones
	red *Redactor
	err error // the redactor's: with no rules, no prompt is kept
}

type sessionUse struct {
	agent, model string
	files        map[string]bool
}

// ForCommit reads what a commit took from the captured edits: for every
// file the commit changed, the hashes of the lines agents wrote that the
// commit contains, with the intent of the session's prompt. When several
// edits wrote the same line, the latest wins.
//
// A prompt whose summary was forgotten is never written again, even when
// the session state still holds it (tombstones a sync brought to a clone
// that has not run forget itself). Redacted when stored, redacted again
// in case the rules learned something since (a team rule added, a new
// gloss): with no rules, no intent.
func ForCommit(repo *gitops.Repo, taken *capture.Taken) *CommitWork {
	cw := &CommitWork{sessions: map[string]*sessionUse{}, states: map[string]*Session{}}
	if taken == nil {
		return cw
	}
	byFile := map[string]*annotate.AgentWork{}
	var order []string
	for _, e := range taken.Edits {
		hs := taken.Committed[e.File]
		if hs == nil {
			continue
		}
		// The intent is the prompt the edit answered.
		intent := ""
		if ss := cw.state(repo, e.Session); ss != nil {
			prompt := ss.PromptBefore(e.Time)
			intent = cw.keptPrompt(repo, prompt)
		}
		w := byFile[e.File]
		for _, h := range e.Hashes {
			if !hs[h] {
				continue
			}
			if w == nil {
				w = &annotate.AgentWork{File: e.File, Lines: map[string]annotate.AgentLine{}}
				byFile[e.File] = w
				order = append(order, e.File)
			}
			w.Lines[h] = annotate.AgentLine{Author: annotate.Author{Kind: "agent", Name: e.Agent, Model: e.Model}, Session: e.Session, Intent: intent}
			u := cw.sessions[e.Session]
			if u == nil {
				u = &sessionUse{agent: e.Agent, files: map[string]bool{}}
				cw.sessions[e.Session] = u
			}
			if e.Model != "" {
				u.model = e.Model
			}
			u.files[e.File] = true
		}
	}
	for _, f := range order {
		cw.Work = append(cw.Work, *byFile[f])
	}
	return cw
}

// keptPrompt is a session's prompt as gloss keeps it, in an edit's intent
// or a session record's summary: redacted, and nothing when it was
// forgotten (as written or as redacted) or when the rules could not be
// loaded (text that could not be checked is never kept).
func (cw *CommitWork) keptPrompt(repo *gitops.Repo, prompt string) string {
	if prompt == "" {
		return ""
	}
	r := cw.promptRules(repo)
	if r.err != nil || promptForgotten(r.ts, prompt) {
		return ""
	}
	if kept := r.red.Redact(prompt); !promptForgotten(r.ts, kept) {
		return kept
	}
	return ""
}

// promptRules loads the tombstones and the redactor, once, when a
// prompt first needs them: compiling the rules costs a commit without an
// agent's prompt about 100 ms.
func (cw *CommitWork) promptRules(repo *gitops.Repo) *promptRules {
	if cw.rules == nil {
		r := &promptRules{}
		r.red, r.err = RedactorFor(repo)
		r.ts, _ = notes.LoadTombstones(repo)
		cw.rules = r
	}
	return cw.rules
}

// state is the state of session id, read once.
func (cw *CommitWork) state(repo *gitops.Repo, id string) *Session {
	ss, ok := cw.states[id]
	if !ok {
		ss, _ = LoadSession(repo, id)
		cw.states[id] = ss
	}
	return ss
}

// RecordSessions writes one session record per session that wrote lines
// of commit, on the sessions notes ref.
func (cw *CommitWork) RecordSessions(ctx context.Context, repo *gitops.Repo, commit string) error {
	if cw == nil || len(cw.sessions) == 0 {
		return nil
	}
	ids := make([]string, 0, len(cw.sessions))
	for id := range cw.sessions {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var recs []any
	for _, id := range ids {
		u := cw.sessions[id]
		rec := SessionRecord{Header: notes.NewHeader(SessionSchema), Session: id, Agent: u.agent, Model: u.model, Commit: commit}
		if ss := cw.state(repo, id); ss != nil {
			rec.Started = ss.Started
			if rec.Model == "" {
				rec.Model = ss.Model
			}
			if n := len(ss.Prompts); n > 0 {
				rec.Summary = cw.keptPrompt(repo, ss.Prompts[n-1].Summary)
			}
		}
		for f := range u.files {
			rec.Files = append(rec.Files, f)
		}
		sort.Strings(rec.Files)
		recs = append(recs, rec)
	}
	return notes.Open(repo, Sessions).Append(ctx, commit, recs...)
}

// ReadSessions returns the session records of commits.
func ReadSessions(repo *gitops.Repo, commits []string) (map[string][]SessionRecord, error) {
	recs, err := notes.Open(repo, Sessions).Read(commits)
	if err != nil {
		return nil, err
	}
	out := map[string][]SessionRecord{}
	for c, rs := range recs {
		for _, r := range rs {
			var s SessionRecord
			if r.Schema == SessionSchema && r.Decode(&s) == nil {
				out[c] = append(out[c], s)
			}
		}
	}
	return out, nil
}

// ImportSessions writes session records another tool kept (an import):
// each record's Summary is taken as the raw prompt and stored as gloss
// stores prompts, redacted with the repository's rules and cut short
// (Summarize); a record whose id the commit's note already holds is
// present, one whose id or prompt was forgotten (git gloss forget) is
// skipped as forgotten. With dryRun it counts and writes nothing. The
// ids must be derived from what the records were read from, so that
// importing twice is importing once.
func ImportSessions(ctx context.Context, repo *gitops.Repo, recs []SessionRecord, dryRun bool, res *notes.ImportResult) error {
	if len(recs) == 0 {
		return nil
	}
	red, err := RedactorFor(repo)
	if err != nil {
		return err // a prompt that could not be checked is never kept
	}
	ts, err := notes.LoadTombstones(repo)
	if err != nil {
		return err
	}
	commits := make([]string, 0, len(recs))
	for _, r := range recs {
		commits = append(commits, r.Commit)
	}
	store := notes.Open(repo, Sessions)
	existing, err := store.Read(commits)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, rs := range existing {
		for _, r := range rs {
			have[r.ID] = true
		}
	}
	out := map[string][]any{}
	for _, r := range recs {
		res.Read++
		switch {
		case have[r.ID]:
			res.Present++
			continue
		case ts != nil && ts.Forgotten(r.ID):
			res.Forgotten++
			continue
		}
		prompt := r.Summary
		if r.Summary = red.Summarize(prompt); promptForgotten(ts, prompt) || promptForgotten(ts, r.Summary) {
			r.Summary = ""
		}
		have[r.ID] = true
		out[r.Commit] = append(out[r.Commit], r)
		res.Written++
	}
	if dryRun || len(out) == 0 {
		return nil
	}
	return store.AppendMany(ctx, out)
}
