package notebook

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/frontmatter"
	"github.com/gloss-dev/gloss/safepath"
)

// Search is BM25 (k1 1.2, b 0.75, idf ln(1 + (N-df+0.5)/(df+0.5))) over
// the body and the frontmatter of every note, from an index kept under the
// git dir. The index is checked against the notebook's files (path, size,
// modification time) on every search and rebuilt from the changed notes
// only, so it is never stale and rarely slow.

const (
	bm25K1 = 1.2
	bm25B  = 0.75

	// DefaultLimit and MaxLimit bound search results.
	DefaultLimit = 10
	MaxLimit     = 50

	indexMagic   = "gloss-notebook-index\x00v1\x00"
	excerptWidth = 60
)

// SearchInput is search_notes' input.
type SearchInput struct {
	Query             string   `json:"query"`
	Folder            string   `json:"folder,omitempty"`
	SearchContent     *bool    `json:"searchContent,omitempty" jsonschema:"search note bodies (default true)"`
	SearchFrontmatter *bool    `json:"searchFrontmatter,omitempty" jsonschema:"search frontmatter (default true)"`
	Type              string   `json:"type,omitempty" jsonschema:"only notes of this type"`
	Tags              []string `json:"tags,omitempty" jsonschema:"only notes with all of these tags"`
	Limit             int      `json:"limit,omitempty" jsonschema:"results to return (default 10, at most 50)"`
}

// Hit is one search result.
type Hit struct {
	Path       string  `json:"p"`
	Title      string  `json:"t"`
	Excerpt    string  `json:"ex"`
	MatchCount int     `json:"mc"`
	Line       int     `json:"ln,omitempty"`
	Score      float64 `json:"score"`
}

// SearchResult is search_notes' answer.
type SearchResult struct {
	Schema  string `json:"$schema"`
	Query   string `json:"query"`
	Total   int    `json:"total" jsonschema:"matching notes before the limit"`
	Results []Hit  `json:"results"`
	// Scope is how many notes were searched (those the filters let
	// through): what a score means depends on it.
	Scope int `json:"-"`
}

// doc is one note in the index.
type doc struct {
	path    string
	title   string
	typ     string
	tags    []string
	size    int64
	mtime   int64
	bodyLen int
	fmLen   int
}

// posting is one note's counts of a term.
type posting struct {
	doc  int // index into docs
	body int // occurrences in the body
	fm   int // occurrences in the frontmatter (and file name)
}

