package gitops

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The blame graph read in process, for the ancestry walk of a file
// history (filehistory.go). That walk visits every commit between the
// file's latest change and the oldest commit blame names: on git/git, for
// a function whose oldest lines are from 2006, most of its 82,000
// commits. Through `git rev-list --topo-order --parents` that was a
// process writing 7.6 MB of hex that gloss parsed back (0.1 s of CPU with
// buffered output, 0.2 s without); read from the graph it is a walk over
// integer positions (about 10 ms). Only what the walk needs is read: the
// commit ids (to find the walk's ends) and the commit data (parents and
// topological levels) of each layer, never the Bloom filters.
//
// The format is git's (gitformat-commit-graph(5)): a header, a table of
// chunks, OIDF (a fan-out of 256 cumulative counts), OIDL (the sorted
// ids), CDAT (per commit: tree id, two parent positions, topological
// level and commit date), EDGE (the further parents of octopus merges). A
// split graph is a chain of such files, base first, whose positions
// count across the whole chain.

const (
	graphParentNone   = 0x70000000
	graphExtraEdges   = 0x80000000
	graphLastEdge     = 0x80000000
	graphLevelMax     = 0x3FFFFFFF // levels at or past it are capped: no order
	graphLevelUnknown = 0          // written by a git that did not compute levels
)

var errGraphUnusable = errors.New("commit-graph: not usable for this walk")

// graphLayer is one file of the graph.
type graphLayer struct {
	base   uint32 // global position of its first commit
	n      uint32
	fanout []byte
	oids   []byte
	cdat   []byte
	edge   []byte
	// The changed-path Bloom filters (BIDX, BDAT), when the layer has
	// them: bloomVersion 1 or 2, else 0.
	bidx, bdat              []byte
	bloomVersion, numHashes uint32
}

// commitGraph is the graph's layers, base first.
type commitGraph struct {
	hashLen int
	layers  []graphLayer
	n       uint32
}

// openCommitGraph reads the graph in objDir/info: a single commit-graph
// file or a chain of them.
func openCommitGraph(objDir string) (*commitGraph, error) {
	info := filepath.Join(objDir, "info")
	var files []string
	chain, err := os.ReadFile(filepath.Join(info, "commit-graphs", "commit-graph-chain"))
	switch {
	case err == nil:
		for _, h := range strings.Fields(string(chain)) {
			files = append(files, filepath.Join(info, "commit-graphs", "graph-"+h+".graph"))
		}
	case errors.Is(err, os.ErrNotExist):
		files = []string{filepath.Join(info, "commit-graph")}
	default:
		return nil, err
	}
	if len(files) == 0 {
		return nil, errGraphUnusable
	}
	g := &commitGraph{}
	for i, f := range files {
		l, hashLen, err := readGraphLayer(f, i)
		if err != nil {
			return nil, err
		}
		if g.hashLen != 0 && hashLen != g.hashLen {
			return nil, errGraphUnusable
		}
		g.hashLen = hashLen
		l.base = g.n
		g.n += l.n
		g.layers = append(g.layers, l)
	}
	return g, nil
}

