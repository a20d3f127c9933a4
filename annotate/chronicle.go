package annotate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// ChronicleRef is where Chronicle (formerly Ultragit) keeps its notes.
const ChronicleRef = "refs/notes/chronicle"

// Origin says where an imported record came from, so that nothing the
// other tool knew is lost: its schema, its own provenance and the kind of
// entry (a wisdom category, a marker type) the record was made from.
type Origin struct {
	Tool     string `json:"tool" jsonschema:"the tool the record was imported from, e.g. chronicle"`
	Schema   string `json:"schema" jsonschema:"that tool's record schema, e.g. chronicle/v3"`
	Source   string `json:"source,omitempty" jsonschema:"that tool's provenance source (live, auto, squash, ...)"`
	Category string `json:"category,omitempty" jsonschema:"the entry kind: dead_end, gotcha, insight, unfinished_thread, or a v2 marker type"`
	Notes    string `json:"notes,omitempty"`
}

// chronicleNote is the union of Chronicle's annotation schemas v1, v2 and
// v3 (one JSON document per note); only the fields gloss keeps are named.
type chronicleNote struct {
	Schema    string `json:"schema"`
	Commit    string `json:"commit"`
	Timestamp string `json:"timestamp"`
	// v1 and v3
	Summary json.RawMessage `json:"summary"`
	// v1
	Task         string `json:"task"`
	ContextLevel string `json:"context_level"`
	Regions      []struct {
		File      string `json:"file"`
		AstAnchor *struct {
			UnitType  string `json:"unit_type"`
			Name      string `json:"name"`
			Signature string `json:"signature"`
		} `json:"ast_anchor"`
		Lines       *Lines `json:"lines"`
		Intent      string `json:"intent"`
		Reasoning   string `json:"reasoning"`
		Constraints []struct {
			Text   string `json:"text"`
			Source string `json:"source"`
		} `json:"constraints"`
		SemanticDependencies []struct {
			File   string `json:"file"`
			Anchor string `json:"anchor"`
			Nature string `json:"nature"`
		} `json:"semantic_dependencies"`
		RelatedAnnotations []struct {
			Commit       string `json:"commit"`
			Anchor       string `json:"anchor"`
			Relationship string `json:"relationship"`
		} `json:"related_annotations"`
		Tags        []string          `json:"tags"`
		RiskNotes   string            `json:"risk_notes"`
		Corrections []json.RawMessage `json:"corrections"`
	} `json:"regions"`
	CrossCutting []struct {
		Description string   `json:"description"`
		Tags        []string `json:"tags"`
	} `json:"cross_cutting"`
	// v2
	Narrative *struct {
		Summary              string `json:"summary"`
		Motivation           string `json:"motivation"`
		RejectedAlternatives []struct {
			Approach string `json:"approach"`
			Reason   string `json:"reason"`
		} `json:"rejected_alternatives"`
		FollowUp     string   `json:"follow_up"`
		FilesChanged []string `json:"files_changed"`
		Sentiments   []struct {
			Feeling string `json:"feeling"`
			Detail  string `json:"detail"`
		} `json:"sentiments"`
	} `json:"narrative"`
	Decisions []struct {
		What        string   `json:"what"`
		Why         string   `json:"why"`
		Stability   string   `json:"stability"`
		RevisitWhen string   `json:"revisit_when"`
		Scope       []string `json:"scope"`
	} `json:"decisions"`
	Markers []struct {
		File   string `json:"file"`
		Anchor *struct {
			UnitType  string `json:"unit_type"`
			Name      string `json:"name"`
			Signature string `json:"signature"`
		} `json:"anchor"`
		Lines *Lines                     `json:"lines"`
		Kind  map[string]json.RawMessage `json:"kind"`
	} `json:"markers"`
	Effort *struct {
		ID          string `json:"id"`
		Description string `json:"description"`
		Phase       string `json:"phase"`
	} `json:"effort"`
	// v3
	Wisdom []struct {
		Category string `json:"category"`
		Content  string `json:"content"`
		File     string `json:"file"`
		Lines    *Lines `json:"lines"`
	} `json:"wisdom"`
	// v1 provenance has operation/synthesis_notes; v2 and v3 have
	// source/author/notes.
	Provenance struct {
		Source         string   `json:"source"`
		Operation      string   `json:"operation"`
		Author         string   `json:"author"`
		DerivedFrom    []string `json:"derived_from"`
		Notes          string   `json:"notes"`
		SynthesisNotes string   `json:"synthesis_notes"`
	} `json:"provenance"`
}