// Tokenize lowercases text and splits it into words of letters and
// digits: the words of notes and queries that search matches.
func Tokenize(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// analyze reads a note into a doc and its term counts.
func analyze(p string, data []byte) (*doc, map[string][2]int) {
	d := &doc{path: p}
	terms := map[string][2]int{}
	n, err := parseNote(data)
	fmText := ""
	body := data
	if err == nil {
		body = n.body
		if n.fm != nil {
			if b, err := frontmatter.Encode(n.fm); err == nil {
				fmText = string(b)
			}
		}
		d.title, d.typ, d.tags = title(p, n.fm, n.body), noteType(p, n.fm), frontmatter.Strings(n.fm, "tags")
	} else {
		d.title, d.typ = strings.TrimSuffix(path.Base(p), path.Ext(p)), noteType(p, nil)
	}
	for _, t := range Tokenize(string(body)) {
		c := terms[t]
		c[0]++
		terms[t] = c
		d.bodyLen++
	}
	// The file name counts as frontmatter: a note is found by its name.
	for _, t := range Tokenize(fmText + " " + strings.TrimSuffix(path.Base(p), path.Ext(p))) {
		c := terms[t]
		c[1]++
		terms[t] = c
		d.fmLen++
	}
	return d, terms
}

func (nb *Notebook) indexPath() (string, error) {
	dir, err := nb.repo.GlossDir()
	if err != nil {
		return "", err
	}
	sum := crc32.ChecksumIEEE([]byte(nb.Abs))
	return filepath.Join(dir, fmt.Sprintf("notebook-%08x.idx", sum)), nil
}

// loadIndex returns an index that matches the notebook's files. When notes
// changed since the stored index was written, it re-reads only those and
// saves the result.
func (nb *Notebook) loadIndex() (*indexView, error) {
	ip, err := nb.indexPath()
	if err != nil {
		return nil, err
	}
	var stored *indexView
	if data, err := os.ReadFile(ip); err == nil {
		stored, _ = openIndex(data)
	}
	byPath := map[string]int{}
	if stored != nil {
		for i, d := range stored.docs {
			byPath[d.path] = i
		}
	}
	type current struct {
		path        string
		size, mtime int64
		old         int // index in stored, -1 if changed or new
	}
	var files []current
	fresh := stored != nil
	err = nb.statNotes(func(p string, info fs.FileInfo) {
		c := current{path: p, size: info.Size(), mtime: info.ModTime().UnixNano(), old: -1}
		if i, ok := byPath[p]; ok && stored.docs[i].size == c.size && stored.docs[i].mtime == c.mtime {
			c.old = i
		} else {
			fresh = false
		}
		files = append(files, c)
	})
	if err != nil {
		return nil, err
	}
	if fresh && len(files) == len(stored.docs) {
		return stored, nil
	}
	// Rebuild: keep the postings of unchanged notes, analyze the rest.
	oldPostings := map[string][]posting{}
	if stored != nil {
		oldPostings = stored.allPostings()
	}
	renumber := map[int]int{}
	var docs []*doc
	newTerms := map[int]map[string][2]int{}
	for _, f := range files {
		if f.old >= 0 {
			renumber[f.old] = len(docs)
			docs = append(docs, stored.docs[f.old])
			continue
		}
		data, err := safepath.ReadRegular(nb.root, f.path, 0)
		if err != nil {
			continue
		}
		d, terms := analyze(f.path, data)
		d.size, d.mtime = f.size, f.mtime
		newTerms[len(docs)] = terms
		docs = append(docs, d)
	}
	postings := map[string][]posting{}
	for t, ps := range oldPostings {
		for _, p := range ps {
			if n, ok := renumber[p.doc]; ok {
				postings[t] = append(postings[t], posting{n, p.body, p.fm})
			}
		}
	}
	for i, terms := range newTerms {
		for t, c := range terms {
			postings[t] = append(postings[t], posting{i, c[0], c[1]})
		}
	}
	data := encodeIndex(docs, postings)
	// A failed save only costs the next search the same rebuild.
	_ = atomicfile.Write(ip, data, 0o644)
	return openIndex(data)
}

// statNotes lists every note with its size and modification time, as fast
// as the file system allows: directory reads, then one lstat per note,
// several at a time (on a slow file system the lstats are most of a
// search). It reads no content, so it walks the folder directly rather
// than through the os.Root; it follows no symlinks and skips what walk
// skips. Notes come in path order.
func (nb *Notebook) statNotes(fn func(p string, info fs.FileInfo)) error {
	var paths []string
	var visit func(rel string) error
	visit = func(rel string) error {
		dir, err := os.Open(filepath.Join(nb.Abs, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		entries, err := dir.ReadDir(-1)
		dir.Close()
		if err != nil {
			return err
		}
		slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") || name == "node_modules" || e.Type()&fs.ModeSymlink != 0 {
				continue
			}
			p := path.Join(rel, name)
			switch {
			case e.IsDir():
				if err := visit(p); err != nil {
					return err
				}
			case allowedExt[strings.ToLower(path.Ext(name))]:
				paths = append(paths, p)
			}
		}
		return nil
	}
	if err := visit("."); err != nil {
		return err
	}
	infos := make([]fs.FileInfo, len(paths))
	const workers = 4
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(paths); i += workers {
				if info, err := os.Lstat(filepath.Join(nb.Abs, filepath.FromSlash(paths[i]))); err == nil && info.Mode().IsRegular() {
					infos[i] = info
				}
			}
		}(w)
	}
	wg.Wait()
	for i, p := range paths {
		if infos[i] != nil {
			fn(p, infos[i])
		}
	}
	return nil
}

