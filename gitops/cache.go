package gitops

import (
	"os"
	"path/filepath"
	"time"

	"github.com/gloss-dev/gloss/atomicfile"
)

// The repository's keyed cache: rebuildable results of the layers above
// and of gitops itself (the outline of a file version in why, attribution
// views, the renames of a commit, a file change's hunks), kept beside the
// blames under <git dir>/gloss/blame and under the same size bound
// (trimBlameCache).
// What a kind holds and how it is keyed lives with its owner.

// LoadCached returns what StoreCached kept under kind and key, or nil. It
// lets the layers above keep their own rebuildable results (the outline of
// a file version, for one) beside the blames, under the same size bound.
func (r *Repo) LoadCached(kind, key string) []byte {
	p := r.blameFile("x"+kind, key, "")
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	now := time.Now()
	_ = os.Chtimes(p, now, now) // least recently used goes first
	return data
}

// StoreCached keeps data under kind and key; a failure only costs the next
// reader the work again.
func (r *Repo) StoreCached(kind, key string, data []byte) {
	r.storeFile(r.blameFile("x"+kind, key, ""), data)
}

// storeCachedUnsynced is StoreCached without the syncs, for entries
// written by the hundred whose reader checks each one whole (the hunk
// cache): the rename still gives readers and a killed writer the old file
// or the new, and what a power loss may leave (an empty or cut file) does
// not decode and is written again. A first review of git/git's 900-file
// range spent 4 s of its wall time syncing them.
func (r *Repo) storeCachedUnsynced(kind, key string, data []byte) {
	p := r.blameFile("x"+kind, key, "")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	root, err := os.OpenRoot(filepath.Dir(p))
	if err != nil {
		return
	}
	defer root.Close()
	if err := atomicfile.Replace(root, filepath.Base(p), data, 0o644); err == nil {
		r.trimBlameCache()
	}
}
