package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/gloss-dev/gloss/fixtures"
)

// The browser is Debian's chromium, driven with chromedp
// (github.com/chromedp/chromedp: maintained, pure Go, speaks the DevTools
// protocol directly, no Selenium or driver process). axe-core, from the
// npm registry through web/js/package-lock.json, checks accessibility in
// the same browser.

func findChromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium is not installed: scripts/deps.sh installs it (Debian package chromium); CI runs this test")
	return ""
}

// axeSource is axe-core's script, installed by npm ci in web/js.
func axeSource(t *testing.T) string {
	dir := filepath.Join(fixtures.ModuleRoot(), "web", "js")
	file := filepath.Join(dir, "node_modules", "axe-core", "axe.min.js")
	if _, err := os.Stat(file); err != nil {
		npm := exec.Command("npm", "ci", "--no-audit", "--no-fund")
		npm.Dir = dir
		if out, err := npm.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in web/js (axe-core): %v\n%s", err, out)
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// browser starts a fresh headless chromium and collects what its pages
// write to the console.
type browser struct {
	ctx     context.Context
	mu      sync.Mutex
	console []chromedp.ConsoleMessage
}

func newBrowser(t *testing.T, exe string) *browser {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 900),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	// The whole drive, every page and interaction: on a shared 2-core
	// machine under load it takes minutes, not the 30 s it takes idle.
	ctx, cancelC := context.WithTimeout(ctx, 5*time.Minute)
	t.Cleanup(func() { cancelC(); cancelB(); cancelA() })
	b := &browser{ctx: ctx}
	if err := chromedp.Do(ctx); err != nil { // start the browser
		t.Fatalf("start chromium: %v", err)
	}
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.console = append(b.console, m)
			b.mu.Unlock()
		}
	}()
	return b
}

// errorsSince returns the console errors after the first n messages.
func (b *browser) errorsSince(n int) (errs []string, total int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, m := range b.console[n:] {
		if m.Type == chromedp.ConsoleError || m.IsException() {
			errs = append(errs, m.String()+" at "+m.URL)
		}
	}
	return errs, len(b.console)
}

func (b *browser) do(t *testing.T, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func eval[T any](t *testing.T, b *browser, js string) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

type violation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// axe runs axe-core's WCAG 2 A/AA rules and its best practices (labels,
// contrast, landmarks, headings) on the page.
func (b *browser) axe(t *testing.T, src string) []violation {
	t.Helper()
	if eval[bool](t, b, `typeof window.axe === "object"`) == false {
		if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[chromedp.Void](src)); err != nil {
			t.Fatalf("inject axe-core: %v", err)
		}
	}
	return eval[[]violation](t, b, `axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]}})
		.then(r => r.violations.map(v => ({id: v.id, impact: v.impact || "", help: v.help, nodes: v.nodes.slice(0, 3).map(n => n.target.join(" "))})))`)
}

