package notes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gloss-dev/gloss/gitops"
)

// The refs gloss writes. Everything under RefPrefix travels with
// `git gloss sync` and is copied by git on amend and rebase
// (notes.rewriteRef is set to RefPrefix + "*").
const (
	RefPrefix   = "refs/notes/gloss/"
	Annotations = RefPrefix + "annotations"
	Reconcile   = RefPrefix + "reconcile"
	// Sessions holds agent session records; sync leaves it alone unless
	// the team turns it on (SyncOptions.Sessions).
	Sessions = RefPrefix + "sessions"
)

// Store is one notes ref holding JSON Lines records.
type Store struct {
	repo *gitops.Repo
	ref  string
}

// Open returns the store on ref. The ref need not exist yet.
func Open(repo *gitops.Repo, ref string) *Store {
	return &Store{repo: repo, ref: ref}
}

// Ref is the notes ref the store reads and writes.
func (s *Store) Ref() string { return s.ref }

// appendTimeout bounds how long Append keeps retrying against other
// writers before giving up with ErrContended.
const appendTimeout = 60 * time.Second

// ErrContended is returned when a write could not win the ref in time.
var ErrContended = errors.New("notes ref too contended: gave up after retrying")

// Append adds records to the note on object (a commit id), creating the
// note if needed. The write is compare-and-swap on the ref, retried with
// jittered backoff when another writer moves it first, so concurrent
// writers — several agents, a hook and an MCP call — never lose a record.
func (s *Store) Append(ctx context.Context, object string, recs ...any) error {
	return s.AppendMany(ctx, map[string][]any{object: recs})
}

// AppendMany appends records to the notes of several objects in one notes
// commit.
func (s *Store) AppendMany(ctx context.Context, recs map[string][]any) error {
	lines := make(map[string][]byte, len(recs))
	for obj, rs := range recs {
		var buf bytes.Buffer
		for _, r := range rs {
			line, err := Marshal(r)
			if err != nil {
				return err
			}
			buf.Write(line)
			buf.WriteByte('\n')
		}
		if buf.Len() > 0 {
			lines[obj] = buf.Bytes()
		}
	}
	if len(lines) == 0 {
		return nil
	}
	msg := fmt.Sprintf("gloss: append %d note(s)", len(lines))
	return s.update(ctx, msg, func(n *gitops.Notes) ([]gitops.NoteChange, error) {
		changes := make([]gitops.NoteChange, 0, len(lines))
		for obj, add := range lines {
			old, _, err := n.Get(obj)
			if err != nil {
				return nil, err
			}
			changes = append(changes, gitops.NoteChange{Object: obj, Data: appendLines(old, add)})
		}
		return changes, nil
	})
}

// appendLines joins an existing note and new lines, making sure the old
// content ends with a newline first.
func appendLines(old, add []byte) []byte {
	out := make([]byte, 0, len(old)+len(add)+1)
	out = append(out, old...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return append(out, add...)
}

// update runs a read-modify-write of the ref until it wins the
// compare-and-swap. edit is called with a fresh snapshot on each attempt.
func (s *Store) update(ctx context.Context, msg string, edit func(*gitops.Notes) ([]gitops.NoteChange, error)) error {
	deadline := time.Now().Add(appendTimeout)
	backoff := time.Millisecond
	for {
		snap, err := s.repo.ReadNotes(s.ref)
		if err != nil {
			return err
		}
		changes, err := edit(snap)
		if err == nil {
			_, err = s.repo.CommitNotes(snap, changes, nil, msg)
		}
		snap.Close()
		if !errors.Is(err, gitops.ErrRefChanged) {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: %w", s.ref, ErrContended)
		}
		// Full jitter: concurrent writers spread out instead of colliding
		// again in lockstep.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(rand.Int64N(int64(backoff))) + 100*time.Microsecond):
		}
		backoff = min(backoff*2, 50*time.Millisecond)
	}
}

// Read returns the records attached to each of objects, reading them all
// from one snapshot of the ref. Objects with no note are absent.
func (s *Store) Read(objects []string) (map[string][]Record, error) {
	snap, err := s.repo.ReadNotes(s.ref)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	raw, err := snap.GetMany(objects)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]Record, len(raw))
	for obj, data := range raw {
		if recs, _ := Parse(data); len(recs) > 0 {
			out[obj] = recs
		}
	}
	return out, nil
}

// ReadResolved is Read with each object's records resolved (Resolve): the
// ones another record of the same note supersedes are left out, for a
// reader that only ever wants what is current.
func (s *Store) ReadResolved(objects []string) (map[string][]Record, error) {
	out, err := s.Read(objects)
	for obj, recs := range out {
		out[obj] = Resolve(recs)
	}
	return out, err
}

// Stats counts what a ref holds.
type Stats struct {
	Ref     string `json:"ref"`
	Tip     string `json:"tip"`
	Notes   int    `json:"notes"`   // annotated objects
	Records int    `json:"records"` // readable records
	Bad     int    `json:"malformed_lines"`
}

// ReadAll returns every record on the ref, keyed by annotated object.
func (s *Store) ReadAll() (map[string][]Record, Stats, error) {
	st := Stats{Ref: s.ref}
	snap, err := s.repo.ReadNotes(s.ref)
	if err != nil {
		return nil, st, err
	}
	defer snap.Close()
	st.Tip = snap.Tip
	entries, err := snap.List()
	if err != nil {
		return nil, st, err
	}
	out := make(map[string][]Record, len(entries))
	for _, e := range entries {
		data, err := s.repo.ReadBlob(e.Blob)
		if err != nil {
			return nil, st, fmt.Errorf("read note for %s: %w", e.Object, err)
		}
		recs, bad := Parse(data)
		st.Notes++
		st.Records += len(recs)
		st.Bad += bad
		if len(recs) > 0 {
			out[e.Object] = recs
		}
	}
	return out, st, nil
}
