package noma

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/gloss-dev/gloss/fault"
)

// Transcripts: <file>.patches, one Record per line and per op, each chained
// to the line before by prev_entry_sha256; reading, logging and replaying
// them.

// TranscriptPath is where a document's transcript lives.
func TranscriptPath(rel string) string { return rel + ".patches" }

// Record is one transcript record (v1.0), keys in protocol order.
type Record struct {
	ProtocolVersion string  `json:"protocol_version"`
	ToolVersion     string  `json:"tool_version"`
	OpID            string  `json:"op_id"`
	TS              string  `json:"ts"`
	Actor           Actor   `json:"actor"`
	DocURI          string  `json:"doc_uri"`
	PreSHA256       string  `json:"pre_sha256"`
	PostSHA256      string  `json:"post_sha256"`
	PreSHA          string  `json:"pre_sha"`
	PostSHA         string  `json:"post_sha"`
	Op              any     `json:"op"`
	PatchResult     string  `json:"patch_result" jsonschema:"applied, noop or rejected"`
	PreValidation   string  `json:"pre_validation"`
	PostValidation  string  `json:"post_validation"`
	Diagnostics     []any   `json:"diagnostics,omitempty"`
	Reason          string  `json:"reason,omitempty"`
	ParentOpID      string  `json:"parent_op_id,omitempty"`
	BaseSHA256      string  `json:"base_sha256,omitempty"`
	ElapsedMS       float64 `json:"elapsed_ms"`
	PrevEntrySHA256 *string `json:"prev_entry_sha256"`
	Signature       any     `json:"signature"`
}

// TranscriptResult is a document's transcript.
type TranscriptResult struct {
	File    string `json:"file"`
	Records []any  `json:"records" jsonschema:"the transcript records, oldest first (Noma v1.0)"`
	ChainOK bool   `json:"chain_ok" jsonschema:"every prev_entry_sha256 matches the line before it"`
}

// storedRecord is the part of a record replay and log need.
type storedRecord struct {
	OpID        string          `json:"op_id"`
	TS          string          `json:"ts"`
	Actor       Actor           `json:"actor"`
	PreSHA256   string          `json:"pre_sha256"`
	PostSHA256  string          `json:"post_sha256"`
	Op          json.RawMessage `json:"op"`
	PatchResult string          `json:"patch_result"`
	Reason      string          `json:"reason"`
	Diagnostics []struct {
		Code     string `json:"code"`
		Severity string `json:"severity"`
		Phase    string `json:"phase"`
	} `json:"diagnostics"`
	Prev *string `json:"prev_entry_sha256"`
}

func parseTranscript(data string) ([]json.RawMessage, []storedRecord, bool, error) {
	var raws []json.RawMessage
	var recs []storedRecord
	chain := true
	var prev *string
	for i, l := range strings.Split(data, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var r storedRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			return nil, nil, false, fault.Usagef("transcript line %d: %v", i+1, err)
		}
		if (prev == nil) != (r.Prev == nil) || prev != nil && *prev != *r.Prev {
			chain = false
		}
		h := sha(l)
		prev = &h
		raws = append(raws, json.RawMessage(l))
		recs = append(recs, r)
	}
	return raws, recs, chain, nil
}

