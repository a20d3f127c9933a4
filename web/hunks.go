package web

import (
	"html"
	"html/template"
	"sort"
	"strconv"
	"strings"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/why"
)

// hunkView is one hunk's annotation, for the "ann" template.
type hunkView struct {
	Index   int
	Path    string
	Region  *why.RegionView
	Regions []*why.RegionView
}

// scopeView is the card of the decisions bound to a function (or a type),
// for the "scopeann" template: it heads the function's lines, which the
// page draws as one block under it, wherever the commits that wrote
// those lines came from.
type scopeView struct {
	Index      int
	Path       string
	Start, End int
	Regions    []*why.RegionView
}

// Constraints, Rejected and Risks count the scope's decisions, for its
// card's badges.
func (sc scopeView) Constraints() (n int) {
	for _, r := range sc.Regions {
		n += len(r.Constraints)
	}
	return n
}

func (sc scopeView) Rejected() (n int) {
	for _, r := range sc.Regions {
		n += len(r.RejectedAlternatives)
	}
	return n
}

func (sc scopeView) Risks() (n int) {
	for _, r := range sc.Regions {
		n += len(r.Risks)
	}
	return n
}

// regionIn is one record for the "region" template, with the file it is
// shown in (for its links).
type regionIn struct {
	Path string
	R    *why.RegionView
}

// piece is what the page draws as one hunk: a run of lines of one commit,
// cut where a function with decisions starts or ends.
type piece struct {
	why.Hunk
	regions []*why.RegionView // the records shown beside it (line-scoped)
}

// layout places the records of a whole-file read: a decision bound to a
// function (scope anchor, with its span today) heads that function's
// lines — the whole function, not the hunk of the commit that happened to
// record it, which may own no line of it any more; file- and
// directory-level decisions go to the top of the page (FileRegions); the
// rest (records of lines) stay beside the hunks their commit wrote.
func layout(d *fileData) ([]piece, []scopeView) {
	placed := map[string]bool{}
	var scopes []scopeView
	for i := range d.Blame.Regions {
		r := &d.Blame.Regions[i]
		switch {
		case r.Scope == annotate.ScopeFile || r.Scope == annotate.ScopeDir:
			d.FileRegions = append(d.FileRegions, r)
			placed[r.ID] = true
		case r.Scope == annotate.ScopeAnchor && r.Span != nil:
			start, end := max(r.Span.Start, 1), min(r.Span.End, d.Blame.Lines)
			if start > end {
				continue
			}
			scopes = append(scopes, scopeView{Start: start, End: end, Regions: []*why.RegionView{r}})
			placed[r.ID] = true
		}
	}
	// Functions whose spans overlap (a type and its method) share one
	// block, headed by every card, each saying which lines it is about.
	sort.SliceStable(scopes, func(i, j int) bool { return scopes[i].Start < scopes[j].Start })
	var merged []scopeView
	for _, sc := range scopes {
		if n := len(merged); n > 0 && sc.Start <= merged[n-1].End {
			merged[n-1].End = max(merged[n-1].End, sc.End)
			merged[n-1].Regions = append(merged[n-1].Regions, sc.Regions...)
			continue
		}
		merged = append(merged, sc)
	}
	cuts := map[int]bool{}
	for _, sc := range merged {
		cuts[sc.Start], cuts[sc.End+1] = true, true
	}
	var pieces []piece
	for _, h := range d.Blame.Hunks {
		var rs []*why.RegionView
		for _, id := range h.Regions {
			if r := d.Regions[id]; r != nil && !placed[id] {
				rs = append(rs, r)
			}
		}
		p := piece{Hunk: h, regions: rs}
		for n := h.Start + 1; n <= h.End; n++ {
			if cuts[n] {
				head := p
				head.End = n - 1
				pieces = append(pieces, head)
				p.Start = n
			}
		}
		pieces = append(pieces, p)
	}
	return pieces, merged
}

