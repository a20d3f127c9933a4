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
	p := r.blameFile("e", commit, path)
	r.memo.keepEntry(commit, path, e)
	if err := atomicfile.Write(p, e.encode(), 0o644); err == nil {
		r.trimBlameCache()
	}
}

func (r *Repo) loadPosition(commit, path string) (string, bool) {
	data, err := os.ReadFile(r.blameFile("p", commit, path))
	if err != nil || len(data) < 40 {
		return "", false
	}
	return string(data[:40]), true
}

func (r *Repo) storePosition(commit, path, key string) {
	_ = atomicfile.Write(r.blameFile("p", commit, path), []byte(key+"\n"), 0o644)
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

func decodeEntry(data []byte) (*blameEntry, error) {
	e := &blameEntry{meta: map[string]BlameCommit{}}
	lines := bytes.Split(data, []byte{'\n'})
	if len(lines) < 2 || string(lines[0]) != blameCacheVersion {
		return nil, errBadEntry
	}
	for _, raw := range lines[1:] {
		if len(raw) < 2 {
			continue
		}
		line := string(raw[2:])
		switch raw[0] {
		case 'n':
			n, err := strconv.Atoi(line)
			if err != nil {
				return nil, errBadEntry
			}
			e.lines = n
		case 'c':
			id, rest, _ := strings.Cut(line, " ")
			ts, rest, _ := strings.Cut(rest, " ")
			author, summary, _ := strings.Cut(rest, "\t")
			sec, err1 := strconv.ParseInt(ts, 10, 64)
			a, err2 := strconv.Unquote(author)
			s, err3 := strconv.Unquote(summary)
			if err1 != nil || err2 != nil || err3 != nil {
				return nil, errBadEntry
			}
			e.commits = append(e.commits, id)
			e.meta[id] = BlameCommit{Author: a, AuthorTime: time.Unix(sec, 0).UTC(), Summary: s}
		case 'p':
			p, err := strconv.Unquote(line)
			if err != nil {
				return nil, errBadEntry
			}
			e.paths = append(e.paths, p)
		case 'r':
			var v [5]int
			f := strings.Fields(line)
			if len(f) != 5 {
				return nil, errBadEntry
			}
			for i := range v {
				n, err := strconv.Atoi(f[i])
				if err != nil {
					return nil, errBadEntry
				}
				v[i] = n
			}
			r := blameRun{start: v[0], count: v[1], commit: v[2], origStart: v[3], path: v[4]}
			if r.commit >= len(e.commits) || r.path >= len(e.paths) {
				return nil, errBadEntry
			}
			e.runs = append(e.runs, r)
		}
	}
	return e, nil
}
