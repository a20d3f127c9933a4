package decisions

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// The index's layout under <git dir>/gloss: the version is in the folder's
// name, so that a gloss that changes the format starts a new folder and
// never misreads an old one.
const (
	indexDir   = "decisions-v1"
	stateFile  = "state.json"
	dirsFile   = "dirs.jsonl"       // directory-scoped entries, all of them
	linksFile  = "superseded.jsonl" // records superseded from another note
	bucketsDir = "b"                // file- and anchor-scoped entries, by path hash
	lockName   = "decisions.lock"
)

// rebuildAbove is the number of changed notes past which a rebuild (one
// pass over every note) is cheaper than patching the buckets one note at a
// time.
const rebuildAbove = 2000

// state is what the index was built from.
type state struct {
	Ref string `json:"ref"`
	Tip string `json:"tip"` // the notes commit indexed; "" for an empty ref
}

// Index is the decisions index of a repository, current with its notes
// ref as of Open. It is for one goroutine, as its handle is.
type Index struct {
	repo *gitops.Repo
	dir  string
	root *os.Root
	tip  string
	// reach remembers, by tip, which commits holding decisions are in its
	// history: an index kept open for many lookups (a why.Reader's) at
	// two tips (a review's base and head) asks each once, where the
	// worktree's reach file keeps one tip and would walk at every switch.
	reach map[string]map[string]bool
}

// Open opens the index and brings it up to date with the notes ref:
// patched with the notes that changed since it was last brought up to
// date, or rebuilt when it is missing, unreadable or far behind.
func Open(ctx context.Context, repo *gitops.Repo) (*Index, error) {
	gd, err := repo.GlossDir()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(gd, indexDir)
	if err := os.MkdirAll(filepath.Join(dir, bucketsDir), 0o755); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	ix := &Index{repo: repo, dir: dir, root: root}
	if err := ix.update(ctx); err != nil {
		root.Close()
		return nil, fmt.Errorf("decisions index: %w", err)
	}
	return ix, nil
}

// Close releases the index.
func (ix *Index) Close() { ix.root.Close() }

// Tip is the notes commit the index reflects.
func (ix *Index) Tip() string { return ix.tip }

