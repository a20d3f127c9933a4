package gitops

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/atomicfile"
)

// Storage of the blame cache: one file per (commit, path) under
// <git dir>/gloss/blame, in a small line format (encode, decodeEntry) that
// loads in well under a millisecond, and the least-recently-used bound
// (trimBlameCache).

const (
	blameCacheDir     = "blame"
	blameCacheVersion = "gloss-blame v1"
	// blameCacheMax bounds the number of cached blames; past it the least
	// recently used are dropped. Every kind counts (blames, histories,
	// attribution views, outlines, renames, hunks), and one reviewed file
	// needs about eight of them (each side's blame, history and outline,
	// the attribution view, its hunks): at 4,000 a review of git/git's
	// 902-file 200-commit range evicts its own entries while it runs, and
	// the next run blames again. 16,000 holds a 1,000-file review and the
	// reads around it (about 14 kB an entry there: 220 MB at worst).
	blameCacheMax = 16000
)

func cacheKey(commit, path string) string {
	h := sha1.Sum([]byte(commit + "\x00" + path))
	return hex.EncodeToString(h[:])
}

func (r *Repo) blameFile(kind, commit, path string) string {
	k := cacheKey(commit, path)
	return filepath.Join(r.commonDir, "gloss", blameCacheDir, kind, k[:2], k[2:])
}

// loadBlame is the entry of path at commit: from the handle's memo, else
// from the cache.
func (r *Repo) loadBlame(commit, path string) *blameEntry {
	if e := r.memo.entry(commit, path); e != nil {
		return e
	}
	e := r.loadStoredBlame(commit, path)
	if e != nil {
		r.memo.keepEntry(commit, path, e)
	}
	return e
}

// loadStoredBlame reads the entry of path at commit from the cache.
func (r *Repo) loadStoredBlame(commit, path string) *blameEntry {
	p := r.blameFile("e", commit, path)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	e, err := decodeEntry(data)
	if err != nil {
		_ = os.Remove(p) // unreadable: drop it and blame afresh
		return nil
	}
	now := time.Now()
	_ = os.Chtimes(p, now, now) // least recently used goes first
	return e
}

func (r *Repo) storeBlame(commit, path string, e *blameEntry) {
	r.memo.keepEntry(commit, path, e)
	r.storeFile(r.blameFile("e", commit, path), e.encode())
}

func (r *Repo) loadPosition(commit, path string) (string, bool) {
	data, err := os.ReadFile(r.blameFile("p", commit, path))
	if err != nil || len(data) < 40 {
		return "", false
	}
	return string(data[:40]), true
}

func (r *Repo) storePosition(commit, path, key string) {
	r.storeFile(r.blameFile("p", commit, path), []byte(key+"\n"))
}

// storeFile is the cache's writer: a blame, a position, a file's history
// or a keyed result (StoreCached) is replaced whole (atomicfile), so a
// reader and a killed writer see the old file or the new, and every write
// keeps the cache under its bound (storeCachedUnsynced is the same
// without the syncs). A failure only costs a later reader the work
// again.
func (r *Repo) storeFile(p string, data []byte) {
	if err := atomicfile.Write(p, data, 0o644); err == nil {
		r.trimBlameCache()
	}
}

// trimBlameCache keeps the cache under blameCacheMax entries, dropping the
// least recently used. It runs on a small fraction of writes.
func (r *Repo) trimBlameCache() {
	if time.Now().UnixNano()%64 != 0 {
		return
	}
	type f struct {
		path string
		mod  time.Time
	}
	var all []f
	root := filepath.Join(r.commonDir, "gloss", blameCacheDir)
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil {
			all = append(all, f{p, info.ModTime()})
		}
		return nil
	})
	if len(all) <= blameCacheMax {
		return
	}
	sort.Slice(all, func(i, j int) bool { return all[i].mod.Before(all[j].mod) })
	for _, x := range all[:len(all)-blameCacheMax*3/4] {
		_ = os.Remove(x.path)
	}
}

