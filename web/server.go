// Package web is gloss's browser front door: `git gloss serve`, a local,
// read-only web view of what gloss knows about a repository.
//
// Like the CLI and the MCP server it is a thin door: every page gets its
// data from the same library calls as the CLI's --json (why.Blame,
// setup.CollectStatus, reconcile.Workspace.Status, tasks.Store.List,
// notebook.Notebook.Search, noma.Store.Read, ...), and every page has a
// JSON twin (the same URL with ?format=json) whose bytes are the CLI's.
//
// It is safe by default: it listens on 127.0.0.1 only; every request must
// carry the random token of the URL it prints (a cookie keeps it after the
// first page); the Host header must name the loopback address it listens
// on (so a DNS-rebinding page cannot reach it); responses carry a strict
// Content-Security-Policy; only GET and HEAD are served; and every path
// from a URL goes through safepath, as every other front door's do.
package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// cookiePrefix names the cookie that keeps the token after the first
// request, so links inside the app need not carry it. The port follows:
// browsers share cookies between the ports of a host, and two servers
// (two repositories) must not overwrite each other's.
const cookiePrefix = "gloss_token_"

// Server serves one repository.
type Server struct {
	dir   string // the repository, as -C gives it ("" for the current directory)
	token string
	mux   *http.ServeMux
	pages *pages

	mu     sync.Mutex
	hosts  map[string]bool // Host header values accepted
	cookie string          // the token cookie's name

	streams streams // the open event streams and their shared feeds
}

// New returns a server for the repository at dir with a fresh random
// token.
func New(dir string) (*Server, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("token: %w", err)
	}
	p, err := loadPages()
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, token: hex.EncodeToString(b), pages: p, hosts: map[string]bool{}, cookie: cookiePrefix + "0"}
	s.routes()
	return s, nil
}

// Token is the secret every request must carry.
func (s *Server) Token() string { return s.token }

// Listen opens a listener on the loopback interface (port 0 picks a free
// one). gloss never listens on another interface: a write mode or a
// shared view would need authentication first (docs/serve.md).
func Listen(port int) (net.Listener, error) {
	if port < 0 || port > 65535 {
		return nil, fmt.Errorf("invalid port %d", port)
	}
	return net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
}

// URL is the address to open, with the token.
func (s *Server) URL(ln net.Listener) string {
	return fmt.Sprintf("http://%s/?token=%s", ln.Addr().String(), s.token)
}

// allowHostsFor accepts the Host values a browser sends for the listener:
// 127.0.0.1:PORT and localhost:PORT.
func (s *Server) allowHostsFor(ln net.Listener) {
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hosts["127.0.0.1:"+port] = true
	s.hosts["localhost:"+port] = true
	s.cookie = cookiePrefix + port
}

// Serve serves on ln until ctx ends.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	s.allowHostsFor(ln)
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_ = srv.Shutdown(sctx)
		case <-done:
		}
	}()
	err := srv.Serve(ln)
	close(done)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Handler is the whole application behind its guards.
func (s *Server) Handler() http.Handler { return s.guard(s.mux) }

// guard refuses what the application must never answer, before any page
// runs: other methods, foreign hosts, missing tokens, paths with "..".
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp(false))
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer") // the token is in the first URL
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			refuse(w, http.StatusMethodNotAllowed, "git gloss serve is read-only")
			return
		}
		s.mu.Lock()
		hostOK := s.hosts[strings.ToLower(r.Host)]
		s.mu.Unlock()
		if !hostOK {
			slog.Warn("serve: refused a request for a foreign host", "host", r.Host)
			refuse(w, http.StatusMisdirectedRequest, "this server answers only to its loopback address")
			return
		}
		if !s.authorized(w, r) {
			if publicAsset(r.URL.Path) {
				next.ServeHTTP(w, r)
				return
			}
			if wantsPage(r) {
				tokenPage(w)
				return
			}
			refuse(w, http.StatusForbidden, "a token is required: open the URL git gloss serve printed")
			return
		}
		if hasDotDot(r.URL.Path) || hasDotDot(r.URL.RawPath) {
			refuse(w, http.StatusBadRequest, "refused: the path leaves the repository")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// publicAsset is what a page without the token may still load: the
// stylesheet and the icon of the token page, built into the binary, with
// nothing of the repository in them (and Cross-Origin-Resource-Policy
// keeps other sites from loading them).
func publicAsset(p string) bool {
	return p == "/assets/app.css" || p == "/assets/favicon.svg" || p == "/favicon.ico"
}

// wantsPage reports whether a refused request comes from a person's
// browser (a page, not a JSON twin or a script).
func wantsPage(r *http.Request) bool {
	return r.URL.Query().Get("format") != "json" && strings.Contains(r.Header.Get("Accept"), "text/html")
}

// tokenPage answers a browser that came without the token — a bookmark,
// a tab left open while the server restarted — with what to run, rather
// than a bare refusal. It says nothing about the repository.
func tokenPage(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusForbidden)
	_, _ = io.WriteString(w, tokenPageHTML)
}

const tokenPageHTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Open gloss with its token · gloss</title>
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/app.css">
</head>
<body>
<header class="top"><span class="brand">gloss</span></header>
<main id="main" class="tokenpage">
<h1>This page needs the server's token</h1>
<p>This is <code>git gloss serve</code>, a read-only view of a repository on this machine. Every time it starts it makes a new secret token and prints a URL that carries it, so that no other web page can read your repository through it. A bookmark, or a tab left open while the server restarted, does not have the current token.</p>
<h2>To open it</h2>
<ol>
<li>In the terminal where <code>git gloss serve</code> runs, open the URL it printed (<code>http://127.0.0.1:PORT/?token=…</code>).</li>
<li>If it is not running, start it in your repository: <pre><code>git gloss serve --open</code></pre> (<code>--port 8642</code> keeps the same address between starts; the token still changes).</li>
</ol>
<p class="dim">After the first page, a cookie carries the token, so the links inside the view work until the server stops.</p>
</main>
</body>
</html>
`

// authorized checks the token of the URL or of the cookie; a right token
// in the URL sets the cookie.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if t := r.URL.Query().Get("token"); t != "" {
		if !s.tokenIs(t) {
			return false
		}
		http.SetCookie(w, &http.Cookie{Name: s.cookieName(), Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		return true
	}
	c, err := r.Cookie(s.cookieName())
	return err == nil && s.tokenIs(c.Value)
}

func (s *Server) cookieName() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cookie
}

func (s *Server) tokenIs(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

// hasDotDot reports whether a URL path has a ".." segment (also when
// percent-encoded: RawPath keeps the encoding, Path the decoded form).
func hasDotDot(p string) bool {
	if p == "" {
		return false
	}
	lower := strings.ToLower(p)
	if strings.Contains(lower, "%2e%2e") || strings.Contains(lower, "..%2f") || strings.Contains(lower, "..%5c") {
		return true
	}
	for _, seg := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == ".." {
			return true
		}
	}
	return false
}

// csp is the Content-Security-Policy: nothing but this origin's own
// scripts, styles and images; no inline script, no eval, no framing, no
// form posts. Pages that draw mermaid diagrams also allow inline styles,
// which the SVG mermaid draws carries.
func csp(inlineStyles bool) string {
	style := "style-src 'self'"
	if inlineStyles {
		style += " 'unsafe-inline'"
	}
	return "default-src 'none'; script-src 'self'; " + style + "; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
		"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
}

func refuse(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	fmt.Fprintln(w, msg)
}