// update follows the notes ref, under the index's lock (a concurrent
// updater waits, then finds nothing left to do).
func (ix *Index) update(ctx context.Context) error {
	tip, err := ix.repo.RefTarget(notes.Annotations)
	if err != nil {
		return err
	}
	if st, ok := ix.readState(); ok && st.Tip == tip {
		ix.tip = tip
		return nil
	}
	locks, err := ix.repo.GlossDir()
	if err != nil {
		return err
	}
	unlock, err := atomicfile.Lock(filepath.Join(locks, "locks", lockName))
	if err != nil {
		return err
	}
	defer unlock()
	st, ok := ix.readState()
	if ok && st.Tip == tip {
		ix.tip = tip
		return nil
	}
	newSnap, err := ix.repo.ReadNotesAt(notes.Annotations, tip)
	if err != nil {
		return err
	}
	defer newSnap.Close()
	if ok {
		if oldSnap, err := ix.repo.ReadNotesAt(notes.Annotations, st.Tip); err == nil {
			defer oldSnap.Close()
			// A patch that fails (a damaged bucket) falls back to a rebuild.
			if deltas, err := ix.repo.NotesDiff(oldSnap, newSnap); err == nil && len(deltas) <= rebuildAbove && ix.patch(ctx, deltas) == nil {
				ix.tip = tip
				return ix.writeState(state{Ref: notes.Annotations, Tip: tip})
			}
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	if err := ix.rebuild(ctx, newSnap); err != nil {
		return err
	}
	ix.tip = tip
	return ix.writeState(state{Ref: notes.Annotations, Tip: tip})
}

func (ix *Index) readState() (state, bool) {
	var st state
	data, err := ix.root.ReadFile(stateFile)
	if err != nil || json.Unmarshal(data, &st) != nil || st.Ref != notes.Annotations {
		return state{}, false
	}
	return st, true
}

func (ix *Index) writeState(st state) error {
	data, _ := json.Marshal(st)
	return atomicfile.Replace(ix.root, stateFile, data, 0o644)
}

// fileReader reads files at commits for body hashes, remembering the last
// ones (the records of one note are mostly about one or two files).
func (ix *Index) fileReader() readFile {
	type key struct{ commit, path string }
	seen := map[key][]byte{}
	return func(commit, p string) []byte {
		k := key{commit, p}
		if data, ok := seen[k]; ok {
			return data
		}
		data, err := ix.repo.ReadFile(commit, p)
		if err != nil {
			data = nil
		}
		if len(seen) > 64 {
			clear(seen)
		}
		seen[k] = data
		return data
	}
}

// contents is the index in memory while it is written.
type contents struct {
	buckets map[string][]Entry // by bucket name
	dirs    []Entry
	links   []link
}

func newContents() *contents { return &contents{buckets: map[string][]Entry{}} }

func (c *contents) add(es []Entry, ls []link) {
	for _, e := range es {
		if e.Scope == annotate.ScopeDir {
			c.dirs = append(c.dirs, e)
			continue
		}
		b := bucketOf(e.Path)
		c.buckets[b] = append(c.buckets[b], e)
	}
	c.links = append(c.links, ls...)
}

// rebuild indexes every note of the snapshot afresh.
func (ix *Index) rebuild(ctx context.Context, snap *gitops.Notes) error {
	list, err := snap.List()
	if err != nil {
		return err
	}
	read := ix.fileReader()
	c := newContents()
	for _, n := range list {
		if err := ctx.Err(); err != nil {
			return err
		}
		data, err := ix.repo.ReadBlob(n.Blob)
		if err != nil {
			return fmt.Errorf("read note for %s: %w", n.Object, err)
		}
		c.add(entriesOf(n.Object, data, read))
	}
	_ = ix.root.Remove(followFile) // what was followed is asked again
	// Buckets no entry lands in any more are emptied: a rebuild after a
	// purge must not leave the purged records findable.
	old, _ := fs.ReadDir(ix.root.FS(), bucketsDir)
	for _, e := range old {
		if _, kept := c.buckets[e.Name()]; !kept && !strings.HasPrefix(e.Name(), ".") {
			c.buckets[e.Name()] = nil
		}
	}
	return ix.write(c, nil)
}

// patch re-indexes the notes that changed: each one's entries (read from
// its old content) leave their buckets, its new content's arrive.
func (ix *Index) patch(ctx context.Context, deltas []gitops.NoteDelta) error {
	read := ix.fileReader()
	gone := map[string]bool{} // commits whose entries and links leave
	add := newContents()
	touched := map[string]bool{}
	for _, d := range deltas {
		if err := ctx.Err(); err != nil {
			return err
		}
		gone[d.Object] = true
		if d.OldBlob != "" {
			if data, err := ix.repo.ReadBlob(d.OldBlob); err == nil {
				es, _ := entriesOf(d.Object, data, func(string, string) []byte { return nil })
				for _, e := range es {
					touched[bucketOf(e.Path)] = true
				}
			}
		}
		if d.NewBlob != "" {
			data, err := ix.repo.ReadBlob(d.NewBlob)
			if err != nil {
				return fmt.Errorf("read note for %s: %w", d.Object, err)
			}
			add.add(entriesOf(d.Object, data, read))
		}
	}
	c := newContents()
	for b := range add.buckets {
		touched[b] = true
	}
	for b := range touched {
		kept, err := ix.bucket(b)
		if err != nil {
			return err
		}
		kept = slices.DeleteFunc(kept, func(e Entry) bool { return gone[e.Commit] })
		c.buckets[b] = append(kept, add.buckets[b]...)
	}
	return ix.write(c, &patchOf{gone: gone, dirs: add.dirs, links: add.links})
}

// patchOf is what a patch changes in the files every lookup shares.
type patchOf struct {
	gone  map[string]bool
	dirs  []Entry
	links []link
}

// write stores the buckets of c, and the directory entries and links:
// c's own on a rebuild (p nil), or the stored ones patched by p.
func (ix *Index) write(c *contents, p *patchOf) error {
	for b, es := range c.buckets {
		if err := ix.writeLines(path.Join(bucketsDir, b), es); err != nil {
			return err
		}
	}
	dirs, links := c.dirs, c.links
	if p != nil {
		var err error
		if dirs, err = readLines[Entry](ix.root, dirsFile); err != nil {
			return err
		}
		if links, err = readLines[link](ix.root, linksFile); err != nil {
			return err
		}
		dirs = append(slices.DeleteFunc(dirs, func(e Entry) bool { return p.gone[e.Commit] }), p.dirs...)
		links = append(slices.DeleteFunc(links, func(l link) bool { return p.gone[l.Commit] }), p.links...)
	}
	if err := ix.writeLines(dirsFile, dirs); err != nil {
		return err
	}
	return ix.writeLines(linksFile, links)
}

func (ix *Index) writeLines(name string, items any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	switch v := items.(type) {
	case []Entry:
		for _, e := range v {
			_ = enc.Encode(e)
		}
	case []link:
		for _, l := range v {
			_ = enc.Encode(l)
		}
	}
	return atomicfile.Replace(ix.root, name, buf.Bytes(), 0o644)
}

// readLines reads a JSON Lines file of the index; a missing file is
// empty, a damaged line is an error (the caller rebuilds).
func readLines[T any](root *os.Root, name string) ([]T, error) {
	data, err := root.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []T
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("decisions index %s: %w", name, err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

func (ix *Index) bucket(b string) ([]Entry, error) {
	return readLines[Entry](ix.root, path.Join(bucketsDir, b))
}

// bucketOf names the bucket of a path: 256 of them, by hash, so that a
// lookup reads a file of about 1/256 of the index.
func bucketOf(p string) string {
	sum := sha256.Sum256([]byte(p))
	return hex.EncodeToString(sum[:1])
}

// ForFiles returns the entries recorded on any of paths (a file's names
// through its renames), and those on the directories that hold them.
func (ix *Index) ForFiles(paths []string) ([]Entry, error) {
	want := map[string]bool{}
	buckets := map[string]bool{}
	for _, p := range paths {
		want[p] = true
		buckets[bucketOf(p)] = true
	}
	var out []Entry
	for _, b := range slices.Sorted(maps.Keys(buckets)) {
		es, err := ix.bucket(b)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if want[e.Path] {
				out = append(out, e)
			}
		}
	}
	dirs, err := readLines[Entry](ix.root, dirsFile)
	if err != nil {
		return nil, err
	}
	for _, e := range dirs {
		for _, p := range paths {
			if e.Path == "" || e.Path == "." || strings.HasPrefix(p, strings.TrimSuffix(e.Path, "/")+"/") {
				out = append(out, e)
				break
			}
		}
	}
	return out, nil
}

// superseded maps the ids superseded by a record on another note to that
// record (a supersession on the same note is seen by reading that note).
func (ix *Index) superseded() (map[string]link, error) {
	links, err := readLines[link](ix.root, linksFile)
	if err != nil {
		return nil, err
	}
	out := make(map[string]link, len(links))
	for _, l := range links {
		out[l.Target] = l
	}
	return out, nil
}