// readGraphLayer reads the chunks the walk needs from one graph file,
// the index-th of its chain.
func readGraphLayer(path string, index int) (graphLayer, int, error) {
	var l graphLayer
	f, err := os.Open(path)
	if err != nil {
		return l, 0, err
	}
	defer f.Close()
	head := make([]byte, 8)
	if _, err := io.ReadFull(f, head); err != nil {
		return l, 0, fmt.Errorf("%s: %w", path, err)
	}
	if string(head[:4]) != "CGPH" || head[4] != 1 || int(head[7]) != index {
		return l, 0, errGraphUnusable
	}
	hashLen := map[byte]int{1: 20, 2: 32}[head[5]]
	if hashLen == 0 {
		return l, 0, errGraphUnusable
	}
	chunks := int(head[6])
	table := make([]byte, (chunks+1)*12)
	if _, err := io.ReadFull(f, table); err != nil {
		return l, 0, fmt.Errorf("%s: %w", path, err)
	}
	read := func(id string) ([]byte, error) {
		for i := 0; i < chunks; i++ {
			e := table[i*12:]
			if string(e[:4]) != id {
				continue
			}
			start, end := binary.BigEndian.Uint64(e[4:]), binary.BigEndian.Uint64(e[16:])
			if end < start || end-start > 1<<32 {
				return nil, errGraphUnusable
			}
			b := make([]byte, end-start)
			if _, err := f.ReadAt(b, int64(start)); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			return b, nil
		}
		return nil, nil
	}
	if l.fanout, err = read("OIDF"); err != nil {
		return l, 0, err
	}
	if l.oids, err = read("OIDL"); err != nil {
		return l, 0, err
	}
	if l.cdat, err = read("CDAT"); err != nil {
		return l, 0, err
	}
	if l.edge, err = read("EDGE"); err != nil {
		return l, 0, err
	}
	if l.bidx, err = read("BIDX"); err != nil {
		return l, 0, err
	}
	if l.bdat, err = read("BDAT"); err != nil {
		return l, 0, err
	}
	if l.bidx != nil && len(l.bdat) >= 12 {
		v, k := binary.BigEndian.Uint32(l.bdat), binary.BigEndian.Uint32(l.bdat[4:])
		if (v == 1 || v == 2) && k > 0 && k < 64 {
			l.bloomVersion, l.numHashes = v, k
		}
	}
	if len(l.fanout) != 256*4 || len(l.oids)%hashLen != 0 {
		return l, 0, errGraphUnusable
	}
	l.n = uint32(len(l.oids) / hashLen)
	if binary.BigEndian.Uint32(l.fanout[255*4:]) != l.n || len(l.cdat) != int(l.n)*(hashLen+16) {
		return l, 0, errGraphUnusable
	}
	if len(l.bidx) != int(l.n)*4 {
		l.bloomVersion = 0
	}
	return l, hashLen, nil
}

// lookup is the global position of the commit id (hex).
func (g *commitGraph) lookup(id string) (uint32, bool) {
	raw, err := hex.DecodeString(id)
	if err != nil || len(raw) != g.hashLen {
		return 0, false
	}
	for _, l := range g.layers {
		lo := uint32(0)
		if raw[0] > 0 {
			lo = binary.BigEndian.Uint32(l.fanout[(int(raw[0])-1)*4:])
		}
		hi := binary.BigEndian.Uint32(l.fanout[int(raw[0])*4:])
		for lo < hi {
			mid := lo + (hi-lo)/2
			switch c := bytes.Compare(l.oids[int(mid)*g.hashLen:int(mid+1)*g.hashLen], raw); {
			case c == 0:
				return l.base + mid, true
			case c < 0:
				lo = mid + 1
			default:
				hi = mid
			}
		}
	}
	return 0, false
}

// commit returns the topological level and the parents (appended to buf)
// of the commit at global position pos.
func (g *commitGraph) commit(pos uint32, buf []uint32) (uint32, []uint32, error) {
	if pos >= g.n {
		return 0, buf, errGraphUnusable
	}
	l := g.layerOf(pos)
	e := l.cdat[int(pos-l.base)*(g.hashLen+16)+g.hashLen:]
	p1, p2 := binary.BigEndian.Uint32(e), binary.BigEndian.Uint32(e[4:])
	level := binary.BigEndian.Uint32(e[8:]) >> 2
	if p1 != graphParentNone {
		buf = append(buf, p1)
	}
	switch {
	case p2 == graphParentNone:
	case p2&graphExtraEdges == 0:
		buf = append(buf, p2)
	default: // an octopus: its further parents are listed in EDGE
		for i := int(p2 &^ graphExtraEdges); ; i++ {
			if (i+1)*4 > len(l.edge) {
				return 0, buf, errGraphUnusable
			}
			v := binary.BigEndian.Uint32(l.edge[i*4:])
			buf = append(buf, v&^graphLastEdge)
			if v&graphLastEdge != 0 {
				break
			}
		}
	}
	for _, p := range buf {
		if p >= g.n {
			return 0, buf, errGraphUnusable
		}
	}
	return level, buf, nil
}