// ChronicleOptions tune an import from Chronicle.
type ChronicleOptions struct {
	// Ref is the notes ref to read; "" is refs/notes/chronicle.
	Ref string
	// Export, when set, is a `git chronicle export` file (JSON Lines of
	// {commit_sha, timestamp, annotation}) read instead of the ref.
	Export io.Reader
}

// ImportChronicle turns Chronicle's annotations (schemas chronicle/v1,
// v2 and v3, and Ultragit's v1) into gloss records on the same commits:
// one summary per note and one region per file-level entry, with the
// author and provenance kept and source "import". Record ids are derived
// from the note's content, so a second import of the same notes writes
// nothing; a note Chronicle rewrote since supersedes what was imported
// from it before.
func ImportChronicle(ctx context.Context, repo *gitops.Repo, opts ChronicleOptions) (*notes.ImportResult, error) {
	res := &notes.ImportResult{Schema: "gloss-import/v1", Refs: []string{}, Warnings: []string{}}
	docs, err := chronicleDocs(repo, opts, res)
	if err != nil {
		return nil, err
	}
	objects := make([]string, 0, len(docs))
	for obj := range docs {
		objects = append(objects, obj)
	}
	slices.Sort(objects)
	store := notes.Open(repo, notes.Annotations)
	existing, err := store.Read(objects)
	if err != nil {
		return nil, err
	}
	// Ids are derived from Chronicle's notes, so a record forgotten after
	// an earlier import would come back with the same id: skip those.
	ts, err := notes.LoadTombstones(repo)
	if err != nil {
		return nil, err
	}
	add := map[string][]any{}
	files := newFileChecker(repo)
	defer files.close()
	for _, obj := range objects {
		if _, err := repo.LookupCommit(obj); err != nil {
			res.Missing += len(docs[obj])
			continue
		}
		// Every record counts as present, superseded ones too: an id is
		// written once, whichever way its note arrived. A legacy id counts
		// only when stored before this run and not the current id of
		// another record of the note: a skipped entry shifts the numbering
		// of the ones after it, so one record's legacy id can be its
		// neighbour's id.
		have, stored, imported := map[string]bool{}, map[string]bool{}, map[string]bool{}
		for _, r := range existing[obj] {
			have[r.ID], stored[r.ID] = true, true
		}
		for _, d := range Decode(notes.Resolve(existing[obj])) {
			if o := d.origin(); o != nil && o.Tool == "chronicle" {
				imported[d.Record.ID] = true
			}
		}
		var fresh []any
		var freshIDs []string
		for _, doc := range docs[obj] {
			recs, skipped, err := convertChronicle(repo, files, obj, doc)
			if err != nil {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %v: skipped", gitops.ShortID(obj), err))
				continue
			}
			for _, why := range skipped {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %s: region skipped", gitops.ShortID(obj), why))
			}
			legacy := legacyIDs(obj, doc, len(recs))
			current := map[string]bool{}
			for _, r := range recs {
				current[recordID(r)] = true
			}
			for i, r := range recs {
				res.Read++
				id := recordID(r)
				freshIDs = append(freshIDs, id, legacy[i])
				if have[id] || (stored[legacy[i]] && !current[legacy[i]]) {
					res.Present++
					continue
				}
				if ts.Forgotten(id) || ts.Forgotten(legacy[i]) {
					res.Forgotten++
					continue
				}
				have[id] = true
				fresh = append(fresh, r)
			}
		}
		if len(fresh) == 0 {
			continue
		}
		// What an earlier import made from a note Chronicle has rewritten
		// since no longer counts.
		var stale []string
		for id := range imported {
			if !slices.Contains(freshIDs, id) {
				stale = append(stale, id)
			}
		}
		slices.Sort(stale)
		if s, ok := fresh[len(fresh)-1].(Summary); ok && len(stale) > 0 {
			s.Supersedes = stale
			fresh[len(fresh)-1] = s
		}
		add[obj] = fresh
		res.Written += len(fresh)
	}
	if res.Written > 0 {
		if err := store.AppendMany(ctx, add); err != nil {
			return nil, err
		}
		res.Refs = append(res.Refs, notes.Annotations)
	}
	return res, nil
}