func (e *blameEntry) encode() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\nn %d\n", blameCacheVersion, e.lines)
	for _, c := range e.commits {
		m := e.meta[c]
		fmt.Fprintf(&b, "c %s %d %s\t%s\n", c, m.AuthorTime.Unix(), strconv.Quote(m.Author), strconv.Quote(m.Summary))
	}
	for _, p := range e.paths {
		fmt.Fprintf(&b, "p %s\n", strconv.Quote(p))
	}
	for _, r := range e.runs {
		fmt.Fprintf(&b, "r %d %d %d %d %d\n", r.start, r.count, r.commit, r.origStart, r.path)
	}
	return b.Bytes()
}

var errBadEntry = errors.New("bad blame cache entry")

// decodeEntry reads an entry encode wrote; anything else is errBadEntry.
// It walks the lines in place and reads the runs (most of an entry)
// without converting them to strings: a review decodes two entries per
// file.
func decodeEntry(data []byte) (*blameEntry, error) {
	head, rest, ok := bytes.Cut(data, []byte{'\n'})
	if !ok || string(head) != blameCacheVersion {
		return nil, errBadEntry
	}
	e := &blameEntry{meta: map[string]BlameCommit{}}
	if n := bytes.Count(rest, []byte("\nr ")); n > 0 {
		e.runs = make([]blameRun, 0, n)
	}
	for len(rest) > 0 {
		var raw []byte
		raw, rest, _ = bytes.Cut(rest, []byte{'\n'})
		if len(raw) < 2 {
			continue
		}
		if err := e.decodeLine(raw[0], raw[2:]); err != nil {
			return nil, err
		}
	}
	if !e.whole() {
		return nil, errBadEntry // cut short, or not a blame of every line
	}
	return e, nil
}

// whole reports whether the runs cover the file's lines, in order, each
// once: what every stored blame is, and what an entry cut at a line's end
// is not.
func (e *blameEntry) whole() bool {
	next := 1
	for _, r := range e.runs {
		if r.start != next || r.count <= 0 {
			return false
		}
		next += r.count
	}
	return next-1 == e.lines
}

// decodeLine reads one line of an entry, of kind n (lines), c (a commit),
// p (a path) or r (a run); other kinds are skipped.
func (e *blameEntry) decodeLine(kind byte, line []byte) error {
	switch kind {
	case 'n':
		n, err := strconv.Atoi(string(line))
		if err != nil {
			return errBadEntry
		}
		e.lines = n
	case 'c':
		id, rest, _ := strings.Cut(string(line), " ")
		ts, rest, _ := strings.Cut(rest, " ")
		author, summary, _ := strings.Cut(rest, "\t")
		sec, err1 := strconv.ParseInt(ts, 10, 64)
		a, err2 := strconv.Unquote(author)
		s, err3 := strconv.Unquote(summary)
		if err1 != nil || err2 != nil || err3 != nil {
			return errBadEntry
		}
		e.commits = append(e.commits, id)
		e.meta[id] = BlameCommit{Author: a, AuthorTime: time.Unix(sec, 0).UTC(), Summary: s}
	case 'p':
		p, err := strconv.Unquote(string(line))
		if err != nil {
			return errBadEntry
		}
		e.paths = append(e.paths, p)
	case 'r':
		r, ok := decodeRun(line)
		if !ok || r.commit >= len(e.commits) || r.path >= len(e.paths) {
			return errBadEntry
		}
		e.runs = append(e.runs, r)
	}
	return nil
}

// decodeRun reads a run's five numbers: start, count, commit, origStart
// and path, separated by spaces.
func decodeRun(line []byte) (blameRun, bool) {
	var v [5]int
	for i := range v {
		line = bytes.TrimLeft(line, " ")
		j := 0
		for ; j < len(line) && '0' <= line[j] && line[j] <= '9'; j++ {
			if v[i] > (1<<31)/10 {
				return blameRun{}, false
			}
			v[i] = v[i]*10 + int(line[j]-'0')
		}
		if j == 0 {
			return blameRun{}, false
		}
		line = line[j:]
	}
	if len(bytes.TrimLeft(line, " ")) > 0 {
		return blameRun{}, false
	}
	return blameRun{start: v[0], count: v[1], commit: v[2], origStart: v[3], path: v[4]}, true
}
