// Command recipe measures `git gloss read` against `git blame -L` on a
// clone of a real repository, or of a generated 100,000-commit history,
// set up the way docs/speed.md describes (see bench.Recipe), what
// gloss's hooks add to a 10-file commit there, and gloss_read's p50 over
// 300 calls in one MCP session:
//
//	go run ./bench/cmd/recipe -generated       # the generated history (make bench)
//	go run ./bench/cmd/recipe -src ~/src/git   # or: make bench REPO=~/src/git
//	go run ./bench/cmd/recipe -src ~/src/fzf -src ~/src/git   # both in one run
//
// The recipe is chosen by the commit it reads at: fzf at 956562da, git/git
// at 3f664917. Each clone lives in the temp dir (-dir to choose, with one
// -src) and is reused between runs; a repository given with -src is only
// read. The generated history is made once (it takes minutes) and kept
// there too. With more than one repository the run ends with a table of
// the figures side by side and the machine's load while they were taken.
package main

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gloss-dev/gloss/bench"
	"github.com/gloss-dev/gloss/fixtures"
)

func main() {
	var srcs []string
	flag.Func("src", "repository to clone (repeat it to measure several in one run)", func(s string) error {
		srcs = append(srcs, s)
		return nil
	})
	generated := flag.Bool("generated", false, "measure the generated 100,000-commit history too")
	dir := flag.String("dir", "", "where the throwaway clone is kept (default: in the temp dir, one per source; only with one source)")
	bin := flag.String("bin", "bin/git-gloss", "the git-gloss to time")
	o := options{}
	flag.IntVar(&o.runs, "runs", 11, "timed runs per side (0: only the hooks)")
	flag.BoolVar(&o.all, "all", false, "every read case, not only the first and the warm read")
	flag.IntVar(&o.hookRuns, "hook-runs", 9, "timed commits per side for the hook cost (0: skip)")
	flag.IntVar(&o.mcpCalls, "mcp-calls", 300, "timed gloss_read calls in one MCP session (0: skip)")
	flag.Parse()
	if err := run(srcs, *generated, *dir, *bin, o); err != nil {
		fmt.Fprintln(os.Stderr, "recipe:", err)
		os.Exit(1)
	}
}

// options are the measuring flags, the same for every repository.
type options struct {
	runs, hookRuns, mcpCalls int
	all                      bool
}

// target is one repository to measure: its recipe, the source and the
// clone measured.
type target struct {
	rc       bench.Recipe
	src, dir string
}

// run measures every target in turn, then prints them side by side.
func run(srcs []string, generated bool, dir, bin string, o options) error {
	targets, err := targetsOf(srcs, generated, dir)
	if err != nil {
		return err
	}
	var reports []*report
	for _, t := range targets {
		rep, err := measure(t, bin, o)
		if err != nil {
			return fmt.Errorf("%s: %w", t.src, err)
		}
		reports = append(reports, rep)
	}
	if len(reports) > 1 {
		printSummary(os.Stdout, reports)
	}
	return nil
}

// targetsOf picks each source's recipe and clone directory.
func targetsOf(srcs []string, generated bool, dir string) ([]target, error) {
	if len(srcs) == 0 && !generated {
		return nil, errors.New("-src or -generated is required")
	}
	if n := len(srcs); dir != "" && (n > 1 || n == 1 && generated) {
		return nil, errors.New("-dir names one clone: give it with one source only")
	}
	var out []target
	if generated {
		src := filepath.Join(os.TempDir(), fmt.Sprintf("gloss-bench-history-%d-%d", bench.Generated100k.Commits, bench.Generated100k.Seed))
		if err := generate(src); err != nil {
			return nil, err
		}
		out = append(out, target{rc: bench.GeneratedRecipe, src: src, dir: cloneDir(src, dir)})
	}
	for _, src := range srcs {
		rc, err := choose(src)
		if err != nil {
			return nil, err
		}
		out = append(out, target{rc: rc, src: src, dir: cloneDir(src, dir)})
	}
	return out, nil
}

