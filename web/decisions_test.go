package web_test

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gloss-dev/gloss/fixtures"
)

const (
	widthConstraint = "must respect the display width limit"
	widthRisk       = "wide runes overflow the line"
	fileConstraint  = "text never imports the terminal package"
)

// decidedSite is issue 26's history, served: a decision recorded on Width
// by a commit that changed only its doc comment, then three later commits
// (one rewriting its body, one moving it above Other, one renaming the
// file); and a decision about the whole file. The agent's record names the
// agent; a person commits it.
func decidedSite(t *testing.T) *site {
	t.Helper()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("initial", map[string]string{"README.md": "lib\n"})
	fx.MustGloss("init", "--no-mcp")
	fx.DecideWidth(func() {
		fx.MustGloss("annotate", "--file", "text/width.go", "--anchor", "Width", "--constraint", widthConstraint,
			"--rejected", "len(s) | bytes are not columns", "--risk", widthRisk, "--author-name", "claude", "--model", "opus")
		fx.MustGloss("annotate", "--file", "text/width.go", "--constraint", fileConstraint)
	})
	s := &site{fx: fx}
	s.start(t)
	return s
}

// TestFilePageDecisionSpansFunction is issue 26's done-when for the web
// view: the decision recorded on Width by an older commit on other lines
// heads Width's block on the file page — every line of the function,
// wherever it moved and whoever rewrote it — the file's decision is above
// the code, the History page names the agent that wrote the record, and
// after a flag the page no longer shows it.
func TestFilePageDecisionSpansFunction(t *testing.T) {
	t.Parallel()
	s := decidedSite(t)
	today := s.fx.Read("text/columns.go")
	first, last := lineOf(t, today, "// Width is"), lineOf(t, today, "return cols")+1
	_, page, _ := s.get(t, "/file/text/columns.go")

	// Width's lines are one block, headed by the card of its decision.
	scope := regexp.MustCompile(`(?s)<div class="scope" id="s\d+" data-start="(\d+)" data-end="(\d+)">\s*<details class="ann scopecard"[^>]*>(.*?)</details>(.*?)\n</div>\n</div>`).FindStringSubmatch(page)
	if scope == nil {
		t.Fatalf("no function block on the page:\n%s", page)
	}
	if scope[1] != strconv.Itoa(first) || scope[2] != strconv.Itoa(last) {
		t.Errorf("the block spans lines %s-%s, Width is %d-%d today", scope[1], scope[2], first, last)
	}
	card, lines := scope[3], scope[4]
	for _, w := range []string{widthConstraint, widthRisk, "bytes are not columns", "<code>Width</code>", "claude", "opus"} {
		if !strings.Contains(card, w) {
			t.Errorf("the card lacks %q:\n%s", w, card)
		}
	}
	for n := first; n <= last; n++ {
		if !strings.Contains(lines, `id="L`+strconv.Itoa(n)+`"`) {
			t.Errorf("line %d of Width is not in its block", n)
		}
	}
	for _, n := range []int{first - 1, last + 1} {
		if strings.Contains(lines, `id="L`+strconv.Itoa(n)+`"`) {
			t.Errorf("line %d, outside Width, is in its block", n)
		}
	}
	// Later commits wrote most of Width's lines (its body, its move):
	// the block holds their hunks, not only the recording commit's.
	commits := map[string]bool{}
	for _, m := range regexp.MustCompile(`class="g-c">([0-9a-f]{8})<`).FindAllStringSubmatch(lines, -1) {
		commits[m[1]] = true
	}
	if len(commits) < 2 {
		t.Errorf("Width's block holds the hunks of %d commit(s), want those of the later commits too", len(commits))
	}
	// The file's decision is above the code.
	top, code := strings.Index(page, fileConstraint), strings.Index(page, `<section class="blame"`)
	if top < 0 || top > code {
		t.Errorf("the file's decision is not above the code (at %d, the code at %d)", top, code)
	}
	if strings.Count(page, widthConstraint) != 1 {
		t.Errorf("Width's constraint is shown %d times", strings.Count(page, widthConstraint))
	}

	// History names the record's author, the agent, and who committed it.
	_, hist, _ := s.get(t, "/history/text/columns.go?anchor=Width")
	if !strings.Contains(hist, `<span class="by">claude (agent · opus)</span>`) || !strings.Contains(hist, "committed by "+fixtures.UserName) {
		t.Errorf("the History page does not name the record's author:\n%s", hist)
	}

	// The overview leads to the code: the newest decision first, linked
	// to the file under its name today; the tree counts the decisions.
	_, over, _ := s.get(t, "/")
	recent := regexp.MustCompile(`(?s)<h2 id="h-decisions">.*?</section>`).FindString(over)
	if i, j := strings.Index(recent, `href="/file/text/columns.go"`), strings.Index(recent, "2 in force"); i < 0 || j < 0 {
		t.Errorf("the overview's recent decisions do not link to text/columns.go or count 2:\n%s", recent)
	}
	if !strings.Contains(recent, `href="/history/text/columns.go?anchor=Width"`) {
		t.Errorf("the overview does not link Width's decision to its history:\n%s", recent)
	}
	if !strings.Contains(over, `<h2 id="h-attributed">`) || !strings.Contains(over, "text: clearer names") {
		t.Errorf("the overview lists no recently attributed commit")
	}
	_, tree, _ := s.get(t, "/tree/?format=json")
	if !strings.Contains(tree, `"path":"text","name":"text","decisions":2`) {
		t.Errorf("the tree does not count text/'s two decisions: %s", tree)
	}
	_, tree, _ = s.get(t, "/tree/text?filter=COL")
	if !strings.Contains(tree, `href="/file/text/columns.go"`) || !strings.Contains(tree, `<span class="badge b-c">2</span>`) {
		t.Errorf("the filtered tree lacks columns.go and its 2 decisions:\n%s", tree)
	}
	if _, tree, _ = s.get(t, "/tree/?filter=nomatch"); strings.Contains(tree, `href="/tree/text"`) || !strings.Contains(tree, " hidden)") {
		t.Errorf("the filter did not hide the names without it:\n%s", tree)
	}

	// Stats: what the hooks recorded comes with the page (every commit
	// here was made with them: all attributed, by a person); the
	// line-by-line count on its own address.
	_, stats, _ := s.get(t, "/stats")
	if !regexp.MustCompile(`(\d+) of (\d+) commit\(s\) in the range have a line attribution record`).MatchString(stats) || !strings.Contains(stats, `data-src="/stats?part=lines`) {
		t.Errorf("the stats page lacks the recorded summary or the address of the count:\n%s", stats)
	}
	if m := regexp.MustCompile(`(\d+) of (\d+) commit\(s\)`).FindStringSubmatch(stats); m == nil || m[1] == "0" {
		t.Errorf("no commit counted as attributed: %v", m)
	}
	// A range from the address bar is a revision, never an option.
	planted := filepath.Join(t.TempDir(), "written")
	if code, _, _ := s.get(t, "/stats?range="+url.QueryEscape("--output="+planted)); code != 404 {
		t.Errorf("a range that reads as an option answered %d, want 404", code)
	}
	if _, err := os.Stat(planted); err == nil {
		t.Errorf("a range from the address bar was run as an option: %s written", planted)
	}
	if _, lines, _ := s.get(t, "/stats?part=lines"); !strings.Contains(lines, "Lines inserted") || strings.Contains(lines, "<html") {
		t.Errorf("the line-by-line count is not a fragment of the page:\n%s", lines)
	}

	t.Run("in a browser", func(t *testing.T) { checkDecidedInBrowser(t, s, first, last) })

	// A flag retires the decision: the page shows it no more.
	id := regexp.MustCompile(`data-region="([^"]+)" data-scope="anchor"`).FindStringSubmatch(card)
	if id == nil {
		t.Fatalf("no region id in the card:\n%s", card)
	}
	s.fx.MustGloss("flag", id[1], "--reason", "the limit moved to the renderer")
	_, page, _ = s.get(t, "/file/text/columns.go")
	if strings.Contains(page, widthConstraint) || strings.Contains(page, `class="scope"`) {
		t.Errorf("the flagged decision is still on the page")
	}
	if !strings.Contains(page, fileConstraint) {
		t.Errorf("the file's decision went with the flag of another")
	}
}

