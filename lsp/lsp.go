// Package lsp is gloss's editor front door: `git gloss lsp`, a Language
// Server Protocol server over stdio. It shows, where people read code,
// what the other doors show: the decisions in force for a line or a
// function (hover), a summary above each function that has them (code
// lens, with a command that opens the full records), who wrote each line
// (on hover, and opt-in as inlay hints), and information-level
// diagnostics (an edit not committed yet inside a function whose
// constraint it may break; a spec of the file that drifted).
//
// Like the other doors it is thin: every answer comes from the same
// library calls as the CLI (why.Read for the records in force, the
// buffer's blame and line attribution for who wrote a line, reconcile for
// specs), on the editor's unsaved buffer. It follows the repository while
// it runs: a commit, a sync, a flag or a branch switch changes a ref, and
// the server refreshes what the editor shows.
//
// The protocol is go.lsp.dev/protocol (LSP 3.18 types generated from the
// specification's meta-model) over go.lsp.dev/jsonrpc2; conn.go says what
// gloss adds to the stock wiring.
package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Options configure a server.
type Options struct {
	// Version is the gloss version the server reports.
	Version string
	// WebURL returns the base URL (http://127.0.0.1:PORT) and the token
	// of a `git gloss serve` running for the repository (or linked
	// worktree) whose git dir is gitDir, or "" when none runs.
	WebURL func(gitDir string) (base, token string)
	// Poll is how often each open repository is checked for a new commit,
	// notes or branch (default 500 ms).
	Poll time.Duration
	// Log receives the server's log (default: discarded).
	Log *slog.Logger
}

// codeRequestFailed is LSP's RequestFailed: the request was valid and
// could not be answered (a document outside any repository, too large).
const codeRequestFailed jsonrpc2.Code = -32803

// server is one LSP session.
type server struct {
	protocol.UnimplementedServer
	opts   Options
	log    *slog.Logger
	client protocol.Client
	ctx    context.Context // the session's: background work ends with it

	mu       sync.Mutex
	docs     map[uri.URI]*document
	repos    map[string]*repoState // by working tree root
	caps     clientCaps
	settings Settings
	shutdown bool
	exited   chan struct{}
	exitOnce sync.Once
}

// clientCaps are the client capabilities the server adapts to.
type clientCaps struct {
	showDocument     bool
	codeLensRefresh  bool
	inlayHintRefresh bool
	configuration    bool
}

// Serve runs a server on in and out until the client sends exit or closes
// the input. It returns nil after shutdown and exit, or at the end of
// input, and an error after an exit that no shutdown came before.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Poll <= 0 {
		opts.Poll = 500 * time.Millisecond
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &server{opts: opts, log: opts.Log, ctx: ctx, docs: map[uri.URI]*document{}, repos: map[string]*repoState{},
		settings: defaultSettings(), exited: make(chan struct{})}
	conn := jsonrpc2.NewConn(newStream(readWriter{in, out}, s.log), jsonrpc2.WithCodec(codec{}))
	s.client = protocol.ClientDispatcher(conn)
	conn.Go(ctx, handler(s, s.log))
	var err error
	select {
	case <-conn.Done():
	case <-s.exited:
		s.mu.Lock()
		if !s.shutdown {
			// LSP: exit without shutdown first ends with code 1.
			err = errors.New("gloss lsp: exit without shutdown")
		}
		s.mu.Unlock()
	case <-ctx.Done():
	}
	cancel()
	s.closeRepos()
	// Closing waits for the handlers in flight; after exit, an answer
	// nobody will read must not hold the process (a second at most).
	closed := make(chan struct{})
	go func() {
		_ = conn.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(time.Second):
		s.log.Warn("closing the connection took over a second; leaving it")
	}
	return err
}

// readWriter joins stdin and stdout into the one connection jsonrpc2
// frames. Closing it closes neither: the process owns them.
type readWriter struct {
	io.Reader
	io.Writer
}

func (readWriter) Close() error { return nil }

// Initialize answers the client's first request with what the server
// offers.
func (s *server) Initialize(ctx context.Context, p *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := p.Capabilities
	if c.Window != nil && c.Window.ShowDocument != nil {
		s.caps.showDocument = c.Window.ShowDocument.Support
	}
	if w := c.Workspace; w != nil {
		s.caps.codeLensRefresh = w.CodeLens != nil && isTrue(w.CodeLens.RefreshSupport)
		s.caps.inlayHintRefresh = w.InlayHint != nil && isTrue(w.InlayHint.RefreshSupport)
		s.caps.configuration = isTrue(w.Configuration)
	}
	if len(p.InitializationOptions) > 0 {
		s.settings = s.settings.merge(p.InitializationOptions, s.log)
	}
	full := protocol.TextDocumentSyncKindFull
	yes := true
	no := false
	res := &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: &protocol.TextDocumentSyncOptions{OpenClose: &yes, Change: &full,
				Save: protocol.Boolean(true)},
			HoverProvider:          protocol.Boolean(true),
			CodeLensProvider:       &protocol.CodeLensOptions{ResolveProvider: &no},
			InlayHintProvider:      &protocol.InlayHintOptions{ResolveProvider: &no},
			ExecuteCommandProvider: protocol.ExecuteCommandOptions{Commands: []string{CommandShowRecords}},
		},
		ServerInfo: protocol.ServerInfo{Name: "gloss"},
	}
	if s.opts.Version != "" {
		res.ServerInfo.Version = protocol.NewOptional(s.opts.Version)
	}
	return res, nil
}

// Initialized asks for the gloss settings when the client can tell them.
func (s *server) Initialized(ctx context.Context, _ *protocol.InitializedParams) error {
	go s.pullSettings()
	return nil
}

// Shutdown stops answering: the client exits the server next.
func (s *server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.shutdown = true
	s.mu.Unlock()
	return nil
}

// Exit ends the session.
func (s *server) Exit(ctx context.Context) error {
	s.exitOnce.Do(func() { close(s.exited) })
	return nil
}

func isTrue(b *bool) bool { return b != nil && *b }

// requestFailed is the error of a request gloss cannot answer, with a
// message for the person reading the editor's log.
func requestFailed(format string) error {
	return jsonrpc2.NewError(codeRequestFailed, format)
}

func jsonrpcInvalidParams(msg string) error {
	return jsonrpc2.NewError(jsonrpc2.InvalidParams, msg)
}

func jsonrpcInvalidRequest(msg string) error {
	return jsonrpc2.NewError(jsonrpc2.InvalidRequest, msg)
}

// Request answers the methods LSP does not define (and gloss does not
// serve) with a clear "method not found".
func (s *server) Request(ctx context.Context, method string, _ any) (any, error) {
	return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, fmt.Sprintf("gloss lsp: unknown method %q", method))
}
