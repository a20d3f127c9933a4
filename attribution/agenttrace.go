package attribution

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/buildinfo"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// Agent Trace 0.1.0 (the RFC in cursor/agent-trace): one trace record per
// revision, tying line ranges of files to contributors. gloss writes one
// record per attributed commit; the gloss records it came from ride along
// under metadata["dev.gloss"], so that importing gloss's own export gives
// back exactly what was exported, while any other reader finds everything
// the format defines in its own fields.

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

// ExportTrace writes one Agent Trace record per attributed commit of
// rangeSpec (A..B, a revision and its history, or "" for every attributed
// commit), oldest first, as JSON Lines.
func ExportTrace(ctx context.Context, repo *gitops.Repo, rangeSpec string, w io.Writer) (int, error) {
	all, _, err := notes.Open(repo, Ref).ReadAll()
	if err != nil {
		return 0, err
	}
	var commits []string
	if rangeSpec != "" {
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
			return 0, fault.NotFoundf("%s: %v", rangeSpec, err)
		}
		commits = strings.Fields(string(out))
	} else {
		for c := range all {
			commits = append(commits, c)
		}
		commits = byCommitTime(repo, commits)
	}
	n := 0
	for _, c := range commits {
		recs := all[c]
		if len(recs) == 0 {
			continue
		}
		tr, ok := traceOf(c, recs)
		if !ok {
			continue
		}
		line, err := json.Marshal(tr)
		if err != nil {
			return n, err
		}
		if _, err := w.Write(append(line, '\n')); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// byCommitTime orders commits oldest first (ties by id), for a stable
// export of every attributed commit.
func byCommitTime(repo *gitops.Repo, ids []string) []string {
	times := map[string]int64{}
	for _, id := range ids {
		if c, err := repo.LookupCommit(id); err == nil {
			times[id] = c.CommitTime.Unix()
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		if times[ids[i]] != times[ids[j]] {
			return times[ids[i]] < times[ids[j]]
		}
		return ids[i] < ids[j]
	})
	return ids
}

// traceOf turns the live attribution records of one commit into a trace
// record.
func traceOf(commit string, recs []notes.Record) (TraceRecord, bool) {
	ca := resolve(recs)
	if ca == nil {
		return TraceRecord{}, false
	}
	var live []Record
	keep := map[string]bool{}
	for _, id := range ca.ids {
		keep[id] = true
	}
	for _, r := range recs {
		var rec Record
		if keep[r.ID] && r.Decode(&rec) == nil {
			live = append(live, rec)
		}
	}
	sort.Slice(live, func(i, j int) bool { return live[i].ID < live[j].ID })
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
		fr := ca.files[p]
		f := TraceFile{Path: p}
		byC := map[int]int{} // contributor index -> conversation index
		for _, rg := range fr.file.Ranges {
			if rg.C < 0 || rg.C >= len(fr.rec.Contributors) {
				continue
			}
			ci, ok := byC[rg.C]
			if !ok {
				c := fr.rec.Contributors[rg.C]
				conv := TraceConversation{Contributor: &TraceContributor{Type: c.Type, ModelID: truncate(c.Model, 250)}}
				if c.Session != "" && c.Agent != "" {
					conv.URL = "urn:gloss:session:" + urnPart(c.Agent) + ":" + urnPart(c.Session)
				}
				ci = len(f.Conversations)
				byC[rg.C] = ci
				f.Conversations = append(f.Conversations, conv)
			}
			f.Conversations[ci].Ranges = append(f.Conversations[ci].Ranges, TraceRange{StartLine: rg.Start, EndLine: rg.End})
		}
		tr.Files = append(tr.Files, f)
	}
	meta, _ := json.Marshal(map[string]traceMeta{metaKey: {Records: live}})
	tr.Metadata = meta
	return tr, true
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

// ImportTrace reads Agent Trace records and writes gloss attribution
// records on the commits they name. Records gloss exported come back as
// they were; others are converted: each range's contributor (or its
// conversation's) with its model, the agent guessed from the model or the
// tool, the conversation URL as the session. Importing twice writes
// nothing the second time.
func ImportTrace(ctx context.Context, repo *gitops.Repo, opts ImportOptions) (*notes.ImportResult, error) {
	res := &notes.ImportResult{Schema: "gloss-import/v1", Refs: []string{Ref}, Warnings: []string{}}
	type traced struct {
		commit string // from the note's object when the record names none
		rec    TraceRecord
	}
	var in []traced
	for i, r := range opts.Inputs {
		recs, err := decodeTraces(r)
		if err != nil {
			return nil, fault.Usagef("input %d: %v", i+1, err)
		}
		for _, tr := range recs {
			in = append(in, traced{rec: tr})
		}
	}
	if opts.Ref != "" {
		snap, err := repo.ReadNotes(opts.Ref)
		if err != nil {
			return nil, err
		}
		entries, err := snap.List()
		snap.Close()
		if err != nil {
			return nil, err
		}
		if len(entries) == 0 {
			res.Warnings = append(res.Warnings, opts.Ref+": no notes")
		}
		for _, e := range entries {
			data, err := repo.ReadBlob(e.Blob)
			if err != nil {
				return nil, err
			}
			recs, err := decodeTraces(bytes.NewReader(data))
			if err != nil {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s note on %s: %v", opts.Ref, gitops.ShortID(e.Object), err))
				continue
			}
			for _, tr := range recs {
				in = append(in, traced{commit: e.Object, rec: tr})
			}
		}
	}
	store := notes.Open(repo, Ref)
	out := map[string][]any{}
	have := map[string]map[string]bool{}
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
		if have[full] == nil {
			have[full] = map[string]bool{}
			existing, err := store.Read([]string{full})
			if err != nil {
				return nil, err
			}
			for _, r := range existing[full] {
				have[full][r.ID] = true
			}
		}
		for _, rec := range fromTrace(full, t.rec) {
			if have[full][rec.ID] {
				res.Present++
				continue
			}
			have[full][rec.ID] = true
			out[full] = append(out[full], rec)
			res.Written++
		}
	}
	if err := store.AppendMany(ctx, out); err != nil {
		return nil, err
	}
	return res, nil
}

// decodeTraces reads trace records: a stream of JSON objects (JSON Lines
// or pretty-printed), or arrays of them.
func decodeTraces(r io.Reader) ([]TraceRecord, error) {
	dec := json.NewDecoder(r)
	var out []TraceRecord
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return out, err
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) > 0 && raw[0] == '[' {
			var list []TraceRecord
			if err := json.Unmarshal(raw, &list); err != nil {
				return out, err
			}
			out = append(out, list...)
			continue
		}
		var tr TraceRecord
		if err := json.Unmarshal(raw, &tr); err != nil {
			return out, err
		}
		if tr.Version == "" || tr.Files == nil {
			return out, fmt.Errorf("not an Agent Trace record (no version or files)")
		}
		out = append(out, tr)
	}
}

// fromTrace turns a trace record into gloss records for commit.
func fromTrace(commit string, tr TraceRecord) []Record {
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
					c.Agent = agentIn(c.Model)
					if c.Agent == "" {
						c.Agent = agentIn(tool)
					}
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

func validType(t string) string {
	switch t {
	case Human, AI, Mixed:
		return t
	}
	return Unknown
}