func (b *browser) screenshot(t *testing.T, name string) {
	t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(artifacts(t), name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBrowser drives the real binary's `git gloss serve` with a real
// headless Chromium: every page loads without a console error and passes
// axe-core; the file page agrees with read --json, opens an annotation on
// click and moves between hunks with the keyboard; the task board follows
// a scripted run from ready to completed; the notebook finds a planted
// note as you type. Screenshots of every page are saved as artefacts.
func TestBrowser(t *testing.T) {
	exe := findChromium(t)
	axeJS := axeSource(t)
	t.Parallel()
	s := newSite(t)
	b := newBrowser(t, exe)

	// The first visit carries the token; the cookie carries it after.
	b.do(t, "first visit", chromedp.Navigate(s.base+"/?token="+s.token), chromedp.WaitVisible("main h1"))

	pages := []struct{ name, path string }{
		{"overview", "/"},
		{"stats", "/stats"},
		{"files", "/tree/server"},
		{"file", "/file/server/server.go"},
		{"history", "/history/server/server.go?anchor=Server.Health"},
		{"deps", "/deps/server/server.go"},
		{"review", "/review?range=" + url.QueryEscape(s.fx.Git("log", "-1", "--format=%H", "--grep=server: metrics")+"~1..HEAD")},
		{"specs", "/specs"},
		{"spec-diff", "/specs/diff?spec=" + specPath},
		{"tasks", "/tasks"},
		{"task", "/task/" + s.taskID},
		{"notebook", "/notebook"},
		{"note", "/note/" + notePath},
		{"documents", "/docs"},
		{"document", "/doc/" + docPath},
	}
	_, seen := b.errorsSince(0)
	for _, p := range pages {
		b.do(t, p.name, chromedp.Navigate(s.base+p.path), chromedp.WaitVisible("main h1"))
		if p.name == "note" {
			checkMarkdown(t, s, b)
			checkMermaid(t, s, b)
		}
		if p.name == "document" {
			checkBlockRefs(t, s, b)
		}
		if p.name == "file" {
			checkHighlight(t, s, b)
		}
		if p.name == "stats" {
			// The page came with what the hooks recorded; the line-by-line
			// count is fetched into it.
			b.do(t, "the line-by-line count", chromedp.WaitReady("#lines[data-complete]"))
			if got := eval[string](t, b, `document.getElementById("h-recorded").parentNode.innerText + "|" + document.getElementById("lines").innerText`); !strings.Contains(got, "line attribution record") || !strings.Contains(got, "Lines inserted") {
				t.Errorf("the stats page lacks what the hooks recorded or the line-by-line count: %q", got)
			}
		}
		b.do(t, "settle", chromedp.Sleep(150*time.Millisecond))
		var errs []string
		errs, seen = b.errorsSince(seen)
		for _, e := range errs {
			t.Errorf("%s (%s): console error: %s", p.name, p.path, e)
		}
		for _, v := range b.axe(t, axeJS) {
			t.Errorf("%s (%s): accessibility: %s (%s, %s) at %v", p.name, p.path, v.ID, v.Impact, v.Help, v.Nodes)
		}
		b.screenshot(t, p.name)
	}

	// The dark colour scheme passes the same checks (contrast above all).
	b.do(t, "dark", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
		return err
	}))
	for _, p := range []struct{ name, path string }{{"file-dark", "/file/server/server.go"}, {"overview-dark", "/"}, {"tasks-dark", "/tasks"}, {"note-dark", "/note/" + notePath}} {
		b.do(t, p.name, chromedp.Navigate(s.base+p.path), chromedp.WaitVisible("main h1"))
		for _, v := range b.axe(t, axeJS) {
			t.Errorf("%s (%s, dark): accessibility: %s (%s, %s) at %v", p.name, p.path, v.ID, v.Impact, v.Help, v.Nodes)
		}
		b.screenshot(t, p.name)
	}
	b.do(t, "light", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{})
		return err
	}))

	t.Run("file page agrees with read --json", func(t *testing.T) { checkFilePage(t, s, b) })
	t.Run("keyboard moves between hunks", func(t *testing.T) { checkKeyboard(t, s, b) })
	t.Run("notebook search as you type", func(t *testing.T) { checkSearch(t, s, b) })
	t.Run("task board follows a run", func(t *testing.T) { checkBoard(t, s, b) })
	if errs, _ := b.errorsSince(seen); len(errs) > 0 {
		t.Errorf("console errors during the interactions: %v", errs)
	}
	t.Run("works without scripts", func(t *testing.T) { checkNoScript(t, s, b) })
}

// checkNoScript: with scripts off, an annotation still opens and the
// notebook search still answers (as a form).
func checkNoScript(t *testing.T, s *site, b *browser) {
	b.do(t, "scripts off", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}))
	// Proof the scripts are off: the board's live line stays as served.
	b.do(t, "board", chromedp.Navigate(s.base+"/tasks"), chromedp.WaitVisible("#live"), chromedp.Sleep(time.Second))
	if live := eval[string](t, b, `document.getElementById("live").textContent`); live != "updated when the page loads" {
		t.Fatalf("scripts still run: the board says %q", live)
	}
	b.do(t, "file page", chromedp.Navigate(s.base+"/file/server/server.go"), chromedp.WaitVisible("main h1"))
	b.do(t, "open by its summary", chromedp.Click(".hunk.annotated details.ann summary"), chromedp.WaitVisible(".hunk.annotated details.ann[open] .intent-full"))
	b.do(t, "search form", chromedp.Navigate(s.base+"/notebook"), chromedp.WaitVisible("#q"),
		chromedp.SendKeys("#q", plantedWord+"\r"),
		chromedp.WaitVisible(`#results a[href="/note/`+notePath+`"]`))
	if p := eval[string](t, b, `location.pathname`); p != "/notebook/search" {
		t.Errorf("the form went to %s", p)
	}
	// A note reads as its markdown source, its raw HTML as text.
	b.do(t, "note source", chromedp.Navigate(s.base+"/note/"+notePath), chromedp.WaitVisible("main pre.md-source"))
	if src := eval[string](t, b, `document.querySelector("main pre.md-source").textContent`); src != plantedNote {
		t.Errorf("with scripts off the note shows %q, want its source", src)
	}
	b.screenshot(t, "no-script-search")
}