// origin reads a decoded record's origin, if it has one.
func (d Decoded) origin() *Origin {
	switch {
	case d.Region != nil:
		return d.Region.Origin
	case d.Summary != nil:
		return d.Summary.Origin
	}
	return nil
}

func recordID(r any) string {
	switch x := r.(type) {
	case Region:
		return x.ID
	case Summary:
		return x.ID
	}
	return ""
}

// rawDoc is one Chronicle annotation, its identity for derived ids (its
// canonical form) and the bytes it came from.
type rawDoc struct {
	note chronicleNote
	raw  []byte // canonical: the same for a note and its export line
	orig []byte // as read: gloss before 2026-11 derived ids from these
}

// newRawDoc reads one annotation. Its identity is the annotation's content,
// not its bytes: the note Chronicle writes is pretty-printed in its
// structs' field order, while `git chronicle export` re-serializes it as a
// serde_json::Value, compact and with sorted keys
// (https://github.com/gotwalt/chronicle/blob/f774a7d/src/export.rs), so the
// one record has two spellings. Both decode to the same value, and the
// value re-encoded (sorted keys, numbers as written) is the identity.
func newRawDoc(raw []byte) (rawDoc, error) {
	var doc chronicleNote
	if err := json.Unmarshal(raw, &doc); err != nil {
		return rawDoc{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return rawDoc{}, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return rawDoc{}, err
	}
	return rawDoc{note: doc, raw: bytes.TrimSuffix(buf.Bytes(), []byte("\n")), orig: raw}, nil
}

// legacyIDs are the ids earlier gloss versions derived for the n records of
// a document (from its bytes as read), so that what they imported still
// counts as present.
func legacyIDs(commit string, d rawDoc, n int) []string {
	when, err := time.Parse(time.RFC3339, d.note.Timestamp)
	if err != nil {
		when = time.Unix(0, 0).UTC()
	}
	out := make([]string, n)
	for i := range out {
		out[i] = notes.DerivedID(when.UTC(), commit+"\x00"+string(d.orig)+"\x00"+strconv.Itoa(i+1))
	}
	return out
}

// chronicleDocs reads the annotations to import, by commit.
func chronicleDocs(repo *gitops.Repo, opts ChronicleOptions, res *notes.ImportResult) (map[string][]rawDoc, error) {
	out := map[string][]rawDoc{}
	if opts.Export != nil {
		sc := bufio.NewScanner(opts.Export)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		for n := 1; sc.Scan(); n++ {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			var e struct {
				CommitSHA  string          `json:"commit_sha"`
				Annotation json.RawMessage `json:"annotation"`
			}
			if json.Unmarshal(line, &e) != nil || e.CommitSHA == "" {
				res.Warnings = append(res.Warnings, fmt.Sprintf("line %d: not a Chronicle export line: skipped", n))
				continue
			}
			doc, err := newRawDoc(e.Annotation)
			if err != nil {
				res.Warnings = append(res.Warnings, fmt.Sprintf("line %d: not a Chronicle export line: skipped", n))
				continue
			}
			out[e.CommitSHA] = append(out[e.CommitSHA], doc)
		}
		if err := sc.Err(); err != nil {
			return nil, fault.Usagef("read the Chronicle export: %v", err)
		}
		return out, nil
	}
	ref := opts.Ref
	if ref == "" {
		ref = ChronicleRef
	}
	snap, err := repo.ReadNotes(ref)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	if snap.Tip == "" {
		return nil, fault.NotFoundf("no %s in this repository (fetch it first: git fetch origin %s:%s)", ref, ref, ref)
	}
	entries, err := snap.List()
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		data, err := repo.ReadBlob(e.Blob)
		if err != nil {
			return nil, err
		}
		// A note is one pretty-printed document, or several when git
		// concatenated notes on a rewrite.
		dec := json.NewDecoder(bytes.NewReader(data))
		for {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err == io.EOF {
				break
			} else if err != nil {
				res.Warnings = append(res.Warnings, fmt.Sprintf("note on %s is not JSON: skipped", gitops.ShortID(e.Object)))
				break
			}
			doc, err := newRawDoc(raw)
			if err != nil {
				res.Warnings = append(res.Warnings, fmt.Sprintf("note on %s is not a Chronicle annotation: skipped", gitops.ShortID(e.Object)))
				continue
			}
			out[e.Object] = append(out[e.Object], doc)
		}
	}
	return out, nil
}

