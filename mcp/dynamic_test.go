package mcp

import (
	"context"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gloss-dev/gloss/toolsets"
)

// Enabling toolsets while other calls run is safe (make test runs this
// package under -race): the registry's maps are shared with the
// middleware that checks required arguments.
func TestEnableToolsetsConcurrently(t *testing.T) {
	s, err := New(Options{Dir: t.TempDir(), Dynamic: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var wg sync.WaitGroup
	for _, name := range append(toolsets.Names(), toolsets.Names()...) {
		wg.Add(2)
		go func() {
			defer wg.Done()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "enable_toolset", Arguments: map[string]any{"toolset": name}})
			if err != nil || res.IsError {
				t.Errorf("enable_toolset %s: %v %v", name, err, res)
			}
		}()
		go func() {
			defer wg.Done()
			if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "list_toolsets"}); err != nil {
				t.Errorf("list_toolsets: %v", err)
			}
		}()
	}
	wg.Wait()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) < 55 {
		t.Errorf("%d tools after enabling every toolset", len(res.Tools))
	}
}
