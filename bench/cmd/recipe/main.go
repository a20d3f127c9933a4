// Command recipe measures `git gloss read` against `git blame -L` on a
// clone of a real repository, set up the way the README's read figures
// were measured (see bench.FzfRecipe):
//
//	go run ./bench/cmd/recipe -src ~/src/fzf   # or: make bench REPO=~/src/fzf
//
// The clone lives in the temp dir (-dir to choose) and is reused between
// runs; the repository given with -src is only read.
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
	runs := flag.Int("runs", 11, "timed runs per side")
	flag.Parse()
	if *src == "" {
		fmt.Fprintln(os.Stderr, "recipe: -src is required")
		os.Exit(2)
	}
	if *dir == "" {
		abs, _ := filepath.Abs(*src)
		sum := sha1.Sum([]byte(abs))
		*dir = filepath.Join(os.TempDir(), "gloss-bench-recipe-"+hex.EncodeToString(sum[:5]))
	}
	if err := measure(*src, *dir, *bin, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "recipe:", err)
		os.Exit(1)
	}
}

func measure(src, dir, bin string, runs int) error {
	ctx := context.Background()
	binary, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	if abs, err := filepath.Abs(src); err == nil {
		if d, err := filepath.Abs(dir); err == nil && d == abs {
			return fmt.Errorf("the clone directory must not be the source repository")
		}
	}
	e, err := bench.PrepareRecipe(ctx, bench.FzfRecipe, src, dir, binary)
	if err != nil {
		return err
	}
	fmt.Printf("clone %s at %s: %s %s, lines %d-%d\n\n", e.Dir, e.Rev, e.File, e.Anchor, e.Start, e.End)
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "case\tgloss\tgit blame\tgloss/git\tgloss CPU\tgit CPU\tCPU gloss/git\t")
	for _, c := range e.Cases() {
		fmt.Fprintf(os.Stderr, "measuring %s ...\n", c.Name)
		r, err := e.Measure(ctx, c, runs)
		if err != nil { // an older binary may lack a command: say so and go on
			fmt.Fprintln(os.Stderr, "recipe:", c.Name+":", err)
			fmt.Fprintf(w, "%s\tfailed\t\t\t\t\t\t\n", c.Name)
			continue
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%.2fx\t%s\t%s\t%.2fx\t\n", r.Name, r.Gloss.Round(100000), r.Git.Round(100000), r.Ratio,
			r.GlossCPU.Round(100000), r.GitCPU.Round(100000), r.CPURatio)
	}
	w.Flush()
	fmt.Printf("\nwhole processes, paired, medians of %d runs; gloss/git below 1 means gloss is faster.\n", runs)
	fmt.Println("CPU is user+system time of the process and its children; on a loaded machine it is steadier than wall time.")
	return nil
}
