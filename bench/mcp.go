package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCPResult is the timing of one MCP tool called many times in one
// `git-gloss mcp` session, the way an agent calls it.
type MCPResult struct {
	Tool          string
	Calls         int
	Concurrency   int
	Start         time.Duration // process start and initialize
	First         time.Duration // the first call, before the warm-up calls
	P50, P95, Max time.Duration
	Total         time.Duration // wall clock of the timed calls
}

// MCPCalls starts `binary mcp extra...` in dir (the git-gloss under test
// first on PATH), connects the official go-sdk client over stdio, calls
// tool once (First), warm more times untimed, then n times timed, with
// concurrency calls in flight at once (at least 1).
func MCPCalls(ctx context.Context, binary, dir, tool string, args map[string]any, n, warm, concurrency int, extra ...string) (MCPResult, error) {
	r := MCPResult{Tool: tool, Calls: n, Concurrency: max(1, concurrency)}
	if n <= 0 {
		return r, fmt.Errorf("mcp: no calls to time")
	}
	cmd := exec.CommandContext(ctx, binary, append([]string{"mcp"}, extra...)...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	if binDir != "" {
		cmd.Env = append(os.Environ(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "gloss-bench", Version: "1"}, nil)
	start := time.Now()
	session, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return r, err
	}
	defer session.Close()
	r.Start = time.Since(start)
	call := func() (time.Duration, error) {
		t0 := time.Now()
		res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		d := time.Since(t0)
		if err != nil {
			return d, err
		}
		if res.IsError {
			return d, fmt.Errorf("%s: %v", tool, res.Content)
		}
		return d, nil
	}
	if r.First, err = call(); err != nil {
		return r, err
	}
	for range warm {
		if _, err := call(); err != nil {
			return r, err
		}
	}
	times := make([]time.Duration, n)
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	errs := make(chan error, r.Concurrency)
	var wg sync.WaitGroup
	wall := time.Now()
	for range r.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				d, err := call()
				if err != nil {
					errs <- err
					return
				}
				times[i] = d
			}
		}()
	}
	wg.Wait()
	r.Total = time.Since(wall)
	close(errs)
	if err := <-errs; err != nil {
		return r, err
	}
	slices.Sort(times)
	q := func(p float64) time.Duration { return times[min(len(times)-1, int(p*float64(len(times))))] }
	r.P50, r.P95, r.Max = q(0.50), q(0.95), times[len(times)-1]
	return r, nil
}

// MeasureMCP times gloss_read of the recipe's anchor, n calls in one MCP
// session after a few warm ones: what an agent waits for per read once the
// server runs.
func (e *RecipeEnv) MeasureMCP(ctx context.Context, n int) (MCPResult, error) {
	args := map[string]any{"path": e.File, "anchor": e.Anchor}
	return MCPCalls(ctx, e.Binary, e.Dir, "gloss_read", args, n, 3, 1)
}
