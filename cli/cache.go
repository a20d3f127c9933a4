package cli

import (
	"syscall"

	"github.com/gloss-dev/gloss/fault"
)

// CacheFillCmd is the hidden `git gloss cache-fill`: the whole-file blame
// of PATH at COMMIT, into the blame cache, at low priority. A read that
// misses the cache on a few lines of a large file blames only those lines
// and starts this command detached (detach.CacheFill) to fill the cache,
// so that the reader does not wait for it and the next read is warm; then a refresh
// of the blame graph (gitops.RefreshBlameGraph), so that the next blame
// that misses the cache has the commits made since.
type CacheFillCmd struct {
	Commit string `arg:"" help:"Commit that last changed the file."`
	Path   string `arg:"" help:"File, relative to the repository root."`
}

// Run fills the cache entry and releases the fill lock the reader took,
// then refreshes the blame graph. The graph's lock is taken first, so that
// whoever waits for the fill locks to go waits for the refresh too; a
// refresh already under way is left to finish alone.
func (c *CacheFillCmd) Run(g *Globals) error {
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, 0, 10) // git blame inherits it
	fault.Point("cache-fill:start")
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	unlock, refresh := repo.LockBlameGraph()
	if refresh {
		defer unlock()
	}
	if err := repo.FillBlameCache(g.ctx, c.Commit, c.Path); err != nil {
		return err
	}
	if refresh {
		return repo.RefreshBlameGraphLocked(g.ctx)
	}
	return nil
}
