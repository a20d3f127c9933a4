package gitops

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"math/bits"
	"strings"

	git "github.com/libgit2/git2go/v34"
)

// FileLog from the blame graph in process. `git log --full-history -c
// --raw -- FILE` costs what it does on a history with many merges because
// git compares each merge with every parent to decide whether it is
// TREESAME, reading two trees for each (0.17 s of CPU for diff.c's latest
// 100 changes on git/git, a quarter of a first read). FileLog lists a merge
// only when the file differs from every parent, so a merge whose
// first-parent Bloom filter rules the file out is not listed, whatever its
// other parents hold: most merges are settled by the filter, as most
// single-parent commits are, and trees are read only for the commits the
// filters cannot rule out. The walk is git log's: every commit reachable,
// newest commit date first, equal dates in the order they were reached.

// graphEntry is what a commit's tree holds at the path.
type graphEntry struct {
	id      git.Oid
	mode    git.Filemode
	present bool
}

// graphFileLog answers FileLog(start, path, limit) from the graph; ok is
// false when it cannot (no graph, start newer than it, a layer without
// filters, parents rewritten, a directory at the path), and git answers.
func (r *Repo) graphFileLog(ctx context.Context, start, path string, limit int) (log []string, ok bool) {
	if path == "" || path == "." || r.blameGraphEnv() == nil || r.parentsRewritten() {
		return nil, false
	}
	g, err := openCommitGraph(r.blameGraphPath())
	if err != nil {
		return nil, false
	}
	ascii := strings.IndexFunc(path, func(c rune) bool { return c >= 0x80 }) < 0
	for _, l := range g.layers {
		// Version 1 filters hash bytes past 0x7f differently (git's
		// signed-char murmur3); only version 2 is read for such a path.
		if l.bloomVersion == 0 || l.bloomVersion == 1 && !ascii {
			return nil, false
		}
	}
	at, found := g.lookup(start)
	if !found {
		return nil, false
	}
	keys := bloomKeys(path)
	entries := map[uint32]graphEntry{}
	entry := func(pos uint32) (graphEntry, bool) {
		if e, ok := entries[pos]; ok {
			return e, true
		}
		e, ok := r.graphTreeEntry(g, pos, path)
		if ok {
			entries[pos] = e
		}
		return e, ok
	}
	out := []string{}
	seen := make([]bool, g.n)
	q := pqueue[dateItem]{first: newerDate}
	seq := uint64(0)
	push := func(pos uint32) {
		seen[pos] = true
		q.push(dateItem{pos: pos, date: g.date(pos), seq: seq})
		seq++
	}
	push(at)
	var parents []uint32
	for n := 0; q.len() > 0 && (limit == 0 || len(out) < limit); n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return nil, false // git answers, or fails as the context says
		}
		pos := q.pop().pos
		if _, parents, err = g.commit(pos, parents[:0]); err != nil {
			return nil, false
		}
		if g.maybeChanged(pos, keys) {
			e, ok := entry(pos)
			if !ok {
				return nil, false
			}
			changed := true
			if len(parents) == 0 {
				changed = e.present
			}
			for _, p := range parents {
				pe, ok := entry(p)
				if !ok {
					return nil, false
				}
				if pe == e { // the same as a parent: not a change of the file
					changed = false
					break
				}
			}
			if changed {
				out = append(out, hex.EncodeToString(g.oid(pos)))
			}
		}
		for _, p := range parents {
			if !seen[p] {
				push(p)
			}
		}
	}
	return out, true
}

// graphTreeEntry reads the path in the tree of the commit at pos; ok is
// false when it cannot be read or is a directory (whose log git answers:
// a merge is listed there by the files that differ from every parent).
func (r *Repo) graphTreeEntry(g *commitGraph, pos uint32, path string) (graphEntry, bool) {
	l := g.layerOf(pos)
	off := int(pos-l.base) * (g.hashLen + 16)
	if g.hashLen != 20 { // libgit2 1.5 reads SHA-1 repositories only
		return graphEntry{}, false
	}
	t, err := r.r.LookupTree(git.NewOidFromBytes(l.cdat[off : off+20]))
	if err != nil {
		return graphEntry{}, false
	}
	defer t.Free()
	e, err := t.EntryByPath(path)
	if err != nil {
		if git.IsErrorCode(err, git.ErrorCodeNotFound) {
			return graphEntry{}, true
		}
		return graphEntry{}, false
	}
	if e.Type == git.ObjectTree {
		return graphEntry{}, false
	}
	return graphEntry{id: *e.Id, mode: e.Filemode, present: true}, true
}

// oid is the id of the commit at pos.
func (g *commitGraph) oid(pos uint32) []byte {
	l := g.layerOf(pos)
	i := int(pos - l.base)
	return l.oids[i*g.hashLen : (i+1)*g.hashLen]
}

// date is the committer date of the commit at pos.
func (g *commitGraph) date(pos uint32) uint64 {
	l := g.layerOf(pos)
	e := l.cdat[int(pos-l.base)*(g.hashLen+16)+g.hashLen+8:]
	return uint64(binary.BigEndian.Uint32(e)&3)<<32 | uint64(binary.BigEndian.Uint32(e[4:]))
}

// bloomKey is a path's two murmur3 hashes, from which a filter's bit
// positions are derived (git's bloom.c).
type bloomKey struct{ h0, h1 uint32 }

// bloomKeys are the keys git puts in a filter for a changed path: the
// path and each directory above it.
func bloomKeys(path string) []bloomKey {
	var keys []bloomKey
	for i := 0; i <= len(path); i++ {
		if i == len(path) || path[i] == '/' {
			p := []byte(path[:i])
			keys = append(keys, bloomKey{murmur3(0x293ae76f, p), murmur3(0x7e646e2c, p)})
		}
	}
	return keys
}

// maybeChanged reports whether the commit's filter (of its diff against
// its first parent, or the empty tree) may hold every key; true when it
// has no usable filter.
func (g *commitGraph) maybeChanged(pos uint32, keys []bloomKey) bool {
	l := g.layerOf(pos)
	if l.bloomVersion == 0 {
		return true
	}
	i := pos - l.base
	start := uint32(0)
	if i > 0 {
		start = binary.BigEndian.Uint32(l.bidx[(i-1)*4:])
	}
	end := binary.BigEndian.Uint32(l.bidx[i*4:])
	data := l.bdat[12:]
	if end <= start || int(end) > len(data) {
		return true
	}
	f := data[start:end]
	mod := uint64(len(f)) * 8
	for _, k := range keys {
		for j := uint32(0); j < l.numHashes; j++ {
			b := uint64(k.h0+j*k.h1) % mod
			if f[b/8]&(1<<(b%8)) == 0 {
				return false
			}
		}
	}
	return true
}

// murmur3 is MurmurHash3 x86_32, as git's murmur3_seeded_v2 (v1 agrees
// on bytes up to 0x7f).
func murmur3(seed uint32, data []byte) uint32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	h := seed
	n := len(data) / 4
	for i := 0; i < n; i++ {
		k := binary.LittleEndian.Uint32(data[i*4:])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	tail := data[n*4:]
	var k uint32
	switch len(tail) {
	case 3:
		k ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		k ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		k ^= uint32(tail[0])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
	}
	h ^= uint32(len(data))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

type dateItem struct {
	pos  uint32
	date uint64
	seq  uint64
}

// newerDate orders the walk: the newest commit date first, and of equal
// dates the one pushed first (git's commit_list_insert_by_date).
func newerDate(a, b dateItem) bool {
	if a.date != b.date {
		return a.date > b.date
	}
	return a.seq < b.seq
}
