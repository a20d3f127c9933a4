package web_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/runenv"
)

// fzfMirror is a clone of junegunn/fzf (GLOSS_FZF_MIRROR, else where this
// project's machines keep one); the test skips, saying so, without it.
func fzfMirror(t *testing.T) string {
	dir := os.Getenv(runenv.FzfMirror)
	if dir == "" {
		dir = "/work/.mirror/junegunn+fzf/repo"
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no fzf clone at %s (set "+runenv.FzfMirror+"): the 8,839-line src/terminal.go is its file", dir)
	}
	return dir
}

// TestLargeFileFirstScreen opens fzf's src/terminal.go (8,839 lines at
// 956562da, with its real history: thousands of hunks) in a real headless
// Chromium and measures, with the Element Timing API, when the first code
// was painted after the navigation started: the first screen. Target: at
// most a second (0.58 s on the idle machine, docs/serve.md; under the
// load of a shared machine more, hence the bound below), warm (the blame cache filled by a first request, as any
// second visit finds it). The best of three loads counts, so that a burst
// of load on the shared machine does not decide; all three are logged.
// It also checks that the gutter of a hunk is one line high.
func TestLargeFileFirstScreen(t *testing.T) {
	exe := findChromium(t)
	mirror := fzfMirror(t)
	t.Parallel()
	bin := fixtures.Binary(t)
	root := t.TempDir()
	dir := filepath.Join(root, "fzf")
	home := filepath.Join(root, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	fx := &fixtures.Repo{T: t, Dir: dir, Env: fixtures.Env(home, filepath.Dir(bin))}
	if out, err := exec.Command("git", "clone", "-q", "--no-checkout", mirror, dir).CombinedOutput(); err != nil {
		t.Fatalf("clone fzf: %v\n%s", err, out)
	}
	fx.Git("checkout", "-q", "956562da")
	fx.Git("remote", "remove", "origin")
	fx.MustGloss("init", "--no-mcp")
	s := &site{fx: fx}
	s.start(t)
	const page = "/file/src/terminal.go"
	code, first, _ := s.get(t, page) // warm: blame and its cache
	if code != 200 {
		t.Fatalf("the file page answered %d", code)
	}
	// The page holds the first screen, the rest comes on its own (and the
	// whole of it in one response, for a browser without scripts).
	if n := strings.Count(first, `<span class="l" `); n < 100 || n > 400 || !strings.Contains(first, `data-rest="/file/src/terminal.go?lines=8839&amp;part=rest"`) {
		t.Errorf("the first response holds %d lines and no address of the rest", n)
	}
	_, rest, _ := s.get(t, page+"?part=rest&lines=8839")
	_, all, _ := s.get(t, page+"?part=all")
	if n, m := strings.Count(first, `<span class="l" `)+strings.Count(rest, `<span class="l" `), strings.Count(all, `<span class="l" `); n != 8839 || m != 8839 {
		t.Errorf("the first screen and the rest hold %d lines, the whole page %d; the file has 8,839", n, m)
	}
	if code, _, _ := s.get(t, page+"?part=rest&lines=8838"); code != 409 {
		t.Errorf("the rest of a file cut at another length answered %d, want 409", code)
	}
	b := newBrowser(t, exe)
	b.do(t, "token", chromedp.Navigate(s.base+"/?token="+s.token), chromedp.WaitVisible("main h1"))
	var firsts []float64
	for range 3 {
		b.do(t, "the file page", chromedp.Navigate(s.base+page), chromedp.WaitVisible(`[elementtiming="first-code"]`))
		ms := eval[float64](t, b, `new Promise(done => {
			const seen = performance.getEntriesByType("element").filter(e => e.identifier === "first-code");
			if (seen.length) return done(seen[0].renderTime || seen[0].loadTime);
			new PerformanceObserver(l => { const e = l.getEntries().find(e => e.identifier === "first-code"); if (e) done(e.renderTime || e.loadTime); })
				.observe({type: "element", buffered: true});
			setTimeout(() => done(-1), 10000);
		})`)
		if ms < 0 {
			t.Fatalf("the browser reported no paint of the first code")
		}
		firsts = append(firsts, ms)
		// Where the time went: the first byte, the end of parsing, the
		// deferred scripts run, as the browser's navigation timing says.
		t.Logf("load: first code painted %.0f ms; %s", ms, eval[string](t, b, `(() => { const n = performance.getEntriesByType("navigation")[0];
			const r = performance.getEntriesByType("resource").map(e => e.name.replace(/^.*\//, "") + " " + Math.round(e.startTime) + "-" + Math.round(e.responseEnd)).join(", ");
			return "first byte " + Math.round(n.responseStart) + " ms, last byte " + Math.round(n.responseEnd) + " ms, parsed " + Math.round(n.domInteractive) + " ms, scripts run " + Math.round(n.domContentLoadedEventEnd) + " ms; " + r })()`))
	}
	slices.Sort(firsts)
	t.Logf("first screen of the 8,839-line file painted after %.0f ms (best of %v ms)", firsts[0], firsts)
	// The target is 1 s (0.58 s idle); on the shared 2-core machine
	// under a load average of 20-26 it is 1.2-3.4 s (docs/serve.md#speed),
	// so what is held here is a regression bound well under the 9.3 s
	// the page took before it was sent progressively and laid out lazily.
	if firsts[0] > 5000 {
		t.Errorf("the first screen of src/terminal.go took %.0f ms (best of three: %v); the target is 1 s, the bound here 5 s", firsts[0], firsts)
	}
	// The rest of the file comes after the first screen, whole and in
	// order, and is coloured with it.
	b.do(t, "the rest of the file", chromedp.WaitReady(`.blame[data-complete]`))
	got := eval[[]string](t, b, `(() => { const ls = [...document.querySelectorAll("pre.code .l")];
		return [String(ls.length), String(ls.every((l, i) => l.id === "L" + (i + 1))), String(new Set([...document.querySelectorAll(".hunk")].map(h => h.id)).size === document.querySelectorAll(".hunk").length), String(!!document.getElementById("rest"))] })()`)
	if got[0] != "8839" || got[1] != "true" || got[2] != "true" || got[3] != "false" {
		t.Errorf("after the rest came the page holds %s lines (the file 8,839), in order %s, hunk ids unique %s, the note left %s", got[0], got[1], got[2], got[3])
	}
	// One gutter line per hunk: a one-line hunk is one line high.
	type row struct{ Gutter, Line float64 }
	r := eval[row](t, b, `(() => { const h = [...document.querySelectorAll(".hunk")].find(h => h.querySelectorAll(".l").length === 1);
		return {Gutter: h.querySelector(".gutter").getBoundingClientRect().height, Line: h.querySelector(".l").getBoundingClientRect().height} })()`)
	if r.Gutter > r.Line*1.6 {
		t.Errorf("a one-line hunk's gutter is %.0f px high, its line %.0f px: the gutter takes more than one line", r.Gutter, r.Line)
	}
	b.do(t, "settle", chromedp.Sleep(200*time.Millisecond))
	b.screenshot(t, "file-large")
	if strings.Contains(eval[string](t, b, `document.querySelector(".blame").innerText.slice(0, 5000)`), "unknown") {
		t.Errorf("history from before gloss is marked unknown on the page")
	}
}
