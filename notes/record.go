// Package notes stores typed records in git notes refs as JSON Lines: one
// record per line, each with a schema tag and a stable id. Line-oriented
// records survive everything git does to notes — concatenation on rebase
// and squash, `git notes merge -s cat_sort_uniq`, gloss's own three-way
// record merge on sync — without ever becoming invalid JSON.
//
// Records are not meant to be edited in place. A correction is a new record
// that names the ids it supersedes; Resolve hides superseded records on
// read. A record taken back for good gets a tombstone (forget.go) that every
// merge, import and carry honours.
package notes

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/tidwall/gjson"
)

// Header is the part every record shares. Capability record types embed it.
type Header struct {
	Schema     string   `json:"$schema"`              // e.g. "gloss/annotation/v1"
	ID         string   `json:"id"`                   // stable, unique, time-ordered
	Time       string   `json:"ts"`                   // RFC 3339, UTC
	Supersedes []string `json:"supersedes,omitempty"` // ids this record replaces
}

// NewHeader starts a record of the given schema with a fresh id and the
// current time.
func NewHeader(schema string) Header {
	now := time.Now().UTC()
	return Header{Schema: schema, ID: NewID(now), Time: now.Format(time.RFC3339)}
}

// Record is one stored line: its header fields and the raw JSON for
// decoding into a capability's own type.
type Record struct {
	Header
	Raw json.RawMessage
}

// Decode unmarshals the record into v.
func (r Record) Decode(v any) error {
	if err := json.Unmarshal(r.Raw, v); err != nil {
		return fmt.Errorf("decode %s record %s: %w", r.Schema, r.ID, err)
	}
	return nil
}

// Marshal encodes a record as one JSON line (without the newline). It
// checks what every reader relies on: a JSON object with a "$schema" and an
// "id".
func Marshal(rec any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		return nil, fmt.Errorf("encode record: %w", err)
	}
	line := bytes.TrimRight(buf.Bytes(), "\n")
	if _, err := parseLine(line); err != nil {
		return nil, err
	}
	return line, nil
}

// Parse splits a note into records. Blank lines (git's concatenate rewrite
// mode separates notes with one) are skipped, duplicate ids are kept once
// (a note copied twice by a rewrite), and lines that are not records are
// counted in bad rather than failing the whole note: one damaged line must
// not hide the others.
func Parse(note []byte) (recs []Record, bad int) {
	seen := map[string]bool{}
	for len(note) > 0 {
		var line []byte
		if i := bytes.IndexByte(note, '\n'); i >= 0 {
			line, note = note[:i], note[i+1:]
		} else {
			line, note = note, nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		rec, err := parseLine(line)
		if err != nil {
			bad++
			continue
		}
		if seen[rec.ID] {
			continue
		}
		seen[rec.ID] = true
		recs = append(recs, rec)
	}
	return recs, bad
}

func parseLine(line []byte) (Record, error) {
	if !gjson.ValidBytes(line) {
		return Record{}, fmt.Errorf("record is not valid JSON")
	}
	res := gjson.ParseBytes(line)
	if !res.IsObject() {
		return Record{}, fmt.Errorf("record is not a JSON object")
	}
	schema := res.Get(`\$schema`)
	id := res.Get("id")
	if schema.Type != gjson.String || schema.Str == "" {
		return Record{}, fmt.Errorf(`record has no "$schema"`)
	}
	if id.Type != gjson.String || id.Str == "" {
		return Record{}, fmt.Errorf(`record has no "id"`)
	}
	rec := Record{Header: Header{Schema: schema.Str, ID: id.Str, Time: res.Get("ts").Str}, Raw: append(json.RawMessage(nil), line...)}
	for _, s := range res.Get("supersedes").Array() {
		if s.Type == gjson.String {
			rec.Supersedes = append(rec.Supersedes, s.Str)
		}
	}
	return rec, nil
}

// Resolve drops every record that another record in recs supersedes,
// keeping the order of the rest.
func Resolve(recs []Record) []Record {
	gone := map[string]bool{}
	for _, r := range recs {
		for _, s := range r.Supersedes {
			gone[s] = true
		}
	}
	if len(gone) == 0 {
		return recs
	}
	out := make([]Record, 0, len(recs))
	for _, r := range recs {
		if !gone[r.ID] {
			out = append(out, r)
		}
	}
	return out
}

// crockford is the base32 alphabet of ULIDs: no I, L, O or U.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// NewID returns a 26-character ULID: 48 bits of milliseconds then 80 random
// bits, so ids sort by creation time and never collide across clones.
func NewID(t time.Time) string {
	var b [16]byte
	if _, err := rand.Read(b[6:]); err != nil {
		panic("crypto/rand failed: " + err.Error()) // never happens on supported platforms
	}
	return ulid(t, b)
}

// DerivedID returns a ULID whose time is t and whose other 80 bits come
// from key: the same input always gives the same id. Importers use it so
// that importing the same thing twice writes nothing the second time.
func DerivedID(t time.Time, key string) string {
	var b [16]byte
	sum := sha256.Sum256([]byte(key))
	copy(b[6:], sum[:10])
	return ulid(t, b)
}

// ulid encodes t's milliseconds into b[:6] and b as 26 base32 digits.
func ulid(t time.Time, b [16]byte) string {
	ms := uint64(max(t.UnixMilli(), 0))
	for i := 5; i >= 0; i-- {
		b[i] = byte(ms)
		ms >>= 8
	}
	// 128 bits as 26 base32 digits (the first digit carries 3 bits).
	var out [26]byte
	var acc uint64
	var bits uint
	pos := 25
	for i := 15; i >= 0; i-- {
		acc |= uint64(b[i]) << bits
		bits += 8
		for bits >= 5 && pos >= 0 {
			out[pos] = crockford[acc&31]
			acc >>= 5
			bits -= 5
			pos--
		}
	}
	if pos == 0 {
		out[0] = crockford[acc&31]
	}
	return string(out[:])
}

// ReadCounted is Read that also counts the note lines it skipped because
// they were not records (see Parse), so that readers can say so instead of
// quietly answering with less.
func (s *Store) ReadCounted(objects []string) (recs map[string][]Record, skipped int, err error) {
	snap, err := s.repo.ReadNotes(s.ref)
	if err != nil {
		return nil, 0, err
	}
	defer snap.Close()
	return ReadCountedIn(snap, objects)
}

// ReadCountedIn is ReadCounted on a snapshot the caller holds: many reads
// of one moment (a review's) share one.
func ReadCountedIn(snap *gitops.Notes, objects []string) (recs map[string][]Record, skipped int, err error) {
	raw, err := snap.GetMany(objects)
	if err != nil {
		return nil, 0, err
	}
	recs = make(map[string][]Record, len(raw))
	for obj, data := range raw {
		rs, bad := Parse(data)
		skipped += bad
		if len(rs) > 0 {
			recs[obj] = rs
		}
	}
	return recs, skipped, nil
}
