package notes

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/schemas"
)

// ExchangeSchema tags every line of an export.
const ExchangeSchema = "gloss-export/v1"

// ExportLine is one line of `git gloss export`: a stored record, the notes
// ref it lives in and the object it is attached to. Record is the stored
// line byte for byte, so an import writes back exactly what was exported.
type ExportLine struct {
	Schema string          `json:"$schema"`
	Ref    string          `json:"ref"`
	Object string          `json:"object"`
	Record json.RawMessage `json:"record"`
}

// ExportResult counts what an export wrote.
type ExportResult struct {
	Schema  string   `json:"$schema"`
	Refs    []string `json:"refs"`
	Objects int      `json:"objects"`
	Records int      `json:"records"`
}

// ImportResult counts what an import did: every record read is written
// or skipped for one of the reasons counted, and Written counts records
// read back from the notes after the write.
type ImportResult struct {
	Schema    string   `json:"$schema"`
	Read      int      `json:"read"`      // records in the input
	Written   int      `json:"written"`   // records added (and found there after the write)
	Present   int      `json:"present"`   // records already there (same id on the same object): skipped
	Missing   int      `json:"missing"`   // records on objects this repository does not have: skipped
	Forgotten int      `json:"forgotten"` // records forgotten (git gloss forget), or copies of one: skipped
	Outranked int      `json:"outranked"` // attribution records that would change no line's answer (the commit's own capture already names those lines): skipped
	Invalid   int      `json:"invalid" jsonschema:"lines that are not records, or name a ref that is not gloss's: skipped, each with a warning"`
	Refs      []string `json:"refs"`     // refs written to
	Warnings  []string `json:"warnings"` // malformed lines, refused refs
	// SessionPrompts: prompt summaries dropped from the agents' session
	// state because imported tombstones forget them (filled in by the caller).
	SessionPrompts int `json:"session_prompts,omitempty"`
}

func init() {
	schemas.Register(
		schemas.Entry{Name: "export-line", Tag: ExchangeSchema, Description: "One line of git gloss export: a stored record with its notes ref and annotated object.", Type: schemas.TypeOf[ExportLine]()},
		schemas.Entry{Name: "import", Tag: "gloss-import/v1", Description: "What git gloss import (or import chronicle) wrote.", Type: schemas.TypeOf[ImportResult]()},
	)
}

// ExportRefs lists the gloss notes refs that exist, for an export of
// everything.
func ExportRefs(repo *gitops.Repo) ([]string, error) {
	refs, err := repo.ListRefs(RefPrefix + "*")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range refs {
		out = append(out, r.Name)
	}
	return out, nil
}

// Export writes every record of refs as JSON Lines, sorted by ref, object
// and stored order, so that two exports of the same notes are the same
// bytes.
func Export(repo *gitops.Repo, refs []string, w io.Writer) (*ExportResult, error) {
	res := &ExportResult{Schema: "gloss-export-result/v1", Refs: []string{}}
	bw := bufio.NewWriter(w)
	for _, ref := range refs {
		all, _, err := Open(repo, ref).ReadAll()
		if err != nil {
			return nil, err
		}
		res.Refs = append(res.Refs, ref)
		objects := make([]string, 0, len(all))
		for obj := range all {
			objects = append(objects, obj)
		}
		slices.Sort(objects)
		for _, obj := range objects {
			res.Objects++
			for _, r := range all[obj] {
				enc := json.NewEncoder(bw)
				enc.SetEscapeHTML(false)
				if err := enc.Encode(ExportLine{Schema: ExchangeSchema, Ref: ref, Object: obj, Record: r.Raw}); err != nil {
					return nil, fmt.Errorf("export %s on %s: %w", r.ID, obj, err)
				}
				res.Records++
			}
		}
	}
	return res, bw.Flush()
}