// cloneDir is where src's throwaway clone is kept: dir, or one per
// source in the temp dir.
func cloneDir(src, dir string) string {
	if dir != "" {
		return dir
	}
	abs, _ := filepath.Abs(src)
	sum := sha1.Sum([]byte(abs))
	return filepath.Join(os.TempDir(), "gloss-bench-recipe-"+hex.EncodeToString(sum[:5]))
}

// choose picks the recipe whose commit src has.
func choose(src string) (bench.Recipe, error) {
	for _, rc := range bench.Recipes {
		if exec.Command("git", "-C", src, "cat-file", "-e", rc.Rev+"^{commit}").Run() == nil {
			return rc, nil
		}
	}
	return bench.Recipe{}, fmt.Errorf("%s has none of the commits the recipes read at (fzf 956562da, git/git 3f664917)", src)
}

// generate makes the generated history at dir unless it is there.
func generate(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, ".git", "gloss-bench-generated")); err == nil {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "generating %d commits in %s (once; minutes) ...\n", bench.Generated100k.Commits, dir)
	start := time.Now()
	if _, err := fixtures.GenerateHistory(dir, bench.Generated100k); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "generated in %s\n", time.Since(start).Round(time.Second))
	return os.WriteFile(filepath.Join(dir, ".git", "gloss-bench-generated"), nil, 0o644)
}

// report is what one repository measured, for the summary.
type report struct {
	name       string // the recipe's repository, as the summary heads it
	reads      []bench.RecipeResult
	mcp        *bench.MCPResult
	hooks      []*bench.HookResult // after a hooked commit, after an unhooked one
	loadBefore string              // /proc/loadavg's 1-minute figure around the run
	loadAfter  string
}

func measure(t target, bin string, o options) (*report, error) {
	ctx := context.Background()
	binary, err := filepath.Abs(bin)
	if err != nil {
		return nil, err
	}
	if abs, err := filepath.Abs(t.src); err == nil {
		if d, err := filepath.Abs(t.dir); err == nil && d == abs {
			return nil, fmt.Errorf("the clone directory must not be the source repository")
		}
	}
	fmt.Fprintf(os.Stderr, "preparing %s (a first run clones, runs init and waits for the graph it builds) ...\n", t.dir)
	e, err := bench.PrepareRecipe(ctx, t.rc, t.src, t.dir, binary)
	if err != nil {
		return nil, err
	}
	rep := &report{name: recipeName(t.rc), loadBefore: loadAverage()}
	commits, _ := exec.Command("git", "-C", e.Dir, "rev-list", "--count", "HEAD").Output()
	fmt.Printf("clone %s at %s (%s commits): %s %s, lines %d-%d\n\n", e.Dir, e.Rev, strings.TrimSpace(string(commits)), e.File, e.Anchor, e.Start, e.End)
	rep.reads = measureReads(ctx, e, o)
	if o.mcpCalls > 0 {
		fmt.Fprintf(os.Stderr, "measuring %d gloss_read calls in one MCP session ...\n", o.mcpCalls)
		m, err := e.MeasureMCP(ctx, o.mcpCalls)
		if err != nil {
			return nil, err
		}
		rep.mcp = &m
		printMCP(e, m)
	}
	if o.hookRuns > 0 {
		for _, afterUnhooked := range []bool{false, true} {
			h, err := measureHooks(ctx, e, o.hookRuns, afterUnhooked)
			if err != nil {
				return nil, err
			}
			rep.hooks = append(rep.hooks, h)
		}
	}
	rep.loadAfter = loadAverage()
	return rep, nil
}

