package gitops

import (
	"bytes"
	"fmt"
	"path"
	"strings"
	"time"

	git "github.com/libgit2/git2go/v34"
)

// fanoutThreshold is the number of entries above which a flat notes tree
// level is split into 2-hex-digit subdirectories. git does the same (its
// heuristic fans out at about 256 notes per level); keeping our writes in
// git's layout means `git notes` and gloss can write the same ref.
const fanoutThreshold = 256

// Notes is a notes ref read at one moment: its tip commit and tree. Reads
// from one snapshot are consistent with each other; writes go through
// CommitNotes, which is compare-and-swap against the snapshot's tip.
type Notes struct {
	repo *Repo
	Ref  string
	Tip  string // the notes commit, "" when the ref does not exist
	tree *git.Tree
	// subtrees are the fanout directories looked up so far, by their path
	// ("ab", "ab/cd"): a snapshot asked about many objects (a review's
	// reads share one) reads each once.
	subtrees map[string]*git.Tree
	// notes are the note blobs read so far, by blob id, up to
	// maxKeptNotes bytes: the reads of a review name the same commits file
	// after file, and read each note once (a pass over every note keeps
	// the first few MB). Callers get a copy of their own.
	notes     map[string][]byte
	notesKept int
}

// maxKeptNotes bounds the note bytes a snapshot keeps.
const maxKeptNotes = 8 << 20

// ReadNotes snapshots a notes ref (for example refs/notes/gloss/annotations).
// A ref that does not exist yet is an empty snapshot, not an error.
func (r *Repo) ReadNotes(ref string) (*Notes, error) {
	tip, err := r.RefTarget(ref)
	if err != nil {
		return nil, err
	}
	return r.ReadNotesAt(ref, tip)
}

// ReadNotesAt snapshots the notes commit tip as if ref pointed at it: the
// merge base of a three-way merge, or a history a purge is replacing. An
// empty tip is an empty snapshot.
func (r *Repo) ReadNotesAt(ref, tip string) (*Notes, error) {
	n := &Notes{repo: r, Ref: ref, Tip: tip}
	if tip == "" {
		return n, nil
	}
	o, _ := oid(tip)
	c, err := r.r.LookupCommit(o)
	if err != nil {
		return nil, fmt.Errorf("notes ref %s points at %s, which is not a commit: %w", ref, tip, err)
	}
	defer c.Free()
	if n.tree, err = c.Tree(); err != nil {
		return nil, fmt.Errorf("read notes tree of %s: %w", ref, err)
	}
	return n, nil
}

// Close frees the snapshot's tree.
func (n *Notes) Close() {
	if n.tree != nil {
		n.tree.Free()
		n.tree = nil
	}
	for _, t := range n.subtrees {
		t.Free()
	}
	n.subtrees = nil
}

// Get returns the note attached to object id, and whether there is one.
func (n *Notes) Get(id string) ([]byte, bool, error) {
	blob, ok, err := n.blobFor(id)
	if err != nil || !ok {
		return nil, ok, err
	}
	if data, ok := n.notes[blob]; ok {
		return bytes.Clone(data), true, nil
	}
	data, err := n.repo.ReadBlob(blob)
	if err != nil {
		return nil, false, fmt.Errorf("read note for %s: %w", id, err)
	}
	if n.notesKept+len(data) <= maxKeptNotes {
		if n.notes == nil {
			n.notes = map[string][]byte{}
		}
		n.notes[blob] = bytes.Clone(data)
		n.notesKept += len(data)
	}
	return data, true, nil
}

// GetMany returns the notes of many objects in one pass over one snapshot;
// objects without a note are absent from the map.
func (n *Notes) GetMany(ids []string) (map[string][]byte, error) {
	out := make(map[string][]byte, len(ids))
	for _, id := range ids {
		if _, seen := out[id]; seen {
			continue
		}
		data, ok, err := n.Get(id)
		if err != nil {
			return nil, err
		}
		if ok {
			out[id] = data
		}
	}
	return out, nil
}

