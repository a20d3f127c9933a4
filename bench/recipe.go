package bench

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/treesitter"
)

// Recipe is the read benchmark of a real repository: a clone of it at Rev,
// set up with `git gloss init`, one region record (anchor Anchor) on each
// commit that blame names for the anchor's lines, and a commit-level record
// on each of the newest Summaries commits. It times `git gloss read --anchor`
// against `git blame --porcelain -L` of the same lines, as whole processes.
type Recipe struct {
	Rev       string // commit the clone is read at
	File      string
	Anchor    string
	Summaries int // commit-level records, on the newest commits
}

// FzfRecipe is the setup docs/speed.md's fzf read figures are measured in:
// junegunn/fzf at 956562da (3,726 commits), src/terminal.go (8,839 lines),
// Terminal.printItem (lines 3963-4152, 30 blamed commits).
var FzfRecipe = Recipe{Rev: "956562da", File: "src/terminal.go", Anchor: "Terminal.printItem", Summaries: 500}

// GitRecipe is a large real repository: git/git at 3f664917 (81,966
// commits, a 496 MiB pack), diff.c (7,858 lines), diff_flush.
var GitRecipe = Recipe{Rev: "3f664917c20733253934d3c4ff8330a7a60f27b7", File: "diff.c", Anchor: "diff_flush", Summaries: 500}

// GeneratedRecipe is read on the generated 100,000-commit history
// (Generated100k): a file that changes every 13 commits or so, whose
// latest 100 changes span about 1,300 commits.
var GeneratedRecipe = Recipe{Rev: "main", File: "src/pkg01/file001.go", Anchor: "F1_2", Summaries: 500}

// Generated100k shapes the generated long history: 100,000 commits, 40
// files, 3 of them changed by every commit.
var Generated100k = fixtures.HistoryOptions{Commits: 100_000, Files: 40, Lines: 400, HotLines: 1000, EditsPerFile: 3, FilesPerEdit: 3, Seed: 1}

// Recipes are the recipes a source repository is matched against, by
// the commit they read at.
var Recipes = []Recipe{FzfRecipe, GitRecipe}

// RecipeEnv is a clone prepared by a Recipe.
type RecipeEnv struct {
	Recipe
	Dir     string // the clone's work tree
	GitDir  string
	Binary  string
	Start   int // the anchor's lines at Rev
	End     int
	Blamed  int // commits blame names for them
	Records int // records written
	// Attributed is the commits given a line attribution record (the
	// commits blame names for the whole file).
	Attributed int
}

// PrepareRecipe clones src into dir (a throwaway directory: the
// repository measured is never src itself) and sets it up. A dir prepared
// before is reused as it is, so the blame cache it holds stays warm.
func PrepareRecipe(ctx context.Context, rc Recipe, src, dir, binary string) (*RecipeEnv, error) {
	e := &RecipeEnv{Recipe: rc, Dir: dir, Binary: binary, GitDir: filepath.Join(dir, ".git")}
	binDir = filepath.Dir(binary)
	// The marker is written last: a setup that stopped half way is redone.
	ready := filepath.Join(e.GitDir, "gloss-bench-ready")
	_, err := os.Stat(ready)
	fresh := err != nil
	if fresh {
		if err := os.RemoveAll(dir); err != nil {
			return nil, err
		}
		if err := run(ctx, "", "git", "clone", "-q", "--no-checkout", src, dir); err != nil {
			return nil, err
		}
	}
	if err := run(ctx, dir, "git", "cat-file", "-e", rc.Rev+"^{commit}"); err != nil {
		return nil, fmt.Errorf("%s has no commit %s: %w", src, rc.Rev, err)
	}
	if fresh {
		// The clone's own remote would name the source: a push must not
		// reach it.
		_ = run(ctx, dir, "git", "remote", "remove", "origin")
		if err := run(ctx, dir, "git", "checkout", "-q", "-B", "gloss-bench", rc.Rev); err != nil {
			return nil, err
		}
		if err := run(ctx, dir, binary, "init"); err != nil {
			return nil, err
		}
	}
	repo, err := gitops.Open(dir)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	if err := e.resolve(ctx, repo); err != nil {
		return nil, err
	}
	// init builds the blame graph, on a large repository in a background
	// process that may not have taken its lock yet: the reads measured
	// are those after it.
	for deadline := time.Now().Add(15 * time.Minute); !repo.HasBlameGraph(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s: no blame graph 15 minutes after init", dir)
		}
	}
	if err := e.waitFills(); err != nil {
		return nil, err
	}
	// The blame graph is built here, as a repository in use has it from
	// its first cache-fill on; a refresh of a current one costs little.
	if err := repo.RefreshBlameGraph(ctx); err != nil {
		return nil, err
	}
	if fresh {
		if err := e.annotate(ctx, repo); err != nil {
			return nil, err
		}
		if err := os.WriteFile(ready, []byte(src+"\n"), 0o644); err != nil {
			return nil, err
		}
	}
	if err := e.attribute(ctx, repo); err != nil {
		return nil, err
	}
	return e, nil
}

