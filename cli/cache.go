package cli

import (
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
)

// A read that misses the blame cache on a few lines of a large file blames
// only those lines and leaves the whole-file blame that fills the cache to
// a detached git-gloss (see gitops.BlameFiller), so that the reader does not
// wait for it and the next read is warm. A test binary is no git-gloss:
// there the fill stays in the foreground.
func init() {
	if !testing.Testing() {
		gitops.SetBlameFiller(spawnBlameFill)
	}
}

// spawnBlameFill starts `git-gloss cache-fill` in a session of its own, so
// that it outlives the reader and no terminal signal reaches it.
func spawnBlameFill(commonDir, commit, path string) (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(exe, "-C", commonDir, "cache-fill", commit, "--", path)
	cmd.Dir = commonDir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	go func() { _ = cmd.Wait() }() // reaps it in a long-lived server; a CLI exits first
	return cmd.Process.Pid, nil
}

// CacheFillCmd is the hidden `git gloss cache-fill`: the whole-file blame
// of PATH at COMMIT, into the blame cache, at low priority; then a refresh
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
