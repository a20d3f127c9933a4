package lsp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/gloss-dev/gloss/fixtures"
)

// session is a real `git gloss lsp` process driven over its stdio by
// go.lsp.dev's client side, the way an editor drives it.
type session struct {
	t      testing.TB
	cmd    *exec.Cmd
	conn   jsonrpc2.Conn
	server protocol.Server
	client *recorder
	stderr *strings.Builder
}

// recorder is the editor's side: it keeps what the server publishes and
// answers what the server asks.
type recorder struct {
	protocol.UnimplementedClient
	mu        sync.Mutex
	diags     map[uri.URI][]protocol.Diagnostic
	refreshes int
	shown     []uri.URI
	settings  string
}

func (r *recorder) PublishDiagnostics(_ context.Context, p *protocol.PublishDiagnosticsParams) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.diags[p.URI] = p.Diagnostics
	return nil
}

func (r *recorder) CodeLensRefresh(context.Context) error {
	r.mu.Lock()
	r.refreshes++
	r.mu.Unlock()
	return nil
}

func (r *recorder) InlayHintRefresh(context.Context) error { return nil }

func (r *recorder) ShowDocument(_ context.Context, p *protocol.ShowDocumentParams) (*protocol.ShowDocumentResult, error) {
	r.mu.Lock()
	r.shown = append(r.shown, p.URI)
	r.mu.Unlock()
	return &protocol.ShowDocumentResult{Success: true}, nil
}

func (r *recorder) Configuration(context.Context, *protocol.ConfigurationParams) ([]protocol.LSPAny, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.settings == "" {
		return []protocol.LSPAny{protocol.LSPAny("null")}, nil
	}
	return []protocol.LSPAny{protocol.LSPAny(r.settings)}, nil
}

func (r *recorder) ShowMessage(context.Context, *protocol.ShowMessageParams) error { return nil }
func (r *recorder) LogMessage(context.Context, *protocol.LogMessageParams) error   { return nil }

type pipes struct {
	io.ReadCloser
	io.WriteCloser
}

func (p pipes) Close() error {
	_ = p.WriteCloser.Close()
	return p.ReadCloser.Close()
}

// startSession starts the server in the repository and initializes it.
func startSession(t testing.TB, fx *fixtures.Repo, settings string) *session {
	t.Helper()
	cmd := fx.Command(fixtures.Binary(t), "lsp", "--verbose")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &session{t: t, cmd: cmd, stderr: &strings.Builder{}, client: &recorder{diags: map[uri.URI][]protocol.Diagnostic{}, settings: settings}}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, s.conn, s.server = protocol.NewClient(ctx, s.client, jsonrpc2.NewStream(pipes{stdout, stdin}))
	t.Cleanup(s.close)
	yes := true
	root := uri.File(fx.Dir)
	caps := protocol.ClientCapabilities{
		Workspace: &protocol.WorkspaceClientCapabilities{Configuration: &yes,
			CodeLens: &protocol.CodeLensWorkspaceClientCapabilities{RefreshSupport: &yes}},
		Window: &protocol.WindowClientCapabilities{ShowDocument: &protocol.ShowDocumentClientCapabilities{Support: true}},
	}
	init := &protocol.InitializeParams{Capabilities: caps}
	init.WorkspaceFolders = protocol.NewNullable([]protocol.WorkspaceFolder{{URI: root, Name: "repo"}})
	if settings != "" {
		init.InitializationOptions = protocol.LSPAny(settings)
	}
	if _, err := s.server.Initialize(s.ctx(), init); err != nil {
		t.Fatalf("initialize: %v\n%s", err, s.stderr)
	}
	if err := s.server.Initialized(s.ctx(), &protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *session) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	s.t.Cleanup(cancel)
	return ctx
}

func (s *session) close() {
	if s.cmd.ProcessState == nil {
		_ = s.server.Shutdown(s.ctx())
		_ = s.server.Exit(s.ctx())
		done := make(chan error, 1)
		go func() { done <- s.cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				s.t.Errorf("git gloss lsp exited with %v\n%s", err, s.stderr)
			}
		case <-time.After(10 * time.Second):
			_ = s.cmd.Process.Kill()
			s.t.Errorf("git gloss lsp did not exit after exit\n%s", s.stderr)
		}
	}
	_ = s.conn.Close()
}

func (s *session) open(fx *fixtures.Repo, rel, text string) uri.URI {
	s.t.Helper()
	u := uri.File(fx.Path(rel))
	err := s.server.DidOpen(s.ctx(), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "go", Version: 1, Text: text}})
	if err != nil {
		s.t.Fatal(err)
	}
	return u
}

func (s *session) change(u uri.URI, version int32, text string) {
	s.t.Helper()
	err := s.server.DidChange(s.ctx(), &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: version},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: text}},
	})
	if err != nil {
		s.t.Fatal(err)
	}
}

// hover returns the hover's markdown at a 1-based line ("" for none).
func (s *session) hover(u uri.URI, line int) (string, error) {
	h, err := s.server.Hover(s.ctx(), &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Line: uint32(line - 1), Character: 2}}})
	if err != nil || h == nil {
		return "", err
	}
	mc, ok := h.Contents.(*protocol.MarkupContent)
	if !ok {
		return "", fmt.Errorf("hover contents %T, want markup", h.Contents)
	}
	return mc.Value, nil
}

func (s *session) mustHover(u uri.URI, line int) string {
	s.t.Helper()
	md, err := s.hover(u, line)
	if err != nil {
		s.t.Fatalf("hover at line %d: %v\n%s", line, err, s.stderr)
	}
	return md
}

func (s *session) lenses(u uri.URI) []protocol.CodeLens {
	s.t.Helper()
	ls, err := s.server.CodeLens(s.ctx(), &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	if err != nil {
		s.t.Fatalf("codeLens: %v\n%s", err, s.stderr)
	}
	return ls
}

// diagnostics waits for the diagnostics of u to satisfy ok.
func (s *session) diagnostics(u uri.URI, ok func([]protocol.Diagnostic) bool) []protocol.Diagnostic {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s.client.mu.Lock()
		d, seen := s.client.diags[u]
		s.client.mu.Unlock()
		if seen && ok(d) {
			return d
		}
		if time.Now().After(deadline) {
			data, _ := json.Marshal(d)
			s.t.Fatalf("diagnostics of %s never came right; last: %s\n%s", u, data, s.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
