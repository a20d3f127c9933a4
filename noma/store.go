package noma

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
	"unicode/utf8"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/safepath"
	"github.com/gloss-dev/gloss/schemas"
)

// Store reads and patches the documents of one working tree. Every path
// goes through the tree's resolver (safepath.Tree): symlinks are followed
// inside the tree only, never into a git directory, and a transcript is
// never written through a symlink.
//
// Writes follow one discipline. A patch takes the document's lock, writes
// a journal into the lock file (what it is about to append to the
// transcript and the document's sha256 afterwards), appends the records,
// replaces the document atomically and clears the journal. Whoever takes
// the lock next finds a journal only if a writer died in between, and
// settles it: records whose document write happened are completed, the
// others are cut off. So after any kill, the transcript and the bytes on
// disk agree.
type Store struct {
	tree *safepath.Tree
	own  bool // the store opened the tree and closes it
	// Now is the clock for transcripts (tests pin it).
	Now func() time.Time
}

// NewStore serves the documents of an open working tree. Closing the
// store leaves the tree open.
func NewStore(tree *safepath.Tree) *Store {
	return &Store{tree: tree, Now: time.Now}
}

// OpenStore opens the documents of the working tree at dir.
func OpenStore(dir string) (*Store, error) {
	t, err := safepath.OpenWorkTree(dir)
	if err != nil {
		return nil, err
	}
	return &Store{tree: t, own: true, Now: time.Now}, nil
}

// Close releases the tree if the store opened it.
func (s *Store) Close() error {
	if s.own {
		return s.tree.Close()
	}
	return nil
}

// Dir is the root directory.
func (s *Store) Dir() string { return s.tree.Dir() }

// Rel resolves file (repository-relative, or absolute inside the root) to
// the document's real location, relative to the root.
func (s *Store) Rel(file string) (string, error) {
	return s.tree.Resolve(file)
}

// ReadSource reads a document's raw text.
func (s *Store) ReadSource(file string) (rel, src string, err error) {
	rel, err = s.Rel(file)
	if err != nil {
		return "", "", err
	}
	s.settle(rel)
	data, err := s.tree.ReadReal(rel, 64<<20)
	if err != nil {
		if fault.KindOf(err) == fault.NotFound {
			return rel, "", fault.NotFoundf("%s: no such document", rel)
		}
		return rel, "", err
	}
	if !utf8.Valid(data) {
		return rel, "", fault.Usagef("%s is not valid UTF-8", rel)
	}
	return rel, string(data), nil
}

// sidecar resolves a file that belongs to the document rel (its
// transcript, its capabilities) and refuses one that is a symlink: a
// sidecar is the document's own, so a link to anything else is an attack,
// not a convenience.
func (s *Store) sidecar(name string) (string, error) {
	real, err := s.tree.Resolve(name)
	if err != nil {
		return "", err
	}
	if real != name {
		return "", fault.Usagef("%s is a symbolic link (to %s): gloss does not read or write a document's sidecar through a link", name, real)
	}
	return real, nil
}

// readAll reads a sidecar of a document; a missing one is fs.ErrNotExist.
func (s *Store) readAll(name string) ([]byte, error) {
	real, err := s.sidecar(name)
	if err != nil {
		return nil, err
	}
	return s.tree.ReadReal(real, 0)
}

// settle lets a reader see a consistent document: when a writer died with
// its journal still set, the reader takes the lock and recovers first.
func (s *Store) settle(rel string) {
	if !s.tree.HasJournal(rel) {
		return
	}
	if w, err := s.beginWrite(rel); err == nil {
		w.end()
	}
}

// journal is what a patch writes into the document's lock file before it
// touches the transcript.
type journal struct {
	Transcript string `json:"transcript"`
	Size       int64  `json:"size"`        // the transcript's length before the append
	Post       string `json:"post_sha256"` // the document's sha256 once written
	Records    string `json:"records"`     // the lines being appended
}

// docWriter is one locked write of a document and its transcript.
type docWriter struct {
	s    *Store
	rel  string // the document
	tp   string // its transcript
	lock *os.File
}

// beginWrite takes the document's lock and settles a journal left by a
// writer that died.
func (s *Store) beginWrite(rel string) (*docWriter, error) {
	tp, err := s.sidecar(TranscriptPath(rel))
	if err != nil {
		return nil, err
	}
	lock, err := s.tree.LockFile(rel)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", rel, err)
	}
	w := &docWriter{s: s, rel: rel, tp: tp, lock: lock}
	if err := w.recover(); err != nil {
		lock.Close()
		return nil, fmt.Errorf("recover an interrupted patch of %s: %w", rel, err)
	}
	return w, nil
}

