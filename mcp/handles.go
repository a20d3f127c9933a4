package mcp

import (
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gloss-dev/gloss/gitops"
)

// A session keeps its repository handles between calls: opening one costs
// more than many a call (config, refs, the object database's indexes), and
// a warm handle keeps libgit2's object cache and pack maps. libgit2 handles
// are not safe for concurrent use, so calls in flight at the same time each
// take their own from a small pool.
//
// Staleness: another process (the agent's own git, a hook, a person) may
// commit, move HEAD, rewrite refs or change configuration between two
// calls. libgit2 re-reads refs and config files that changed, but a handle
// also caches values derived from configuration when it opened (core.*
// settings, the shallow and graft lists). So before a call gets an idle
// handle, the pool compares a stamp — size and modification time of the
// files such changes write — with the one taken when the handle opened,
// and opens a fresh handle if anything moved. The stamp costs a handful of
// stat calls; a fresh open after a commit costs what every call cost
// before.

// maxIdleHandles bounds the handles a session keeps open: more calls at
// once than this open extra handles and close them afterwards.
const maxIdleHandles = 4

type handlePool struct {
	dir string

	mu     sync.Mutex
	idle   []*handle
	opened int // handles opened so far (for tests)
}

type handle struct {
	repo  *gitops.Repo
	paths []string
	stamp []fileStamp
}

type fileStamp struct {
	mod  time.Time
	size int64
	ok   bool
}

// stampPaths are the files a change to the repository's state writes:
// HEAD and its reflog (commit, checkout, reset), the index, loose branch,
// tag and gloss notes refs (directory entries change when a ref is
// replaced), packed refs, configuration, the shallow list.
func stampPaths(r *gitops.Repo) []string {
	g, c := r.GitDir(), r.CommonDir()
	return []string{
		filepath.Join(g, "HEAD"), filepath.Join(g, "logs", "HEAD"), filepath.Join(g, "index"),
		filepath.Join(g, "config.worktree"), filepath.Join(c, "config"), filepath.Join(c, "packed-refs"),
		filepath.Join(c, "refs", "heads"), filepath.Join(c, "refs", "tags"), filepath.Join(c, "refs", "notes", "gloss"),
		filepath.Join(c, "shallow"),
	}
}

func takeStamp(paths []string) []fileStamp {
	s := make([]fileStamp, len(paths))
	for i, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			s[i] = fileStamp{mod: fi.ModTime(), size: fi.Size(), ok: true}
		}
	}
	return s
}

func (h *handle) fresh() bool {
	now := takeStamp(h.paths)
	for i := range now {
		if now[i].ok != h.stamp[i].ok || now[i].size != h.stamp[i].size || !now[i].mod.Equal(h.stamp[i].mod) {
			return false
		}
	}
	return true
}

// get returns an idle handle that is still fresh, or opens one.
func (p *handlePool) get() (*handle, error) {
	for {
		p.mu.Lock()
		var h *handle
		if n := len(p.idle); n > 0 {
			h, p.idle = p.idle[n-1], p.idle[:n-1]
		}
		p.mu.Unlock()
		if h == nil {
			break
		}
		if h.fresh() {
			return h, nil
		}
		h.repo.Close()
	}
	repo, err := gitops.Open(p.dir)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.opened++
	p.mu.Unlock()
	// libgit2 loads what it caches lazily, after this stamp: a change
	// made between the open and the stamp is seen by this handle anyway.
	h := &handle{repo: repo, paths: stampPaths(repo)}
	h.stamp = takeStamp(h.paths)
	return h, nil
}

// put gives a handle back after a call.
func (p *handlePool) put(h *handle) {
	p.mu.Lock()
	if len(p.idle) < maxIdleHandles {
		p.idle = append(p.idle, h)
		h = nil
	}
	p.mu.Unlock()
	if h != nil {
		h.repo.Close()
	}
}

// close releases every idle handle (the session is over).
func (p *handlePool) close() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, h := range idle {
		h.repo.Close()
	}
}

// openedCount reports how many handles the pool has opened.
func (p *handlePool) openedCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.opened
}