// checkMarkdown: with marked and DOMPurify built into the assets the note
// is rendered in the page (a table, task-list boxes a screen reader can
// name, strikethrough) and its raw HTML and javascript: link are shown as
// text or dropped, never run; without them its source is shown.
func checkMarkdown(t *testing.T, s *site, b *browser) {
	_, html, _ := s.get(t, "/note/"+notePath)
	if !strings.Contains(html, "vendor/marked.umd.js") {
		t.Logf("marked is not built into the assets (make web-assets); the note is shown as source")
		b.do(t, "note source", chromedp.WaitVisible("main pre.md-source"))
		return
	}
	b.do(t, "marked renders the note", chromedp.WaitVisible("main article.md table"))
	type rendered struct {
		Sources  int      `json:"sources"`
		Tables   int      `json:"tables"`
		Dels     int      `json:"dels"`
		Scripts  int      `json:"scripts"`
		Handlers int      `json:"handlers"`
		BadLinks int      `json:"badLinks"`
		Cells    []string `json:"cells"`
		Boxes    []string `json:"boxes"`
		Pwned    bool     `json:"pwned"`
		Text     string   `json:"text"`
	}
	got := eval[rendered](t, b, `(() => {
		const m = document.querySelector("main article.md");
		return {
			sources: m.querySelectorAll("pre.md-source").length,
			tables: m.querySelectorAll("table").length,
			dels: m.querySelectorAll("del").length,
			scripts: m.querySelectorAll("script").length,
			handlers: m.querySelectorAll("[onerror], img").length,
			badLinks: Array.from(m.querySelectorAll("a")).filter(a => /^\s*javascript:/i.test(a.getAttribute("href") || "")).length,
			cells: Array.from(m.querySelectorAll("table td")).map(td => td.textContent),
			boxes: Array.from(m.querySelectorAll("li input[type=checkbox]")).map(i => (i.checked ? "x " : "_ ") + (i.disabled ? "ro " : "rw ") + i.getAttribute("aria-label")),
			pwned: "pwned" in window,
			text: m.textContent,
		};
	})()`)
	if got.Sources != 0 || got.Tables != 1 || got.Dels != 1 || strings.Join(got.Cells, "|") != "health|10 ms" {
		t.Errorf("the note is not rendered as markdown: %+v", got)
	}
	if strings.Join(got.Boxes, ", ") != "x ro done, _ ro not done" {
		t.Errorf("task-list boxes = %q, want read-only, labelled done / not done", got.Boxes)
	}
	if got.Scripts != 0 || got.Handlers != 0 || got.BadLinks != 0 || got.Pwned {
		t.Errorf("raw HTML of the note reached the page: %+v", got)
	}
	for _, w := range []string{`<img src=x onerror="window.pwned=1">`, "<script>window.pwned=2</script>", "a bad link"} {
		if !strings.Contains(got.Text, w) {
			t.Errorf("the note's text lacks %q (raw HTML is shown as text): %q", w, got.Text)
		}
	}
	// highlight.js, after marked and mermaid, colours the Go block.
	if strings.Contains(html, "vendor/highlight.min.js") {
		b.do(t, "highlight.js colours the note's code", chromedp.WaitVisible("main article.md pre code.language-go .hljs-keyword"))
		if code := eval[string](t, b, `document.querySelector("main article.md code.language-go").textContent`); code != "func ready() bool { return true }\n" {
			t.Errorf("the highlighted block reads %q", code)
		}
	}
}

// checkBlockRefs: a document block's [[id]] links to the block it names.
func checkBlockRefs(t *testing.T, s *site, b *browser) {
	_, html, _ := s.get(t, "/doc/"+docPath)
	if !strings.Contains(html, "vendor/marked.umd.js") {
		t.Logf("marked is not built into the assets (make web-assets); the blocks are shown as source")
		b.do(t, "block source", chromedp.WaitVisible("main pre.md-source"))
		return
	}
	b.do(t, "the [[id]] link", chromedp.WaitVisible(`main .block a[href="#b-market-size"]`))
	if n := eval[int](t, b, `document.querySelectorAll("main pre.md-source").length`); n != 0 {
		t.Errorf("%d block(s) left as source", n)
	}
	if id := eval[string](t, b, `(document.querySelector("#b-market-size") || {}).id || ""`); id != "b-market-size" {
		t.Errorf("the link's target block is missing")
	}
}

