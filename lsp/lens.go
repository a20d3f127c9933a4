package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/why"
)

// CommandShowRecords opens the full records of an anchor (the code lens's
// command): arguments [uri, anchor name, line].
const CommandShowRecords = "gloss.showRecords"

// CodeLens puts a summary above each function that has decisions in
// force: "2 constraints · 1 risk · 40% ai claude/opus", with the command
// that opens its full records; decisions about the whole file get one on
// the first line.
func (s *server) CodeLens(ctx context.Context, p *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	d, err := s.document(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	out := []protocol.CodeLens{}
	err = s.withView(d, func(v *view) error {
		groups, err := v.byAnchor(ctx)
		if err != nil {
			return err
		}
		_, attrs, _ := v.blame(ctx)
		for _, g := range groups {
			if !g.decides() {
				continue
			}
			share := ""
			if attrs != nil && g.name != "" {
				share = aiShare(attrs.Summarize(g.span.Start, g.span.End))
			}
			args := []protocol.LSPAny{jsonValue(string(d.uri)), jsonValue(g.name), jsonValue(g.span.Start)}
			out = append(out, protocol.CodeLens{
				Range:   lineRange(v.d.text, g.span.Start),
				Command: protocol.Command{Title: g.title(share), Command: CommandShowRecords, Arguments: args},
			})
		}
		return nil
	})
	if err != nil {
		return nil, answerError(err)
	}
	return out, nil
}

// anchorGroup is the records in force for one anchor of the buffer (name
// "" for the whole file).
type anchorGroup struct {
	name    string
	span    annotate.Lines
	regions []why.RegionView
}

// byAnchor groups the records in force in the file by what they are
// about: an anchor's records by their span today, a line record under the
// function around its lines, a file's or a directory's records on line 1.
func (v *view) byAnchor(ctx context.Context) ([]anchorGroup, error) {
	res, err := v.wholeFile(ctx)
	if err != nil {
		return nil, err
	}
	idx := map[annotate.Lines]int{}
	var groups []anchorGroup
	add := func(name string, span annotate.Lines, r why.RegionView) {
		i, ok := idx[span]
		if !ok {
			i = len(groups)
			idx[span] = i
			groups = append(groups, anchorGroup{name: name, span: span})
		}
		groups[i].regions = append(groups[i].regions, r)
	}
	for _, r := range res.Regions {
		switch {
		case r.Scope == "anchor" && r.Span != nil:
			add(anchorName(r), *r.Span, r)
		case r.Scope == "file" || r.Scope == "directory":
			add("", annotate.Lines{Start: 1, End: v.lineCount()}, r)
		case r.Current != nil && r.Decides():
			if a := v.enclosing(r.Current.Start); a != nil {
				add(a.Name, annotate.Lines{Start: a.Start, End: a.End}, r)
			}
		}
	}
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].span.Start < groups[j].span.Start })
	return groups, nil
}

// anchorName is the name of a record's anchor today.
func anchorName(r why.RegionView) string {
	if r.Renamed != "" {
		return r.Renamed
	}
	if r.Anchor != nil {
		return r.Anchor.Name
	}
	return ""
}

// aiShare is who wrote an anchor's lines: the share of ai (and mixed)
// lines and the agent and model with the most.
func aiShare(s *attribution.Summary) string {
	total := s.Human + s.AI + s.Mixed + s.Unknown
	ai := s.AI + s.Mixed
	if total == 0 || ai == 0 {
		return ""
	}
	out := fmt.Sprintf("%d%% ai", (ai*100+total/2)/total)
	if len(s.Agents) > 0 {
		a := s.Agents[0]
		out += " " + a.Agent
		if a.Model != "" {
			out += "/" + a.Model
		}
	}
	return out
}

// decides reports whether the group holds a decision: a constraint, a
// rejected alternative, a risk, or an intent someone wrote for it (the
// hook's record of every changed function, which repeats the commit's
// subject, is not one: a lens on every function would be noise).
func (g anchorGroup) decides() bool {
	for _, r := range g.regions {
		if r.Decides() || r.IntentFrom == "" && r.Source != annotate.SourceHook {
			return true
		}
	}
	return false
}

// title is the lens's text.
func (g anchorGroup) title(share string) string {
	cons, rej, risks := 0, 0, 0
	for _, r := range g.regions {
		cons += len(r.Constraints)
		rej += len(r.RejectedAlternatives)
		risks += len(r.Risks)
	}
	var parts []string
	if cons > 0 {
		parts = append(parts, count(cons, "constraint"))
	}
	if rej > 0 {
		parts = append(parts, fmt.Sprintf("%d rejected", rej))
	}
	if risks > 0 {
		parts = append(parts, count(risks, "risk"))
	}
	if len(parts) == 0 {
		parts = append(parts, count(len(g.regions), "record"))
	}
	if g.name == "" {
		parts = append([]string{"this file"}, parts...)
	}
	if share != "" {
		parts = append(parts, share)
	}
	return "gloss: " + strings.Join(parts, " · ")
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// lineRange is the whole of buffer line l (1-based), in UTF-16 code
// units as LSP counts them.
func lineRange(text []byte, l int) protocol.Range {
	end := uint32(0)
	if line, ok := nthLine(text, l); ok {
		end = utf16Len(strings.TrimRight(string(line), "\r"))
	}
	return protocol.Range{Start: protocol.Position{Line: uint32(l - 1)}, End: protocol.Position{Line: uint32(l - 1), Character: end}}
}

// nthLine is line l (1-based) of text, without its newline.
func nthLine(text []byte, l int) ([]byte, bool) {
	for n := 1; len(text) > 0; n++ {
		i := bytes.IndexByte(text, '\n')
		line := text
		if i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		if n == l {
			return line, true
		}
	}
	return nil, false
}

func utf16Len(s string) uint32 {
	n := uint32(0)
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

func jsonValue(v any) protocol.LSPAny {
	data, _ := json.Marshal(v)
	return data
}
