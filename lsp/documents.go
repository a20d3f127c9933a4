package lsp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/gloss-dev/gloss/gitops"
)

// maxDocument bounds the buffers gloss reads: a larger one (a generated
// file, a data dump) is refused with a clear message rather than blamed
// and parsed on every keystroke. Sources people annotate are far smaller
// (fzf's terminal.go, 8,839 lines, is 280 KB).
const maxDocument = 16 << 20

// document is one open buffer.
type document struct {
	uri     uri.URI
	version int32
	text    []byte
	repo    *repoState // nil when gloss cannot answer for it
	rel     string     // path in the repository, slash-separated
	// err says why gloss cannot answer for the document (not a file, not
	// in a repository, too large); requests on it fail with it.
	err error
	// answers computed for this version (under the repository's lock).
	answers *answers
}

// DidOpen starts following a buffer. A notification cannot fail: a
// document gloss cannot answer for is remembered with the reason, which
// its requests then return, and the reason is logged in the client.
func (s *server) DidOpen(ctx context.Context, p *protocol.DidOpenTextDocumentParams) error {
	td := p.TextDocument
	d := &document{uri: td.URI, version: td.Version}
	s.setText(d, td.Text)
	if d.err == nil {
		d.repo, d.rel, d.err = s.locate(td.URI)
	}
	s.mu.Lock()
	s.docs[td.URI] = d
	s.mu.Unlock()
	if d.err != nil {
		s.notify(protocol.MessageTypeLog, d.err.Error())
		if errors.Is(d.err, errTooLarge) {
			s.notify(protocol.MessageTypeWarning, d.err.Error())
		}
		return nil
	}
	go s.publishDiagnostics(d.uri)
	return nil
}

// DidChange replaces a buffer's text (the server asks for full sync: a
// whole file per change is cheap next to a blame, and never drifts).
func (s *server) DidChange(ctx context.Context, p *protocol.DidChangeTextDocumentParams) error {
	s.mu.Lock()
	d := s.docs[p.TextDocument.URI]
	s.mu.Unlock()
	if d == nil || len(p.ContentChanges) == 0 {
		return nil
	}
	var text string
	switch c := p.ContentChanges[len(p.ContentChanges)-1].(type) {
	case *protocol.TextDocumentContentChangeWholeDocument:
		text = c.Text
	case *protocol.TextDocumentContentChangePartial:
		// A client that ignores the full sync asked for: nothing to
		// apply the range to safely; keep the text and say why.
		s.log.Warn("incremental change ignored: the server asked for full sync", "uri", string(p.TextDocument.URI))
		return nil
	default:
		return nil
	}
	nd := &document{uri: d.uri, version: p.TextDocument.Version, repo: d.repo, rel: d.rel}
	s.setText(nd, text)
	if nd.err == nil && d.repo == nil {
		nd.err = d.err
	}
	s.mu.Lock()
	if cur := s.docs[d.uri]; cur != nil && cur.version <= nd.version {
		s.docs[d.uri] = nd
	}
	s.mu.Unlock()
	if nd.err == nil {
		go s.publishDiagnostics(nd.uri)
	}
	return nil
}

// DidSave refreshes what depends on the saved file (spec drift compares
// the working tree).
func (s *server) DidSave(ctx context.Context, p *protocol.DidSaveTextDocumentParams) error {
	s.mu.Lock()
	d := s.docs[p.TextDocument.URI]
	s.mu.Unlock()
	if d != nil && d.repo != nil {
		d.repo.invalidate()
		go s.publishDiagnostics(d.uri)
	}
	return nil
}

// DidClose forgets a buffer and clears its diagnostics.
func (s *server) DidClose(ctx context.Context, p *protocol.DidCloseTextDocumentParams) error {
	s.mu.Lock()
	d := s.docs[p.TextDocument.URI]
	delete(s.docs, p.TextDocument.URI)
	s.mu.Unlock()
	if d != nil && d.repo != nil {
		_ = s.client.PublishDiagnostics(s.ctx, &protocol.PublishDiagnosticsParams{URI: d.uri, Diagnostics: []protocol.Diagnostic{}})
	}
	return nil
}

var errTooLarge = errors.New("too large")

// setText stores the buffer, or the reason it is refused.
func (s *server) setText(d *document, text string) {
	if len(text) > maxDocument {
		d.text = nil
		d.err = fmt.Errorf("gloss lsp: %s is %.1f MiB, over the %d MiB gloss reads; gloss shows nothing for it: %w",
			filepathOf(d.uri), float64(len(text))/(1<<20), maxDocument>>20, errTooLarge)
		return
	}
	d.text = []byte(text)
	d.err = nil
}

func filepathOf(u uri.URI) string {
	if u.IsFile() {
		return u.FsPath()
	}
	return string(u)
}

// locate finds the repository of a file and the file's path in it.
func (s *server) locate(u uri.URI) (*repoState, string, error) {
	if !u.IsFile() {
		return nil, "", fmt.Errorf("gloss lsp: %s is not a file on disk (scheme %q); gloss answers for files in a git repository", u, u.Scheme())
	}
	abs := filepath.Clean(u.FsPath())
	dir := filepath.Dir(abs)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	repo, err := gitops.Open(dir)
	if err != nil {
		if errors.Is(err, gitops.ErrNotRepository) || errors.Is(err, os.ErrNotExist) {
			return nil, "", fmt.Errorf("gloss lsp: %s is not in a git repository; gloss answers for files in one where it is set up (git gloss init)", abs)
		}
		return nil, "", fmt.Errorf("gloss lsp: open the repository of %s: %w", abs, err)
	}
	root := repo.Root()
	if root == "" {
		repo.Close()
		return nil, "", fmt.Errorf("gloss lsp: %s is inside a bare repository's git dir", abs)
	}
	rel, err := filepath.Rel(root, filepath.Join(dir, filepath.Base(abs)))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		repo.Close()
		return nil, "", fmt.Errorf("gloss lsp: %s is outside the working tree of %s", abs, root)
	}
	rel = filepath.ToSlash(rel)
	if rel == ".git" || strings.HasPrefix(rel, ".git/") {
		repo.Close()
		return nil, "", fmt.Errorf("gloss lsp: %s is inside the git dir", abs)
	}
	return s.repoFor(root, repo), rel, nil
}

// document returns the open document of a request, or the error the
// request answers with.
func (s *server) document(u uri.URI) (*document, error) {
	s.mu.Lock()
	d := s.docs[u]
	shut := s.shutdown
	s.mu.Unlock()
	if shut {
		return nil, jsonrpcInvalidRequest("gloss lsp: the server is shutting down")
	}
	if d == nil {
		return nil, requestFailed(fmt.Sprintf("gloss lsp: %s is not open (send textDocument/didOpen first)", u))
	}
	if d.err != nil {
		return nil, requestFailed(d.err.Error())
	}
	return d, nil
}

// notify shows (or logs) a message in the client.
func (s *server) notify(t protocol.MessageType, msg string) {
	if t == protocol.MessageTypeLog {
		_ = s.client.LogMessage(s.ctx, &protocol.LogMessageParams{Type: t, Message: msg})
		return
	}
	_ = s.client.ShowMessage(s.ctx, &protocol.ShowMessageParams{Type: t, Message: msg})
}
