package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/treesitter"
	"github.com/gloss-dev/gloss/why"
)

// CommandShowRecords opens the full records of an anchor (the code lens's
// command): arguments [uri, anchor name, line].
const CommandShowRecords = "gloss.showRecords"

// CodeLens puts a summary above each function that has decisions in
// force: "2 constraints · 1 risk · 40% ai claude/opus", with the command
// that opens its full records.
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
		b, _ := v.blame(ctx)
		for _, g := range groups {
			if !g.decides() {
				continue
			}
			args := []protocol.LSPAny{jsonValue(string(d.uri)), jsonValue(g.anchor.Name), jsonValue(g.anchor.Start)}
			out = append(out, protocol.CodeLens{
				Range:   lineRange(v.text, g.anchor.Start),
				Command: protocol.Command{Title: g.title(v.share(b, g.anchor)), Command: CommandShowRecords, Arguments: args},
			})
		}
		return nil
	})
	if err != nil {
		return nil, answerError(err)
	}
	return out, nil
}

// anchorGroup is the records of one anchor of the buffer.
type anchorGroup struct {
	anchor  treesitter.Anchor
	regions []why.RegionView
}

// byAnchor groups the records of the whole file by the buffer's anchors:
// a record written for an anchor goes to that anchor, one written for
// lines to the innermost anchor around them.
func (v *view) byAnchor(ctx context.Context) ([]anchorGroup, error) {
	res, err := v.wholeFile(ctx)
	if err != nil {
		return nil, err
	}
	toBuffer := map[int]int{}
	for bl, fl := range v.lines.toFile {
		if fl > 0 {
			toBuffer[fl] = bl + 1
		}
	}
	idx := map[string]int{}
	var groups []anchorGroup
	add := func(a *treesitter.Anchor, r why.RegionView) {
		key := fmt.Sprintf("%s:%d", a.Name, a.Start)
		i, ok := idx[key]
		if !ok {
			i = len(groups)
			idx[key] = i
			groups = append(groups, anchorGroup{anchor: *a})
		}
		groups[i].regions = append(groups[i].regions, r)
	}
	for _, r := range res.Regions {
		if r.Anchor != nil {
			if a := v.named(r.Anchor.Name); a != nil {
				add(a, r)
				continue
			}
		}
		if r.Current == nil {
			continue
		}
		if bl := toBuffer[r.Current.Start]; bl > 0 {
			if a := v.enclosing(bl); a != nil {
				add(a, r)
			}
		}
	}
	return groups, nil
}

// named is the buffer's anchor of that name (the first, if several).
func (v *view) named(name string) *treesitter.Anchor {
	for i := range v.outline {
		if v.outline[i].Name == name {
			return &v.outline[i]
		}
	}
	return nil
}

// share is who wrote an anchor's lines as they are saved: the share of
// ai (and mixed) lines and the agent and model with the most.
func (v *view) share(b *attribution.BlameResult, a treesitter.Anchor) string {
	if b == nil {
		return ""
	}
	total, ai := 0, 0
	agents := map[string]int{}
	for l := a.Start; l <= a.End; l++ {
		fl := v.lines.fileLine(l)
		if fl < 1 || fl > len(b.Lines) {
			continue
		}
		c := b.Lines[fl-1].Contributor
		total++
		if c.Type == attribution.AI || c.Type == attribution.Mixed {
			ai++
			if c.Agent != "" {
				agents[agentName(c)]++
			}
		}
	}
	if total == 0 || ai == 0 {
		return ""
	}
	top, n := "", 0
	for k, c := range agents {
		if c > n || c == n && k < top {
			top, n = k, c
		}
	}
	s := fmt.Sprintf("%d%% ai", (ai*100+total/2)/total)
	if top != "" {
		s += " " + top
	}
	return s
}

func agentName(c attribution.Contributor) string {
	if c.Model != "" {
		return c.Agent + "/" + c.Model
	}
	return c.Agent
}

// decides reports whether the group holds a decision: a constraint, a
// rejected alternative, a risk, or an intent someone wrote for it (the
// hook's record of every changed function, which repeats the commit's
// subject, is not one: a lens on every function would be noise).
func (g anchorGroup) decides() bool {
	for _, r := range g.regions {
		if len(r.Constraints)+len(r.RejectedAlternatives)+len(r.Risks) > 0 || r.IntentFrom == "" && r.Source != annotate.SourceHook {
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
	if lines := splitKeep(text); l >= 1 && l <= len(lines) {
		end = utf16Len(strings.TrimRight(string(lines[l-1]), "\r\n"))
	}
	return protocol.Range{Start: protocol.Position{Line: uint32(l - 1)}, End: protocol.Position{Line: uint32(l - 1), Character: end}}
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