// run runs a command in dir and reports its output when it fails.
func run(ctx context.Context, dir, name string, args ...string) error {
	_, err := runTimed(ctx, dir, name, args...)
	return err
}

// runTimed is run that also returns the CPU time (user and system) the
// command used, children included.
func runTimed(ctx context.Context, dir, name string, args ...string) (time.Duration, error) {
	cmd := execCommand(ctx, dir, name, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

// execCommand is a command in dir with the git-gloss under test first on
// PATH, so that the hook shims run it.
func execCommand(ctx context.Context, dir, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	if binDir != "" {
		cmd.Env = append(os.Environ(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	return cmd
}

// binDir is the directory of the git-gloss under test (set by
// PrepareRecipe), put first on PATH for the hooks.
var binDir string

// resolve finds the anchor's lines at Rev.
func (e *RecipeEnv) resolve(ctx context.Context, repo *gitops.Repo) error {
	content, err := repo.ReadFile(e.Rev, e.File)
	if err != nil {
		return err
	}
	found := treesitter.Find(treesitter.Outline(e.File, content), e.Anchor)
	if len(found) != 1 {
		return fmt.Errorf("%s: anchor %s found %d times", e.File, e.Anchor, len(found))
	}
	e.Start, e.End = found[0].Start, found[0].End
	return nil
}

// annotate writes the records: a region of the anchor on every blamed
// commit, covering the lines blame says that commit wrote (numbered as at
// that commit), and a commit-level record on each of the newest commits.
func (e *RecipeEnv) annotate(ctx context.Context, repo *gitops.Repo) error {
	b, err := repo.Blame(ctx, e.Rev, e.File, e.Start, e.End)
	if err != nil {
		return err
	}
	type span struct {
		file   string
		lo, hi int
	}
	spans := map[string]*span{}
	for _, l := range b.Lines {
		s := spans[l.Commit]
		if s == nil {
			spans[l.Commit] = &span{file: l.OrigPath, lo: l.OrigLine, hi: l.OrigLine}
			continue
		}
		if l.OrigPath == s.file {
			s.lo, s.hi = min(s.lo, l.OrigLine), max(s.hi, l.OrigLine)
		}
	}
	recs := map[string][]any{}
	author := annotate.Author{Kind: "agent", Name: "bench"}
	for _, c := range slices.Sorted(maps.Keys(spans)) {
		s := spans[c]
		recs[c] = append(recs[c], annotate.Region{Header: notes.NewHeader(annotate.Schema), Kind: annotate.KindRegion,
			Commit: c, File: s.file, Anchor: &annotate.Anchor{Kind: "method", Name: e.Anchor},
			Lines:       annotate.Lines{Start: s.lo, End: s.hi},
			Intent:      "draw one item of the list: prefix, highlighted match, and the column it fits in",
			Constraints: []annotate.Constraint{{Text: "never allocate per character on the render path", Source: "author"}},
			Author:      author, Source: annotate.SourceAgent})
	}
	e.Blamed = len(spans)
	log, err := repo.Log(e.Rev, gitops.LogOptions{Limit: e.Summaries})
	if err != nil {
		return err
	}
	for _, c := range log {
		recs[c.ID] = append(recs[c.ID], annotate.Summary{Header: notes.NewHeader(annotate.Schema), Kind: annotate.KindSummary,
			Commit: c.ID, Intent: c.Subject(), Files: []string{}, Author: author, Source: annotate.SourceImport})
	}
	for _, rs := range recs {
		e.Records += len(rs)
	}
	return notes.Open(repo, notes.Annotations).AppendMany(ctx, recs)
}

// RecipeCase is one command of the recipe timed against git blame.
type RecipeCase struct {
	Name   string
	Gloss  []string // git gloss arguments
	Git    []string // git arguments
	Before func() error
	// After runs untimed after each gloss run, before git's: it waits for
	// the work a read left in the background, so that work is never timed
	// as part of git's run.
	After func() error
	// MinRuns is the fewest paired runs the case takes, whatever the
	// recipe asks: a process start of a few milliseconds moves more from
	// run to run than 15 runs can settle.
	MinRuns int
}

// Cases are the timed commands: the anchor read with the blame cache warm
// and cold, and line-range reads without tree-sitter.
//
// Cold means no blame cache: no whole-file blames and no blame positions
// (the commit that last changed the file). The outline and file-history
// caches, kept beside them, and the blame graph (gloss's commit-graph for
// its git blame, built in the setup) stay warm in the "no blame cache"
// case and are removed too in the "no caches" ones. A cold read leaves the
// whole-file blame, and the graph's refresh, to a background git-gloss
// cache-fill; the fill case times that process alone, with the graph
// current (its refresh finds nothing to add).
func (e *RecipeEnv) Cases() []RecipeCase {
	lines := fmt.Sprintf("%d,%d", e.Start, e.End)
	blame := []string{"blame", "--porcelain", "-L", lines, "--", e.File}
	read := []string{"read", e.File, "--anchor", e.Anchor, "--json"}
	readLines := []string{"read", e.File, "--lines", fmt.Sprintf("%d:%d", e.Start, e.End), "--json"}
	cache := filepath.Join(e.GitDir, "gloss", "blame")
	noBlameCache := func() error {
		for _, kind := range []string{"e", "p"} {
			if err := os.RemoveAll(filepath.Join(cache, kind)); err != nil {
				return err
			}
		}
		return nil
	}
	// After init: the graph and the renames of HEAD (init's background
	// build finds both, under one lock) are there, nothing a read caches.
	noReadCaches := func() error {
		ents, err := os.ReadDir(cache)
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		for _, ent := range ents {
			if ent.Name() == "xrenames" {
				continue
			}
			if err := os.RemoveAll(filepath.Join(cache, ent.Name())); err != nil {
				return err
			}
		}
		return nil
	}
	noCaches := func() error {
		if err := os.RemoveAll(filepath.Join(e.GitDir, "gloss", "graph")); err != nil {
			return err
		}
		return os.RemoveAll(cache)
	}
	// The decisions index (package decisions) follows the notes refs;
	// without it the first read builds it while it answers.
	noIndex := func() error { return os.RemoveAll(filepath.Join(e.GitDir, "gloss", "decisions-v1")) }
	return []RecipeCase{
		{Name: "--version, process start", Gloss: []string{"--version"}, Git: []string{"--version"}, MinRuns: StartRuns},
		{Name: "read --anchor, blame cache warm", Gloss: read, Git: blame},
		{Name: "read --anchor, during the decisions index's build", Gloss: read, Git: blame, Before: noIndex},
		{Name: "read --anchor, first after init (no caches; the graph init built)", Gloss: read, Git: blame, Before: noReadCaches, After: e.waitFills},
		{Name: "read --anchor, no blame cache", Gloss: read, Git: blame, Before: noBlameCache, After: e.waitFills},
		{Name: "read --anchor, no caches", Gloss: read, Git: blame, Before: noCaches, After: e.waitFills},
		{Name: fmt.Sprintf("read --lines %d:%d, warm", e.Start, e.End), Gloss: readLines, Git: blame},
		{Name: fmt.Sprintf("read --lines %d:%d, no caches", e.Start, e.End), Gloss: readLines, Git: blame, Before: noCaches, After: e.waitFills},
		{Name: "read --lines 1:5, warm", Gloss: []string{"read", e.File, "--lines", "1:5", "--json"},
			Git: []string{"blame", "--porcelain", "-L", "1,5", "--", e.File}},
		{Name: "blame whole file (attribution), warm", Gloss: []string{"blame", e.File, "--json"},
			Git: []string{"blame", "--porcelain", "--", e.File}},
		{Name: fmt.Sprintf("blame -L %d:%d (attribution), warm", e.Start, e.End), Gloss: []string{"blame", e.File, "-L", fmt.Sprintf("%d:%d", e.Start, e.End), "--json"}, Git: blame},
		{Name: "background cache-fill alone", Gloss: []string{"cache-fill", e.Rev, "--", e.File}, Git: blame, Before: noBlameCache},
	}
}

// StartRuns is how many times the process start is paired with git's.
const StartRuns = 201

// FirstAndWarm are the cases `make bench` reports for the large
// repositories: the process start, the first read after init, one while
// the decisions index is built and a warm one.
func (e *RecipeEnv) FirstAndWarm() []RecipeCase {
	var out []RecipeCase
	for _, c := range e.Cases() {
		if strings.HasPrefix(c.Name, "read --anchor, first after init") || strings.HasPrefix(c.Name, "--version") ||
			strings.HasPrefix(c.Name, "read --anchor, during the decisions index") || c.Name == "read --anchor, blame cache warm" {
			out = append(out, c)
		}
	}
	return out
}

// waitFills waits until no background fill holds a lock in the clone.
func (e *RecipeEnv) waitFills() error {
	dir := filepath.Join(e.GitDir, "gloss", "fill")
	deadline := time.Now().Add(5 * time.Minute)
	for {
		ents, err := os.ReadDir(dir)
		if err != nil || len(ents) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("background fills still running after 5 minutes: %s", dir)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// RecipeResult is one measured case: medians of paired runs.
type RecipeResult struct {
	Name       string
	Gloss, Git time.Duration // wall clock
	Ratio      float64       // Gloss / Git: below 1 means gloss is faster
	// CPU time, which a loaded machine disturbs less than wall time.
	GlossCPU, GitCPU time.Duration
	CPURatio         float64
}

// Measure runs the case runs times after one warm-up, gloss and git
// alternately, each as a whole process; Before runs untimed before each
// gloss run.
func (e *RecipeEnv) Measure(ctx context.Context, c RecipeCase, runs int) (RecipeResult, error) {
	r := RecipeResult{Name: c.Name}
	runs = max(runs, c.MinRuns)
	var g, k, gc, kc []time.Duration
	for i := 0; i <= runs; i++ {
		if c.Before != nil {
			if err := c.Before(); err != nil {
				return r, err
			}
		}
		start := time.Now()
		cpuG, err := runTimed(ctx, e.Dir, e.Binary, c.Gloss...)
		if err != nil {
			return r, err
		}
		dg := time.Since(start)
		if c.After != nil {
			if err := c.After(); err != nil {
				return r, err
			}
		}
		start = time.Now()
		cpuK, err := runTimed(ctx, e.Dir, "git", c.Git...)
		if err != nil {
			return r, err
		}
		if i > 0 { // the first pair warms the OS caches
			g, k = append(g, dg), append(k, time.Since(start))
			gc, kc = append(gc, cpuG), append(kc, cpuK)
		}
	}
	r.Gloss, r.Git = median(g), median(k)
	r.GlossCPU, r.GitCPU = median(gc), median(kc)
	if r.Git > 0 {
		r.Ratio = float64(r.Gloss) / float64(r.Git)
	}
	if r.GitCPU > 0 {
		r.CPURatio = float64(r.GlossCPU) / float64(r.GitCPU)
	}
	return r, nil
}
