package gitops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	git "github.com/libgit2/git2go/v34"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/detach"
)

// The blame graph is gloss's own commit-graph, with changed-path Bloom
// filters, for its own git blame: blame asks of every commit it passes
// whether the file changed, and the filters answer most of those questions
// without reading trees (0.19 s instead of 0.21–0.23 s for 190 lines of an
// 8,800-line file with 3,700 commits of history). The user's repository may
// have no commit-graph, or one without the filters, and gloss never writes
// into the user's object store; so the graph lives in an object directory
// of gloss's own, <git dir>/gloss/graph, that holds nothing but the graph
// and an info/alternates line pointing at the repository's objects.
//
// gloss's git blame runs with that directory as GIT_OBJECT_DIRECTORY: git
// then finds every object through the alternate and reads the graph of the
// first object directory that has one, gloss's (an alternate's graph would
// lose to one the repository has itself). Blame only reads objects, so
// nothing is written there. The graph is a cache like the blames: a commit
// in it is described exactly as in its object, a commit newer than the
// graph is read from its object as if there were no graph, so results do
// not depend on it (the tests compare blames with and without it).
//
// The first write is one whole graph (`--split` would stack onto the first
// graph git finds, which before gloss's first is the repository's own in
// .git/objects, and mark it by setting its modification time). Once gloss
// has a graph of its own, a refresh adds a layer of the commits since
// (`--split`: git turns the graph into a chain of layers in the same
// directory and merges small layers as they pile up): 50–70 ms on git/git's
// 82,000 commits, where rewriting the whole graph took a second.

const (
	blameGraphDir = "graph"
	// blameGraphAlternate is the repository's object directory as seen
	// from <git dir>/gloss/graph: git resolves a relative alternate against
	// the object directory naming it, so the line survives moving the
	// repository.
	blameGraphAlternate = "../../objects"
)

func (r *Repo) blameGraphPath() string {
	return filepath.Join(r.commonDir, "gloss", blameGraphDir)
}

func (r *Repo) blameGraphLock() string {
	return filepath.Join(r.commonDir, "gloss", "fill", "graph.lock")
}

// blameGraphEnv is the environment that points a git blame at the blame
// graph, or nil when there is none to use.
func (r *Repo) blameGraphEnv() []string {
	if !r.blameGraphUsable() {
		return nil
	}
	dir := r.blameGraphPath()
	if !hasGraph(dir) {
		return nil
	}
	alt, err := os.ReadFile(filepath.Join(dir, "info", "alternates"))
	if err != nil || string(bytes.TrimSpace(alt)) != blameGraphAlternate {
		return nil
	}
	return []string{"GIT_OBJECT_DIRECTORY=" + dir}
}

// blameGraphUsable reports whether the repository's objects are where an
// alternate of the blame graph finds them, and no blame ever writes an
// object: the user did not move the object store through the environment,
// the repository is no partial clone (whose blames may fetch missing
// objects into the primary object directory), and no diff driver caches
// its textconv output (as notes, whose objects would land there too).
func (r *Repo) blameGraphUsable() bool {
	for _, v := range []string{"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_QUARANTINE_PATH"} {
		if _, set := os.LookupEnv(v); set {
			return false
		}
	}
	if st, err := os.Stat(filepath.Join(r.commonDir, "objects")); err != nil || !st.IsDir() {
		return false
	}
	cfg, err := r.r.Config()
	if err != nil {
		return false
	}
	defer cfg.Free()
	if v, err := cfg.LookupString("extensions.partialClone"); err == nil && v != "" {
		return false
	}
	return !cachesTextconv(cfg)
}

// cachesTextconv reports whether some diff.<driver>.cachetextconv is set.
func cachesTextconv(cfg *git.Config) bool {
	it, err := cfg.NewIteratorGlob(`^diff\..*\.cachetextconv$`)
	if err != nil {
		return true
	}
	defer it.Free()
	for {
		e, err := it.Next()
		if err != nil {
			return false
		}
		if v, err := cfg.LookupBool(e.Name); err != nil || v {
			return true
		}
	}
}

// RefreshBlameGraph brings the blame graph up to date with the
// repository's refs. One refresh
// runs at a time: when another holds the lock, it returns at once.
func (r *Repo) RefreshBlameGraph(ctx context.Context) error {
	unlock, ok := r.LockBlameGraph()
	if !ok {
		return nil
	}
	defer unlock()
	return r.RefreshBlameGraphLocked(ctx)
}

// LockBlameGraph takes the refresh lock of the blame graph; ok is false
// when a live refresh holds it. The lock sits with the fill locks, so that
// whoever waits for background fills waits for it too.
func (r *Repo) LockBlameGraph() (unlock func(), ok bool) {
	p := r.blameGraphLock()
	if !takeLock(p) {
		return nil, false
	}
	return func() { _ = os.Remove(p) }, true
}

// blameGraphRefreshing reports whether a live process holds the graph's
// refresh lock.
func (r *Repo) blameGraphRefreshing() bool { return !lockStale(r.blameGraphLock()) }

