package web_test

import (
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestJSONTwinsAreTheCLIBytes: every page's JSON twin is, byte for byte,
// what the matching CLI command prints with --json — the pages and the
// CLI make the same library calls.
func TestJSONTwinsAreTheCLIBytes(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	cases := []struct {
		page string
		cli  []string
	}{
		{"/?format=json", []string{"status", "--json"}},
		{"/file/server/server.go?format=json", []string{"blame", "server/server.go", "--json"}},
		{"/history/server/server.go?anchor=Server.Health&format=json", []string{"history", "server/server.go", "--anchor", "Server.Health", "--json"}},
		{"/stats?format=json", []string{"stats", "--json"}},
		{"/deps/server/server.go?format=json", []string{"deps", "server/server.go", "--json"}},
		{"/specs?format=json", []string{"spec", "status", "--json"}},
		{"/specs/diff?spec=" + specPath + "&base=HEAD~2&format=json", []string{"spec", "diff", specPath, "--base", "HEAD~2", "--json"}},
		{"/tasks?format=json", []string{"task", "list", "--json"}},
		{"/task/" + s.taskID + "?format=json", []string{"task", "show", s.taskID, "--json"}},
		{"/notebook?format=json", []string{"note", "list", "--json"}},
		{"/notebook/search?q=" + plantedWord + "&format=json", []string{"note", "search", plantedWord, "--json"}},
		{"/note/" + notePath + "?format=json", []string{"note", "show", notePath, "--json"}},
		{"/doc/" + docPath + "?format=json", []string{"doc", "read", docPath, "--json"}},
	}
	for _, c := range cases {
		code, body, h := s.get(t, c.page)
		if code != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
			t.Errorf("%s: %d %s\n%s", c.page, code, h.Get("Content-Type"), body)
			continue
		}
		want := s.fx.MustGloss(c.cli...)
		if body != want {
			t.Errorf("%s differs from git gloss %s:\npage: %s\ncli:  %s", c.page, strings.Join(c.cli, " "), body, want)
		}
	}
	// The file twin is line attribution (git gloss blame): who wrote each
	// line, as the gutter shows it; not a vacuous comparison.
	_, body, _ := s.get(t, "/file/server/server.go?format=json")
	for _, w := range []string{`"$schema":"gloss-blame/v1"`, `"contributor":{"type":`, `"text":"func (s *Server) Health(w http.ResponseWriter, r *http.Request) {"`} {
		if !strings.Contains(body, w) {
			t.Errorf("blame twin lacks %s: %s", w, body)
		}
	}
	// The spec page's diff starts, by default, where the spec was last
	// reconciled: the later metrics commit is in it.
	if _, body, _ := s.get(t, "/specs/diff?spec="+specPath); !strings.Contains(body, `&#43;// Metrics exposes counters.`) {
		t.Errorf("the spec diff since the reconciliation lacks the later change:\n%s", body)
	}
	if _, body, _ := s.get(t, "/deps/server/server.go?format=json"); !strings.Contains(body, "routes are registered there") {
		t.Errorf("deps twin lacks the declared dependency: %s", body)
	}
	// The overview says when notes were last synced: never, here.
	if _, body, _ := s.get(t, "/"); !strings.Contains(body, `last sync <span class="dim">never</span>`) {
		t.Errorf("the overview does not say when notes were last synced:\n%.2000s", body)
	}
	checkMarkdownSource(t, s)
}

// checkMarkdownSource: the server renders no markdown. A note and a
// document's blocks arrive as their source, escaped, in the carrier that
// markdown-init.js renders (and that reads as it is with scripts off);
// the renderer's scripts come before mermaid's when they are built in.
func checkMarkdownSource(t *testing.T, s *site) {
	_, note, _ := s.get(t, "/note/"+notePath)
	carrier := `<pre class="md-source" data-markdown="note">`
	if !strings.Contains(note, carrier+"# Planted\n") {
		t.Errorf("the note page lacks its source in %s:\n%s", carrier, note)
	}
	for _, w := range []string{"| health | 10 ms |", "- [x] wire the endpoint", `&lt;img src=x onerror=&#34;window.pwned=1&#34;&gt;`, `&lt;script&gt;window.pwned=2&lt;/script&gt;`} {
		if !strings.Contains(note, w) {
			t.Errorf("the note's source lacks %s (escaped)", w)
		}
	}
	for _, bad := range []string{"<table", "<img", "<script>window", `type="checkbox"`, "<del>"} {
		if strings.Contains(note, bad) {
			t.Errorf("the server rendered markdown: the note page holds %s", bad)
		}
	}
	if strings.Contains(note, "vendor/marked.umd.js") {
		order := []string{"vendor/marked.umd.js", "vendor/purify.min.js", "markdown-init.js", "vendor/mermaid.min.js", "mermaid-init.js", "vendor/highlight.min.js", "markdown-highlight.js"}
		last := -1
		for _, sc := range order {
			i := strings.Index(note, `<script src="/assets/`+sc+`" defer>`)
			if i < last {
				t.Errorf("script %s is missing or out of order (want %v)", sc, order)
			}
			last = i
		}
	} else {
		t.Logf("marked is not built into the assets (make web-assets); the note is shown as source")
	}
	_, doc, _ := s.get(t, "/doc/"+docPath)
	if !strings.Contains(doc, `<pre class="md-source" data-markdown="doc">See [[market-size]].</pre>`) {
		t.Errorf("the document page lacks the block's source in its carrier:\n%s", doc)
	}
	if strings.Contains(doc, `href="#b-market-size"`) {
		t.Errorf("the server linked [[market-size]]; the browser does")
	}
}