// Search runs a query.
func (nb *Notebook) Search(in SearchInput) (*SearchResult, error) {
	// The answer repeats the query (and a page shows it more than once).
	if len(in.Query) > fault.MaxQuote {
		return nil, refuse(InvalidArgument, "a query is at most %d bytes (this one is %d)", fault.MaxQuote, len(in.Query))
	}
	terms := slices.Compact(sortedCopy(Tokenize(in.Query)))
	if len(terms) == 0 {
		return nil, refuse(InvalidArgument, "the query has no words to search for")
	}
	limit := in.Limit
	switch {
	case limit < 0:
		return nil, refuse(InvalidArgument, "limit must be positive")
	case limit == 0:
		limit = DefaultLimit
	case limit > MaxLimit:
		limit = MaxLimit
	}
	content, front := true, true
	if in.SearchContent != nil {
		content = *in.SearchContent
	}
	if in.SearchFrontmatter != nil {
		front = *in.SearchFrontmatter
	}
	if !content && !front {
		return nil, refuse(InvalidArgument, "searchContent and searchFrontmatter cannot both be false")
	}
	folder := "."
	if strings.TrimSpace(in.Folder) != "" {
		var err error
		if folder, err = nb.cleanPath(in.Folder, false); err != nil {
			return nil, err
		}
	}
	idx, err := nb.loadIndex()
	if err != nil {
		return nil, err
	}
	// Candidates: notes in scope that pass the filters.
	inScope := make([]bool, len(idx.docs))
	N, avg := 0.0, 0.0
	for i, d := range idx.docs {
		if folder != "." && !strings.HasPrefix(d.path, folder+"/") {
			continue
		}
		if in.Type != "" && d.typ != in.Type {
			continue
		}
		if !hasAll(d.tags, in.Tags) {
			continue
		}
		inScope[i] = true
		N++
		avg += float64(fieldLen(d, content, front))
	}
	if N > 0 {
		avg /= N
	}
	type scored struct {
		d     *doc
		score float64
		count int
	}
	acc := map[int]*scored{}
	for _, t := range terms {
		var ps []posting
		df := 0
		for _, p := range idx.postings(t) {
			if f := tfOf(p, content, front); f > 0 && inScope[p.doc] {
				ps = append(ps, p)
				df++
			}
		}
		idf := IDF(N, float64(df))
		for _, p := range ps {
			d := idx.docs[p.doc]
			f := float64(tfOf(p, content, front))
			norm := 1 - bm25B
			if avg > 0 {
				norm += bm25B * float64(fieldLen(d, content, front)) / avg
			}
			h := acc[p.doc]
			if h == nil {
				h = &scored{d: d}
				acc[p.doc] = h
			}
			h.score += idf * f * (bm25K1 + 1) / (f + bm25K1*norm)
			h.count += int(f)
		}
	}
	hits := make([]scored, 0, len(acc))
	for _, h := range acc {
		hits = append(hits, *h)
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].d.path < hits[j].d.path
	})
	res := &SearchResult{Schema: schemaTag, Query: in.Query, Total: len(hits), Results: []Hit{}, Scope: int(N)}
	for _, h := range hits[:min(limit, len(hits))] {
		hit := Hit{Path: h.d.path, Title: h.d.title, MatchCount: h.count, Score: math.Round(h.score*1000) / 1000}
		hit.Excerpt, hit.Line = nb.excerpt(h.d.path, terms, content)
		res.Results = append(res.Results, hit)
	}
	return res, nil
}

