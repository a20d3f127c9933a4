package mcp

import (
	"context"
	"log/slog"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gloss-dev/gloss/fixtures"
)

// benchSession serves a fixture repository in process (no stdio) to one
// client, so a benchmark times the call itself: the handle pool, the
// library call and the encoding.
func benchSession(b *testing.B, dir string) *sdk.ClientSession {
	b.Helper()
	slog.SetDefault(slog.New(slog.DiscardHandler)) // the SDK logs every connection
	s, r, err := newServer(Options{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(r.handles.close)
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return cs
}

func benchCalls(b *testing.B, cs *sdk.ClientSession, tool string, args map[string]any) {
	b.Helper()
	ctx := context.Background()
	call := func() {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %v", tool, err, res)
		}
	}
	call() // warm: caches, the first handle
	b.ResetTimer()
	for b.Loop() {
		call()
	}
}

// gloss_status is the first call an agent makes: it must not start git.
func BenchmarkStatusCall(b *testing.B) {
	fixtures.Binary(b)
	fx := fixtures.NewRepo(b)
	fx.Commit("first", map[string]string{"a.txt": "a\n"})
	fx.Commit("second", map[string]string{"a.txt": "b\n"})
	fx.Git("remote", "add", "origin", "https://example.com/x.git")
	fx.MustGloss("init", "--no-mcp")
	benchCalls(b, benchSession(b, fx.Dir), "gloss_status", nil)
}

// gloss_read of an annotated function, warm, through the session's handle.
func BenchmarkReadCall(b *testing.B) {
	fixtures.Binary(b)
	fx := fixtures.NewRepo(b)
	fx.MustGloss("init", "--no-mcp")
	src := "package app\n\n// Handle answers.\nfunc Handle() int {\n\treturn 1\n}\n"
	fx.Commit("add handle", map[string]string{"app.go": src})
	fx.MustGloss("annotate", "--file", "app.go", "--anchor", "Handle", "--intent", "answer fast")
	fx.Commit("handle returns 2", map[string]string{"app.go": src[:len(src)-4] + "2\n}\n"})
	benchCalls(b, benchSession(b, fx.Dir), "gloss_read", map[string]any{"path": "app.go", "anchor": "Handle"})
}