// checkMermaid: with mermaid built into the assets the diagram is drawn
// (an SVG); without it, its source is shown.
func checkMermaid(t *testing.T, s *site, b *browser) {
	_, html, _ := s.get(t, "/note/"+notePath)
	if strings.Contains(html, "vendor/mermaid.min.js") {
		b.do(t, "mermaid draws the diagram", chromedp.WaitVisible("main .mermaid svg"))
		return
	}
	t.Logf("mermaid is not built into the assets (make web-assets); the diagram is shown as source")
	b.do(t, "diagram source", chromedp.WaitVisible("main code.language-mermaid"))
}

// checkHighlight: with highlight.js built into the assets the file page's
// Go is coloured and every line still reads as the source; without it the
// code cells carry the language and the lines are plain.
func checkHighlight(t *testing.T, s *site, b *browser) {
	_, html, _ := s.get(t, "/file/server/server.go")
	if !strings.Contains(html, `<pre class="code language-go">`) {
		t.Errorf("the file page's code cells do not name the language")
	}
	if !strings.Contains(html, "vendor/highlight.min.js") {
		t.Logf("highlight.js is not built into the assets (make web-assets); the code is shown plain")
		if n := eval[int](t, b, `document.querySelectorAll("pre.code [class^='hljs-']").length`); n != 0 {
			t.Errorf("%d coloured tokens without highlight.js", n)
		}
		return
	}
	b.do(t, "highlight.js colours the code", chromedp.WaitVisible("pre.code.language-go .l .hljs-keyword"))
	want := strings.Split(strings.TrimSuffix(s.fx.Read("server/server.go"), "\n"), "\n")
	got := eval[[]string](t, b, `Array.from(document.querySelectorAll("pre.code .l")).map(l => l.textContent.replace(/\n$/, ""))`)
	if len(got) != len(want) {
		t.Fatalf("%d lines on the page, %d in the file", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d reads %q after highlighting, the file has %q", i+1, got[i], want[i])
		}
	}
	// Lines hold balanced markup: each line's spans close in the line.
	if n := eval[int](t, b, `Array.from(document.querySelectorAll("pre.code .l")).filter(l => l.querySelector(".l")).length`); n != 0 {
		t.Errorf("%d lines nest other lines: the split left a span open", n)
	}
}

type regionJSON struct {
	Commit string `json:"commit"`
	Intent string `json:"intent"`
	Author struct {
		Kind  string `json:"kind"`
		Name  string `json:"name"`
		Model string `json:"model"`
	} `json:"author"`
}

