package gitops

import (
	"os"
	"time"

	"github.com/gloss-dev/gloss/atomicfile"
)

// The repository's keyed cache: rebuildable results of the layers above
// and of gitops itself (the outline of a file version in why, attribution
// views, the renames of a commit), kept beside the blames under
// <git dir>/gloss/blame and under the same size bound (trimBlameCache).
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
	if err := atomicfile.Write(r.blameFile("x"+kind, key, ""), data, 0o644); err == nil {
		r.trimBlameCache()
	}
}