// Transcript reads a document's transcript (empty when there is none).
func (s *Store) Transcript(file string) (*TranscriptResult, []storedRecord, error) {
	rel, err := s.Rel(file)
	if err != nil {
		return nil, nil, err
	}
	res := &TranscriptResult{File: rel, Records: []any{}, ChainOK: true}
	s.settle(rel)
	data, err := s.readAll(TranscriptPath(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return res, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	raws, recs, chain, err := parseTranscript(string(data))
	if err != nil {
		return nil, nil, err
	}
	for _, r := range raws {
		res.Records = append(res.Records, r)
	}
	res.ChainOK = chain
	return res, recs, nil
}

// ReplayResult is the outcome of re-applying a transcript.
type ReplayResult struct {
	File        string `json:"file"`
	OK          bool   `json:"ok"`
	Base        string `json:"base_sha256" jsonschema:"the pre_sha256 of the first applied record"`
	BaseFrom    string `json:"base_from,omitempty" jsonschema:"where the base was found: worktree, or commit:<sha>"`
	Applied     int    `json:"applied"`
	FinalSHA256 string `json:"final_sha256"`
	Expected    string `json:"expected_sha256" jsonschema:"the post_sha256 of the last applied record"`
	Current     bool   `json:"matches_worktree" jsonschema:"the replayed text equals the file as it is now"`
	ChainOK     bool   `json:"chain_ok"`
	Error       string `json:"error,omitempty"`
}

// BaseFinder looks for a text whose sha256 is want (for example in git
// history) and says where it found it.
type BaseFinder func(want string) (text, from string, ok bool)

// Replay re-applies the applied records of a transcript, in order, from
// their base, and checks the final sha256 byte-exactly.
func (s *Store) Replay(file string, find BaseFinder) (*ReplayResult, error) {
	rel, cur, err := s.ReadSource(file)
	if err != nil {
		return nil, err
	}
	tr, recs, err := s.Transcript(rel)
	if err != nil {
		return nil, err
	}
	res := &ReplayResult{File: rel, ChainOK: tr.ChainOK}
	var applied []storedRecord
	for _, r := range recs {
		if r.PatchResult == "applied" {
			applied = append(applied, r)
		}
	}
	if len(applied) == 0 {
		res.OK = true
		res.FinalSHA256, res.Expected, res.Current = sha(cur), sha(cur), true
		return res, nil
	}
	res.Base = applied[0].PreSHA256
	res.Expected = applied[len(applied)-1].PostSHA256
	var base string
	switch {
	case sha(cur) == res.Base:
		base, res.BaseFrom = cur, "worktree"
	case find != nil:
		t, from, ok := find(res.Base)
		if !ok {
			res.Error = fmt.Sprintf("base %s not found in the worktree or git history", res.Base[:12])
			return res, nil
		}
		base, res.BaseFrom = t, from
	default:
		res.Error = "base not found"
		return res, nil
	}
	p := NewPatcher(base)
	for i, r := range applied {
		if sha(p.Text()) != r.PreSHA256 {
			res.Error = fmt.Sprintf("record %d (%s): the text before it has sha256 %s, the record says %s", i+1, r.OpID, sha(p.Text())[:12], r.PreSHA256[:12])
			break
		}
		var op Op
		if err := json.Unmarshal(r.Op, &op); err != nil {
			res.Error = fmt.Sprintf("record %d (%s): %v", i+1, r.OpID, err)
			break
		}
		if err := p.Apply(op); err != nil {
			res.Error = fmt.Sprintf("record %d (%s): %v", i+1, r.OpID, err)
			break
		}
		res.Applied++
	}
	out := p.Text()
	res.FinalSHA256 = sha(out)
	res.Current = out == cur
	res.OK = res.Error == "" && res.FinalSHA256 == res.Expected
	if res.Error == "" && !res.OK {
		res.Error = fmt.Sprintf("final sha256 %s differs from the transcript's %s", res.FinalSHA256[:12], res.Expected[:12])
	}
	return res, nil
}

// LogLines renders a transcript for people, one line per record.
func LogLines(recs []storedRecord) []string {
	var out []string
	for _, r := range recs {
		var op struct {
			Op   string `json:"op"`
			ID   string `json:"id"`
			From string `json:"from"`
			To   string `json:"to"`
			Par  string `json:"parent"`
		}
		_ = json.Unmarshal(r.Op, &op)
		target := op.ID
		switch {
		case op.Op == "rename_id":
			target = op.From + " → " + op.To
		case op.Op == "add_block":
			target = "in " + op.Par
		}
		line := fmt.Sprintf("%s  %-8s  %-22s %-24s %s %s→%s", r.TS, r.PatchResult, op.Op, target, r.Actor.Kind+":"+r.Actor.Name, short(r.PreSHA256), short(r.PostSHA256))
		for _, d := range r.Diagnostics {
			if r.PatchResult == "rejected" && d.Phase == "pre" && d.Severity == "error" && !strings.Contains(d.Code, "-") {
				line += "  [" + d.Code + "]"
			}
		}
		if r.Reason != "" {
			line += "  — " + r.Reason
		}
		out = append(out, line)
	}
	return out
}

func short(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

// TranscriptLines is Transcript plus its human rendering.
func (s *Store) TranscriptLines(file string) (*TranscriptResult, []string, error) {
	res, recs, err := s.Transcript(file)
	if err != nil {
		return nil, nil, err
	}
	return res, LogLines(recs), nil
}