func checkFilePage(t *testing.T, s *site, b *browser) {
	// The known line: the first line of Health's body.
	src := s.fx.Read("server/server.go")
	line := 0
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, "w.WriteHeader(http.StatusNoContent)") {
			line = i + 1
		}
	}
	var read struct {
		Regions []regionJSON `json:"regions"`
	}
	out := s.fx.MustGloss("read", "server/server.go", "--lines", fmt.Sprintf("%d:%d", line, line), "--json")
	if err := json.Unmarshal([]byte(out), &read); err != nil || len(read.Regions) == 0 {
		t.Fatalf("read --json: %v: %s", err, out)
	}
	want := read.Regions[0]
	if want.Intent != healthIntent {
		t.Fatalf("read --json gives intent %q, want the planted %q", want.Intent, healthIntent)
	}

	b.do(t, "file page", chromedp.Navigate(s.base+"/file/server/server.go"), chromedp.WaitVisible("main h1"))
	type gutter struct {
		Hunk, Commit, Author, By, Attr, Intent, Meta, Card string
		Open                                               bool
	}
	js := `(() => { const h = document.getElementById("L` + strconv.Itoa(line) + `").closest(".hunk");
		const q = s => { const e = h.querySelector(s); return e ? e.textContent.trim() : "" };
		const sc = h.closest(".scope"), d = h.querySelector("details.ann") || (sc && sc.querySelector(":scope > details.scopecard"));
		const c = s => { const e = d && d.querySelector(s); return e ? e.textContent.trim() : "" };
		return {Hunk: h.id, Commit: q(".gutter .g-c"), Author: h.querySelector(".gutter").title, By: q(".gutter .g-by"), Attr: q(".gutter .g-attr"), Intent: c("summary .intent"), Meta: c(".meta"), Open: !!(d && d.open), Card: d ? d.id : ""} })()`
	g := eval[gutter](t, b, js)
	if g.Commit != want.Commit[:8] {
		t.Errorf("gutter commit %q, read --json says %s", g.Commit, want.Commit)
	}
	if g.Intent != want.Intent {
		t.Errorf("hunk intent %q, read --json says %q", g.Intent, want.Intent)
	}
	if !strings.Contains(g.By, want.Author.Kind) || !strings.Contains(g.By, want.Author.Model) {
		t.Errorf("gutter author kind/model %q, read --json says %s %s", g.By, want.Author.Kind, want.Author.Model)
	}
	if !strings.Contains(g.Meta, want.Author.Name) {
		t.Errorf("annotation author %q, read --json says %s", g.Meta, want.Author.Name)
	}
	// Line attribution, as git gloss blame --json gives it for the line.
	var blame struct {
		Lines []struct {
			Line        int `json:"line"`
			Contributor struct {
				Type, Agent, Model string
			} `json:"contributor"`
		} `json:"lines"`
	}
	if err := json.Unmarshal([]byte(s.fx.MustGloss("blame", "server/server.go", "--json")), &blame); err != nil {
		t.Fatal(err)
	}
	for _, l := range blame.Lines {
		if l.Line == line && (!strings.Contains(g.Attr, l.Contributor.Type) || !strings.Contains(g.Attr, l.Contributor.Agent)) {
			t.Errorf("gutter attribution %q, git gloss blame --json says %+v", g.Attr, l.Contributor)
		}
	}
	// The gutter names the agent the annotation records; the commit's
	// author is in its tooltip, with the commit's subject and date.
	if !strings.Contains(g.Author, fixtures.UserName) || !strings.Contains(g.Author, want.Commit[:12]) {
		t.Errorf("gutter tooltip %q lacks the commit author %s", g.Author, fixtures.UserName)
	}
	if g.Open {
		t.Fatalf("the annotation is open before any click")
	}
	// Health's decision is the function's: its card heads Health's lines.
	if !strings.HasPrefix(g.Card, "sa") {
		t.Errorf("the constraint's card is %q, want the card heading Health's block", g.Card)
	}
	hidden := eval[string](t, b, `document.getElementById("`+g.Card+`").innerText`)
	if strings.Contains(hidden, healthMust) {
		t.Fatalf("constraint visible before the click: %q", hidden)
	}
	// Clicking the hunk's gutter opens its annotation.
	b.do(t, "click the hunk", chromedp.Click("#"+g.Hunk+" .gutter"))
	shown := eval[string](t, b, `document.getElementById("`+g.Card+`").innerText`)
	for _, w := range []string{healthIntent, healthMust, healthRejects, healthRisk} {
		if !strings.Contains(shown, w) {
			t.Errorf("after the click the annotation lacks %q: %q", w, shown)
		}
	}
	b.screenshot(t, "file-annotation-open")
}

func checkKeyboard(t *testing.T, s *site, b *browser) {
	b.do(t, "file page", chromedp.Navigate(s.base+"/file/server/server.go"), chromedp.WaitVisible("main h1"))
	current := func() string {
		return eval[string](t, b, `(document.querySelector(".hunk.current") || {id: ""}).id`)
	}
	hunks := eval[int](t, b, `document.querySelectorAll(".hunk").length`)
	if hunks < 3 {
		t.Fatalf("only %d hunks: the fixture should give more", hunks)
	}
	// annotated returns the id of the next (dir 1) or previous (-1)
	// annotated hunk (with its own card, or heading a function with
	// decisions) from the current one, or the current one if none.
	annotated := func(dir int) string {
		return eval[string](t, b, `(() => { const hs = [...document.querySelectorAll(".hunk")];
			const c = hs.findIndex(h => h.classList.contains("current"));
			for (let i = c + `+strconv.Itoa(dir)+`; i >= 0 && i < hs.length; i += `+strconv.Itoa(dir)+`) if (hs[i].matches(".annotated, .scopestart")) return hs[i].id;
			return c >= 0 ? hs[c].id : "" })()`)
	}
	press := func(key, want string) {
		t.Helper()
		b.do(t, "key "+key, chromedp.KeyEvent(key))
		if got := current(); got != want {
			t.Errorf("key %s moved to %q, want %q", key, got, want)
		}
	}
	press("j", "h0")
	press("j", "h1")
	press("k", "h0")
	next := annotated(1)
	if next == "h0" {
		t.Fatalf("the fixture has no annotated hunk after the first")
	}
	press("n", next)
	press("p", annotated(-1))
	press("n", next)
	focused := eval[string](t, b, `document.activeElement.closest(".hunk") ? document.activeElement.closest(".hunk").id : ""`)
	if focused != current() {
		t.Errorf("focus is on %q, the current hunk is %q", focused, current())
	}
	b.do(t, "Enter opens", chromedp.KeyEvent("\r"))
	if !eval[bool](t, b, `(() => { const h = document.querySelector(".hunk.current");
		const d = h.querySelector("details.ann") || h.closest(".scope").querySelector(":scope > details.scopecard"); return d.open })()`) {
		t.Errorf("Enter on an annotated hunk did not open its annotation")
	}
}

