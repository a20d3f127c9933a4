package review

import (
	"fmt"
	"io"
	"strings"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
)

// WriteText prints the report as plain text, for a terminal or a CI log.
// Text from the repository and its records is one line each, its control
// characters escaped (fault.Line), so no line can pass for another.
func WriteText(w io.Writer, rep *Report) error {
	p := &printer{w: w}
	p.f("gloss review of %s..%s: %d commit(s), %d file(s), +%d -%d (base: %s)\n",
		gitops.ShortID(rep.Range.Base), gitops.ShortID(rep.Range.Head), rep.Range.Commits, rep.Range.Files,
		rep.Range.Insertions, rep.Range.Deletions, rep.Range.BaseFrom)
	for _, n := range rep.Notes {
		p.f("note: %s\n", fault.Line(n))
	}
	p.f("\nDecisions in force that the change touches: %d\n", len(rep.Decisions))
	for _, d := range rep.Decisions {
		textDecision(p, d, RankTitle(d.Rank))
	}
	if len(rep.Recorded) > 0 {
		p.f("\nDecisions this change records: %d\n", len(rep.Recorded))
		for _, d := range rep.Recorded {
			textDecision(p, d, "recorded")
		}
	}
	a := rep.Authorship
	p.f("\nWho wrote it: %s\n", sharesText(a.Totals, a.Agents))
	for _, f := range a.Files {
		if !f.Examined {
			p.f("  %-40s +%-5d not examined\n", fault.Quote(f.Path), f.Added)
			continue
		}
		p.f("  %-40s +%-5d human %d, ai %d, mixed %d, unknown %d%s\n", fault.Quote(f.Path), f.Added, f.Human, f.AI, f.Mixed, f.Unknown,
			prefixed("; ", agentsText(f.Agents)))
	}
	switch {
	case !rep.Sessions.Shared:
		p.f("Prompts: not shown; the team does not share agent sessions ([sync] sessions in .gloss/config.toml)\n")
	case len(rep.Sessions.List) > 0:
		p.f("Agent sessions (prompts redacted):\n")
		for _, s := range rep.Sessions.List {
			p.f("  %s, %d commit(s): %s\n", fault.Line(agentName(s.Agent, s.Model)), len(s.Commits), fault.Line(orText(s.Summary, "(no prompt recorded)")))
		}
	}
	textSpecsTasks(p, rep)
	if len(rep.ReadFirst) > 0 {
		p.f("\nRead first:\n")
		for i, f := range rep.ReadFirst {
			p.f("  %d. %s: %s\n", i+1, fault.Quote(f.Path), strings.Join(f.Reasons, "; "))
		}
	}
	if len(rep.Cut) > 0 {
		p.f("\nCut to keep the report bounded:\n")
		for _, c := range rep.Cut {
			p.f("  %s: %d of %d shown; left out: %s\n", c.What, c.Shown, c.Total, c.LeftOut)
		}
	}
	return p.err
}

func textDecision(p *printer, d Decision, title string) {
	where := fault.Quote(d.File)
	if d.Anchor != nil && d.Anchor.Name != "" {
		where += " " + fault.Line(d.Anchor.Name)
	}
	if d.Lines != nil {
		where += " " + sideText(d.Lines.Start, d.Lines.End-d.Lines.Start+1, "")
		if d.Side == SideBase {
			where += " before the change"
		}
	}
	p.f("\n  %s: %s\n", title, where)
	for _, ri := range d.Reintroduced {
		p.f("    brings back rejected: %s; line %d adds: %s\n", fault.Line(ri.Alternative), ri.Line, fault.Line(ri.Text))
	}
	for _, c := range d.Constraints {
		p.f("    constraint: %s\n", fault.Line(c))
	}
	for _, r := range d.Rejected {
		if !reintroduced(d, r.Text) {
			p.f("    rejected: %s%s\n", fault.Line(r.Text), prefixed(" | ", fault.Line(r.Reason)))
		}
	}
	for _, r := range d.Risks {
		p.f("    risk: %s\n", fault.Line(r))
	}
	p.f("    changed: %s\n", hunksText(d.Changed))
	p.f("    record %s by %s%s: %s\n", d.Record, fault.Line(authorText(d)), dateText(d.Time), fault.Line(d.Read))
}

func textSpecsTasks(p *printer, rep *Report) {
	if len(rep.Specs)+len(rep.Tasks) > 0 {
		p.f("\nSpecs and tasks:\n")
	}
	for _, s := range rep.Specs {
		state := "reconciled"
		if !s.Reconciled {
			state = "OUT OF STEP"
		}
		p.f("  spec %s %s: governs %d changed file(s)%s\n", fault.Quote(s.Path), state, len(s.Governed), map[bool]string{true: "; the spec itself changed"}[s.Changed])
	}
	for _, t := range rep.Tasks {
		verb := "changes"
		if t.Completed {
			verb = "completes"
		}
		p.f("  %s task %s %s (%s -> %s)\n", verb, t.ID, fault.Line(t.Title), orText(t.From, "new"), orText(t.To, "deleted"))
	}
	verdict := "passed"
	if rep.Check.Failed {
		verdict = "FAILED"
	}
	p.f("\ngit gloss ci check %s: %d finding(s)\n", verdict, len(rep.Check.Findings))
	for _, f := range rep.Check.Findings {
		loc := fault.Quote(f.File)
		if f.File == "" {
			loc = "(repository)"
		}
		if f.Line > 0 {
			loc += fmt.Sprintf(":%d", f.Line)
		}
		p.f("  %s: %s: [%s] %s\n", loc, f.Level, fault.Line(f.Rule), fault.Line(f.Message))
	}
	for _, n := range rep.Check.Notes {
		p.f("  note: %s\n", fault.Line(n))
	}
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

// printer writes and keeps the first error.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}