func (w *docWriter) end() { w.lock.Close() }

// commit appends records to the transcript, chained to the line before
// them, then writes text (when not nil) as the document's new content.
// It returns the last record.
func (w *docWriter) commit(recs []*Record, text *string) (*Record, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	size, last, err := w.tail()
	if err != nil {
		return nil, fmt.Errorf("transcript %s: %w", w.tp, err)
	}
	lines, err := chain(last, recs)
	if err != nil {
		return nil, err
	}
	post := recs[len(recs)-1].PostSHA256
	if err := w.setJournal(journal{Transcript: w.tp, Size: size, Post: post, Records: string(lines)}); err != nil {
		return nil, err
	}
	fault.Point("noma:journaled")
	if err := w.appendTranscript(lines); err != nil {
		return nil, err
	}
	fault.Point("noma:appended")
	if text != nil {
		if err := w.s.tree.WriteReal(w.rel, []byte(*text), 0o644); err != nil {
			return nil, fmt.Errorf("write %s: %w", w.rel, err)
		}
	}
	fault.Point("noma:written")
	if err := w.lock.Truncate(0); err != nil {
		return nil, err
	}
	return recs[len(recs)-1], nil
}

// tail returns the transcript's size and its last line, reading only the
// end of the file: a patch costs the same on the first record and the
// ten-thousandth.
func (w *docWriter) tail() (size int64, last []byte, err error) {
	f, err := safepath.OpenRegular(w.s.tree.Root(), w.tp)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, nil, err
	}
	size = st.Size()
	for window := int64(64 << 10); ; window *= 4 {
		from := max(0, size-window)
		buf := make([]byte, size-from)
		if _, err := f.ReadAt(buf, from); err != nil && err != io.EOF {
			return 0, nil, err
		}
		t := bytes.TrimRight(buf, "\n")
		if i := bytes.LastIndexByte(t, '\n'); i >= 0 || from == 0 {
			return size, t[i+1:], nil
		}
	}
}

// chain encodes records as transcript lines, each carrying the sha256 of
// the line before it (last, the transcript's current last line).
func chain(last []byte, recs []*Record) ([]byte, error) {
	var prev *string
	if len(last) > 0 {
		h := sha(string(last))
		prev = &h
	}
	var b bytes.Buffer
	for _, r := range recs {
		r.PrevEntrySHA256 = prev
		line, err := schemas.Encode(r)
		if err != nil {
			return nil, err
		}
		b.Write(line)
		b.WriteByte('\n')
		h := sha(string(line))
		prev = &h
	}
	return b.Bytes(), nil
}

func (w *docWriter) setJournal(j journal) error {
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	if err := w.lock.Truncate(0); err != nil {
		return err
	}
	if _, err := w.lock.WriteAt(append(data, '\n'), 0); err != nil {
		return err
	}
	return w.sync(w.lock)
}

func (w *docWriter) appendTranscript(lines []byte) error {
	f, err := w.s.tree.Root().OpenFile(w.tp, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("transcript %s: %w", w.tp, err)
	}
	defer f.Close()
	if _, err := f.Write(lines); err != nil {
		return fmt.Errorf("transcript %s: %w", w.tp, err)
	}
	return w.sync(f)
}

// sync flushes f to stable storage when the tree is durable. Without it
// the order of the steps alone keeps a killed writer's work consistent.
func (w *docWriter) sync(f *os.File) error {
	if !w.s.tree.Durable() {
		return nil
	}
	return atomicfile.DataSync(f)
}

// recover settles the journal a dead writer left. If the document holds
// the journal's result, the transcript must end with the journal's records
// (they are completed if the append was cut short); otherwise the
// document was never written and the records are cut off again.
func (w *docWriter) recover() error {
	data, err := io.ReadAll(io.NewSectionReader(w.lock, 0, 1<<30))
	if err != nil || len(data) == 0 {
		return err
	}
	var j journal
	if json.Unmarshal(data, &j) != nil || j.Transcript != w.tp {
		// Torn before the transcript was touched: nothing to undo.
		return w.lock.Truncate(0)
	}
	cur, err := w.s.tree.ReadReal(w.rel, 0)
	if err != nil && fault.KindOf(err) != fault.NotFound {
		return err
	}
	old, err := w.s.readAll(w.tp)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	keep := min(int64(len(old)), j.Size)
	tail := ""
	if sha(string(cur)) == j.Post {
		tail = j.Records
	}
	if string(old[keep:]) != tail || keep != j.Size {
		fixed := append(append([]byte{}, old[:keep]...), tail...)
		if err := w.s.tree.WriteReal(w.tp, fixed, 0o644); err != nil {
			return err
		}
	}
	return w.lock.Truncate(0)
}