func checkSearch(t *testing.T, s *site, b *browser) {
	b.do(t, "notebook", chromedp.Navigate(s.base+"/notebook"), chromedp.WaitVisible("#q"))
	ctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx,
		chromedp.SendKeys("#q", plantedWord),
		chromedp.WaitVisible(`#results a[href="/note/`+notePath+`"]`),
	); err != nil {
		t.Fatalf("search as you type did not find the planted note: %v", err)
	}
	url := eval[string](t, b, `location.pathname`)
	if url != "/notebook" {
		t.Errorf("the search left the page (%s): results should come while typing", url)
	}
	b.screenshot(t, "notebook-search")
}

const agentScript = `#!/bin/sh
# A scripted agent: it works for a moment, commits, ticks the criteria.
echo "reading $GLOSS_TASK_FILE"
sleep 1
echo "writing server/ready.go"
mkdir -p server
printf 'package server\n\n// Ready answers readiness probes.\nfunc Ready() {}\n' > server/ready.go
git add server/ready.go
git commit -q -m "task($GLOSS_TASK_ID): readiness endpoint"
sleep 1
sed -i 's/- \[ \]/- [x]/' "$GLOSS_TASK_FILE"
git commit -q -am "task($GLOSS_TASK_ID): criteria met"
echo "done"
`

func checkBoard(t *testing.T, s *site, b *browser) {
	card := func(status string) string {
		return `.col[data-status="` + status + `"] .taskcard[data-id="` + s.taskID + `"]`
	}
	b.do(t, "board", chromedp.Navigate(s.base+"/tasks"), chromedp.WaitVisible(card("ready")))
	b.do(t, "live", chromedp.WaitVisible(`#live`))

	agent := filepath.Join(t.TempDir(), "agent.sh")
	if err := os.WriteFile(agent, []byte(agentScript), 0o755); err != nil {
		t.Fatal(err)
	}
	s.fx.Git("config", "gloss.agent", agent)

	// The log of the run streams as server-sent events.
	logDone := make(chan []string, 1)
	go func() { logDone <- readLogStream(s) }()
	s.fx.MustGloss("task", "work", s.taskID)

	ctx, cancel := context.WithTimeout(b.ctx, 40*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.WaitVisible(card("completed"))); err != nil {
		out, _ := s.fx.Gloss("task", "show", s.taskID)
		t.Fatalf("the board did not move the task to completed: %v\n%s", err, out)
	}
	if n := eval[int](t, b, `document.querySelectorAll('.taskcard[data-id="`+s.taskID+`"]').length`); n != 1 {
		t.Errorf("the task is on the board %d times", n)
	}
	b.screenshot(t, "tasks-after-run")
	select {
	case events := <-logDone:
		joined := strings.Join(events, "\n")
		if !strings.Contains(joined, "event: log") || !strings.Contains(joined, "event: end") {
			t.Errorf("log stream: %s", joined)
		}
	case <-time.After(20 * time.Second):
		t.Errorf("the log stream did not end after the run")
	}
}

// readLogStream follows /task/ID/log once the run is live, and returns
// the event lines.
func readLogStream(s *site) []string {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		req, _ := http.NewRequest(http.MethodGet, s.base+"/task/"+s.taskID+"/log", nil)
		req.AddCookie(&http.Cookie{Name: s.cookie(), Value: s.token})
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return []string{err.Error()}
		}
		var events []string
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if l := sc.Text(); strings.HasPrefix(l, "event: ") || strings.HasPrefix(l, "data: ") {
				events = append(events, l)
			}
		}
		resp.Body.Close()
		joined := strings.Join(events, "\n")
		if strings.Contains(joined, "event: log") {
			return events
		}
		time.Sleep(200 * time.Millisecond) // not started yet: no log
	}
	return nil
}
