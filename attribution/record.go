// Package attribution records who wrote each line a commit adds or
// changes — a person, an agent (which one, which model, which session), both,
// or nobody knows — and answers from it: blame with a contributor per line,
// stats per contributor type, agent, model, author and directory, and the
// vendor-neutral Agent Trace format in and out.
//
// A record is written per commit at commit time (the post-commit hook), in
// refs/notes/gloss/attribution, one gloss/attribution/v1 JSON line with
// compact line ranges per file. It names only the lines the commit itself
// introduced, exactly the lines `git blame` attributes to that commit; a
// line's contributor is therefore found by blaming the file and looking the
// line up in the record of the commit blame names. Rewrites (amend, rebase,
// cherry-pick, squash merges and a forge's squash after `git gloss carry`)
// write a corrected record on the new commit that supersedes the old one.
//
// The vocabulary is Agent Trace's: human, ai, mixed, unknown.
package attribution

import (
	"encoding/json"
	"sort"

	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/schemas"
)

// Schema tags every attribution record.
const Schema = "gloss/attribution/v1"

// Ref is the notes ref attribution records live in. It is under
// notes.RefPrefix, so sync, notes.rewriteRef and export cover it.
const Ref = notes.RefPrefix + "attribution"

// Contributor types (Agent Trace 0.1.0).
const (
	Human   = "human"
	AI      = "ai"
	Mixed   = "mixed"
	Unknown = "unknown"
)

// Bases: what a contributor was decided from, most to least precise.
const (
	BasisCapture    = "capture"    // the agent hook captured the line's content
	BasisAnnotation = "annotation" // an agent-authored annotation covers the region
	BasisTrailer    = "trailer"    // the commit message names an agent
	BasisAuthor     = "author"     // the commit's author (an agent's identity, or a person)
	BasisEnv        = "env"        // the agent run's environment (runenv.Agent) named an agent when the commit was made
	BasisImport     = "import"     // read from another tool's records
	BasisNone       = "none"       // no record: the commit predates gloss or was made without its hooks
)

// Contributor is who wrote a set of lines.
type Contributor struct {
	Type    string `json:"type" jsonschema:"human, ai, mixed or unknown"`
	Agent   string `json:"agent,omitempty" jsonschema:"the agent, e.g. claude, codex, gemini, cursor"`
	Model   string `json:"model,omitempty"`
	Session string `json:"session,omitempty"`
	Basis   string `json:"basis" jsonschema:"what decided it: capture, annotation, trailer, author, env, import or none"`
}

// Range is an inclusive, 1-based line range in the file as of the commit,
// and the index of its contributor in the record's contributors.
type Range struct {
	Start int `json:"start"`
	End   int `json:"end"`
	C     int `json:"c" jsonschema:"index into contributors"`
}

// File is the attributed lines of one file.
type File struct {
	Path   string  `json:"path"`
	Ranges []Range `json:"ranges"`
}

// Record is the attribution of the lines one commit introduced.
type Record struct {
	notes.Header
	Commit       string        `json:"commit"`
	Source       string        `json:"source" jsonschema:"hook, amend, rebase, cherry-pick, squash or import"`
	DerivedFrom  []string      `json:"derived_from,omitempty" jsonschema:"commits the attribution was carried over from"`
	Contributors []Contributor `json:"contributors"`
	Files        []File        `json:"files"`
	// Trace is the Agent Trace record this one was imported from, as it
	// came (compacted): an export gives it back field for field.
	Trace json.RawMessage `json:"trace,omitempty" jsonschema:"the Agent Trace record an import read, kept whole"`
}

// Sources of records.
const (
	SourceHook       = "hook"
	SourceAmend      = "amend"
	SourceRebase     = "rebase"
	SourceCherryPick = "cherry-pick"
	SourceSquash     = "squash"
	SourceImport     = "import"
)

func init() {
	schemas.Register(schemas.Entry{Name: "attribution", Tag: Schema, Description: "The line attribution of one commit, stored in refs/notes/gloss/attribution.", Type: schemas.TypeOf[Record]()})
}

// lineMap is the per-line attribution of one file version: index i is
// line i+1; nil is a line not attributed.
type lineMap []*Contributor

// builder collects per-line contributors into a compact record.
type builder struct {
	rec   Record
	index map[Contributor]int
}

func newBuilder(commit, source string) *builder {
	return &builder{rec: Record{Header: notes.NewHeader(Schema), Commit: commit, Source: source, Contributors: []Contributor{}, Files: []File{}}, index: map[Contributor]int{}}
}

// add records the contributor of each listed line of path; lines and cs
// are parallel, lines ascending.
func (b *builder) add(path string, lines []int, cs []Contributor) {
	if len(lines) == 0 {
		return
	}
	f := File{Path: path}
	for i, l := range lines {
		c, ok := b.index[cs[i]]
		if !ok {
			c = len(b.rec.Contributors)
			b.index[cs[i]] = c
			b.rec.Contributors = append(b.rec.Contributors, cs[i])
		}
		if n := len(f.Ranges); n > 0 && f.Ranges[n-1].End == l-1 && f.Ranges[n-1].C == c {
			f.Ranges[n-1].End = l
			continue
		}
		f.Ranges = append(f.Ranges, Range{Start: l, End: l, C: c})
	}
	b.rec.Files = append(b.rec.Files, f)
}