// lineOf is the 1-based number of the first line of content holding text.
func lineOf(t *testing.T, content, text string) int {
	t.Helper()
	for i, l := range strings.Split(content, "\n") {
		if strings.Contains(l, text) {
			return i + 1
		}
	}
	t.Fatalf("no line holds %q", text)
	return 0
}

// checkDecidedInBrowser: in headless Chromium, Width's card is drawn
// above the function's first line and its bar runs down to the last, no
// further; the card opens to the decision; the overview's newest decision
// leads to the file; the History page names the agent.
func checkDecidedInBrowser(t *testing.T, s *site, first, last int) {
	exe := findChromium(t)
	b := newBrowser(t, exe)
	b.do(t, "token", chromedp.Navigate(s.base+"/?token="+s.token), chromedp.WaitVisible("main h1"))
	b.do(t, "file page", chromedp.Navigate(s.base+"/file/text/columns.go"), chromedp.WaitVisible(".scope details.scopecard"))
	type box struct{ Top, Bottom, Bar float64 }
	rect := func(sel string) box {
		return eval[box](t, b, `(() => { const e = document.querySelector(`+strconv.Quote(sel)+`); const r = e.getBoundingClientRect();
			return {Top: r.top, Bottom: r.bottom, Bar: parseFloat(getComputedStyle(e).borderLeftWidth)} })()`)
	}
	scope, card := rect(".scope"), rect(".scope > details.scopecard")
	firstL, lastL := rect("#L"+strconv.Itoa(first)), rect("#L"+strconv.Itoa(last))
	before, after := rect("#L"+strconv.Itoa(first-1)), rect("#L"+strconv.Itoa(last+1))
	if card.Bottom > firstL.Top+0.5 {
		t.Errorf("the card (bottom at %.0f px) is not above Width's first line (top at %.0f px)", card.Bottom, firstL.Top)
	}
	if scope.Bar < 2 || scope.Top > card.Top+0.5 || scope.Bottom < lastL.Bottom-0.5 {
		t.Errorf("the block's bar (%.0f px wide, %.0f-%.0f px) does not run from the card (%.0f px) to Width's last line (%.0f px)", scope.Bar, scope.Top, scope.Bottom, card.Top, lastL.Bottom)
	}
	if before.Bottom > scope.Top+0.5 || after.Top < scope.Bottom-0.5 {
		t.Errorf("the bar (%.0f-%.0f px) covers lines outside Width (%.0f, %.0f px)", scope.Top, scope.Bottom, before.Bottom, after.Top)
	}
	if eval[bool](t, b, `document.querySelector(".scope > details.scopecard").open`) {
		t.Fatalf("the card is open before any click")
	}
	// The card's summary, always in view above the function, opens it.
	b.do(t, "open the card", chromedp.Click(".scope > details.scopecard > summary"), chromedp.Sleep(200*time.Millisecond))
	if !eval[bool](t, b, `document.querySelector(".scope > details.scopecard").open`) {
		t.Fatalf("a click on its summary did not open Width's card")
	}
	if got := eval[string](t, b, `document.querySelector(".scope > details.scopecard").innerText`); !strings.Contains(got, widthConstraint) {
		t.Errorf("the opened card lacks the constraint: %q", got)
	}
	b.screenshot(t, "file-decision")
	// From the overview, the newest decision's link opens its file.
	b.do(t, "overview", chromedp.Navigate(s.base+"/"), chromedp.WaitVisible("#h-decisions"),
		chromedp.Click(`#h-decisions ~ ul.recent li a[href^="/file/"]`), chromedp.WaitVisible("section.blame"))
	if p := eval[string](t, b, `location.pathname`); p != "/file/text/columns.go" {
		t.Errorf("the overview's newest decision leads to %s", p)
	}
	b.do(t, "history", chromedp.Navigate(s.base+"/history/text/columns.go?anchor=Width"), chromedp.WaitVisible("main h1"), chromedp.Sleep(100*time.Millisecond))
	if by := eval[[]string](t, b, `[...document.querySelectorAll(".timeline .by")].map(e => e.innerText)`); !slices.Contains(by, "claude (agent · opus)") {
		t.Errorf("the History page names %q as the records' authors, not the agent that wrote Width's", by)
	}
	if errs, _ := b.errorsSince(0); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
	b.screenshot(t, "history-agent")
}
