package annotate

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/schemas"
)

// A decision's lifecycle: records are never edited, so a record stops
// being delivered when a newer one supersedes it (a correction), when
// someone flags it (a flag record on the same note names it), or when the
// date it expires on has passed. Readers leave such records out unless
// asked for all of them, and then mark them.

// KindFlag is a record that flags another as wrong or outdated.
const KindFlag = "flag"

// Flag says a record should no longer be trusted.
type Flag struct {
	notes.Header
	Kind   string `json:"kind" jsonschema:"flag"`
	Commit string `json:"commit"`
	Target string `json:"target" jsonschema:"id of the flagged record"`
	Reason string `json:"reason"`
	Author Author `json:"author"`
}

// Record states.
const (
	StateLive       = ""
	StateSuperseded = "superseded"
	StateFlagged    = "flagged"
	StateExpired    = "expired"
	// StateDeleted is a decision whose anchor is no longer in the code:
	// the function it was about was deleted (readers decide it, from
	// today's file; no record says so).
	StateDeleted = "deleted"
)

// Status is the lifecycle state of one record.
type Status struct {
	State  string   `json:"state,omitempty" jsonschema:"superseded, flagged, expired or deleted (its anchor is no longer in the code); empty when live"`
	Reason []string `json:"reason,omitempty" jsonschema:"why it was flagged"`
	By     string   `json:"by,omitempty" jsonschema:"id of the record that supersedes it"`
}

// ParseExpiry reads an expiry date: YYYY-MM-DD (the end of that day, UTC)
// or RFC 3339.
func ParseExpiry(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t.Add(24*time.Hour - time.Nanosecond), nil
	}
	return time.Time{}, fault.Usagef("expiry %q: want a date (2026-12-31) or an RFC 3339 time", s)
}

// Classify decodes every annotation record of one note, superseded ones
// included, with the state of each (keyed by record id).
func Classify(recs []notes.Record, now time.Time) ([]Decoded, map[string]Status) {
	status := map[string]Status{}
	for _, r := range recs {
		for _, s := range r.Supersedes {
			status[s] = Status{State: StateSuperseded, By: r.ID}
		}
	}
	for _, r := range recs {
		if r.Schema != Schema {
			continue
		}
		var f Flag
		if r.Decode(&f) != nil || f.Kind != KindFlag || f.Target == "" {
			continue
		}
		if st := status[f.Target]; st.State != StateSuperseded {
			st.State = StateFlagged
			st.Reason = append(st.Reason, f.Reason)
			status[f.Target] = st
		}
	}
	all := Decode(recs)
	for _, d := range all {
		exp := ""
		switch {
		case d.Region != nil:
			exp = d.Region.Expires
		case d.Summary != nil:
			exp = d.Summary.Expires
		}
		if exp == "" || status[d.Record.ID].State != StateLive {
			continue
		}
		if t, err := ParseExpiry(exp); err == nil && now.After(t) {
			status[d.Record.ID] = Status{State: StateExpired}
		}
	}
	return all, status
}

// Live decodes the records of one note that are still delivered: not
// superseded, flagged or expired.
func Live(recs []notes.Record, now time.Time) []Decoded {
	all, status := Classify(recs, now)
	out := all[:0:0]
	for _, d := range all {
		if status[d.Record.ID].State == StateLive {
			out = append(out, d)
		}
	}
	return out
}

// IsFlag reports whether a stored record is a flag (readers that count
// records they cannot use must not count flags).
func IsFlag(r notes.Record) bool {
	var probe struct {
		Kind string `json:"kind"`
	}
	return r.Schema == Schema && r.Decode(&probe) == nil && probe.Kind == KindFlag
}

// FindRecord finds an annotation record by id (a unique prefix of at least
// 6 characters will do) and the commit whose note holds it.
func FindRecord(repo *gitops.Repo, id string) (string, notes.Record, error) {
	id = strings.ToUpper(strings.TrimSpace(id))
	if len(id) < 6 {
		return "", notes.Record{}, fault.Usagef("record id %q: give at least 6 characters", id)
	}
	all, _, err := notes.Open(repo, notes.Annotations).ReadAll()
	if err != nil {
		return "", notes.Record{}, err
	}
	var commit string
	var found []notes.Record
	for c, recs := range all {
		for _, r := range recs {
			if r.Schema == Schema && strings.HasPrefix(r.ID, id) {
				commit = c
				found = append(found, r)
			}
		}
	}
	switch len(found) {
	case 0:
		return "", notes.Record{}, fault.NotFoundf("no annotation record %s", id)
	case 1:
		return commit, found[0], nil
	}
	return "", notes.Record{}, fault.Conflictf("record id %s is ambiguous (%d records)", id, len(found))
}

