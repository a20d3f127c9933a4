package web_test

import (
	"bufio"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
)

// The repository every serve test looks at: annotated commits (an agent's
// with constraints, rejected alternatives and risks), a spec that drifted,
// a task that is ready, notebook notes (one with a mermaid diagram) and a
// .noma document with a patch transcript.

const (
	plantedWord   = "zephyrine"
	healthIntent  = "answer the load balancer without touching the database"
	healthMust    = "must answer in under 10 ms"
	healthRisk    = "a slow health check takes the instance out of rotation"
	healthRejects = "reuse /status"
	specPath      = ".gloss/specs/server.spec.yaml"
	notePath      = "notes/planted.md"
	docPath       = "docs/pricing.noma"
)

const serverV1 = `package server

import "net/http"

// Server serves the todo API.
type Server struct{ mux *http.ServeMux }

// Handle registers every route.
func (s *Server) Handle() {
	s.mux.HandleFunc("/todos", s.list)
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {}
`

const healthFunc = `
// Health reports liveness for the load balancer.
func (s *Server) Health(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusNoContent)
}
`

const pricing = `---
title: Pricing decision
---

# Pricing

::claim{id="market-size" confidence=0.5}
The addressable market is worth ten billion.
::

::evidence{for="market-size"}
A survey of 40 firms (2026).
::

See [[market-size]].
`

// plantedNote is markdown the browser renders: a table, a task list, a
// diagram, Go code, and raw HTML and a javascript: link that must not run.
const plantedNote = "# Planted\n\nThe " + plantedWord + " rollout waits for the health check.\n\n" +
	"| check | budget |\n|---|---|\n| health | 10 ms |\n\n" +
	"- [x] wire the endpoint\n- [ ] add the readiness probe\n\n" +
	"```mermaid\ngraph LR\n  lb[load balancer] --> health\n```\n\n" +
	"```go\nfunc ready() bool { return true }\n```\n\n" +
	"Raw HTML stays text: <img src=x onerror=\"window.pwned=1\"> and\n\n" +
	"<script>window.pwned=2</script>\n\n" +
	"[a bad link](javascript:window.pwned=3) and ~~struck~~.\n"

type site struct {
	fx     *fixtures.Repo
	base   string // http://127.0.0.1:PORT
	token  string
	taskID string
}

// newSite builds the repository and starts the real binary's
// `git gloss serve` on it.
func newSite(t *testing.T) *site {
	t.Helper()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	// The team's check a task run must pass to land, approved in this
	// clone as a person would (git gloss task checks --approve).
	fx.Commit("first", map[string]string{"README.md": "# todo\n", ".gloss/config.toml": "[tasks.checks]\nready = \"test -f server/ready.go\"\n"})
	fx.Git("config", "--local", "--add", "gloss.approvedCheck", "test -f server/ready.go")
	fx.MustGloss("init", "--no-mcp")
	fx.Commit("server: the todo server", map[string]string{"server/server.go": serverV1})
	fx.Write("server/server.go", serverV1+healthFunc)
	fx.MustGloss("annotate", "--file", "server/server.go", "--anchor", "Server.Health",
		"--intent", healthIntent, "--constraint", healthMust,
		"--rejected", healthRejects+"|it queries the database", "--risk", healthRisk,
		"--dep", "server/server.go#Server.Handle|routes are registered there",
		"--author-name", "claude", "--model", "opus")
	fx.Git("add", "-A")
	fx.Git("commit", "-q", "-m", "server: add health endpoint")

	fx.Write(specPath, `schema_version: '0.8'
intent: The todo HTTP server.
behaviors:
  - name: health
    given: the load balancer polls the health endpoint
    then: it answers 204 in under 10 ms
coverage:
  policy: warn
artifacts:
  code:
    - path: server/**
`)
	fx.Git("add", "-A")
	fx.Git("commit", "-q", "-m", "specs: the server spec")
	fx.MustGloss("spec", "mark", "server/server.go", specPath)
	fx.Write("server/server.go", serverV1+healthFunc+"\n// Metrics exposes counters.\nfunc (s *Server) Metrics() {}\n")
	fx.Git("commit", "-q", "-am", "server: metrics")

	fx.MustGloss("note", "create", "planted", "--type", "note", "--tag", "ops", "--title", "Planted note", "-m", plantedNote)
	fx.MustGloss("note", "create", "deploy", "--type", "kit", "--tag", "ops", "--title", "Deploy the service", "-m", "1. make release\n2. push the tag\n")

	fx.Write(docPath, pricing)
	fx.Git("add", "-A")
	fx.Git("commit", "-q", "-m", "docs and notes")
	fx.MustGloss("doc", "patch", docPath, "--reason", "new survey",
		"--op", `{"op":"update_attribute","id":"market-size","key":"confidence","value":0.8}`)

	fx.MustGloss("task", "add", "Add a readiness endpoint", "-c", "GET /ready answers 204")
	id := strings.TrimSpace(fx.MustGloss("task", "list", "--json"))
	id = id[strings.Index(id, `"id":"`)+6:]
	id = id[:strings.IndexByte(id, '"')]
	fx.Git("add", "-A")
	fx.Git("commit", "-q", "-m", "task and transcript")

	s := &site{fx: fx, taskID: id}
	s.start(t)
	return s
}

func (s *site) start(t *testing.T) {
	t.Helper()
	cmd := s.fx.Command(fixtures.Binary(t), "serve", "--port", "0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("serve printed no URL: %v", err)
	}
	u, err := url.Parse(strings.TrimSpace(line))
	if err != nil || u.Host == "" || !strings.HasPrefix(u.Host, "127.0.0.1:") {
		t.Fatalf("serve printed %q, want a URL on 127.0.0.1", line)
	}
	s.base = "http://" + u.Host
	s.token = u.Query().Get("token")
	if len(s.token) < 32 {
		t.Fatalf("token %q is too short", s.token)
	}
}

// cookie is the name of the token cookie: per port.
func (s *site) cookie() string {
	return "gloss_token_" + strings.TrimPrefix(s.base, "http://127.0.0.1:")
}

// get fetches path with the token cookie.
func (s *site) get(t *testing.T, path string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: s.cookie(), Value: s.token})
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (int, string, http.Header) {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }, Timeout: 30 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, b.String(), resp.Header
}

// artifacts is where the screenshots go: $GLOSS_ARTIFACTS/serve, else
// bin/artifacts/serve in the module (ignored by git).
func artifacts(t *testing.T) string {
	dir := os.Getenv("GLOSS_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(fixtures.ModuleRoot(), "bin", "artifacts")
	}
	dir = filepath.Join(dir, "serve")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