// IDF is BM25's inverse document frequency of a term found in df of n
// notes.
func IDF(n, df float64) float64 {
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

func fieldLen(d *doc, content, front bool) int {
	n := 0
	if content {
		n += d.bodyLen
	}
	if front {
		n += d.fmLen
	}
	return n
}

func tfOf(p posting, content, front bool) int {
	n := 0
	if content {
		n += p.body
	}
	if front {
		n += p.fm
	}
	return n
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

func hasAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// excerpt finds the first line with a query term and cuts a window around
// it; the line number counts from the top of the file.
func (nb *Notebook) excerpt(p string, terms []string, body bool) (string, int) {
	data, err := safepath.ReadRegular(nb.root, p, 0)
	if err != nil {
		return "", 0
	}
	start := 0
	if body {
		if n, err := parseNote(data); err == nil && n.has {
			start = len(data) - len(n.body)
		}
	}
	lines := bytes.Split(data, []byte{'\n'})
	offset := 0
	for i, raw := range lines {
		lineStart := offset
		offset += len(raw) + 1
		if lineStart < start {
			continue
		}
		lower := strings.ToLower(string(raw))
		for _, t := range terms {
			if j := strings.Index(lower, t); j >= 0 {
				return window(string(raw), j, len(t)), i + 1
			}
		}
	}
	for _, raw := range lines[min(len(lines), 0):] {
		if s := strings.TrimSpace(string(raw)); s != "" && s != "---" {
			return shorten(s, excerptWidth*2), 0
		}
	}
	return "", 0
}

// window cuts about excerptWidth characters each side of a match.
func window(line string, at, n int) string {
	from, to := max(0, at-excerptWidth), min(len(line), at+n+excerptWidth)
	for from > 0 && !isRuneStart(line[from]) {
		from--
	}
	for to < len(line) && !isRuneStart(line[to]) {
		to++
	}
	// Start and end at word boundaries: a snippet that opens mid-word
	// ("…ployment waits") reads as a typo. The cut moves to the next
	// space before the match (or the previous one after it); a line
	// without one there keeps the character cut.
	if from > 0 && !isSpace(line[from-1]) {
		if i := strings.IndexAny(line[from:at], " \t"); i >= 0 {
			from += i + 1
		}
	}
	if to < len(line) && !isSpace(line[to]) {
		if i := strings.LastIndexAny(line[at+n:to], " \t"); i >= 0 {
			to = at + n + i
		}
	}
	s := strings.TrimSpace(line[from:to])
	if from > 0 {
		s = "…" + s
	}
	if to < len(line) {
		s += "…"
	}
	return s
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func isSpace(b byte) bool { return b == ' ' || b == '\t' }

// The index file: a header; the notes (path, title, type, tags, size,
// modification time, field lengths); a sorted term dictionary with a table
// of offsets, so that a search looks up its few terms by binary search
// without decoding the rest; and the postings of each term.

func encodeIndex(docs []*doc, postings map[string][]posting) []byte {
	var b bytes.Buffer
	b.WriteString(indexMagic)
	putUvarint(&b, uint64(len(docs)))
	for _, d := range docs {
		putString(&b, d.path)
		putString(&b, d.title)
		putString(&b, d.typ)
		putUvarint(&b, uint64(len(d.tags)))
		for _, t := range d.tags {
			putString(&b, t)
		}
		putUvarint(&b, uint64(d.size))
		putUvarint(&b, uint64(d.mtime))
		putUvarint(&b, uint64(d.bodyLen))
		putUvarint(&b, uint64(d.fmLen))
	}
	terms := make([]string, 0, len(postings))
	for t := range postings {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	// postings blob
	var blob bytes.Buffer
	type entry struct{ off, n int }
	entries := make([]entry, len(terms))
	for i, t := range terms {
		ps := postings[t]
		sort.Slice(ps, func(a, b int) bool { return ps[a].doc < ps[b].doc })
		entries[i] = entry{blob.Len(), len(ps)}
		prev := 0
		for _, p := range ps {
			putUvarint(&blob, uint64(p.doc-prev))
			putUvarint(&blob, uint64(p.body))
			putUvarint(&blob, uint64(p.fm))
			prev = p.doc
		}
	}
	// dictionary: fixed-size offsets, then the entries
	var dict bytes.Buffer
	offsets := make([]uint32, len(terms))
	for i, t := range terms {
		offsets[i] = uint32(dict.Len())
		putString(&dict, t)
		putUvarint(&dict, uint64(entries[i].off))
		putUvarint(&dict, uint64(entries[i].n))
	}
	putUvarint(&b, uint64(len(terms)))
	for _, o := range offsets {
		_ = binary.Write(&b, binary.LittleEndian, o)
	}
	putUvarint(&b, uint64(dict.Len()))
	b.Write(dict.Bytes())
	b.Write(blob.Bytes())
	return b.Bytes()
}

// indexView reads an encoded index in place.
type indexView struct {
	docs    []*doc
	offsets []byte // len(terms) little-endian uint32s into dict
	dict    []byte
	blob    []byte
}

func (v *indexView) terms() int { return len(v.offsets) / 4 }

func (v *indexView) entry(i int) (term string, off, n int, ok bool) {
	o := binary.LittleEndian.Uint32(v.offsets[i*4:])
	if int(o) >= len(v.dict) {
		return "", 0, 0, false
	}
	r := &reader{data: v.dict[o:]}
	term = r.str()
	off, n = int(r.uvarint()), int(r.uvarint())
	return term, off, n, r.err == nil
}

// postings returns the postings of one term.
func (v *indexView) postings(term string) []posting {
	n := v.terms()
	i := sort.Search(n, func(i int) bool { t, _, _, _ := v.entry(i); return t >= term })
	if i >= n {
		return nil
	}
	t, off, count, ok := v.entry(i)
	if !ok || t != term || off > len(v.blob) {
		return nil
	}
	return decodePostings(v.blob[off:], count)
}

func decodePostings(data []byte, count int) []posting {
	r := &reader{data: data}
	out := make([]posting, 0, count)
	prev := 0
	for j := 0; j < count && r.err == nil; j++ {
		prev += int(r.uvarint())
		out = append(out, posting{prev, int(r.uvarint()), int(r.uvarint())})
	}
	if r.err != nil {
		return nil
	}
	return out
}

// allPostings decodes every term, for a rebuild.
func (v *indexView) allPostings() map[string][]posting {
	out := make(map[string][]posting, v.terms())
	for i := 0; i < v.terms(); i++ {
		t, off, n, ok := v.entry(i)
		if ok && off <= len(v.blob) {
			out[t] = decodePostings(v.blob[off:], n)
		}
	}
	return out
}

func putUvarint(b *bytes.Buffer, v uint64) {
	var tmp [binary.MaxVarintLen64]byte
	b.Write(tmp[:binary.PutUvarint(tmp[:], v)])
}

func putString(b *bytes.Buffer, s string) {
	putUvarint(b, uint64(len(s)))
	b.WriteString(s)
}

var errBadIndex = errors.New("bad index")

type reader struct {
	data []byte
	err  error
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.data)
	if n <= 0 {
		r.err = errBadIndex
		return 0
	}
	r.data = r.data[n:]
	return v
}

func (r *reader) bytes(n uint64) []byte {
	if r.err != nil || n > uint64(len(r.data)) {
		r.err = errBadIndex
		return nil
	}
	b := r.data[:n]
	r.data = r.data[n:]
	return b
}

func (r *reader) str() string { return string(r.bytes(r.uvarint())) }

// openIndex decodes the note table and finds the dictionary and postings.
func openIndex(data []byte) (*indexView, error) {
	if !bytes.HasPrefix(data, []byte(indexMagic)) {
		return nil, errBadIndex
	}
	r := &reader{data: data[len(indexMagic):]}
	n := r.uvarint()
	if n > 1<<24 {
		return nil, errBadIndex
	}
	v := &indexView{docs: make([]*doc, 0, n)}
	for i := uint64(0); i < n && r.err == nil; i++ {
		d := &doc{path: r.str(), title: r.str(), typ: r.str()}
		nt := r.uvarint()
		for j := uint64(0); j < nt && r.err == nil; j++ {
			d.tags = append(d.tags, r.str())
		}
		d.size, d.mtime = int64(r.uvarint()), int64(r.uvarint())
		d.bodyLen, d.fmLen = int(r.uvarint()), int(r.uvarint())
		v.docs = append(v.docs, d)
	}
	terms := r.uvarint()
	v.offsets = r.bytes(terms * 4)
	v.dict = r.bytes(r.uvarint())
	if r.err != nil {
		return nil, r.err
	}
	v.blob = r.data
	return v, nil
}
