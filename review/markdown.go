package review

import (
	"fmt"
	"strings"

	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/forge"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/schemas"
)

// Marker starts every comment gloss posts: Post finds its own comment by
// it, and edits that one instead of adding another.
const Marker = "<!-- gloss-review -->"

// MaxComment bounds the markdown: GitHub refuses comments over 65,536
// characters, and a reviewer reads less than that.
const MaxComment = 60_000

// Links makes a file's lines at a commit a link on the forge; nil for
// plain text.
type Links func(rev, path string, start, end int) string

// Markdown renders the report as a pull-request comment: the marker, the
// sections for people, and a collapsed block with the report as
// gloss-review/v1 JSON for AI reviewers. When it would be longer than
// MaxComment, the report's lists are cut further (and Cut says so) until
// it fits.
func Markdown(rep *Report, links Links) string {
	r := *rep
	l := Default
	for {
		out := markdown(&r, links)
		if len(out) <= MaxComment || l.Decisions+l.Files+l.Findings <= 3 {
			return out
		}
		r = shrunk(rep, &l)
	}
}

// shrunk is a copy of rep cut to half the limits l holds (which it
// halves).
func shrunk(rep *Report, l *Limits) Report {
	half := func(n int) int { return max(1, n/2) }
	*l = Limits{Decisions: half(l.Decisions), Recorded: half(l.Recorded), Files: half(l.Files), Sessions: half(l.Sessions),
		Findings: half(l.Findings), Specs: half(l.Specs), Tasks: half(l.Tasks), ReadFirst: half(l.ReadFirst), Changed: half(l.Changed)}
	r := *rep
	r.Decisions = append([]Decision(nil), rep.Decisions...)
	for i := range r.Decisions {
		r.Decisions[i].Changed = append([]gitops.Hunk(nil), r.Decisions[i].Changed...)
	}
	r.Recorded = append([]Decision(nil), rep.Recorded...)
	r.Authorship.Files = append([]FileAuthorship(nil), rep.Authorship.Files...)
	r.Sessions.List = append([]Session(nil), rep.Sessions.List...)
	r.Check.Findings = append([]forge.Finding(nil), rep.Check.Findings...)
	r.Specs = append([]Spec(nil), rep.Specs...)
	r.Tasks = append([]Task(nil), rep.Tasks...)
	r.ReadFirst = append([]FileRank(nil), rep.ReadFirst...)
	r.Cut = append([]Cut(nil), rep.Cut...)
	bound(&r, *l)
	return r
}

func markdown(rep *Report, links Links) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("%s\n## gloss review of `%s..%s`\n\n", Marker, gitops.ShortID(rep.Range.Base), gitops.ShortID(rep.Range.Head))
	w("%d commit(s) · %d file(s) · +%d −%d · base: %s\n\n", rep.Range.Commits, rep.Range.Files, rep.Range.Insertions, rep.Range.Deletions, mdText(rep.Range.BaseFrom))
	for _, n := range rep.Notes {
		w("> %s\n\n", mdText(n))
	}
	mdDecisions(&b, rep, links)
	mdAuthorship(&b, rep)
	mdSpecsTasks(&b, rep)
	mdReadFirst(&b, rep)
	if len(rep.Cut) > 0 {
		w("<details><summary>Cut to keep this report bounded</summary>\n\n")
		for _, c := range rep.Cut {
			w("- %s: %d of %d shown; left out: %s\n", mdText(c.What), c.Shown, c.Total, mdText(c.LeftOut))
		}
		w("\n</details>\n\n")
	}
	data, err := schemas.Encode(rep)
	if err == nil {
		w("<details><summary>Reviewer context for AI reviewers (gloss-review/v1 JSON)</summary>\n\n```json\n%s\n```\n\n</details>\n", inertJSON(data))
	}
	return b.String()
}

// inertJSON escapes, as JSON's \u escapes, the characters that could mean
// something around a code block on a forge (closing the fence or the
// details, a comment marker, an @mention): the same JSON, inert.
func inertJSON(data []byte) string {
	return strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`, "`", `\u0060`, "@", `\u0040`).Replace(string(data))
}

func mdDecisions(b *strings.Builder, rep *Report, links Links) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("### What this change touches that the team decided\n\n")
	if len(rep.Decisions) == 0 {
		w("No recorded constraint, rejected alternative or risk is in force on the changed lines.\n\n")
	}
	for i, d := range rep.Decisions {
		w("%d. **%s** in %s\n", i+1, RankTitle(d.Rank), mdWhere(d, rep, links))
		mdDecisionBody(b, d, rep)
	}
	if len(rep.Decisions) > 0 {
		w("\n")
	}
	if len(rep.Recorded) > 0 {
		w("<details><summary>Decisions this change records (%d)</summary>\n\n", len(rep.Recorded))
		for _, d := range rep.Recorded {
			w("- %s\n", mdWhere(d, rep, links))
			mdDecisionBody(b, d, rep)
		}
		w("\n</details>\n\n")
	}
}

