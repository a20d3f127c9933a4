package lsp

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/why"
)

// Hover answers "why is this here, and who wrote it" for a line: the
// decisions in force there (constraints first, then rejected
// alternatives, risks and intent), who wrote the line and in which
// commit, and the specs that govern the file, in markdown within the
// hover budget.
func (s *server) Hover(ctx context.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	d, err := s.document(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	line := int(p.Position.Line) + 1
	budget := s.currentSettings().HoverTokens
	var md string
	err = s.withView(d, func(v *view) error {
		if line > v.lineCount() {
			return nil
		}
		h, err := v.hover(ctx, line, budget)
		if err != nil {
			return err
		}
		h.web = s.webLink(v.rs, v.d.rel, line)
		md = h.markdown(budget * 4)
		return nil
	})
	if err != nil {
		return nil, answerError(err)
	}
	if md == "" {
		return nil, nil
	}
	return &protocol.Hover{Contents: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: md}}, nil
}

// answerError turns a library error into the request's error.
func answerError(err error) error {
	if _, ok := err.(interface{ Code() int64 }); ok {
		return err
	}
	return requestFailed("gloss lsp: " + err.Error())
}

// hoverAnswer is what a hover shows.
type hoverAnswer struct {
	scope   string // the function the records are for, or "line N"
	regions []why.RegionView
	author  lineAuthor
	specs   []specInfo
	notes   []string
	web     string
}

// hover gathers the answer for buffer line l.
func (v *view) hover(ctx context.Context, l, budget int) (*hoverAnswer, error) {
	res, err := v.records(ctx, annotate.Lines{Start: l, End: l}, budget)
	if err != nil {
		return nil, err
	}
	h := &hoverAnswer{regions: res.Regions, scope: fmt.Sprintf("line %d", l)}
	if enc := res.Resolved.Enclosing; len(enc) > 0 {
		h.scope = enc[len(enc)-1].Name // innermost
	}
	if h.author, err = v.author(ctx, l); err != nil {
		h.notes = append(h.notes, "who wrote this line is unknown: "+err.Error())
	}
	h.specs = v.specs(ctx)
	return h, nil
}

// markdown renders the answer within max bytes, cutting the least
// important parts first (intent, then risks, then rejected alternatives;
// never the constraints nor who wrote the line).
func (h *hoverAnswer) markdown(max int) string {
	if len(h.regions) == 0 && !h.author.known && len(h.specs) == 0 {
		return ""
	}
	var cons, rej, risks, intents []string
	for _, r := range h.regions {
		who := recordBy(r)
		for _, c := range r.Constraints {
			cons = append(cons, fmt.Sprintf("- %s  \n  _%s_", inline(c.Text), who))
		}
		for _, a := range r.RejectedAlternatives {
			t := inline(a.Text)
			if a.Reason != "" {
				t += " — " + inline(a.Reason)
			}
			rej = append(rej, "- "+t)
		}
		for _, k := range r.Risks {
			risks = append(risks, "- "+inline(k))
		}
		if r.Intent != "" {
			intents = append(intents, fmt.Sprintf("- %s  \n  _%s_", inline(firstLine(r.Intent)), who))
		}
	}
	head := "**gloss**"
	if h.scope != "" {
		head += " · `" + h.scope + "`"
	}
	if n := len(h.regions); n > 0 {
		head += fmt.Sprintf(" · %d record(s) in force", n)
	}
	tail := h.tail()
	sections := [][2]any{{"Constraints", cons}, {"Rejected alternatives", rej}, {"Risks", risks}, {"Intent", intents}}
	for keep := len(sections); keep >= 1; keep-- {
		var b strings.Builder
		b.WriteString(head + "\n\n")
		for _, sec := range sections[:keep] {
			items := sec[1].([]string)
			if len(items) == 0 {
				continue
			}
			fmt.Fprintf(&b, "**%s**\n%s\n\n", sec[0], strings.Join(items, "\n"))
		}
		if keep < len(sections) {
			b.WriteString("_(trimmed to the hover budget: open the full records from the code lens)_\n\n")
		}
		b.WriteString(tail)
		if b.Len() <= max || keep == 1 {
			return b.String()
		}
	}
	return ""
}

// tail is the part every hover keeps: who wrote the line, the specs, the
// link to the web view.
func (h *hoverAnswer) tail() string {
	var b strings.Builder
	b.WriteString("---\n")
	b.WriteString(h.author.markdown() + "\n")
	for _, sp := range h.specs {
		state := sp.state
		switch sp.state {
		case "drifted":
			state = fmt.Sprintf("**drifted**: %d governed file(s) changed since it was last reconciled", sp.changed)
		case "never_reconciled":
			state = "never reconciled"
		}
		fmt.Fprintf(&b, "\nspec `%s` governs this file — %s\n", sp.path, state)
	}
	for _, n := range h.notes {
		b.WriteString("\n_" + inline(n) + "_\n")
	}
	if h.web != "" {
		fmt.Fprintf(&b, "\n[Open in gloss serve](%s)\n", h.web)
	}
	return b.String()
}

// markdown says who wrote the line: a person or an agent (and model),
// the commit and its age.
func (a lineAuthor) markdown() string {
	switch {
	case !a.known:
		return "**This line**: unknown"
	case a.uncommitted:
		return "**This line**: not committed yet"
	}
	who := "unknown (no attribution record)"
	if w := a.who; w != nil {
		switch {
		case w.AI > 0 || w.Mixed > 0:
			who = "ai"
			if w.Mixed > 0 {
				who = "ai and human (mixed)"
			}
			if len(w.Agents) > 0 {
				who += " · " + inline(agentModel(w.Agents[0]))
			}
		case w.Human > 0:
			who = "human"
		}
	}
	s := fmt.Sprintf("**This line**: written by %s · `%s`", who, gitops.ShortID(a.commit))
	if a.author != "" {
		s += " · " + inline(a.author)
	}
	if !a.time.IsZero() {
		s += " · " + age(a.time, time.Now())
	}
	return s
}

func agentModel(a attribution.AgentLines) string {
	if a.Model != "" {
		return a.Agent + " / " + a.Model
	}
	return a.Agent
}

// recordBy names a record's author, commit and age.
func recordBy(r why.RegionView) string {
	who := r.Author.Kind
	if r.Author.Name != "" {
		who = r.Author.Name + " (" + r.Author.Kind + ")"
	}
	if r.Author.Model != "" {
		who += " · " + r.Author.Model
	}
	s := "by " + who + " in " + gitops.ShortID(r.Commit)
	if t, err := time.Parse(time.RFC3339, r.Time); err == nil {
		s += ", " + age(t, time.Now())
	}
	switch r.Scope {
	case "file", "directory":
		s += "; for the whole " + r.Scope
	}
	if r.Stale {
		s += fmt.Sprintf("; the code changed in %d later commit(s) since", r.LaterCommits)
	}
	return s
}

// age says how long ago t was, as people say it.
func age(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute") + " ago"
	case d < 48*time.Hour:
		return plural(int(d/time.Hour), "hour") + " ago"
	case d < 60*24*time.Hour:
		return plural(int(d/(24*time.Hour)), "day") + " ago"
	case d < 2*365*24*time.Hour:
		return plural(int(d/(30*24*time.Hour)), "month") + " ago"
	}
	return plural(int(d/(365*24*time.Hour)), "year") + " ago"
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// inline makes recorded text safe in one markdown line: records are data
// written by anyone with commit access, never markup the editor renders
// (no links, no HTML, no images).
func inline(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	r := strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;", "#", `\#`, "|", `\|`, "!", `\!`)
	return r.Replace(s)
}