// chronicleImport builds the records of one annotation.
type chronicleImport struct {
	repo    *gitops.Repo
	commit  string
	doc     *chronicleNote
	key     string // identity of the source document
	when    time.Time
	ts      string
	author  Author
	origin  Origin
	n       int
	regions []any
	lineMem map[string]int
	files   *fileChecker
	skipped []string // regions left out, and why
}

// maxRegionLine bounds a region's lines where the file is not in the
// commit to count them: no source file has ten million lines.
const maxRegionLine = 10_000_000

// convertChronicle maps one Chronicle annotation to gloss records (regions
// first, the summary last).
func convertChronicle(repo *gitops.Repo, files *fileChecker, commit string, d rawDoc) ([]any, []string, error) {
	doc := &d.note
	version := doc.Schema
	switch version {
	case "chronicle/v1", "ultragit/v1", "chronicle/v2", "chronicle/v3":
	default:
		return nil, nil, fmt.Errorf("unknown Chronicle schema %q", version)
	}
	when, err := time.Parse(time.RFC3339, doc.Timestamp)
	if err != nil {
		when = time.Unix(0, 0).UTC()
	}
	ci := &chronicleImport{repo: repo, commit: commit, doc: doc, key: commit + "\x00" + string(d.raw), when: when.UTC(), ts: when.UTC().Format(time.RFC3339), lineMem: map[string]int{}, files: files}
	ci.author, ci.origin = chronicleAuthor(doc), Origin{Tool: "chronicle", Schema: version, Source: firstNonEmpty(doc.Provenance.Source, doc.Provenance.Operation), Notes: firstNonEmpty(doc.Provenance.Notes, doc.Provenance.SynthesisNotes)}
	sum := Summary{Kind: KindSummary, Commit: commit, Files: []string{}}
	switch version {
	case "chronicle/v3":
		ci.fromV3(&sum)
	case "chronicle/v2":
		ci.fromV2(&sum)
	default:
		ci.fromV1(&sum)
	}
	sum.Header = ci.header()
	sum.Author, sum.Source, sum.DerivedFrom = ci.author, SourceImport, doc.Provenance.DerivedFrom
	o := ci.origin
	sum.Origin = &o
	for _, r := range ci.regions {
		if reg, ok := r.(Region); ok && !slices.Contains(sum.Files, reg.File) {
			sum.Files = append(sum.Files, reg.File)
		}
	}
	return append(ci.regions, sum), ci.skipped, nil
}

// chronicleAuthor keeps who Chronicle says wrote the note: agents write
// live notes, the post-commit hook and batch jobs write the rest.
func chronicleAuthor(doc *chronicleNote) Author {
	kind := "tool"
	if doc.Provenance.Source == "live" {
		kind = "agent"
	}
	name := doc.Provenance.Author
	if name == "" {
		name = "chronicle"
	}
	return Author{Kind: kind, Name: name}
}

func (ci *chronicleImport) header() notes.Header {
	ci.n++
	return notes.Header{Schema: Schema, ID: notes.DerivedID(ci.when, ci.key+"\x00"+strconv.Itoa(ci.n)), Time: ci.ts}
}