// RankTitle says what a decision's rank means, for people.
func RankTitle(rank string) string {
	switch rank {
	case RankReintroduced:
		return "Brings back a rejected alternative"
	case RankConstraint:
		return "Edits a region with a constraint"
	case RankRejected:
		return "Edits a region with a rejected alternative"
	}
	return "Edits a region with a known risk"
}

// mdWhere names a decision's file, anchor and lines, linked to the forge.
func mdWhere(d Decision, rep *Report, links Links) string {
	where := mdCode(d.File)
	if d.Anchor != nil && d.Anchor.Name != "" {
		where += " " + mdCode(d.Anchor.Name)
	}
	if d.Lines != nil {
		lines := sideText(d.Lines.Start, d.Lines.End-d.Lines.Start+1, "")
		rev := rep.Range.Head
		if d.Side == SideBase {
			rev = rep.Range.Base
			lines += " before the change"
		}
		if links != nil {
			lines = "[" + lines + "](" + links(rev, d.File, d.Lines.Start, d.Lines.End) + ")"
		}
		where += " (" + lines + ")"
	} else if d.Scope != "" {
		where += " (a decision about the whole " + d.Scope + ")"
	}
	return where
}

func mdDecisionBody(b *strings.Builder, d Decision, rep *Report) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	for _, ri := range d.Reintroduced {
		w("   - ⚠ brings back rejected **%s**%s: line %d adds %s\n", mdText(ri.Alternative), reasonText(ri.Reason), ri.Line, mdCode(ri.Text))
	}
	for _, c := range d.Constraints {
		w("   - constraint: %s\n", mdText(c))
	}
	for _, r := range d.Rejected {
		if !reintroduced(d, r.Text) {
			w("   - rejected: %s%s\n", mdText(r.Text), reasonText(r.Reason))
		}
	}
	for _, r := range d.Risks {
		w("   - risk: %s\n", mdText(r))
	}
	if d.Intent != "" {
		w("   - intent: %s\n", mdText(firstLine(d.Intent)))
	}
	w("   - changed: %s\n", hunksText(d.Changed))
	w("   - record %s by %s%s · %s\n", mdCode(d.Record), mdText(authorText(d)), dateText(d.Time), mdCode(d.Read))
}

func reintroduced(d Decision, alt string) bool {
	for _, r := range d.Reintroduced {
		if r.Alternative == alt {
			return true
		}
	}
	return false
}

func reasonText(reason string) string {
	if reason == "" {
		return ""
	}
	return " (rejected because: " + mdText(reason) + ")"
}

func authorText(d Decision) string {
	a := d.Author.Kind
	if d.Author.Name != "" {
		a += " " + d.Author.Name
	}
	if d.Author.Model != "" {
		a += " (" + d.Author.Model + ")"
	}
	if a == "" {
		a = "unknown"
	}
	return a
}

func dateText(t string) string {
	if len(t) >= 10 {
		return " · " + t[:10]
	}
	return ""
}

// hunksText says which lines a decision's hunks change, on both sides.
func hunksText(hs []gitops.Hunk) string {
	var parts []string
	for _, h := range hs {
		parts = append(parts, fmt.Sprintf("%s → %s", sideText(h.OldStart, h.OldLines, "removes nothing"), sideText(h.NewStart, h.NewLines, "deleted")))
	}
	if len(parts) == 0 {
		return "(none listed)"
	}
	return strings.Join(parts, "; ")
}

func sideText(start, n int, none string) string {
	switch n {
	case 0:
		return fmt.Sprintf("%s after line %d", none, start)
	case 1:
		return fmt.Sprintf("line %d", start)
	}
	return fmt.Sprintf("lines %d–%d", start, start+n-1)
}

func mdAuthorship(b *strings.Builder, rep *Report) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	a := rep.Authorship
	w("### Who wrote it\n\n")
	w("Lines added: %s.\n\n", sharesText(a.Totals, a.Agents))
	if len(a.Files) > 0 {
		w("| file | added | human | ai | mixed | unknown | agents |\n|---|--:|--:|--:|--:|--:|---|\n")
		for _, f := range a.Files {
			if !f.Examined {
				w("| %s | %d | | | | | not examined |\n", mdCell(f.Path), f.Added)
				continue
			}
			w("| %s | %d | %d | %d | %d | %d | %s |\n", mdCell(f.Path), f.Added, f.Human, f.AI, f.Mixed, f.Unknown, mdCell(agentsText(f.Agents)))
		}
		w("\n")
	}
	if !rep.Sessions.Shared {
		w("Prompts are not shown: this team does not share agent sessions (`[sync] sessions = true` in `.gloss/config.toml` turns it on).\n\n")
		return
	}
	if len(rep.Sessions.List) == 0 {
		w("No agent session is recorded for these commits.\n\n")
		return
	}
	w("Agent sessions (prompts redacted):\n\n")
	for _, s := range rep.Sessions.List {
		w("- %s, %d commit(s): %s\n", mdCode(agentName(s.Agent, s.Model)), len(s.Commits), mdText(orText(s.Summary, "(no prompt recorded)")))
	}
	w("\n")
}