// Import appends the records of an export (JSON Lines from Export) to
// their refs. A record whose id is already on its object is skipped, so
// importing the same file twice writes nothing the second time; records on
// objects this repository lacks are counted and skipped. Only refs under
// refs/notes/gloss/ are written.
func Import(ctx context.Context, repo *gitops.Repo, r io.Reader) (*ImportResult, error) {
	res := &ImportResult{Schema: "gloss-import/v1", Refs: []string{}, Warnings: []string{}}
	byRef := map[string]map[string][]json.RawMessage{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var l ExportLine
		if err := json.Unmarshal(line, &l); err != nil || l.Schema != ExchangeSchema {
			res.Invalid++
			res.Warnings = append(res.Warnings, fmt.Sprintf("line %d: not a %s line: skipped", n, ExchangeSchema))
			continue
		}
		if !strings.HasPrefix(l.Ref, RefPrefix) || strings.Contains(l.Ref, "..") {
			res.Invalid++
			res.Warnings = append(res.Warnings, fmt.Sprintf("line %d: ref %s is not a gloss notes ref (%s*): skipped", n, fault.Quote(l.Ref), RefPrefix))
			continue
		}
		if _, err := parseLine(l.Record); err != nil {
			res.Invalid++
			res.Warnings = append(res.Warnings, fmt.Sprintf("line %d: %v: skipped", n, err))
			continue
		}
		res.Read++
		if byRef[l.Ref] == nil {
			byRef[l.Ref] = map[string][]json.RawMessage{}
		}
		byRef[l.Ref][l.Object] = append(byRef[l.Ref][l.Object], l.Record)
	}
	if err := sc.Err(); err != nil {
		return nil, fault.Usagef("read the export: %v", err)
	}
	refs := make([]string, 0, len(byRef))
	for ref := range byRef {
		refs = append(refs, ref)
	}
	// Tombstones first, so that the records they forget, in this export
	// or already stored, are not written.
	slices.SortFunc(refs, func(a, b string) int {
		if (a == ForgottenRef) != (b == ForgottenRef) {
			if a == ForgottenRef {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	var ts *Tombstones
	for _, ref := range refs {
		if ref != ForgottenRef {
			var err error
			if ts == nil {
				if ts, err = LoadTombstones(repo); err != nil {
					return nil, err
				}
			}
			n, err := skipForgotten(ctx, repo, ts, ref, byRef[ref])
			if err != nil {
				return nil, err
			}
			res.Forgotten += n
		}
		written, present, missing, err := importRef(ctx, repo, ref, byRef[ref])
		if err != nil {
			return nil, err
		}
		res.Written += written
		res.Present += present
		res.Missing += missing
		if written > 0 {
			res.Refs = append(res.Refs, ref)
		}
	}
	if slices.Contains(res.Refs, ForgottenRef) {
		// New tombstones: drop what they forget from what was stored before.
		ts, err := LoadTombstones(repo)
		if err != nil {
			return nil, err
		}
		data, err := dataRefs(repo)
		if err != nil {
			return nil, err
		}
		for _, ref := range data {
			if _, err := sweep(ctx, repo, ref, ts, ""); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// skipForgotten drops from recs (object -> raw records of ref) the
// forgotten ones: tombstoned, superseding one, or copies of one, following
// chains through the whole export (a copy of a copy supersedes a record
// that is only in the export, or nowhere any more). The copies found get
// tombstones of their own, so that no other path brings them back.
func skipForgotten(ctx context.Context, repo *gitops.Repo, ts *Tombstones, ref string, recs map[string][]json.RawMessage) (int, error) {
	if ts.Len() == 0 {
		return 0, nil
	}
	batch := map[string][]byte{}
	for obj, raws := range recs {
		for _, raw := range raws {
			batch[obj] = append(append(batch[obj], raw...), '\n')
		}
	}
	_, removed := ts.filter(ref, batch)
	if len(removed) == 0 {
		return 0, nil
	}
	gone := map[string]bool{}
	for _, r := range removed {
		gone[r.Object+"\x00"+r.ID] = true
	}
	n := 0
	for obj, raws := range recs {
		kept := raws[:0]
		for _, raw := range raws {
			if rec, _ := parseLine(raw); gone[obj+"\x00"+rec.ID] {
				n++
				continue
			}
			kept = append(kept, raw)
		}
		recs[obj] = kept
	}
	return n, ts.add(ctx, repo, removed, "", "")
}

// importRef appends the new records of one ref in one notes commit.
func importRef(ctx context.Context, repo *gitops.Repo, ref string, recs map[string][]json.RawMessage) (written, present, missing int, err error) {
	objects := make([]string, 0, len(recs))
	for obj := range recs {
		objects = append(objects, obj)
	}
	slices.Sort(objects)
	existing, err := Open(repo, ref).Read(objects)
	if err != nil {
		return 0, 0, 0, err
	}
	add := map[string][]any{}
	for _, obj := range objects {
		if !repo.HasObject(obj) {
			missing += len(recs[obj])
			continue
		}
		have := map[string]bool{}
		for _, r := range existing[obj] {
			have[r.ID] = true
		}
		for _, raw := range recs[obj] {
			rec, _ := parseLine(raw)
			if have[rec.ID] {
				present++
				continue
			}
			have[rec.ID] = true
			add[obj] = append(add[obj], raw)
			written++
		}
	}
	if written == 0 {
		return 0, present, missing, nil
	}
	if err := Open(repo, ref).AppendMany(ctx, add); err != nil {
		return 0, 0, 0, err
	}
	// What is reported written is what the notes hold now.
	back, err := Open(repo, ref).Read(slices.Collect(maps.Keys(add)))
	if err != nil {
		return 0, 0, 0, err
	}
	stored := 0
	for obj, raws := range add {
		have := map[string]bool{}
		for _, r := range back[obj] {
			have[r.ID] = true
		}
		for _, raw := range raws {
			if rec, _ := parseLine(raw.(json.RawMessage)); have[rec.ID] {
				stored++
			}
		}
	}
	if stored != written {
		return 0, 0, 0, fmt.Errorf("import into %s: %d of %d records written are not in the notes after the write", ref, written-stored, written)
	}
	return written, present, missing, nil
}