// blobFor finds the note blob for id in any fanout layout git may have
// written: flat ("<40 hex>"), or split into 2-hex directories at any depth.
func (n *Notes) blobFor(id string) (string, bool, error) {
	if n.tree == nil {
		return "", false, nil
	}
	id = strings.ToLower(id)
	t := n.tree
	rest, dir := id, ""
	for {
		if e := t.EntryByName(rest); e != nil && e.Type == git.ObjectBlob {
			return e.Id.String(), true, nil
		}
		if len(rest) <= 2 {
			return "", false, nil
		}
		dir = path.Join(dir, rest[:2])
		sub, ok := n.subtrees[dir]
		if !ok {
			e := t.EntryByName(rest[:2])
			if e == nil || e.Type != git.ObjectTree {
				return "", false, nil
			}
			var err error
			if sub, err = n.repo.r.LookupTree(e.Id); err != nil {
				return "", false, fmt.Errorf("read notes subtree: %w", err)
			}
			if n.subtrees == nil {
				n.subtrees = map[string]*git.Tree{}
			}
			n.subtrees[dir] = sub
		}
		t, rest = sub, rest[2:]
	}
}

// NoteEntry names one note: the annotated object and the note's blob.
type NoteEntry struct {
	Object string
	Blob   string
}

// List returns every note in the snapshot, in tree order.
func (n *Notes) List() ([]NoteEntry, error) {
	if n.tree == nil {
		return nil, nil
	}
	var out []NoteEntry
	err := n.tree.Walk(func(parent string, e *git.TreeEntry) error {
		if e.Type != git.ObjectBlob {
			return nil
		}
		name := strings.ReplaceAll(parent, "/", "") + e.Name
		if isHex(name) {
			out = append(out, NoteEntry{Object: name, Blob: e.Id.String()})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list notes on %s: %w", n.Ref, err)
	}
	return out, nil
}

func isHex(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// NoteChange sets the note of Object to Data; nil Data removes the note.
type NoteChange struct {
	Object string
	Data   []byte
}

// CommitNotes writes a new notes commit on top of base (the snapshot the
// caller read and modified) and moves the ref from base.Tip to it with
// compare-and-swap. Extra parents record merges (sync). It returns the new
// tip, or ErrRefChanged when another writer moved the ref first, in which
// case nothing visible changed and the caller should re-read and retry.
func (r *Repo) CommitNotes(base *Notes, changes []NoteChange, extraParents []string, msg string) (string, error) {
	return r.ReplaceNotes(base, changes, append([]string{base.Tip}, extraParents...), msg)
}

// ReplaceNotes is CommitNotes with the new commit's parents given exactly:
// none makes a new root (a purge that must leave no old commit reachable),
// or another history's tip (a clone adopting a purged remote history). The
// ref still moves from base.Tip by compare-and-swap.
func (r *Repo) ReplaceNotes(base *Notes, changes []NoteChange, parents []string, msg string) (string, error) {
	commitID, err := r.NotesCommit(base, changes, parents, msg)
	if err != nil {
		return "", err
	}
	if err := r.UpdateRef(base.Ref, commitID, base.Tip, msg); err != nil {
		return "", err
	}
	return commitID, nil
}

// NotesCommit writes the commit ReplaceNotes would write without moving
// any ref, for a caller that must record the new commit's id somewhere
// else before the ref moves.
func (r *Repo) NotesCommit(base *Notes, changes []NoteChange, parents []string, msg string) (string, error) {
	edits := make(map[string]string, len(changes))
	for _, ch := range changes {
		id := strings.ToLower(ch.Object)
		if !isHex(id) {
			return "", fmt.Errorf("cannot attach a note to %q: not an object id", ch.Object)
		}
		if ch.Data == nil {
			edits[id] = ""
			continue
		}
		blob, err := r.WriteBlob(ch.Data)
		if err != nil {
			return "", err
		}
		edits[id] = blob
	}
	treeID, _, err := r.editNotesTree(base.tree, edits, false)
	if err != nil {
		return "", fmt.Errorf("build notes tree: %w", err)
	}
	var pids []*git.Oid
	for _, p := range parents {
		if p == "" {
			continue
		}
		po, err := oid(p)
		if err != nil {
			return "", err
		}
		pids = append(pids, po)
	}
	sig := r.signature()
	commitID, err := r.r.CreateCommitFromIds("", sig, sig, msg, treeID, pids...)
	if err != nil {
		return "", fmt.Errorf("write notes commit: %w", err)
	}
	return commitID.String(), nil
}

// signature is the identity for commits gloss writes itself: the user's
// configured identity (forges reject notes commits from made-up
// identities), falling back to a gloss identity on machines with none.
func (r *Repo) signature() *git.Signature {
	if sig, err := r.r.DefaultSignature(); err == nil && sig.Name != "" && sig.Email != "" {
		return sig
	}
	return &git.Signature{Name: "gloss", Email: "gloss@localhost", When: time.Now()}
}

// editNotesTree applies edits (remaining hex name -> blob id, "" to delete)
// to tree t, which may be nil, and returns the new tree and its entry count.
// It keeps whatever fanout layout each level already has, and fans a flat
// level out once it grows past fanoutThreshold entries.
func (r *Repo) editNotesTree(t *git.Tree, edits map[string]string, fanout bool) (*git.Oid, uint64, error) {
	var tb *git.TreeBuilder
	var err error
	if t != nil {
		tb, err = r.r.TreeBuilderFromTree(t)
		fanout = fanout || hasFanout(t)
	} else {
		tb, err = r.r.TreeBuilder()
	}
	if err != nil {
		return nil, 0, err
	}
	defer tb.Free()

	sub := map[string]map[string]string{}
	for name, blob := range edits {
		if t != nil {
			if e := t.EntryByName(name); e != nil && e.Type == git.ObjectBlob {
				if err := setEntry(tb, name, blob); err != nil {
					return nil, 0, err
				}
				continue
			}
		}
		if len(name) > 2 && (fanout || subtreeNamed(t, name[:2])) {
			if sub[name[:2]] == nil {
				sub[name[:2]] = map[string]string{}
			}
			sub[name[:2]][name[2:]] = blob
			continue
		}
		if err := setEntry(tb, name, blob); err != nil {
			return nil, 0, err
		}
	}
	for prefix, subEdits := range sub {
		var subTree *git.Tree
		if t != nil {
			if e := t.EntryByName(prefix); e != nil && e.Type == git.ObjectTree {
				if subTree, err = r.r.LookupTree(e.Id); err != nil {
					return nil, 0, err
				}
			}
		}
		id, n, err := r.editNotesTree(subTree, subEdits, false)
		if subTree != nil {
			subTree.Free()
		}
		if err != nil {
			return nil, 0, err
		}
		if n == 0 {
			_ = tb.Remove(prefix)
			continue
		}
		if err := tb.Insert(prefix, id, git.FilemodeTree); err != nil {
			return nil, 0, err
		}
	}
	id, err := tb.Write()
	if err != nil {
		return nil, 0, err
	}
	written, err := r.r.LookupTree(id)
	if err != nil {
		return nil, 0, err
	}
	defer written.Free()
	count := written.EntryCount()
	if !fanout && count > fanoutThreshold {
		return r.fanOut(written)
	}
	return id, count, nil
}

// fanOut rebuilds a flat notes level as 2-hex subdirectories.
func (r *Repo) fanOut(flat *git.Tree) (*git.Oid, uint64, error) {
	edits := map[string]string{}
	keep := []*git.TreeEntry{}
	for i := uint64(0); i < flat.EntryCount(); i++ {
		e := flat.EntryByIndex(i)
		if e.Type == git.ObjectBlob && len(e.Name) > 2 && isHexPrefix(e.Name) {
			edits[e.Name] = e.Id.String()
		} else {
			keep = append(keep, e)
		}
	}
	id, count, err := r.editNotesTree(nil, edits, true)
	if err != nil || len(keep) == 0 {
		return id, count, err
	}
	t, err := r.r.LookupTree(id)
	if err != nil {
		return nil, 0, err
	}
	defer t.Free()
	tb, err := r.r.TreeBuilderFromTree(t)
	if err != nil {
		return nil, 0, err
	}
	defer tb.Free()
	for _, e := range keep {
		if err := tb.Insert(e.Name, e.Id, e.Filemode); err != nil {
			return nil, 0, err
		}
	}
	id, err = tb.Write()
	return id, count + uint64(len(keep)), err
}

func isHexPrefix(s string) bool {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func setEntry(tb *git.TreeBuilder, name, blob string) error {
	if blob == "" {
		_ = tb.Remove(name) // removing a note that is not there is not an error
		return nil
	}
	id, err := oid(blob)
	if err != nil {
		return err
	}
	return tb.Insert(name, id, git.FilemodeBlob)
}

// hasFanout reports whether a notes tree level is split into 2-hex
// subdirectories.
func hasFanout(t *git.Tree) bool {
	for i := uint64(0); i < t.EntryCount(); i++ {
		e := t.EntryByIndex(i)
		if e.Type == git.ObjectTree && len(e.Name) == 2 && isHexPrefix(e.Name) {
			return true
		}
	}
	return false
}

func subtreeNamed(t *git.Tree, name string) bool {
	if t == nil {
		return false
	}
	e := t.EntryByName(name)
	return e != nil && e.Type == git.ObjectTree
}