// FlagRecord writes a flag on the record's note: the record is left out
// of reads from now on (and shown, marked, with --all).
func FlagRecord(ctx context.Context, repo *gitops.Repo, id, reason string, author Author) (*Result, error) {
	if strings.TrimSpace(reason) == "" {
		return nil, fault.Usagef("say why with --reason")
	}
	commit, rec, err := FindRecord(repo, id)
	if err != nil {
		return nil, err
	}
	if author.Kind == "" {
		author.Kind = "human"
	}
	f := Flag{Header: notes.NewHeader(Schema), Kind: KindFlag, Commit: commit, Target: rec.ID, Reason: reason, Author: author}
	if err := notes.Open(repo, notes.Annotations).Append(ctx, commit, f); err != nil {
		return nil, err
	}
	res := newResult()
	res.Commit = commit
	res.Written = append(res.Written, f.ID)
	return res, nil
}

// Correction is what `git gloss correct` changes in a record; empty
// fields keep the old record's.
type Correction struct {
	Intent      string
	Reasoning   string
	Constraints []string // replace the old constraints when given
	Risks       []string
	Expires     string
	Author      Author
}

// CorrectRecord writes a new record that supersedes id: a copy of it with
// the corrections applied, on the same commit.
func CorrectRecord(ctx context.Context, repo *gitops.Repo, id string, c Correction) (*Result, error) {
	commit, rec, err := FindRecord(repo, id)
	if err != nil {
		return nil, err
	}
	if c.Expires != "" {
		if _, err := ParseExpiry(c.Expires); err != nil {
			return nil, err
		}
	}
	if c.Author.Kind == "" {
		c.Author.Kind = "human"
	}
	ds := Decode([]notes.Record{rec})
	if len(ds) == 0 {
		return nil, fault.Usagef("record %s is not a region or summary annotation", rec.ID)
	}
	var out any
	var newID string
	constraints := func(old []Constraint) []Constraint {
		if c.Constraints == nil {
			return old
		}
		var cs []Constraint
		for _, t := range c.Constraints {
			cs = append(cs, Constraint{Text: t, Source: "author"})
		}
		return cs
	}
	switch d := ds[0]; {
	case d.Region != nil:
		r := *d.Region
		r.Header = notes.NewHeader(Schema)
		r.Supersedes = []string{rec.ID}
		r.Intent = pick(c.Intent, r.Intent)
		r.Reasoning = pick(c.Reasoning, r.Reasoning)
		r.Constraints = constraints(slices.Clone(r.Constraints))
		if c.Risks != nil {
			r.Risks = c.Risks
		}
		r.Expires = pick(c.Expires, r.Expires)
		r.Author, r.Source = c.Author, SourceAgent
		if c.Author.Kind == "human" {
			r.Source = SourceHook
		}
		out, newID = r, r.ID
	case d.Summary != nil:
		s := *d.Summary
		s.Header = notes.NewHeader(Schema)
		s.Supersedes = []string{rec.ID}
		s.Intent = pick(c.Intent, s.Intent)
		s.Reasoning = pick(c.Reasoning, s.Reasoning)
		s.Constraints = constraints(slices.Clone(s.Constraints))
		if c.Risks != nil {
			s.Risks = c.Risks
		}
		s.Expires = pick(c.Expires, s.Expires)
		s.Author = c.Author
		out, newID = s, s.ID
	}
	if err := notes.Open(repo, notes.Annotations).Append(ctx, commit, out); err != nil {
		return nil, err
	}
	res := newResult()
	res.Commit = commit
	res.Written = append(res.Written, newID)
	res.Superseded = append(res.Superseded, rec.ID)
	return res, nil
}

func pick(n, old string) string {
	if n != "" {
		return n
	}
	return old
}

func init() {
	schemas.Register(schemas.Entry{Name: "annotation-flag", Tag: Schema, Description: "A flag on an annotation record (kind flag): it is no longer delivered.", Type: schemas.TypeOf[Flag]()})
}