// RefreshBlameGraphLocked is RefreshBlameGraph for a caller holding the
// lock.
func (r *Repo) RefreshBlameGraphLocked(ctx context.Context) error {
	if !r.blameGraphUsable() {
		return nil
	}
	dir := r.blameGraphPath()
	info := filepath.Join(dir, "info")
	if err := os.MkdirAll(info, 0o755); err != nil {
		return err
	}
	alt := filepath.Join(info, "alternates")
	if have, err := os.ReadFile(alt); err != nil || string(bytes.TrimSpace(have)) != blameGraphAlternate {
		if err := os.WriteFile(alt, []byte(blameGraphAlternate+"\n"), 0o644); err != nil {
			return err
		}
	}
	args := []string{"-c", "core.commitGraph=true", "commit-graph", "write", "--reachable", "--changed-paths"}
	if hasGraph(dir) {
		// A layer of the commits since: the graph's own first.
		args = append(args, "--split")
	}
	progress := r.graphProgress
	if progress == nil {
		args = append(args, "--no-progress")
	} else {
		args = append(args, "--progress")
	}
	cmd := r.Command(ctx, args...)
	cmd.Env = append(cmd.Env, "GIT_OBJECT_DIRECTORY="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if progress != nil {
		cmd.Stderr = io.MultiWriter(&stderr, progress)
	}
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return &GitError{Args: cmd.Args[1:], ExitCode: ee.ExitCode(), Stderr: stderr.String()}
		}
		return fmt.Errorf("write blame graph: %w", err)
	}
	return nil
}

// hasGraph reports whether the object directory dir holds a commit-graph,
// as one file or as a chain of layers.
func hasGraph(dir string) bool {
	for _, p := range []string{"commit-graph", filepath.Join("commit-graphs", "commit-graph-chain")} {
		if _, err := os.Stat(filepath.Join(dir, "info", p)); err == nil {
			return true
		}
	}
	return false
}

// HasBlameGraph reports whether the blame graph has been built.
func (r *Repo) HasBlameGraph() bool { return hasGraph(r.blameGraphPath()) }

// ShowGraphProgress makes this handle's graph writes print git's progress
// to w (a terminal).
func (r *Repo) ShowGraphProgress(w io.Writer) { r.graphProgress = w }

// DetachedDir is where a detached git-gloss for this repository runs:
// its work tree, or the common git dir of a bare repository.
func (r *Repo) DetachedDir() string {
	if r.root != "" {
		return r.root
	}
	return r.commonDir
}

// StartGraphRefresh starts `git gloss cache-graph` detached: the blame
// graph's refresh, then the renames of HEAD, under the graph's lock (a
// refresh already under way is left to finish alone). progressFile, when
// not "", gets git's progress. A program that is not git-gloss gets
// detach.ErrNotGloss.
func (r *Repo) StartGraphRefresh(progressFile string) (*detach.Process, error) {
	bin, err := detach.Self()
	if err != nil {
		return nil, err
	}
	dir := r.DetachedDir()
	return detach.Start(bin, detach.CacheGraph(dir, progressFile), detach.Options{Dir: dir})
}

// largeRepositoryBytes is the size of packs from which a repository is
// large: where gloss leaves work that grows with history to background
// processes (the blame graph's first build, the post-commit annotation,
// whole-file blames). fzf's 3,700 commits pack into 20 MiB, git/git's
// 82,000 into 496 MiB.
const largeRepositoryBytes = 64 << 20

// LargeRepository reports whether the repository's packs are past
// largeRepositoryBytes.
func (r *Repo) LargeRepository() bool { return r.ObjectStoreBytes() > largeRepositoryBytes }

// ObjectStoreBytes is the size of the repository's packs: how large the
// history is, told without walking it.
func (r *Repo) ObjectStoreBytes() int64 {
	ents, err := os.ReadDir(filepath.Join(r.commonDir, "objects", "pack"))
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range ents {
		if filepath.Ext(e.Name()) != ".pack" {
			continue
		}
		if info, err := e.Info(); err == nil {
			n += info.Size()
		}
	}
	return n
}

// takeLock creates the lock file p, holding this process's pid; false
// when a live holder has it. The pid is trusted, as the ref locks trust
// /proc: a lock whose process is gone (killed, crashed) is taken over at
// once. Age decides only when the pid cannot tell: a lock older than
// fillStale, or one still without a pid after lockSettle.
func takeLock(p string) bool {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return false
	}
	for try := 0; try < 2; try++ {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			f.Close()
			return true
		}
		if !errors.Is(err, fs.ErrExist) {
			return false
		}
		if !lockStale(p) {
			return false
		}
		_ = os.Remove(p) // its holder is gone
	}
	return false
}

// lockStale reports whether the pid lock p was left by a process that is
// gone.
func lockStale(p string) bool {
	info, err := os.Stat(p)
	if err != nil {
		return true
	}
	age := time.Since(info.ModTime())
	if age >= fillStale {
		return true
	}
	data, _ := os.ReadFile(p)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return age > lockSettle // created, and its holder died before writing
	}
	alive, known := atomicfile.ProcessAlive(pid)
	return known && !alive
}