// walk hands fn the commits reachable from the commit at start, every
// commit after all of its descendants (the highest topological level
// first: a commit's level is above each of its parents'), until fn
// returns false. It fails with errGraphUnusable when a level gives no
// order.
func (g *commitGraph) walk(start uint32, fn func(pos uint32, parents []uint32) bool) error {
	seen := make([]bool, g.n)
	q := pqueue[levelItem]{first: func(a, b levelItem) bool { return a.level > b.level }}
	push := func(pos uint32) error {
		level := g.level(pos)
		if level == graphLevelUnknown || level >= graphLevelMax {
			return errGraphUnusable
		}
		seen[pos] = true
		q.push(levelItem{pos, level})
		return nil
	}
	if start >= g.n {
		return errGraphUnusable
	}
	if err := push(start); err != nil {
		return err
	}
	var parents []uint32
	for q.len() > 0 {
		it := q.pop()
		var err error
		if _, parents, err = g.commit(it.pos, parents[:0]); err != nil {
			return err
		}
		if !fn(it.pos, parents) {
			return nil
		}
		for _, p := range parents {
			if !seen[p] {
				if err := push(p); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// level is the topological level of the commit at pos (< g.n).
func (g *commitGraph) level(pos uint32) uint32 {
	l := g.layerOf(pos)
	return binary.BigEndian.Uint32(l.cdat[int(pos-l.base)*(g.hashLen+16)+g.hashLen+8:]) >> 2
}

func (g *commitGraph) layerOf(pos uint32) *graphLayer {
	for i := len(g.layers) - 1; i > 0; i-- {
		if pos >= g.layers[i].base {
			return &g.layers[i]
		}
	}
	return &g.layers[0]
}

type levelItem struct{ pos, level uint32 }

// graphAncestry is buildHistory's ancestry walk over the blame graph read
// in process: it sets h.below of each member reachable from key, as the
// walk through git does. It returns false, with h untouched, when the
// graph cannot answer: there is none, key is newer than it, or grafts,
// replacements or a shallow boundary give commits other parents than the
// graph records. A member the graph does not hold is not reachable from
// key (a graph holds every ancestor of each commit in it).
func (r *Repo) graphAncestry(key string, h *FileHistory, width int) bool {
	if r.blameGraphEnv() == nil || r.parentsRewritten() {
		return false
	}
	g, err := openCommitGraph(r.blameGraphPath())
	if err != nil {
		return false
	}
	start, ok := g.lookup(key)
	if !ok {
		return false
	}
	member := map[uint32]int{}
	for i, m := range h.members {
		if pos, ok := g.lookup(m); ok {
			member[pos] = i
		}
	}
	below := make([][]byte, len(h.members))
	left := len(member)
	if left > 0 {
		// reach[c] holds the members c is an ancestor of; it is complete
		// when c comes out of the walk.
		reach := make([][]byte, g.n)
		err = g.walk(start, func(pos uint32, parents []uint32) bool {
			bits := reach[pos]
			reach[pos] = nil
			// A commit's set is done with once it is out: the first parent
			// that has none yet takes it over instead of a copy, so that the
			// walk allocates at merges and members only.
			own := true
			if i, ok := member[pos]; ok {
				if bits == nil {
					bits = make([]byte, width)
				}
				bits[i/8] |= 1 << (i % 8)
				below[i] = bits
				own = false
				left--
			}
			if bits != nil {
				for _, p := range parents {
					pb := reach[p]
					if pb == nil && own {
						reach[p], own = bits, false
						continue
					}
					if pb == nil {
						pb = make([]byte, width)
						reach[p] = pb
					}
					for k := range bits {
						pb[k] |= bits[k]
					}
				}
			}
			return left > 0
		})
		if err != nil {
			return false
		}
	}
	copy(h.below, below)
	return true
}

// parentsRewritten reports whether git may see parents other than the
// commits record: grafts, replacement objects or a shallow clone, where
// git itself does not use a commit-graph.
func (r *Repo) parentsRewritten() bool {
	if _, set := os.LookupEnv("GIT_GRAFT_FILE"); set {
		return true
	}
	for _, p := range []string{"shallow", filepath.Join("info", "grafts")} {
		if _, err := os.Stat(filepath.Join(r.commonDir, p)); err == nil {
			return true
		}
	}
	it, err := r.r.NewReferenceIteratorGlob("refs/replace/*")
	if err != nil {
		return true
	}
	defer it.Free()
	_, err = it.Next()
	return err == nil
}
