package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// The wire: go.lsp.dev/jsonrpc2 frames and dispatches, go.lsp.dev/protocol
// types and routes every LSP method. gloss adds three things the stock
// server wiring (protocol.NewServer) does not do: a frame that is not JSON
// is answered with a parse error instead of closing the connection, a
// handler that panics answers an internal error instead of ending the
// process, and document notifications are applied in the order they came
// (the stock wiring releases every message to run concurrently, so two
// didChange of one document could be applied out of order).

// codec is protocol's union-aware payload codec (protocol.Marshal and
// Unmarshal), which protocol.NewServer installs but does not export.
type codec struct{}

func (codec) Marshal(v any) ([]byte, error) {
	if m, ok := v.(jsonrpc2.RawMessage); ok {
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	}
	return protocol.Marshal(v)
}

func (codec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return protocol.Unmarshal(data, v)
}

// frameReader is what jsonrpc2's header framing offers besides Read: the
// body of the next frame, undecoded.
type frameReader interface {
	ReadFrame(ctx context.Context) ([]byte, int64, error)
}

// tolerantStream answers a frame whose body is not a JSON-RPC message
// with an error response (id null, as JSON-RPC 2.0 says) and reads on.
// The framing itself (the Content-Length header) must be sound: after a
// broken header there is no telling where the next message starts.
type tolerantStream struct {
	jsonrpc2.Stream
	frames frameReader
	log    *slog.Logger
}

func newStream(rw io.ReadWriteCloser, log *slog.Logger) jsonrpc2.Stream {
	s := jsonrpc2.NewHeaderStream(rw)
	fr, ok := s.(frameReader)
	if !ok {
		return s
	}
	return &tolerantStream{Stream: s, frames: fr, log: log}
}

func (s *tolerantStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		frame, n, err := s.frames.ReadFrame(ctx)
		if err != nil {
			return nil, 0, err
		}
		msg, err := jsonrpc2.DecodeMessage(frame)
		if err == nil {
			return msg, n, nil
		}
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) {
			rpcErr = jsonrpc2.NewError(jsonrpc2.ParseError, err.Error())
		}
		reply := jsonrpc2.NewError(rpcErr.Code, fmt.Sprintf("%s: %d byte(s) that are not a JSON-RPC 2.0 message were skipped", rpcErr.Message, len(frame)))
		s.log.Warn("malformed message skipped", "bytes", len(frame), "error", rpcErr.Message)
		if _, err := s.Write(ctx, jsonrpc2.NewResponse(jsonrpc2.ID{}, nil, reply)); err != nil {
			return nil, 0, err
		}
	}
}

// inOrder are the notifications applied before the next message is read:
// the document's text and the settings later requests depend on.
var inOrder = map[string]bool{
	protocol.MethodTextDocumentDidOpen:                true,
	protocol.MethodTextDocumentDidChange:              true,
	protocol.MethodTextDocumentDidClose:               true,
	protocol.MethodTextDocumentDidSave:                true,
	protocol.MethodWorkspaceDidChangeConfiguration:    true,
	protocol.MethodInitialized:                        true,
	protocol.MethodWorkspaceDidChangeWorkspaceFolders: true,
}

// handler is the connection's handler: cancellation, then requests
// released to run concurrently (document notifications kept in order),
// then a guard against panics, then protocol's method routing.
func handler(srv protocol.Server, log *slog.Logger) jsonrpc2.Handler {
	route := protocol.ServerHandler(srv, jsonrpc2.MethodNotFoundHandler)
	guarded := func(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
		defer func() {
			if p := recover(); p != nil {
				log.Error("handler panicked", "method", req.Method(), "panic", p, "stack", string(debug.Stack()))
				result, err = nil, nil
				if req.IsCall() {
					err = jsonrpc2.NewError(jsonrpc2.InternalError, fmt.Sprintf("gloss lsp: internal error in %s: %v", req.Method(), p))
				}
			}
		}()
		result, err = route(ctx, req)
		// A frame that is not JSON never gets here (tolerantStream answers
		// it); protocol reports params of the wrong shape as a parse error,
		// which JSON-RPC calls invalid params.
		var rpcErr *jsonrpc2.Error
		if errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc2.ParseError {
			err = jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("gloss lsp: invalid params of %s: %s", req.Method(), rpcErr.Message))
		}
		if err != nil && !req.IsCall() {
			// A notification has no answer, and protocol's connection
			// closes on a notification's error: log it and go on.
			log.Warn("notification failed", "method", req.Method(), "error", err)
			return nil, nil
		}
		return result, err
	}
	ordered := func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if !inOrder[req.Method()] {
			jsonrpc2.Async(ctx)
		}
		return guarded(ctx, req)
	}
	return protocol.CancelHandler(ordered)
}
