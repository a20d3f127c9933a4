package bench

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/gitops"
)

// HookResult is what gloss's hooks (prepare-commit-msg and post-commit)
// add to a `git commit`: medians of paired runs, the same commit made with
// the hooks and with hooks disabled (core.hooksPath=/dev/null).
type HookResult struct {
	Files                 []string
	With, Without         time.Duration // wall clock
	WithCPU, WithoutCPU   time.Duration // user+system of git and the hooks it waited for
	Added, AddedCPU       time.Duration // With - Without
	Ratio                 float64       // With / Without
	WorkerLog             string        // the last worker line of hooks.log
	Deferred              bool          // post-commit left the work to its worker
	FilesLines, FileBytes int
	// AfterUnhooked: each timed commit followed one made without the
	// hooks (a GUI client, a teammate without gloss), on both sides; else
	// one made with them.
	AfterUnhooked bool
	// DeferredRuns is how many timed hooked commits left their work to
	// the worker (hooks.log says "deferred to the worker");
	// UntimedDeferred how many of the others (the commits before, the
	// warm-up).
	DeferredRuns, UntimedDeferred int
}

// sourceExt are the files a hook bench changes: ones tree-sitter parses.
var sourceExt = map[string]bool{".c": true, ".go": true, ".h": true, ".py": true, ".js": true, ".ts": true, ".rs": true}

