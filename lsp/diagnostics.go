package lsp

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

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
		b, err := v.blame(ctx)
		if err != nil {
			return err
		}
		for _, run := range v.agentRuns(b) {
			if run.end < first || run.start > last {
				continue
			}
			pad := true
			label := " " + agentName(run.c) + " "
			if run.c.Type == attribution.Mixed {
				label = " " + agentName(run.c) + " + human "
			}
			tip := fmt.Sprintf("lines %d-%d written by %s in %s", run.start, run.end, label[1:len(label)-1], gitops.ShortID(run.commit))
			out = append(out, protocol.InlayHint{
				Position:    lineRange(v.text, run.start).End,
				Label:       protocol.String("✦" + label),
				PaddingLeft: &pad,
				Tooltip:     protocol.String(tip),
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
	c          attribution.Contributor
}

func (v *view) agentRuns(b *attribution.BlameResult) []agentRun {
	var runs []agentRun
	for l := 1; l <= len(v.lines.toFile); l++ {
		fl := v.lines.fileLine(l)
		if fl < 1 || fl > len(b.Lines) {
			continue
		}
		bl := b.Lines[fl-1]
		c := bl.Contributor
		if c.Type != attribution.AI && c.Type != attribution.Mixed {
			continue
		}
		if n := len(runs); n > 0 && runs[n-1].end == l-1 && runs[n-1].commit == bl.Commit && runs[n-1].c == c {
			runs[n-1].end = l
			continue
		}
		runs = append(runs, agentRun{start: l, end: l, commit: bl.Commit, c: c})
	}
	return runs
}

// publishDiagnostics sends the document's information-level diagnostics:
// each unsaved edit inside a function whose recorded constraints it may
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

func (v *view) diagnostics(ctx context.Context, budget int) []protocol.Diagnostic {
	out := []protocol.Diagnostic{}
	source := protocol.NewOptional("gloss")
	for _, e := range v.edits() {
		a := v.enclosing(e.start)
		if a == nil {
			continue
		}
		res, err := v.anchorRecords(ctx, a.Name, budget)
		if err != nil || res == nil {
			continue
		}
		var cons []string
		for _, r := range res.Regions {
			for _, c := range r.Constraints {
				cons = append(cons, "• "+oneLine(c.Text))
			}
		}
		if len(cons) == 0 {
			continue
		}
		msg := fmt.Sprintf("This unsaved edit is inside %s, which has recorded constraints it may break:\n%s", a.Name, strings.Join(cons, "\n"))
		out = append(out, protocol.Diagnostic{
			Range:    protocol.Range{Start: protocol.Position{Line: uint32(e.start - 1)}, End: lineRange(v.text, e.end).End},
			Severity: protocol.DiagnosticSeverityInformation, Source: source, Code: protocol.String("constraint"),
			Message: protocol.String(msg),
		})
	}
	for _, sp := range v.specs(ctx) {
		if sp.state != "drifted" {
			continue
		}
		msg := fmt.Sprintf("Spec %s governs this file and has drifted: %d governed file(s) changed since it was last reconciled (git gloss spec status).", sp.path, sp.changed)
		out = append(out, protocol.Diagnostic{
			Range:    lineRange(v.text, 1),
			Severity: protocol.DiagnosticSeverityInformation, Source: source, Code: protocol.String("spec-drift"),
			Message: protocol.String(msg),
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Range.Start.Line < out[j].Range.Start.Line })
	return out
}

// edit is a run of unsaved buffer lines.
type edit struct{ start, end int }

// edits are the runs of buffer lines that differ from the saved file.
func (v *view) edits() []edit {
	var out []edit
	if !v.lines.changed {
		return nil
	}
	for l := 1; l <= len(v.lines.toFile); l++ {
		fl := v.lines.fileLine(l)
		if fl != 0 {
			// Saved lines that are not consecutive in the file: lines were
			// deleted between them, an edit at l.
			if prev := v.lines.fileLine(l - 1); l == 1 || prev == 0 || fl == prev+1 {
				continue
			}
		}
		if n := len(out); n > 0 && out[n-1].end == l-1 {
			out[n-1].end = l
			continue
		}
		out = append(out, edit{start: l, end: l})
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
