// Command delivery is the delivery benchmark of decisions (bench.DeliveryRecipe):
// on a clone of each real repository given, decisions recorded on
// functions by commits years old, then the agent's pre-edit hook for an
// edit inside each function today. It prints how many of the decisions
// in force reached the agent, how many retired ones did (none should),
// what was missed and why, and the hook's p50/p95 on the largest file:
//
//	go run ./bench/cmd/delivery -src ~/src/fzf -src ~/src/flask
//
// Each clone lives in the temp dir and is made afresh; the repositories
// given with -src are only read.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gloss-dev/gloss/bench"
)

type sources []string

func (s *sources) String() string     { return strings.Join(*s, ",") }
func (s *sources) Set(v string) error { *s = append(*s, v); return nil }

func main() {
	var srcs sources
	flag.Var(&srcs, "src", "repository to clone (repeatable): a clone of fzf (956562da) or flask (2ac89889)")
	bin := flag.String("bin", "bin/git-gloss", "the git-gloss to measure")
	runs := flag.Int("runs", 5, "timed rounds of the hook on the largest file")
	flag.Parse()
	if len(srcs) == 0 {
		fmt.Fprintln(os.Stderr, "delivery: at least one -src is required")
		os.Exit(2)
	}
	binary, err := filepath.Abs(*bin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "delivery:", err)
		os.Exit(1)
	}
	failed := false
	for _, src := range srcs {
		if err := measure(src, binary, *runs); err != nil {
			fmt.Fprintln(os.Stderr, "delivery:", err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

func measure(src, binary string, runs int) error {
	ctx := context.Background()
	rc, ok := bench.DeliveryRecipeFor(ctx, src)
	if !ok {
		return fmt.Errorf("%s: not a repository the delivery benchmark knows (fzf at 956562da, flask at 2ac89889)", src)
	}
	dir := filepath.Join(os.TempDir(), "gloss-bench-delivery-"+rc.Name)
	e, err := bench.PrepareDelivery(ctx, rc, src, dir, binary)
	if err != nil {
		return err
	}
	r, err := e.Measure(ctx, runs)
	if err != nil {
		return err
	}
	fmt.Printf("delivery on %s at %s: %d functions, decisions recorded a median of %.1f years before, functions since edited by a median of %d later commit(s)\n",
		rc.Name, rc.Rev, r.Functions, r.AgeMedian.Hours()/24/365, r.LaterMedian)
	fmt.Printf("  in force: %d of %d delivered (%.1f%%) at the default budget\n", r.Delivered, r.InForce, 100*float64(r.Delivered)/float64(max(r.InForce, 1)))
	fmt.Printf("  retired (flagged, superseded, expired, deleted): %d of %d delivered\n", r.Leaked, r.Retired)
	fmt.Printf("  pre-edit hook on %s (%d lines), warm, process start included: p50 %.1f ms, p95 %.1f ms wall, %.1f ms CPU p50 (%d runs)\n",
		r.LargestFile, r.LargestLines, ms(r.P50), ms(r.P95), ms(r.CPU50), r.Runs)
	for _, m := range r.Missed {
		fmt.Printf("  missed: %s\n", m)
	}
	return nil
}

func ms(d interface{ Seconds() float64 }) float64 { return d.Seconds() * 1000 }
