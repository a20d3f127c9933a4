package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/guard"
)

// maxPayload bounds what is read from an agent: payloads carry file
// contents (Write) and tool output; past this gloss does nothing.
const maxPayload = 32 << 20

// Request is one `git gloss agent hook` invocation.
type Request struct {
	Agent, Event string
	Stdin        io.Reader
	// Dir is where to look for the repository when the payload has no cwd
	// ($CLAUDE_PROJECT_DIR, else the working directory).
	Dir string
	// Timeout overrides the [agent] time budget (tests, benchmarks).
	Timeout time.Duration
}

// Hook answers one agent event. It returns what to print on stdout (nil
// for nothing) and never fails: every problem — a malformed payload, an
// unknown event, a panic, a time budget exceeded — is logged to
// <git dir>/gloss/agent.log when there is a repository, and the answer is
// empty, so the agent goes on as if gloss were not there.
func Hook(ctx context.Context, req Request) (out []byte) {
	start := time.Now()
	var repo *gitops.Repo
	var kind Kind
	outcome := "ok"
	defer func() {
		if r := recover(); r != nil {
			out, outcome = nil, guard.Panicked(r).Error()
		}
		if repo != nil {
			logEvent(repo, req, kind, time.Since(start), outcome)
			repo.Close()
		}
	}()
	if guard.Reentered() {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(req.Stdin, maxPayload+1))
	p, perr := (*Payload)(nil), err
	if err == nil && len(data) > maxPayload {
		perr = fmt.Errorf("payload larger than %d bytes: ignored", maxPayload)
	}
	if perr == nil {
		p, perr = Parse(req.Agent, req.Event, data)
	}
	dir := req.Dir
	if p != nil && p.Cwd != "" {
		dir = p.Cwd
	}
	repo, err = gitops.Open(dir)
	if err != nil {
		repo = nil
		return nil // not in a repository: nothing to say, nowhere to log
	}
	if perr != nil {
		outcome = "error: " + perr.Error()
		return nil
	}
	kind = p.Kind
	if kind == KindIgnored {
		outcome = "ignored"
		return nil
	}
	settings, err := LoadSettings(repo)
	if err != nil {
		outcome = "config: " + err.Error() + "; using defaults"
	}
	timeout := settings.Timeout()
	if req.Timeout > 0 {
		timeout = req.Timeout
	}
	// The door's rules (package guard): the time budget, a panic turned
	// into an error, and in test builds the failure runenv.AgentFault
	// injects ("error", "panic", "sleep").
	root := repo.Root()
	var text string
	err = guard.Run(ctx, guard.AgentHooks, timeout, func(ctx context.Context) error {
		// Its own handle: the one above is not safe across goroutines, and
		// is used to log while this may still run.
		r, err := gitops.Open(root)
		if err != nil {
			return err
		}
		defer r.Close()
		t, err := handle(ctx, r, p, settings)
		text = t
		return err
	})
	var late *guard.TimeoutError
	switch {
	case errors.As(err, &late):
		outcome = late.Error() + " (answered nothing; raise [agent] timeout_ms)"
		return nil
	case err != nil:
		outcome = "error: " + err.Error()
	}
	if text == "" {
		return nil
	}
	if p.Mute {
		return nil
	}
	return Format(p.Agent, p.Event, kind, text)
}

// handle does the work of one event and returns the context to deliver.
func handle(ctx context.Context, repo *gitops.Repo, p *Payload, s Settings) (string, error) {
	if p.Session == "" {
		p.Session = "unknown"
	}
	// The MCP tools the agent's session has, asked by a delivery that
	// names some, about those.
	tools := func(asks ...ask) sessionTools { return toolsFor(repo, p.Agent, asks...) }
	switch p.Kind {
	case KindSessionStart:
		PruneSessions(repo)
		text := brief(ctx, repo, s, tools)
		_, err := UpdateSession(repo, p.Session, p.Agent, func(ss *Session) error {
			if p.Model != "" {
				ss.Model = p.Model
			}
			if p.Forgot {
				ss.Delivered = map[string]bool{} // the context was cleared or compacted away
			}
			return nil
		})
		return text, err
	case KindModel:
		_, err := UpdateSession(repo, p.Session, p.Agent, func(ss *Session) error {
			if p.Model != "" {
				ss.Model = p.Model
			}
			return nil
		})
		return "", err
	case KindPrompt:
		// The summary is redacted before it is stored; if the rule set
		// cannot run, nothing of the prompt is kept. Loading the rules
		// takes longer than the notebook search: both run at once.
		type redacted struct {
			summary string
			err     error
		}
		red := make(chan redacted, 1)
		go func() {
			defer func() {
				if r := recover(); r != nil {
					red <- redacted{err: fmt.Errorf("redaction: %v", r)}
				}
			}()
			r, err := RedactorFor(repo)
			if err != nil {
				red <- redacted{err: err}
				return
			}
			red <- redacted{summary: r.Summarize(p.Prompt)}
		}()
		var text string
		var rerr error
		_, err := UpdateSession(repo, p.Session, p.Agent, func(ss *Session) error {
			if p.Model != "" {
				ss.Model = p.Model
			}
			if !p.Mute { // an answer the agent ignores is not worth a search
				var used []string
				text, used = promptNotes(ctx, repo, p.Prompt, s, ss.Delivered, tools)
				for _, k := range used {
					ss.Delivered[k] = true
				}
			}
			select {
			case r := <-red:
				if rerr = r.err; rerr == nil && r.summary != "" {
					ss.Prompts = append(ss.Prompts, Prompt{Time: time.Now().UTC().Format(time.RFC3339), Summary: r.summary})
				}
			case <-ctx.Done():
				rerr = ctx.Err()
			}
			return nil
		})
		return text, errors.Join(rerr, err)
	case KindPreEdit, KindAfterRead:
		var text string
		_, err := UpdateSession(repo, p.Session, p.Agent, func(ss *Session) error {
			var used []string
			text, used = preEdit(ctx, repo, p, s, ss.Delivered, tools)
			for _, k := range used {
				ss.Delivered[k] = true
			}
			return nil
		})
		return text, err
	case KindPostEdit:
		model := p.Model
		ss, _ := LoadSession(repo, p.Session)
		if model == "" && ss != nil {
			model = ss.Model
		}
		if a, ok := registry[p.Agent].(transcriptModel); ok && model == "" {
			model = a.TranscriptModel(p.Transcript)
		}
		if err := captureEdits(repo, p, model); err != nil {
			return "", err
		}
		if ss == nil || (model != "" && ss.Model != model) {
			_, err := UpdateSession(repo, p.Session, p.Agent, func(ss *Session) error {
				if model != "" {
					ss.Model = model
				}
				return nil
			})
			return "", err
		}
	}
	return "", nil
}

// transcriptModel is an agent whose payloads never name the model, but
// whose session transcript does.
type transcriptModel interface {
	TranscriptModel(path string) string
}

// logEvent appends one line per event to <git dir>/gloss/agent.log. It
// names the event and the outcome only: never the payload, which may hold
// the user's prompt.
func logEvent(repo *gitops.Repo, req Request, kind Kind, took time.Duration, outcome string) {
	dir, err := repo.GlossDir()
	if err != nil {
		return
	}
	guard.AppendLog(filepath.Join(dir, "agent.log"), req.Agent, clip(oneLine(req.Event), 60), "("+kind.String()+")", fmt.Sprintf("%dms", took.Milliseconds()), outcome)
}