// region starts a region record on file at lines (nil: the whole file as
// of the commit). ok is false, and the reason is kept, when the region
// cannot be stored: its file is not a path of the repository (through
// the one resolver), or its lines are not lines of the file.
func (ci *chronicleImport) region(file string, lines *Lines, intent, category string) (r Region, ok bool) {
	clean, err := ci.files.check(file)
	if err != nil {
		ci.skipped = append(ci.skipped, fault.Line(err.Error()))
		return r, false
	}
	file = clean
	r = Region{Header: ci.header(), Kind: KindRegion, Commit: ci.commit, File: file, Intent: intent,
		Author: ci.author, Source: SourceImport, DerivedFrom: ci.doc.Provenance.DerivedFrom}
	n, inCommit := ci.fileLines(file)
	switch {
	case lines == nil:
		r.Lines = Lines{1, n}
	case lines.Start < 1 || lines.End < lines.Start || lines.End > maxRegionLine || (inCommit && lines.Start > n):
		ci.skipped = append(ci.skipped, fmt.Sprintf("%s: lines %d:%d are not lines of the file", fault.Quote(file), lines.Start, lines.End))
		return r, false
	case inCommit && lines.End > n:
		r.Lines = Lines{lines.Start, n} // Chronicle counted a last line gloss does not
	default:
		r.Lines = *lines
	}
	o := ci.origin
	o.Category = category
	r.Origin = &o
	return r, true
}

// fileLines counts the lines of file at the commit; inCommit is false
// when the commit has no such file (n is then 1).
func (ci *chronicleImport) fileLines(file string) (n int, inCommit bool) {
	if n, ok := ci.lineMem[file]; ok {
		return max(n, 1), n > 0
	}
	if data, err := ci.repo.ReadFile(ci.commit, file); err == nil {
		n = max(gitops.CountLines(data), 1)
	}
	ci.lineMem[file] = n
	return max(n, 1), n > 0
}

func (ci *chronicleImport) summaryText() string {
	var s string
	if json.Unmarshal(ci.doc.Summary, &s) == nil {
		return s
	}
	return ""
}

// fromV3 maps wisdom: a dead end is a rejected alternative, a gotcha a
// risk, an insight reasoning, an unfinished thread a risk marked so.
// Entries without a file go to the summary.
func (ci *chronicleImport) fromV3(sum *Summary) {
	sum.Intent = ci.summaryText()
	for _, w := range ci.doc.Wisdom {
		if w.File == "" {
			switch w.Category {
			case "gotcha":
				sum.Risks = append(sum.Risks, w.Content)
			case "unfinished_thread":
				sum.Risks = append(sum.Risks, "unfinished: "+w.Content)
			case "dead_end":
				sum.Reasoning = joinLines(sum.Reasoning, "dead end: "+w.Content)
			default:
				sum.Reasoning = joinLines(sum.Reasoning, w.Content)
			}
			sum.Tags = appendUnique(sum.Tags, "chronicle:"+w.Category)
			continue
		}
		r, ok := ci.region(w.File, w.Lines, sum.Intent, w.Category)
		if !ok {
			continue
		}
		switch w.Category {
		case "dead_end":
			r.RejectedAlternatives = []Rejected{{Text: w.Content}}
		case "gotcha":
			r.Risks = []string{w.Content}
		case "unfinished_thread":
			r.Risks = []string{"unfinished: " + w.Content}
		default:
			r.Reasoning = w.Content
		}
		r.Tags = []string{"chronicle:" + w.Category}
		ci.regions = append(ci.regions, r)
	}
}