// sharesText is the totals in words: counts, percentages and the agents.
func sharesText(t attribution.Totals, agents []attribution.AgentLines) string {
	all := t.Human + t.AI + t.Mixed + t.Unknown
	if all == 0 {
		return "none"
	}
	part := func(n int, name string) string { return fmt.Sprintf("%d %s (%d%%)", n, name, pct(n, all)) }
	s := strings.Join([]string{part(t.Human, "human"), part(t.AI, "ai"), part(t.Mixed, "mixed"), part(t.Unknown, "unknown")}, ", ")
	if len(agents) > 0 {
		s += "; by agent: " + agentsText(agents)
	}
	return s
}

func agentsText(agents []attribution.AgentLines) string {
	var parts []string
	for _, a := range agents {
		parts = append(parts, fmt.Sprintf("%s %d", agentName(a.Agent, a.Model), a.Lines))
	}
	return strings.Join(parts, ", ")
}

func agentName(agent, model string) string {
	if model == "" {
		return agent
	}
	return agent + "/" + model
}

func pct(part, whole int) int {
	if whole <= 0 {
		return 0
	}
	return (part*100 + whole/2) / whole
}

func mdSpecsTasks(b *strings.Builder, rep *Report) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("### Specs and tasks\n\n")
	if len(rep.Specs) == 0 && len(rep.Tasks) == 0 {
		w("No spec governs the changed files; no task file changed.\n\n")
	}
	for _, s := range rep.Specs {
		state := "✅ reconciled"
		if !s.Reconciled {
			state = "❌ out of step"
		}
		w("- %s %s: governs %s%s\n", state, mdCode(s.Path), pathsText(s.Governed), map[bool]string{true: "; the spec itself changed"}[s.Changed])
	}
	for _, t := range rep.Tasks {
		verb := "changes"
		if t.Completed {
			verb = "✅ completes"
		}
		w("- %s task %s %s (%s → %s)\n", verb, mdCode(t.ID), mdText(t.Title), mdText(orText(t.From, "new")), mdText(orText(t.To, "deleted")))
	}
	if len(rep.Specs)+len(rep.Tasks) > 0 {
		w("\n")
	}
	verdict := "passed"
	if rep.Check.Failed {
		verdict = "**failed**"
	}
	w("`git gloss ci check` %s: %d finding(s).\n", verdict, len(rep.Check.Findings))
	for _, f := range rep.Check.Findings {
		loc := f.File
		if f.Line > 0 {
			loc += fmt.Sprintf(":%d", f.Line)
		}
		w("- %s %s [%s] %s\n", f.Level, mdCode(orText(loc, "(repository)")), mdText(f.Rule), mdText(f.Message))
	}
	for _, n := range rep.Check.Notes {
		w("- note: %s\n", mdText(n))
	}
	w("\n")
}

func pathsText(ps []string) string {
	if len(ps) == 0 {
		return "no changed file"
	}
	var q []string
	for _, p := range ps[:min(len(ps), 5)] {
		q = append(q, mdCode(p))
	}
	s := strings.Join(q, ", ")
	if len(ps) > 5 {
		s += fmt.Sprintf(" and %d more", len(ps)-5)
	}
	return s
}

func mdReadFirst(b *strings.Builder, rep *Report) {
	if len(rep.ReadFirst) == 0 {
		return
	}
	fmt.Fprintf(b, "### Read first\n\n")
	for i, f := range rep.ReadFirst {
		fmt.Fprintf(b, "%d. %s — %s\n", i+1, mdCode(f.Path), mdText(strings.Join(f.Reasons, "; ")))
	}
	b.WriteString("\n")
}

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// mdText makes text from the repository or its records inert in
// markdown: HTML and markdown punctuation escaped, one line, and no
// @mention that would notify someone.
func mdText(s string) string {
	var b strings.Builder
	for _, r := range strings.Join(strings.Fields(s), " ") {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '@':
			b.WriteString("@\u200b")
		case '\\', '`', '*', '_', '[', ']', '|', '~', '#', '!':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdCode is an inline code span that holds any text: its fence is longer
// than any run of backticks inside, and it is one line.
func mdCode(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "``"
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

// mdCell is a code span safe inside a table cell.
func mdCell(s string) string {
	if s == "" {
		return ""
	}
	return strings.ReplaceAll(mdCode(s), "|", `\|`)
}

func longestRun(s string, c byte) int {
	most, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			most = max(most, run)
		} else {
			run = 0
		}
	}
	return most
}
