package lsp

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/gitops"
)

// InlayHint marks the lines agents wrote, as a gutter blame would: one
// hint at the end of the first line of each run of lines an agent wrote
// (or co-wrote) in one commit. Off unless the person turns it on
// (settings agentLines: "inlay").
func (s *server) InlayHint(ctx context.Context, p *protocol.InlayHintParams) ([]protocol.InlayHint, error) {
	d, err := s.document(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	out := []protocol.InlayHint{}
	if s.currentSettings().AgentLines != "inlay" {
		return out, nil
	}
	first, last := int(p.Range.Start.Line)+1, int(p.Range.End.Line)+1
	err = s.withView(d, func(v *view) error {
		b, attrs, err := v.blame(ctx)
		if err != nil {
			return err
		}
		for _, run := range agentRuns(b, attrs) {
			if run.end < first || run.start > last {
				continue
			}
			pad := true
			who := agentModel(run.agent)
			if run.mixed {
				who += " + human"
			}
			out = append(out, protocol.InlayHint{
				Position:    lineRange(v.d.text, run.start).End,
				Label:       protocol.String("✦ " + who),
				PaddingLeft: &pad,
				Tooltip:     protocol.String(fmt.Sprintf("lines %d-%d written by %s in %s", run.start, run.end, who, gitops.ShortID(run.commit))),
			})
		}
		return nil
	})
	if err != nil {
		return nil, answerError(err)
	}
	return out, nil
}

// agentRun is a run of buffer lines one agent wrote in one commit.
type agentRun struct {
	start, end int
	commit     string
	agent      attribution.AgentLines
	mixed      bool
}

func agentRuns(b *gitops.Blame, attrs *attribution.LineAttribution) []agentRun {
	var runs []agentRun
	for i, bl := range b.Lines {
		l := i + 1
		w := attrs.Summarize(l, l)
		if w.AI+w.Mixed == 0 || len(w.Agents) == 0 {
			continue
		}
		ag := attribution.AgentLines{Agent: w.Agents[0].Agent, Model: w.Agents[0].Model}
		if n := len(runs); n > 0 && runs[n-1].end == l-1 && runs[n-1].commit == bl.Commit && runs[n-1].agent == ag && runs[n-1].mixed == (w.Mixed > 0) {
			runs[n-1].end = l
			continue
		}
		runs = append(runs, agentRun{start: l, end: l, commit: bl.Commit, agent: ag, mixed: w.Mixed > 0})
	}
	return runs
}

// publishDiagnostics sends the document's information-level diagnostics:
// each uncommitted edit inside a function whose recorded constraints it may
// break, told those constraints; and each spec of the file that drifted.
func (s *server) publishDiagnostics(u uri.URI) {
	s.mu.Lock()
	d := s.docs[u]
	s.mu.Unlock()
	if d == nil || d.err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
	defer cancel()
	var diags []protocol.Diagnostic
	err := s.withView(d, func(v *view) error {
		diags = v.diagnostics(ctx, s.currentSettings().HoverTokens)
		return nil
	})
	if err != nil {
		return
	}
	s.mu.Lock()
	current := s.docs[u] == d
	s.mu.Unlock()
	if !current {
		return // a newer version publishes its own
	}
	_ = s.client.PublishDiagnostics(s.ctx, &protocol.PublishDiagnosticsParams{URI: u, Version: protocol.NewOptional(d.version), Diagnostics: diags})
}

// maxEditsTold bounds the edited runs a document's diagnostics look up:
// each is one lookup, and a buffer rewritten all over says nothing new
// with more of them.
const maxEditsTold = 50

func (v *view) diagnostics(ctx context.Context, budget int) []protocol.Diagnostic {
	out := []protocol.Diagnostic{}
	source := protocol.NewOptional("gloss")
	b, _, err := v.blame(ctx)
	if err == nil {
		for i, e := range edits(b) {
			if i == maxEditsTold {
				break
			}
			if d, ok := v.editDiagnostic(ctx, e, budget); ok {
				d.Source = source
				out = append(out, d)
			}
		}
	}
	for _, sp := range v.specs(ctx) {
		if sp.state != "drifted" {
			continue
		}
		msg := fmt.Sprintf("Spec %s governs this file and has drifted: %d governed file(s) changed since it was last reconciled (git gloss spec status).", sp.path, sp.changed)
		out = append(out, protocol.Diagnostic{
			Range:    lineRange(v.d.text, 1),
			Severity: protocol.DiagnosticSeverityInformation, Source: source, Code: protocol.String("spec-drift"),
			Message: protocol.String(msg),
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Range.Start.Line < out[j].Range.Start.Line })
	return out
}

// editDiagnostic tells an edit the constraints in force where it is (the
// functions around it, the file): the lookup the agents' pre-edit hook
// makes, for a person's edit.
func (v *view) editDiagnostic(ctx context.Context, e annotate.Lines, budget int) (protocol.Diagnostic, bool) {
	res, err := v.records(ctx, e, budget)
	if err != nil {
		return protocol.Diagnostic{}, false
	}
	var cons []string
	for _, r := range res.Regions {
		for _, c := range r.Constraints {
			cons = append(cons, "• "+oneLine(c.Text))
		}
	}
	if len(cons) == 0 {
		return protocol.Diagnostic{}, false
	}
	where := "this file"
	if enc := res.Resolved.Enclosing; len(enc) > 0 {
		where = enc[len(enc)-1].Name
	}
	msg := fmt.Sprintf("This uncommitted edit is inside %s, whose recorded constraints it may break:\n%s", where, strings.Join(cons, "\n"))
	return protocol.Diagnostic{
		Range:    protocol.Range{Start: protocol.Position{Line: uint32(e.Start - 1)}, End: lineRange(v.d.text, e.End).End},
		Severity: protocol.DiagnosticSeverityInformation, Code: protocol.String("constraint"),
		Message: protocol.String(msg),
	}, true
}

// edits are the runs of buffer lines not committed yet (unsaved edits
// and saved ones alike: what the next commit would carry).
func edits(b *gitops.Blame) []annotate.Lines {
	var out []annotate.Lines
	for i, bl := range b.Lines {
		if bl.Commit != gitops.Uncommitted {
			continue
		}
		l := i + 1
		if n := len(out); n > 0 && out[n-1].End == l-1 {
			out[n-1].End = l
			continue
		}
		out = append(out, annotate.Lines{Start: l, End: l})
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
