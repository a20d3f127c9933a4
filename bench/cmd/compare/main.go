// Command compare times gloss against the git CLI doing the same jobs on
// one repository, in one run, and prints the ratios.
//
//	go run ./bench/cmd/compare                  # generated 3,000-commit repository
//	go run ./bench/cmd/compare -repo ~/src/git  # any real repository (measured on a clone)
package main

import (
	"crypto/sha1"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"text/tabwriter"

	"github.com/gloss-dev/gloss/bench"
	"github.com/gloss-dev/gloss/fixtures"
)

func main() {
	repo := flag.String("repo", "", "repository to measure (default: a generated one, kept in the temp dir)")
	runs := flag.Int("runs", 15, "timed runs per side")
	notesMax := flag.Int("notes", 3000, "commits to annotate")
	bin := flag.String("bin", "", "a built git-gloss, to time the command itself (default: bin/git-gloss if present)")
	flag.Parse()

	dir := *repo
	if dir != "" {
		// The harness writes notes: measure a clone, never the repository given.
		clone, err := cloneOnce(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "compare:", err)
			os.Exit(1)
		}
		dir = clone
	}
	if dir == "" {
		dir = bench.DefaultDir()
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			fmt.Fprintf(os.Stderr, "generating %d commits in %s ...\n", fixtures.DefaultHistory.Commits, dir)
		}
	}
	env, err := bench.Prepare(dir, fixtures.DefaultHistory, *notesMax)
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
	defer env.Close()
	env.Binary = *bin
	if env.Binary == "" {
		if p, err := filepath.Abs("bin/git-gloss"); err == nil {
			if _, err := os.Stat(p); err == nil {
				env.Binary = p
			}
		}
	}
	fmt.Printf("repository %s: %d commits, hot file %s\n\n", env.Dir, len(env.Commits), env.HotFile)

	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "case\tgloss\tgit CLI\tgit/gloss\t")
	failed := false
	for _, c := range env.Cases() {
		fmt.Fprintf(os.Stderr, "measuring %s ...\n", c.Name)
		r := bench.Measure(c, *runs)
		if r.GlossErr != nil || r.GitErr != nil {
			fmt.Fprintf(w, "%s\terror\t\t\t\n", r.Name)
			fmt.Fprintln(os.Stderr, "  gloss:", r.GlossErr, " git:", r.GitErr)
			failed = true
			continue
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%.2fx\t\n", r.Name, r.Gloss.Round(10000), r.Git.Round(10000), r.Ratio)
	}
	w.Flush()
	fmt.Println("\ngit/gloss above 1 means gloss is faster (medians of", *runs, "runs each).")
	if failed {
		os.Exit(1)
	}
}

// cloneOnce clones src into the temp dir, once per source, and returns the
// clone's path.
func cloneOnce(src string) (string, error) {
	abs, err := filepath.Abs(src)
	if err != nil {
		return "", err
	}
	sum := sha1.Sum([]byte(abs))
	dir := filepath.Join(os.TempDir(), "gloss-bench-compare-"+hex.EncodeToString(sum[:5]))
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return dir, nil
	}
	if out, err := exec.Command("git", "clone", "-q", abs, dir).CombinedOutput(); err != nil {
		return "", fmt.Errorf("clone %s: %v: %s", src, err, out)
	}
	return dir, nil
}