// largestFiles are the n largest source files of HEAD.
func (e *RecipeEnv) largestFiles(ctx context.Context, n int) ([]string, int, error) {
	out, err := output(ctx, e.Dir, "git", "ls-tree", "-r", "-l", "HEAD")
	if err != nil {
		return nil, 0, err
	}
	type file struct {
		path string
		size int
	}
	var fs []file
	for _, l := range strings.Split(out, "\n") {
		meta, p, ok := strings.Cut(l, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 || f[1] != "blob" || !sourceExt[path.Ext(p)] {
			continue
		}
		size, _ := strconv.Atoi(f[3])
		fs = append(fs, file{p, size})
	}
	slices.SortFunc(fs, func(a, b file) int { return b.size - a.size })
	var paths []string
	total := 0
	for _, f := range fs[:min(n, len(fs))] {
		paths = append(paths, f.path)
		total += f.size
	}
	return paths, total, nil
}

// MeasureHooks commits a change to each of the n largest source files,
// runs times with the hooks and runs times without, alternately, resetting
// after each. Between runs, untimed, it waits for the post-commit worker
// and the graph refresh it leaves, so that they never compete with a
// timed commit.
//
// Before each timed commit it makes, untimed, a commit of the same files,
// with the hooks or, afterUnhooked, without them: the cost of a hooked
// commit after one gloss saw, and after one it did not (a GUI client, a
// teammate without gloss). The files' blames at the start are cached
// first, as a repository in use has them (its reads fill the cache).
func (e *RecipeEnv) MeasureHooks(ctx context.Context, n, runs int, afterUnhooked bool) (r HookResult, err error) {
	r = HookResult{AfterUnhooked: afterUnhooked}
	logPath := filepath.Join(e.GitDir, "gloss", "hooks.log")
	files, size, err := e.largestFiles(ctx, n)
	if err != nil {
		return r, err
	}
	if err := e.warmBlames(ctx, files); err != nil {
		return r, err
	}
	deferredBefore := countDeferred(logPath)
	r.Files, r.FileBytes = files, size
	base, err := output(ctx, e.Dir, "git", "rev-parse", "HEAD")
	if err != nil {
		return r, err
	}
	base = strings.TrimSpace(base)
	refs, err := output(ctx, e.Dir, "git", "for-each-ref", "--format=%(refname) %(objectname)")
	if err != nil {
		return r, err
	}
	defer func() {
		if rerr := e.forgetCommits(ctx, refs); err == nil {
			err = rerr
		}
	}()
	var with, without, withCPU, withoutCPU []time.Duration
	for i := 0; i <= runs; i++ {
		for _, hooks := range []bool{true, false} {
			if err := e.changeFiles(ctx, files, fmt.Sprintf("before %d %v", i, hooks)); err != nil {
				return r, err
			}
			before := []string{"commit", "-q", "-m", "made with the hooks"}
			if afterUnhooked {
				before = []string{"-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "made without the hooks"}
			}
			if err := run(ctx, e.Dir, "git", before...); err != nil {
				return r, err
			}
			if err := e.waitWorker(); err != nil {
				return r, err
			}
			deferredUntimed := countDeferred(logPath)
			if err := e.changeFiles(ctx, files, fmt.Sprintf("%d %v", i, hooks)); err != nil {
				return r, err
			}
			args := []string{"commit", "-q", "-m", fmt.Sprintf("hook bench %d", i)}
			if !hooks {
				args = append([]string{"-c", "core.hooksPath=/dev/null"}, args...)
			}
			start := time.Now()
			cpu, err := runTimed(ctx, e.Dir, "git", args...)
			if err != nil {
				return r, err
			}
			took := time.Since(start)
			if countDeferred(logPath) > deferredUntimed && i > 0 {
				r.DeferredRuns++
			}
			if err := e.waitWorker(); err != nil {
				return r, err
			}
			if err := run(ctx, e.Dir, "git", "reset", "-q", "--hard", base); err != nil {
				return r, err
			}
			if i == 0 { // the first pair warms the OS caches
				continue
			}
			if hooks {
				with, withCPU = append(with, took), append(withCPU, cpu)
			} else {
				without, withoutCPU = append(without, took), append(withoutCPU, cpu)
			}
		}
	}
	r.With, r.Without = median(with), median(without)
	r.WithCPU, r.WithoutCPU = median(withCPU), median(withoutCPU)
	r.Added, r.AddedCPU = r.With-r.Without, r.WithCPU-r.WithoutCPU
	if r.Without > 0 {
		r.Ratio = float64(r.With) / float64(r.Without)
	}
	r.UntimedDeferred = countDeferred(logPath) - deferredBefore - r.DeferredRuns
	if log, err := os.ReadFile(logPath); err == nil {
		for _, l := range strings.Split(string(log), "\n") {
			if strings.Contains(l, "post-commit worker") {
				r.WorkerLog, r.Deferred = l, true
			}
		}
	}
	return r, nil
}

// forgetCommits puts every ref back as refs listed it (for-each-ref's
// "name id" lines) and drops the objects the measured commits left, so
// that the clone reads as it did before: the notes refs without the
// records of commits no branch holds, and no loose objects for git's
// lookups to go through (thousands after a run, which made git blame
// three times slower in the clone).
func (e *RecipeEnv) forgetCommits(ctx context.Context, refs string) error {
	want := map[string]string{}
	var stdin strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(refs), "\n") {
		if name, id, ok := strings.Cut(l, " "); ok {
			want[name] = id
			fmt.Fprintf(&stdin, "update %s %s\n", name, id)
		}
	}
	now, err := output(ctx, e.Dir, "git", "for-each-ref", "--format=%(refname)")
	if err != nil {
		return err
	}
	for _, name := range strings.Fields(now) {
		if _, ok := want[name]; !ok {
			fmt.Fprintf(&stdin, "delete %s\n", name)
		}
	}
	cmd := execCommand(ctx, e.Dir, "git", "update-ref", "--stdin")
	cmd.Stdin = strings.NewReader(stdin.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git update-ref --stdin: %v: %s", err, out)
	}
	if err := run(ctx, e.Dir, "git", "reflog", "expire", "--expire=now", "--all"); err != nil {
		return err
	}
	return run(ctx, e.Dir, "git", "prune", "--expire=now")
}

// warmBlames fills the blame cache of files at HEAD, as reading them
// does.
func (e *RecipeEnv) warmBlames(ctx context.Context, files []string) error {
	repo, err := gitops.Open(e.Dir)
	if err != nil {
		return err
	}
	defer repo.Close()
	for _, f := range files {
		if _, err := repo.BlameCached(ctx, "HEAD", f, 0, 0); err != nil {
			return err
		}
	}
	return e.waitFills()
}

// changeFiles appends a comment line to each of files and stages them.
func (e *RecipeEnv) changeFiles(ctx context.Context, files []string, tag string) error {
	for _, f := range files {
		p := filepath.Join(e.Dir, f)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		data = append(data, fmt.Sprintf("/* gloss hook bench %s */\n", tag)...)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return run(ctx, e.Dir, "git", append([]string{"add", "--"}, files...)...)
}

// countDeferred counts the post-commits hooks.log says deferred their
// work to the worker.
func countDeferred(logPath string) int {
	data, err := os.ReadFile(logPath)
	if err != nil {
		return 0
	}
	return strings.Count(string(data), "deferred to the worker")
}

// waitWorker waits until the post-commit queue is empty and no worker or
// background fill holds a lock.
func (e *RecipeEnv) waitWorker() error {
	dir := filepath.Join(e.GitDir, "gloss", "queue")
	deadline := time.Now().Add(5 * time.Minute)
	for {
		ents, _ := os.ReadDir(dir)
		queued := slices.ContainsFunc(ents, func(d os.DirEntry) bool { return strings.HasSuffix(d.Name(), ".json") })
		if !queued {
			unlock, ok, err := atomicfile.TryLock(filepath.Join(dir, "worker.lock"))
			if err != nil {
				return err
			}
			if ok {
				unlock()
				return e.waitFills()
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the post-commit worker still runs after 5 minutes: %s", dir)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// output runs a command in dir and returns its standard output.
func output(ctx context.Context, dir, name string, args ...string) (string, error) {
	cmd := execCommand(ctx, dir, name, args...)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return string(out), nil
}
