package attribution

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/buildinfo"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// Agent Trace 0.1.0 (the RFC in cursor/agent-trace): trace records tying
// line ranges of files at a revision to contributors. gloss is an exchange
// point for them, not only a reader:
//
//   - another tool's record is kept whole (Record.Trace: the record as it
//     came, compacted), beside the line attribution gloss reads from it,
//     and an export gives it back byte for byte: its tool, conversation
//     URLs, related resources, content hashes and vendor metadata;
//   - gloss's own records become one trace record per commit, the gloss
//     records riding along under metadata["dev.gloss"], so that importing
//     gloss's own export gives back exactly what was exported, while any
//     other reader finds everything the format defines in its own fields.

// TraceVersion is the Agent Trace version gloss writes.
const TraceVersion = "0.1.0"

// metaKey is gloss's key in a trace record's metadata.
const metaKey = "dev.gloss"

// TraceRecord is an Agent Trace record.
type TraceRecord struct {
	Version   string          `json:"version"`
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	VCS       *TraceVCS       `json:"vcs,omitempty"`
	Tool      *TraceTool      `json:"tool,omitempty"`
	Files     []TraceFile     `json:"files"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
}

// TraceVCS names the revision a record is about.
type TraceVCS struct {
	Type     string `json:"type"`
	Revision string `json:"revision"`
}

// TraceTool names the tool that wrote a record.
type TraceTool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// TraceFile is one file's conversations.
type TraceFile struct {
	Path          string              `json:"path"`
	Conversations []TraceConversation `json:"conversations"`
}

// TraceConversation is the lines one contributor produced.
type TraceConversation struct {
	URL         string            `json:"url,omitempty"`
	Contributor *TraceContributor `json:"contributor,omitempty"`
	Ranges      []TraceRange      `json:"ranges"`
}

// TraceContributor is Agent Trace's contributor: a type and a model.
type TraceContributor struct {
	Type    string `json:"type"`
	ModelID string `json:"model_id,omitempty"`
}

// TraceRange is an inclusive line range, optionally with its own
// contributor.
type TraceRange struct {
	StartLine   int               `json:"start_line"`
	EndLine     int               `json:"end_line"`
	ContentHash string            `json:"content_hash,omitempty"`
	Contributor *TraceContributor `json:"contributor,omitempty"`
}

type traceMeta struct {
	Records []Record `json:"records"`
}

// TraceExport is what ExportTrace wrote.
type TraceExport struct {
	Records int    // trace records written
	Commits int    // commits they are about
	Range   string // the range followed
	// Unreachable counts attributed commits the range does not reach
	// (rewritten away by an amend or a rebase, or on other branches):
	// left out.
	Unreachable int
}

// ExportTrace writes the Agent Trace records of the attributed commits
// reachable from rangeSpec (A..B, a revision and its history; "" is HEAD,
// the current branch), oldest first, as JSON Lines: for each commit the
// records imported from other tools as they came, then one record of
// gloss's own attribution. Commits the range does not reach — those an
// amend or a rebase rewrote away, whose attribution lives on in their
// copies — are left out and counted.
func ExportTrace(ctx context.Context, repo *gitops.Repo, rangeSpec string, w io.Writer) (*TraceExport, error) {
	all, _, err := notes.Open(repo, Ref).ReadAll()
	if err != nil {
		return nil, err
	}
	if rangeSpec == "" {
		rangeSpec = "HEAD"
	}
	res := &TraceExport{Range: rangeSpec}
	args := []string{"rev-list", "--reverse", "--topo-order"}
	if a, b, ok := strings.Cut(rangeSpec, ".."); ok {
		if b == "" {
			b = "HEAD"
		}
		args = append(args, b, "^"+a)
	} else {
		args = append(args, rangeSpec)
	}
	out, err := repo.Git(ctx, append(args, "--")...)
	if err != nil {
		return nil, fault.NotFoundf("%s: %v", rangeSpec, err)
	}
	commits := strings.Fields(string(out))
	reached := make(map[string]bool, len(commits))
	for _, c := range commits {
		reached[c] = true
	}
	for c, recs := range all {
		if !reached[c] && resolve(recs) != nil {
			res.Unreachable++
		}
	}
	for _, c := range commits {
		lines, err := tracesOf(c, all[c])
		if err != nil {
			return res, err
		}
		for _, line := range lines {
			if _, err := w.Write(append(line, '\n')); err != nil {
				return res, err
			}
			res.Records++
		}
		if len(lines) > 0 {
			res.Commits++
		}
	}
	return res, nil
}

// tracesOf is the trace records of one commit: the live records imported
// from another tool's trace, each as it came, then gloss's own.
func tracesOf(commit string, recs []notes.Record) ([][]byte, error) {
	ca := resolve(recs)
	if ca == nil {
		return nil, nil
	}
	var out [][]byte
	var own []*Record
	for _, r := range ca.recs {
		if r.Source == SourceImport && len(r.Trace) > 0 {
			out = append(out, r.Trace)
			continue
		}
		own = append(own, r)
	}
	if len(own) > 0 {
		line, err := json.Marshal(traceOf(commit, own))
		if err != nil {
			return nil, err
		}
		out = append(out, line)
	}
	return out, nil
}

// traceOf turns gloss's own live attribution records of one commit
// (sorted by id) into a trace record.
func traceOf(commit string, own []*Record) TraceRecord {
	ca := merged(own)
	live := make([]Record, len(ca.recs))
	for i, r := range ca.recs {
		live[i] = *r
	}
	last := live[len(live)-1]
	tr := TraceRecord{
		Version: TraceVersion, ID: uuidOf(commit + "\x00" + strings.Join(ca.ids, ",")), Timestamp: last.Time,
		VCS:   &TraceVCS{Type: "git", Revision: commit},
		Tool:  &TraceTool{Name: "git-gloss", Version: buildinfo.Version},
		Files: []TraceFile{},
	}
	if _, err := time.Parse(time.RFC3339, tr.Timestamp); err != nil {
		tr.Timestamp = time.Now().UTC().Format(time.RFC3339)
	}
	for _, p := range sortedKeys(ca.files) {
		f := TraceFile{Path: p}
		byC := map[Contributor]int{} // contributor -> conversation index
		for _, sp := range ca.files[p] {
			ci, ok := byC[*sp.c]
			if !ok {
				c := *sp.c
				conv := TraceConversation{Contributor: &TraceContributor{Type: c.Type, ModelID: truncate(c.Model, 250)}}
				if c.Session != "" && c.Agent != "" {
					conv.URL = "urn:gloss:session:" + urnPart(c.Agent) + ":" + urnPart(c.Session)
				}
				ci = len(f.Conversations)
				byC[c] = ci
				f.Conversations = append(f.Conversations, conv)
			}
			f.Conversations[ci].Ranges = append(f.Conversations[ci].Ranges, TraceRange{StartLine: sp.start, EndLine: sp.end})
		}
		tr.Files = append(tr.Files, f)
	}
	meta, _ := json.Marshal(map[string]traceMeta{metaKey: {Records: live}})
	tr.Metadata = meta
	return tr
}

// urnPart keeps a URN component to characters that need no escaping.
func urnPart(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("-._~", r):
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "%%%02X", r&0xff)
		}
	}
	return b.String()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// uuidOf derives a stable UUID (version 8, RFC 9562's custom layout) from
// key, so exporting the same records twice gives the same ids.
func uuidOf(key string) string {
	sum := sha256.Sum256([]byte(key))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x80
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// ImportOptions says where trace records come from.
type ImportOptions struct {
	Inputs []io.Reader // files of trace records: JSON Lines, one JSON object, or an array
	Ref    string      // a notes ref whose notes are trace records (e.g. refs/notes/agent-trace)
}

// rawTrace is one trace record as it came (compacted) and as gloss reads
// it.
type rawTrace struct {
	raw    json.RawMessage
	rec    TraceRecord
	commit string // from the note's object when the record names none
}

// ImportTrace reads Agent Trace records and writes gloss attribution
// records on the commits they name (vcs.revision, else the commit a notes
// ref's note is on). Records gloss exported come back as they were;
// another tool's record is kept whole for export and read into line
// attribution: each range's contributor (or its conversation's) with its
// model, the agent named from the tool and the model, the conversation URL
// as the session. Importing twice writes nothing the second time; a record
// that would change no line's answer is reported as outranked.
func ImportTrace(ctx context.Context, repo *gitops.Repo, opts ImportOptions) (*notes.ImportResult, error) {
	res := &notes.ImportResult{Schema: "gloss-import/v1", Refs: []string{Ref}, Warnings: []string{}}
	var in []rawTrace
	for i, r := range opts.Inputs {
		recs, err := decodeTraces(r)
		if err != nil {
			return nil, fault.Usagef("input %d: %v", i+1, err)
		}
		in = append(in, recs...)
	}
	if opts.Ref != "" {
		recs, err := tracesInRef(repo, opts.Ref, res)
		if err != nil {
			return nil, err
		}
		in = append(in, recs...)
	}
	adm, err := newAdmitter(repo, res)
	if err != nil {
		return nil, err
	}
	for _, t := range in {
		res.Read++
		commit := t.commit
		if t.rec.VCS != nil && t.rec.VCS.Type == "git" && t.rec.VCS.Revision != "" {
			commit = t.rec.VCS.Revision
		}
		full, err := repo.ResolveCommit(commit)
		if commit == "" || err != nil {
			res.Missing++
			continue
		}
		for _, rec := range fromTrace(full, t) {
			if err := adm.add(full, rec); err != nil {
				return nil, err
			}
		}
	}
	if err := adm.write(ctx); err != nil {
		return nil, err
	}
	return res, nil
}

// tracesInRef reads the trace records of a notes ref's notes.
func tracesInRef(repo *gitops.Repo, ref string, res *notes.ImportResult) ([]rawTrace, error) {
	snap, err := repo.ReadNotes(ref)
	if err != nil {
		return nil, err
	}
	entries, err := snap.List()
	snap.Close()
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		res.Warnings = append(res.Warnings, ref+": no notes")
	}
	var out []rawTrace
	for _, e := range entries {
		data, err := repo.ReadBlob(e.Blob)
		if err != nil {
			return nil, err
		}
		recs, err := decodeTraces(bytes.NewReader(data))
		if err != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s note on %s: %v", ref, gitops.ShortID(e.Object), err))
			continue
		}
		for _, tr := range recs {
			tr.commit = e.Object
			out = append(out, tr)
		}
	}
	return out, nil
}

// decodeTraces reads trace records: a stream of JSON objects (JSON Lines
// or pretty-printed), or arrays of them.
func decodeTraces(r io.Reader) ([]rawTrace, error) {
	dec := json.NewDecoder(r)
	var out []rawTrace
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return out, err
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) > 0 && raw[0] == '[' {
			var list []json.RawMessage
			if err := json.Unmarshal(raw, &list); err != nil {
				return out, err
			}
			for _, item := range list {
				tr, err := decodeTrace(item)
				if err != nil {
					return out, err
				}
				out = append(out, tr)
			}
			continue
		}
		tr, err := decodeTrace(raw)
		if err != nil {
			return out, err
		}
		out = append(out, tr)
	}
}

func decodeTrace(raw json.RawMessage) (rawTrace, error) {
	var tr TraceRecord
	if err := json.Unmarshal(raw, &tr); err != nil {
		return rawTrace{}, err
	}
	if tr.Version == "" || tr.Files == nil {
		return rawTrace{}, fmt.Errorf("not an Agent Trace record (no version or files)")
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return rawTrace{}, err
	}
	return rawTrace{raw: compact.Bytes(), rec: tr}, nil
}

// fromTrace turns a trace record into gloss records for commit.
func fromTrace(commit string, t rawTrace) []Record {
	tr := t.rec
	if len(tr.Metadata) > 0 {
		var meta map[string]json.RawMessage
		if json.Unmarshal(tr.Metadata, &meta) == nil && meta[metaKey] != nil {
			var m traceMeta
			if json.Unmarshal(meta[metaKey], &m) == nil && len(m.Records) > 0 {
				for i := range m.Records {
					m.Records[i].Commit = commit
				}
				return m.Records
			}
		}
	}
	ts, err := time.Parse(time.RFC3339, tr.Timestamp)
	if err != nil {
		ts = time.Unix(0, 0)
	}
	b := newBuilder(commit, SourceImport)
	b.rec.ID = notes.DerivedID(ts, "agent-trace\x00"+tr.ID+"\x00"+commit)
	b.rec.Time = ts.UTC().Format(time.RFC3339)
	b.rec.Trace = t.raw
	tool := ""
	if tr.Tool != nil {
		tool = tr.Tool.Name
	}
	for _, f := range tr.Files {
		byLine := map[int]Contributor{}
		for _, conv := range f.Conversations {
			for _, rg := range conv.Ranges {
				tc := rg.Contributor
				if tc == nil {
					tc = conv.Contributor
				}
				c := Contributor{Type: Unknown, Basis: BasisImport}
				if tc != nil {
					c.Type, c.Model = validType(tc.Type), tc.ModelID
				}
				if c.Type == AI || c.Type == Mixed {
					c.Agent = traceAgent(tool, c.Model)
					c.Session = conv.URL
				}
				for l := max(rg.StartLine, 1); l <= rg.EndLine && l-rg.StartLine < 1_000_000; l++ {
					byLine[l] = c
				}
			}
		}
		lines := make([]int, 0, len(byLine))
		for l := range byLine {
			lines = append(lines, l)
		}
		sort.Ints(lines)
		cs := make([]Contributor, len(lines))
		for i, l := range lines {
			cs[i] = byLine[l]
		}
		b.add(f.Path, lines, cs)
	}
	return []Record{b.record()}
}

// recorders are tools that write trace records of other agents' work: the
// agent is named from the model, not from them.
var recorders = []string{"git-gloss", "git-ai", "agent-trace", "unknown"}

// traceAgent names the agent of a trace's AI lines: the tool that wrote
// the record when it is an agent (Cursor's lines are Cursor's, whichever
// model it ran: GPT-5 lines in Cursor are not Codex's), else the one the
// model belongs to, else the tool itself.
func traceAgent(tool, model string) string {
	t := strings.ToLower(strings.TrimSpace(tool))
	if t != "" && !slices.Contains(recorders, t) {
		if a := agentIn(t); a != "" {
			return a
		}
	}
	if a := agentIn(model); a != "" {
		return a
	}
	if slices.Contains(recorders, t) {
		return ""
	}
	return t
}

func validType(t string) string {
	switch t {
	case Human, AI, Mixed:
		return t
	}
	return Unknown
}