// TestRefusals: no token, a foreign Host (DNS rebinding), paths that
// leave the repository and writes are all refused before any page runs;
// pages carry a strict Content-Security-Policy.
func TestRefusals(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	secret := s.fx.Path("../outside.txt")
	if err := os.WriteFile(secret, []byte("TOP SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	req := func(method, path string, withToken bool, host string) *http.Request {
		r, err := http.NewRequest(method, s.base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if withToken {
			r.AddCookie(&http.Cookie{Name: s.cookie(), Value: s.token})
		}
		if host != "" {
			r.Host = host
		}
		return r
	}
	cases := []struct {
		name string
		req  *http.Request
		want int
	}{
		{"no token", req("GET", "/", false, ""), http.StatusForbidden},
		{"wrong token", req("GET", "/?token=0123456789abcdef0123456789abcdef", false, ""), http.StatusForbidden},
		{"foreign host", req("GET", "/?token="+s.token, false, "attacker.example:"+strings.TrimPrefix(s.base, "http://127.0.0.1:")), http.StatusMisdirectedRequest},
		{"foreign host with cookie", req("GET", "/", true, "rebind.example"), http.StatusMisdirectedRequest},
		{"dot-dot", req("GET", "/file/../outside.txt", true, ""), http.StatusBadRequest},
		{"encoded dot-dot", req("GET", "/file/server/%2e%2e/%2e%2e/outside.txt", true, ""), http.StatusBadRequest},
		{"encoded slash dot-dot", req("GET", "/file/..%2f..%2foutside.txt", true, ""), http.StatusBadRequest},
		{"note dot-dot", req("GET", "/note/..%2f..%2f..%2foutside.txt", true, ""), http.StatusBadRequest},
		{"git dir", req("GET", "/file/.git/config", true, ""), http.StatusBadRequest},
		{"post", req("POST", "/tasks", true, ""), http.StatusMethodNotAllowed},
		{"delete", req("DELETE", "/note/"+notePath, true, ""), http.StatusMethodNotAllowed},
	}
	for _, c := range cases {
		code, body, _ := do(t, c.req)
		if code != c.want {
			t.Errorf("%s: %s %s answered %d, want %d: %s", c.name, c.req.Method, c.req.URL.RequestURI(), code, c.want, body)
		}
		if strings.Contains(body, "TOP SECRET") || strings.Contains(body, "[core]") {
			t.Errorf("%s: leaked a file outside the work tree: %s", c.name, body)
		}
	}
	// The token in the URL sets a cookie the app then uses; pages carry
	// the security headers.
	code, _, h := do(t, req("GET", "/?token="+s.token, false, ""))
	if code != http.StatusOK {
		t.Fatalf("with token: %d", code)
	}
	if c := h.Get("Set-Cookie"); !strings.Contains(c, s.cookie()+"="+s.token) || !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "SameSite=Strict") {
		t.Errorf("cookie = %q", c)
	}
	csp := h.Get("Content-Security-Policy")
	for _, w := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, w) {
			t.Errorf("CSP %q lacks %s", csp, w)
		}
	}
	if strings.Contains(csp, "unsafe-eval") || strings.Contains(strings.Split(csp, "style-src")[0], "unsafe-inline") {
		t.Errorf("CSP allows inline scripts or eval: %q", csp)
	}
	if h.Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("Referrer-Policy = %q: the token would leak in Referer", h.Get("Referrer-Policy"))
	}
}

// TestMissingTokenPage: a browser that comes back without the token (a
// bookmark, a tab kept across a restart) gets a page that says what to run
// and nothing of the repository; its stylesheet loads without the token;
// a script or a JSON twin still gets the plain refusal.
func TestMissingTokenPage(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	get := func(path, accept string) (int, string) {
		r, err := http.NewRequest("GET", s.base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if accept != "" {
			r.Header.Set("Accept", accept)
		}
		code, body, _ := do(t, r)
		return code, body
	}
	code, body := get("/file/server/server.go", "text/html,application/xhtml+xml")
	if code != http.StatusForbidden || !strings.Contains(body, "git gloss serve --open") || !strings.Contains(body, "<h1>This page needs the server's token</h1>") {
		t.Errorf("a browser without the token: %d\n%s", code, body)
	}
	for _, leak := range []string{s.fx.Dir, "server.go", healthIntent} {
		if strings.Contains(body, leak) {
			t.Errorf("the token page shows %q", leak)
		}
	}
	if code, body := get("/assets/app.css", "text/css"); code != 200 || !strings.Contains(body, ".tokenpage") {
		t.Errorf("the token page's stylesheet: %d", code)
	}
	if code, _ := get("/assets/file.js", "*/*"); code != http.StatusForbidden {
		t.Errorf("another asset without the token: %d", code)
	}
	if code, body := get("/?format=json", "text/html"); code != http.StatusForbidden || strings.Contains(body, "<html") {
		t.Errorf("a JSON twin without the token: %d %s", code, body)
	}
}