// fromV2 maps the narrative to the summary and each marker to a region.
func (ci *chronicleImport) fromV2(sum *Summary) {
	if n := ci.doc.Narrative; n != nil {
		sum.Intent, sum.Reasoning = n.Summary, n.Motivation
		for _, ra := range n.RejectedAlternatives {
			sum.Reasoning = joinLines(sum.Reasoning, "rejected: "+ra.Approach+" — "+ra.Reason)
		}
		if n.FollowUp != "" {
			sum.Risks = append(sum.Risks, "unfinished: "+n.FollowUp)
		}
		for _, s := range n.Sentiments {
			sum.Reasoning = joinLines(sum.Reasoning, s.Feeling+": "+s.Detail)
		}
		sum.Files = append(sum.Files, n.FilesChanged...)
	}
	for _, d := range ci.doc.Decisions {
		line := "decision (" + d.Stability + "): " + d.What + " — " + d.Why
		if d.RevisitWhen != "" {
			line += " (revisit when " + d.RevisitWhen + ")"
		}
		if len(d.Scope) > 0 {
			line += " [" + strings.Join(d.Scope, ", ") + "]"
		}
		sum.Reasoning = joinLines(sum.Reasoning, line)
	}
	if e := ci.doc.Effort; e != nil {
		sum.Tags = appendUnique(sum.Tags, "effort:"+e.ID)
		sum.Reasoning = joinLines(sum.Reasoning, "effort "+e.ID+" ("+e.Phase+"): "+e.Description)
	}
	for _, m := range ci.doc.Markers {
		var kind string
		_ = json.Unmarshal(m.Kind["type"], &kind)
		field := func(name string) string {
			var s string
			_ = json.Unmarshal(m.Kind[name], &s)
			return s
		}
		r, ok := ci.region(m.File, m.Lines, sum.Intent, kind)
		if !ok {
			continue
		}
		if m.Anchor != nil {
			r.Anchor = &Anchor{Kind: m.Anchor.UnitType, Name: m.Anchor.Name, Signature: m.Anchor.Signature}
		}
		desc := field("description")
		switch kind {
		case "contract":
			r.Constraints = []Constraint{{Text: desc, Source: firstNonEmpty(field("source"), "author")}}
		case "dependency":
			r.Deps = []Dep{{File: field("target_file"), Anchor: field("target_anchor"), Nature: field("assumption")}}
		case "unstable":
			r.Risks = []string{"unstable: " + desc + " (revisit when " + field("revisit_when") + ")"}
		case "deprecated":
			text := "deprecated: " + desc
			if rep := field("replacement"); rep != "" {
				text += " (use " + rep + ")"
			}
			r.Risks = []string{text}
		case "hazard":
			r.Risks = []string{desc}
		default: // security, performance, tech_debt, test_coverage
			r.Risks = []string{strings.ReplaceAll(kind, "_", " ") + ": " + desc}
		}
		r.Tags = []string{"chronicle:" + kind}
		ci.regions = append(ci.regions, r)
	}
}

// fromV1 maps regions one to one: v1 is the design gloss's records follow.
func (ci *chronicleImport) fromV1(sum *Summary) {
	sum.Intent = ci.summaryText()
	if ci.doc.Task != "" {
		sum.Reasoning = joinLines(sum.Reasoning, "task: "+ci.doc.Task)
	}
	for _, c := range ci.doc.CrossCutting {
		sum.Reasoning = joinLines(sum.Reasoning, "cross-cutting: "+c.Description)
		sum.Tags = appendUnique(sum.Tags, c.Tags...)
	}
	for _, reg := range ci.doc.Regions {
		r, ok := ci.region(reg.File, reg.Lines, reg.Intent, "region")
		if !ok {
			continue
		}
		if r.Intent == "" {
			r.Intent = sum.Intent
		}
		if a := reg.AstAnchor; a != nil && a.Name != "" {
			r.Anchor = &Anchor{Kind: a.UnitType, Name: a.Name, Signature: a.Signature}
		}
		r.Reasoning = reg.Reasoning
		for _, c := range reg.Constraints {
			r.Constraints = append(r.Constraints, Constraint{Text: c.Text, Source: firstNonEmpty(c.Source, "author")})
		}
		for _, d := range reg.SemanticDependencies {
			r.Deps = append(r.Deps, Dep{File: d.File, Anchor: d.Anchor, Nature: d.Nature})
		}
		for _, rel := range reg.RelatedAnnotations {
			r.Reasoning = joinLines(r.Reasoning, "related: "+rel.Commit+" "+rel.Anchor+" ("+rel.Relationship+")")
		}
		for _, c := range reg.Corrections {
			r.Reasoning = joinLines(r.Reasoning, "correction: "+string(c))
		}
		if reg.RiskNotes != "" {
			r.Risks = []string{reg.RiskNotes}
		}
		r.Tags = reg.Tags
		ci.regions = append(ci.regions, r)
	}
}

func joinLines(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