func (b *builder) record() Record {
	sort.Slice(b.rec.Files, func(i, j int) bool { return b.rec.Files[i].Path < b.rec.Files[j].Path })
	return b.rec
}

// commitAttribution is what is known about one commit: per file, every
// live record's ranges merged line by line (mergeFile), so that two
// records naming the same file (a hook's and an import's, or two
// imports) each keep the lines only they name.
type commitAttribution struct {
	files map[string][]span
	ids   []string  // ids of the live records
	recs  []*Record // the live records, by id (oldest first)
}

// span is an inclusive range of lines and who wrote them.
type span struct {
	start, end int
	c          *Contributor
}

// resolve reads the live attribution records of one commit's note.
func resolve(recs []notes.Record) *commitAttribution {
	return attributionOf(notes.Resolve(recs))
}

// attributionOf reads the attribution records among live, a note's
// records that nothing supersedes (notes.Resolve).
func attributionOf(live []notes.Record) *commitAttribution {
	var decoded []*Record
	for _, r := range live {
		if r.Schema != Schema {
			continue
		}
		var rec Record
		if r.Decode(&rec) != nil {
			continue
		}
		decoded = append(decoded, &rec)
	}
	if len(decoded) == 0 {
		return nil
	}
	return merged(decoded)
}

// merged builds the attribution of records, which must be sorted by id.
func merged(decoded []*Record) *commitAttribution {
	sort.SliceStable(decoded, func(i, j int) bool { return decoded[i].ID < decoded[j].ID })
	ca := &commitAttribution{files: map[string][]span{}, recs: decoded}
	for _, rec := range decoded {
		ca.ids = append(ca.ids, rec.ID)
	}
	for path, claims := range claimsByFile(decoded) {
		ca.files[path] = mergeFile(claims)
	}
	return ca
}

// claim is one record's range: what it says, and how much that weighs.
type claim struct {
	span
	weight int // basisWeight of the contributor
	order  int // the record's place by id: later records are newer
}

func claimsByFile(recs []*Record) map[string][]claim {
	out := map[string][]claim{}
	for order, rec := range recs {
		for _, f := range rec.Files {
			for _, rg := range f.Ranges {
				if rg.C < 0 || rg.C >= len(rec.Contributors) || rg.End < rg.Start {
					continue
				}
				c := &rec.Contributors[rg.C]
				out[f.Path] = append(out[f.Path], claim{span: span{start: max(rg.Start, 1), end: rg.End, c: c}, weight: basisWeight(c), order: order})
			}
		}
	}
	return out
}

// basisWeight orders what a line's contributor was decided from: gloss's
// own capture of the line, then another tool's record of it (an import:
// that tool saw the line written), then the commit-wide signals, and an
// unknown contributor last. Where two records name the same line the
// weightier one speaks for it; between equals, the newer.
func basisWeight(c *Contributor) int {
	if c.Type == Unknown || c.Type == "" {
		return 0
	}
	switch c.Basis {
	case BasisCapture:
		return 7
	case BasisImport:
		return 6
	case BasisAnnotation:
		return 5
	case BasisTrailer:
		return 4
	case BasisEnv:
		return 3
	case BasisAuthor:
		return 2
	}
	return 1
}

// mergeFile lays one file's claims over each other, weakest first, so
// that each line goes to the weightiest (then newest) claim naming it.
func mergeFile(claims []claim) []span {
	sort.SliceStable(claims, func(i, j int) bool {
		if claims[i].weight != claims[j].weight {
			return claims[i].weight < claims[j].weight
		}
		return claims[i].order < claims[j].order
	})
	var out []span
	for _, cl := range claims {
		out = paint(out, cl.span)
	}
	// Touching spans of one contributor are one span.
	joined := out[:0]
	for _, sp := range out {
		if n := len(joined); n > 0 && joined[n-1].end+1 == sp.start && *joined[n-1].c == *sp.c {
			joined[n-1].end = sp.end
			continue
		}
		joined = append(joined, sp)
	}
	return joined
}

// paint lays s over the sorted, disjoint spans, cutting what it covers.
func paint(spans []span, s span) []span {
	out := make([]span, 0, len(spans)+2)
	for _, sp := range spans {
		if sp.end < s.start || sp.start > s.end {
			out = append(out, sp)
			continue
		}
		if sp.start < s.start {
			out = append(out, span{start: sp.start, end: s.start - 1, c: sp.c})
		}
		if sp.end > s.end {
			out = append(out, span{start: s.end + 1, end: sp.end, c: sp.c})
		}
	}
	out = append(out, s)
	sort.Slice(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out
}

// line is the contributor of a line of path at the commit, nil if the
// records do not name it.
func (ca *commitAttribution) line(path string, line int) *Contributor {
	if ca == nil {
		return nil
	}
	spans := ca.files[path]
	i := sort.Search(len(spans), func(i int) bool { return spans[i].end >= line })
	if i < len(spans) && spans[i].start <= line {
		return spans[i].c
	}
	return nil
}

// lines expands one file's attribution to a lineMap of n lines.
func (ca *commitAttribution) lines(path string, n int) lineMap {
	m := make(lineMap, n)
	if ca == nil {
		return m
	}
	for _, sp := range ca.files[path] {
		for l := sp.start; l <= sp.end && l <= n; l++ {
			m[l-1] = sp.c
		}
	}
	return m
}
