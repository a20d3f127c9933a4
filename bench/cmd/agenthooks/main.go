// Command agenthooks times each agent hook event (`git gloss agent hook`)
// as a whole process on a clone of a real repository set up as the read
// recipe sets it up (see bench.FzfRecipe: fzf's src/terminal.go, records
// with a constraint on Terminal.printItem):
//
//	go run ./bench/cmd/agenthooks -src ~/src/fzf
//
// The clone lives in the temp dir (-dir to choose) and is reused; the
// repository given with -src is only read.
package main

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/gloss-dev/gloss/bench"
)

func main() {
	src := flag.String("src", "", "repository to clone (required)")
	dir := flag.String("dir", "", "where the throwaway clone is kept (default: in the temp dir, one per source)")
	bin := flag.String("bin", "bin/git-gloss", "the git-gloss to time")
	runs := flag.Int("runs", 41, "timed runs per event")
	flag.Parse()
	if *src == "" {
		fmt.Fprintln(os.Stderr, "agenthooks: -src is required")
		os.Exit(2)
	}
	if *dir == "" {
		abs, _ := filepath.Abs(*src)
		sum := sha1.Sum([]byte(abs))
		*dir = filepath.Join(os.TempDir(), "gloss-bench-recipe-"+hex.EncodeToString(sum[:5]))
	}
	if err := measure(*src, *dir, *bin, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "agenthooks:", err)
		os.Exit(1)
	}
}

func measure(src, dir, bin string, runs int) error {
	ctx := context.Background()
	binary, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	e, err := bench.PrepareRecipe(ctx, bench.FzfRecipe, src, dir, binary)
	if err != nil {
		return err
	}
	cases, err := e.AgentHookCases()
	if err != nil {
		return err
	}
	fmt.Printf("clone %s at %s: %s %s, lines %d-%d\n\n", e.Dir, e.Rev, e.File, e.Anchor, e.Start, e.End)
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "event\tp50\tp95\tCPU p50\tanswer bytes\t")
	fmt.Fprintf(os.Stderr, "measuring %d events, %d rounds ...\n", len(cases), runs+1)
	results, err := e.MeasureAgentHooks(ctx, cases, runs)
	if err != nil {
		return err
	}
	for _, r := range results {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t\n", r.Name, r.P50.Round(100000), r.P95.Round(100000), r.CPU50.Round(100000), r.Bytes)
	}
	w.Flush()
	fmt.Printf("\nwhole processes (process start included), %d timed rounds after one warm-up round, each round\n", runs)
	fmt.Println("running every event once (so load changes weigh on all alike);")
	fmt.Println("CPU is user+system time of the process; on a loaded machine it is steadier than wall time.")
	return nil
}