// measureReads times the read cases and prints them as a table.
func measureReads(ctx context.Context, e *bench.RecipeEnv, o options) []bench.RecipeResult {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "case\tgloss\tgit (blame -L, or the same)\tgloss/git\tgloss CPU\tgit CPU\tCPU gloss/git\t")
	cases := e.FirstAndWarm()
	if o.all {
		cases = e.Cases()
	}
	if o.runs <= 0 { // the hooks alone
		cases = nil
	}
	var out []bench.RecipeResult
	for _, c := range cases {
		fmt.Fprintf(os.Stderr, "measuring %s ...\n", c.Name)
		r, err := e.Measure(ctx, c, o.runs)
		if err != nil { // an older binary may lack a command: say so and go on
			fmt.Fprintln(os.Stderr, "recipe:", c.Name+":", err)
			fmt.Fprintf(w, "%s\tfailed\t\t\t\t\t\t\n", c.Name)
			continue
		}
		out = append(out, r)
		fmt.Fprintf(w, "%s\t%s\t%s\t%.2fx\t%s\t%s\t%.2fx\t\n", r.Name, r.Gloss.Round(100000), r.Git.Round(100000), r.Ratio,
			r.GlossCPU.Round(100000), r.GitCPU.Round(100000), r.CPURatio)
	}
	w.Flush()
	fmt.Printf("\nwhole processes, paired, medians of %d runs (the process start: at least %d); gloss/git below 1 means gloss is faster.\n", o.runs, bench.StartRuns)
	fmt.Println("CPU is user+system time of the process and its children; on a loaded machine it is steadier than wall time.")
	return out
}

func printMCP(e *bench.RecipeEnv, m bench.MCPResult) {
	fmt.Printf("\nmcp: gloss_read %s --anchor %s in one git-gloss mcp session (go-sdk client over stdio), %d calls after 4 untimed:\n", e.File, e.Anchor, m.Calls)
	fmt.Printf("  p50 %s, p95 %s, max %s (session start %s, first call %s); target p50 <= %s: %s\n",
		ms(m.P50), ms(m.P95), ms(m.Max), ms(m.Start), ms(m.First), ms(mcpReadTarget), within(m.P50 <= mcpReadTarget))
}

// measureHooks prints what the hooks add to a 10-file commit made after
// a hooked commit or, afterUnhooked, after one made without the hooks.
func measureHooks(ctx context.Context, e *bench.RecipeEnv, hookRuns int, afterUnhooked bool) (*bench.HookResult, error) {
	after := "a hooked commit"
	if afterUnhooked {
		after = "a commit made without the hooks"
	}
	fmt.Fprintf(os.Stderr, "measuring the hooks on a 10-file commit after %s ...\n", after)
	h, err := e.MeasureHooks(ctx, 10, hookRuns, afterUnhooked)
	if err != nil {
		return nil, err
	}
	fmt.Printf("\nhooks after %s: git commit of the %d largest source files (%d KiB), each changed, medians of %d paired commits:\n", after, len(h.Files), h.FileBytes/1024, hookRuns)
	fmt.Printf("  with gloss's hooks %s (CPU %s), hooks disabled %s (CPU %s): hooks add %s p50 (CPU %s), %.2fx\n",
		h.With.Round(100000), h.WithCPU.Round(100000), h.Without.Round(100000), h.WithoutCPU.Round(100000),
		h.Added.Round(100000), h.AddedCPU.Round(100000), h.Ratio)
	fmt.Printf("  target: the hooks add <= %s p50: %s\n", ms(hookTarget), within(h.Added <= hookTarget))
	fmt.Printf("  %d of the %d timed hooked commits left their work to the background worker (%d of the untimed ones); the worker was waited for, untimed, between commits\n", h.DeferredRuns, hookRuns, h.UntimedDeferred)
	if h.Deferred {
		fmt.Printf("  last worker run: %s\n", h.WorkerLog)
	}
	return &h, nil
}

func within(ok bool) string {
	if ok {
		return "within"
	}
	return "over"
}

// hookTarget is issue 18's bound on what post-commit and
// prepare-commit-msg add to a 10-file commit (p50).
const hookTarget = 100 * time.Millisecond

// mcpReadTarget is issue 18's bound on a warm gloss_read (p50 of 300 calls).
const mcpReadTarget = 30 * time.Millisecond

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