// renderHunks writes the blame of the file page: per hunk, the gutter
// (commit, author, who by the annotation, age), the highlighted lines and
// the covering annotation; a function with decisions as one block headed
// by their card. It is written here rather than in the template because
// an 8,800-line file has thousands of hunks and html/template's
// reflection per field was most of the page's time; text is escaped with
// html.EscapeString, code lines come escaped from escapeLines, and the
// annotations (few) still go through the template.
//
// cut is where the first screen ends in the HTML: the start of the first
// hunk or function block after line firstScreenLines outside any block
// (-1 when the file is shorter), so that the page can send the first
// screen alone and the rest after it (see fileRest).
// With firstOnly it stops there: the rest is not written.
func (s *Server) renderHunks(d *fileData, rel, lang string, lines []string, firstOnly bool) (out template.HTML, cut int, err error) {
	ann := s.pages.byName["file"]
	// Line attribution by line number, for the gutter.
	who := map[int]attribution.Contributor{}
	if d.Attribution != nil {
		for _, l := range d.Attribution.Lines {
			who[l.Line] = l.Contributor
			if l.Contributor.Type == "unknown" {
				d.Predates++
			}
		}
	}
	pieces, scopes := layout(d)
	d.Decided = map[int]int{}
	for _, sc := range scopes {
		for _, r := range sc.Regions {
			d.Decided[r.Span.Start] += len(r.Constraints) + len(r.RejectedAlternatives) + len(r.Risks)
		}
	}
	// Each code cell names the language, for highlight.js in the page.
	pre := `<pre class="code">`
	if lang != "" {
		pre = `<pre class="code language-` + html.EscapeString(lang) + `">`
	}
	var b strings.Builder
	size := 0
	for _, l := range lines {
		size += len(l) + 48
	}
	b.Grow(size + len(pieces)*400)
	next, inScope := 0, false // the next scope to open; whether one is open
	cut = -1
	for i, h := range pieces {
		if cut < 0 && !inScope && h.Start > firstScreenLines {
			cut = b.Len()
			if firstOnly {
				break
			}
		}
		idx := strconv.Itoa(i)
		start, end := strconv.Itoa(h.Start), strconv.Itoa(h.End)
		scopeStart := !inScope && next < len(scopes) && scopes[next].Start == h.Start
		if scopeStart {
			inScope = true
			sc := scopes[next]
			sc.Index, sc.Path = next, rel
			b.WriteString(`<div class="scope" id="s` + strconv.Itoa(next) + `" data-start="` + start + `" data-end="` + strconv.Itoa(sc.End) + `">` + "\n")
			if err := ann.ExecuteTemplate(&b, "scopeann", sc); err != nil {
				return "", -1, err
			}
		}
		b.WriteString(`<div class="hunk`)
		if len(h.regions) > 0 {
			b.WriteString(` annotated`)
		}
		if scopeStart {
			b.WriteString(` scopestart`)
		}
		b.WriteString(`" id="h` + idx + `" data-start="` + start + `" data-end="` + end + `">` + "\n")
		// One line per hunk: commit, age, author (or the agent the
		// annotation names), who wrote the lines — each cut short with an
		// ellipsis, the whole of it in the title. It jumps to the hunk's
		// own card, else to the card of the function it heads.
		href := "#L" + start
		switch {
		case len(h.regions) > 0:
			href = "#a" + idx
		case scopeStart:
			href = "#sa" + strconv.Itoa(next)
		}
		b.WriteString(`<a class="gutter" href="` + href + `" data-hunk="` + idx + `" title="` + html.EscapeString(gutterTitle(h.Hunk)) + `"><span class="vh">lines ` + start + ` to ` + end + `:</span>` + "\n")
		writeGutter(&b, h.Hunk, who)
		b.WriteString("\n</a>\n" + pre)
		for n := h.Start; n <= h.End && n-1 < len(lines); n++ {
			ln := strconv.Itoa(n)
			// The number is drawn by CSS from data-n: not copied with the
			// code, and a fifth of the page's bytes saved.
			if n == 1 {
				// The Element Timing API reports when the first line was
				// painted: the browser test's measure of the first screen.
				b.WriteString(`<span class="l" elementtiming="first-code" id="L` + ln + `" data-n="` + ln + `">`)
			} else {
				b.WriteString(`<span class="l" id="L` + ln + `" data-n="` + ln + `">`)
			}
			b.WriteString(lines[n-1])
			b.WriteString("\n</span>")
		}
		b.WriteString("</pre>\n")
		if len(h.regions) > 0 {
			hv := hunkView{Index: i, Path: rel, Region: h.regions[0], Regions: h.regions}
			if err := ann.ExecuteTemplate(&b, "ann", hv); err != nil {
				return "", -1, err
			}
		}
		b.WriteString("\n</div>\n")
		if inScope && scopes[next].End <= h.End {
			b.WriteString("</div>\n")
			next, inScope = next+1, false
		}
	}
	if inScope {
		b.WriteString("</div>\n")
	}
	return template.HTML(b.String()), cut, nil //nolint:gosec // every piece is escaped above or by the template
}

