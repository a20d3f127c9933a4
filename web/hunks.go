package web

import (
	"html"
	"html/template"
	"strconv"
	"strings"

	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/why"
)

// hunkView is one hunk's annotation, for the "ann" template.
type hunkView struct {
	why.Hunk
	Index   int
	Path    string
	Region  *why.RegionView
	Regions []*why.RegionView
}

// renderHunks writes the blame of the file page: per hunk, the gutter
// (commit, author, who by the annotation, age), the highlighted lines and
// the covering annotation. It is written here rather than in the
// template because an 8,800-line file has thousands of hunks and
// html/template's reflection per field was most of the page's time; text
// is escaped with html.EscapeString, code lines come escaped from
// escapeLines, and the annotations (few) still go through the template.
func (s *Server) renderHunks(d *fileData, rel, lang string, lines []string) (template.HTML, error) {
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
	b.Grow(size + len(d.Blame.Hunks)*400)
	for i, h := range d.Blame.Hunks {
		hv := hunkView{Hunk: h, Index: i, Path: rel}
		for _, id := range h.Regions {
			if r := d.Regions[id]; r != nil {
				hv.Regions = append(hv.Regions, r)
			}
		}
		if len(hv.Regions) > 0 {
			hv.Region = hv.Regions[0]
		}
		idx := strconv.Itoa(i)
		start, end := strconv.Itoa(h.Start), strconv.Itoa(h.End)
		b.WriteString(`<div class="hunk`)
		if hv.Region != nil {
			b.WriteString(` annotated`)
		}
		b.WriteString(`" id="h` + idx + `" data-start="` + start + `" data-end="` + end + `">` + "\n")
		// One line per hunk: commit, age, author (or the agent the
		// annotation names), who wrote the lines — each cut short with an
		// ellipsis, the whole of it in the title.
		b.WriteString(`<a class="gutter" href="#a` + idx + `" data-hunk="` + idx + `" title="` + html.EscapeString(gutterTitle(h)) + `"><span class="vh">lines ` + start + ` to ` + end + `:</span>` + "\n")
		if h.Commit == gitops.Uncommitted {
			b.WriteString(`<span class="g-c">uncommitted</span>`)
		} else {
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
			writeAttribution(&b, who, h.Start, h.End)
		}
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
		if hv.Region != nil {
			if err := ann.ExecuteTemplate(&b, "ann", hv); err != nil {
				return "", err
			}
		}
		b.WriteString("\n</div>\n")
	}
	return template.HTML(b.String()), nil //nolint:gosec // every piece is escaped above or by the template
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
