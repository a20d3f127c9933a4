package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gloss-dev/gloss/fixtures"
)

// mermaidAttack is a note whose diagram labels carry HTML: an image with
// an inline handler, a javascript: link, an iframe, a script and an SVG
// handler. Before issue 28 mermaid put the first one's onerror into the
// live page (only the Content Security Policy kept it from running).
const mermaidAttack = "# Flow\n\n```mermaid\ngraph LR\n" +
	"  A[\"<img src=pwned-probe.png onerror=window.pwned=1>\"] --> B[\"<a href='javascript:window.pwned=2'>go</a>\"]\n" +
	"  B --> C[\"<iframe src=javascript:window.pwned=3></iframe>\"]\n" +
	"  C --> D[\"<script>window.pwned=4</script>\"]\n" +
	"  D --> E[\"<svg><g onload=window.pwned=5></g></svg>\"]\n" +
	"  click E call pwn()\n" +
	"```\n"

// TestMermaidLabelsCarryNoHandlers: in headless Chromium, the diagram of
// a hostile note is drawn with its labels as text, and nothing in the page
// has an inline event handler, a javascript: URL, an image, an iframe or a
// script from the labels; the label's image was never live (its URL was
// never requested: before, it was, and the Content Security Policy alone
// stopped its onerror). The sanitizer's own parse of a label, in an inert
// document, may still make Chromium report the handler it refused; that
// is a report, not a handler in the page, so the console is not checked.
func TestMermaidLabelsCarryNoHandlers(t *testing.T) {
	exe := findChromium(t)
	t.Parallel()
	fx := fixtures.NewRepo(t)
	fx.Commit("first", map[string]string{"README.md": "# demo\n"})
	fx.MustGloss("init", "--no-mcp")
	fx.MustGloss("note", "create", "flow", "-m", mermaidAttack)
	s := &site{fx: fx}
	s.start(t)
	_, html, _ := s.get(t, "/note/notes/flow.md")
	if !strings.Contains(html, "vendor/mermaid.min.js") {
		t.Skip("mermaid is not built into the assets (make web-assets): the diagram is shown as source")
	}
	b := newBrowser(t, exe)
	b.do(t, "the note", chromedp.Navigate(s.base+"/note/notes/flow.md?token="+s.token), chromedp.WaitVisible("main .mermaid svg"))
	b.do(t, "settle", chromedp.Sleep(300*time.Millisecond))
	type found struct {
		Handlers []string `json:"handlers"`
		JSURLs   []string `json:"jsurls"`
		Elements []string `json:"elements"`
		Pwned    bool     `json:"pwned"`
		Probes   []string `json:"probes"`
		Labels   string   `json:"labels"`
	}
	got := eval[found](t, b, `(() => {
		const all = Array.from(document.querySelectorAll("*"));
		const handlers = [], jsurls = [];
		for (const el of all) {
			for (const a of Array.from(el.attributes)) {
				if (/^on/i.test(a.name)) handlers.push(el.tagName + " " + a.name + "=" + a.value);
				if (/^\s*javascript:/i.test(a.value)) jsurls.push(el.tagName + " " + a.name + "=" + a.value);
			}
		}
		const m = document.querySelector("main .mermaid");
		return {
			handlers, jsurls,
			elements: Array.from(m.querySelectorAll("img, iframe, script, foreignObject a")).map(e => e.tagName),
			pwned: "pwned" in window,
			probes: performance.getEntriesByType("resource").map(e => e.name).filter(n => n.includes("pwned-probe")),
			labels: Array.from(m.querySelectorAll("svg text, .nodeLabel, .edgeLabel")).map(e => e.textContent).join(" | "),
		};
	})()`)
	if len(got.Handlers) > 0 || len(got.JSURLs) > 0 || len(got.Elements) > 0 || got.Pwned || len(got.Probes) > 0 {
		t.Errorf("the diagram's labels reached the page: %+v", got)
	}
	if !strings.Contains(got.Labels, "<img src") || !strings.Contains(got.Labels, "go") {
		t.Errorf("the labels' text is gone: %q", got.Labels)
	}
}