// writeGutter writes a hunk's gutter line: commit, age, who wrote it by
// the annotation or the commit, and by line attribution.
func writeGutter(b *strings.Builder, h why.Hunk, who map[int]attribution.Contributor) {
	if h.Commit == gitops.Uncommitted {
		b.WriteString(`<span class="g-c">uncommitted</span>`)
		return
	}
	b.WriteString(`<span class="g-c">` + gitops.ShortID(h.Commit)[:8] + "</span>\n")
	b.WriteString(`<span class="g-ag">` + age(h.Time) + "</span>\n")
	if h.By != nil && h.By.Kind != "human" {
		b.WriteString(`<span class="g-by k-` + html.EscapeString(h.By.Kind) + `">` + html.EscapeString(h.By.Kind))
		if h.By.Model != "" {
			b.WriteString(" · " + html.EscapeString(h.By.Model))
		}
		b.WriteString("</span>\n")
	} else {
		b.WriteString(`<span class="g-au">` + html.EscapeString(h.Author) + "</span>\n")
	}
	writeAttribution(b, who, h.Start, h.End)
}

// gutterTitle is a hunk's gutter in full, for its tooltip.
func gutterTitle(h why.Hunk) string {
	if h.Commit == gitops.Uncommitted {
		return "not committed yet"
	}
	t := gitops.ShortID(h.Commit) + " " + h.Summary + " — " + h.Author + ", " + h.Time
	if h.By != nil {
		t += "; annotated by " + h.By.Kind
		if h.By.Model != "" {
			t += " (" + h.By.Model + ")"
		}
	}
	return t
}

// writeAttribution writes who wrote a hunk's lines by line attribution:
// each distinct contributor (human, ai with agent and model, mixed,
// unknown) with its share of the hunk's lines.
func writeAttribution(b *strings.Builder, who map[int]attribution.Contributor, start, end int) {
	type key struct{ typ, agent, model string }
	count := map[key]int{}
	var order []key
	for n := start; n <= end; n++ {
		c, ok := who[n]
		if !ok {
			continue
		}
		k := key{c.Type, c.Agent, c.Model}
		if count[k] == 0 {
			order = append(order, k)
		}
		count[k]++
	}
	// History from before gloss recorded who wrote each line is shown
	// quietly: no mark at all rather than "unknown" on every hunk (the
	// page says once how many lines that is).
	if len(order) == 0 || (len(order) == 1 && order[0].typ == "unknown") {
		return
	}
	b.WriteString("\n<span class=\"g-attr\">")
	for i, k := range order {
		if i > 0 {
			b.WriteString(" ")
		}
		label := k.typ
		if k.agent != "" {
			label += " " + k.agent
			if k.model != "" {
				label += "/" + k.model
			}
		}
		if len(order) > 1 {
			label += " " + strconv.Itoa(count[k]*100/(end-start+1)) + "%"
		}
		b.WriteString(`<span class="a-` + html.EscapeString(k.typ) + `" title="line attribution">` + html.EscapeString(label) + `</span>`)
	}
	b.WriteString("</span>")
}
