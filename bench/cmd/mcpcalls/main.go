// Command mcpcalls times MCP tool calls the way an agent makes them: one
// `git-gloss mcp` session over stdio (the official go-sdk client), the same
// call N times in a row, p50/p95/max per call. Beside it, in the same run,
// the git command that answers the nearest question (for gloss_read,
// `git blame --porcelain -L` of the same lines, a process per call), so a
// figure reads as a ratio on a loaded machine too.
//
//	go run ./bench/cmd/mcpcalls -bin bin/git-gloss -repo /tmp/git \
//	    -tool gloss_read -args '{"path":"diff.c","anchor":"diff_flush"}' -blame diff.c:7164,7270
//	go run ./bench/cmd/mcpcalls -bin bin/git-gloss -repo /tmp/two-commits -tool gloss_status
//
// The repository is used as it is: run it on a clone, never on a mirror.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/bench"
)

func main() {
	bin := flag.String("bin", "bin/git-gloss", "the git-gloss binary")
	repo := flag.String("repo", ".", "repository to serve")
	tool := flag.String("tool", "gloss_read", "tool to call")
	args := flag.String("args", "{}", "the tool's arguments (JSON)")
	n := flag.Int("n", 300, "calls")
	warm := flag.Int("warm", 3, "untimed calls first (caches, page cache)")
	blame := flag.String("blame", "", "FILE:START,END: also time git blame --porcelain -L START,END FILE, N times")
	serverArgs := flag.String("server-args", "", "extra arguments for git-gloss mcp (space-separated)")
	flag.IntVar(&concurrency, "concurrency", 1, "calls in flight at once (the N calls are shared among them)")
	flag.Parse()
	if err := run(*bin, *repo, *tool, *args, *n, *warm, *blame, strings.Fields(*serverArgs)); err != nil {
		fmt.Fprintln(os.Stderr, "mcpcalls:", err)
		os.Exit(1)
	}
}

var concurrency int

func run(bin, repo, tool, argsJSON string, n, warm int, blame string, serverArgs []string) error {
	bin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(argsJSON), &args); err != nil {
		return fmt.Errorf("-args: %w", err)
	}
	r, err := bench.MCPCalls(context.Background(), bin, repo, tool, args, n, warm, concurrency, serverArgs...)
	if err != nil {
		return err
	}
	fmt.Printf("session start (process + initialize): %s\n", ms(r.Start))
	fmt.Printf("first %s call: %s\n", tool, ms(r.First))
	label := "mcp " + tool
	if concurrency > 1 {
		label += fmt.Sprintf(" (%d in flight)", concurrency)
	}
	fmt.Printf("%-50s n=%d p50=%s p95=%s max=%s\n", label, r.Calls, ms(r.P50), ms(r.P95), ms(r.Max))
	fmt.Printf("%-50s %s for %d calls\n", "", ms(r.Total), n)
	if blame == "" {
		return nil
	}
	file, rng, ok := strings.Cut(blame, ":")
	if !ok {
		return fmt.Errorf("-blame wants FILE:START,END")
	}
	var times []time.Duration
	for range n {
		t0 := time.Now()
		c := exec.Command("git", "blame", "--porcelain", "-L", rng, "--", file)
		c.Dir = repo
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("git blame: %v: %s", err, out)
		}
		times = append(times, time.Since(t0))
	}
	report("git blame --porcelain -L "+rng+" "+file, times)
	return nil
}

func report(label string, times []time.Duration) {
	s := slices.Clone(times)
	slices.Sort(s)
	q := func(p float64) time.Duration { return s[min(len(s)-1, int(p*float64(len(s))))] }
	fmt.Printf("%-50s n=%d p50=%s p95=%s max=%s\n", label, len(s), ms(q(0.50)), ms(q(0.95)), ms(s[len(s)-1]))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000) }
