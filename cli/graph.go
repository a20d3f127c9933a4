package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/gloss-dev/gloss/detach"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/termtext"
)

// The blame graph (gitops/blamegraph.go) is what makes file histories and
// blames cost what git's cost on long histories: `init` builds it. On a
// small repository that takes a moment and is done in the foreground; on a
// large one (git/git: about a minute on two cores) a detached `git gloss
// cache-graph` builds it, and init, when its stderr is a terminal, shows
// git's progress until it is done (Ctrl-C stops watching, not the build).

// CacheGraphCmd is the hidden `git gloss cache-graph`: build or refresh
// the blame graph, at low priority, single-flight; then warm the renames
// cache (gitops.Repo.Renames).
type CacheGraphCmd struct {
	ProgressFile string `name:"progress-file" help:"Write git's progress here."`
}

// Run builds the graph.
func (c *CacheGraphCmd) Run(g *Globals) error {
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, 0, 10) // git inherits it
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	if c.ProgressFile != "" {
		f, err := os.Create(c.ProgressFile)
		if err == nil {
			defer f.Close()
			repo.ShowGraphProgress(f)
		}
	}
	unlock, ok := repo.LockBlameGraph()
	if !ok {
		return nil // another refresh is under way
	}
	defer unlock()
	if err := repo.RefreshBlameGraphLocked(g.ctx); err != nil {
		return err
	}
	// The renames of the history, which history and summary follow,
	// cost a diff of every commit once; then each commit adds its own.
	// Under the graph's lock, so that whoever waits for it waits for this.
	if head, err := repo.Head(); err == nil && head != "" {
		_, _ = repo.Renames(g.ctx, head)
	}
	return nil
}

// buildGraphAtInit builds the blame graph when the repository has none;
// it returns a line for the user when the build goes on in the background.
func buildGraphAtInit(g *Globals, repo *gitops.Repo) string {
	if repo.HasBlameGraph() {
		return ""
	}
	if _, err := detach.Self(); !repo.LargeRepository() || err != nil {
		_ = repo.RefreshBlameGraph(g.ctx) // a cache: reads work without it
		return ""
	}
	watch := isTerminal(g.stderr) && !g.JSON
	progress := filepath.Join(repo.CommonDir(), "gloss", "graph.progress")
	progressFile := ""
	if watch {
		progressFile = progress
	}
	proc, err := repo.StartGraphRefresh(progressFile)
	if err != nil {
		return ""
	}
	if !watch {
		return "building the history index (.git/gloss/graph) in the background"
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	last := ""
	for {
		select {
		case <-proc.Done():
			if last != "" {
				fmt.Fprintln(g.stderr)
			}
			return ""
		case <-g.ctx.Done():
			fmt.Fprintln(g.stderr)
			return "the history index goes on building in the background"
		case <-tick.C:
			if line := lastProgress(progress); line != "" && line != last {
				fmt.Fprintf(g.stderr, termtext.Mark("\r")+"gloss: history index: %s"+termtext.Mark("\x1b[K"), line)
				last = line
			}
		}
	}
}

// lastProgress is the last line git's progress wrote to p.
func lastProgress(p string) string {
	data, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	data = bytes.TrimRight(data, "\r\n")
	if i := bytes.LastIndexAny(data, "\r\n"); i >= 0 {
		data = data[i+1:]
	}
	return string(data)
}
