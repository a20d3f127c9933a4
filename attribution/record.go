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

// lookup finds the contributor of line in a file's ranges.
func (r *Record) lookup(f *File, line int) *Contributor {
	i := sort.Search(len(f.Ranges), func(i int) bool { return f.Ranges[i].End >= line })
	if i < len(f.Ranges) && f.Ranges[i].Start <= line && f.Ranges[i].C < len(r.Contributors) {
		return &r.Contributors[f.Ranges[i].C]
	}
	return nil
}

// commitAttribution is what is known about one commit: per file, the
// record that speaks for it (the newest live record naming the file).
type commitAttribution struct {
	files map[string]fileRef
	ids   []string  // ids of the live records
	recs  []*Record // the live records, oldest first
}

type fileRef struct {
	rec  *Record
	file *File
}

// resolve reads the live attribution records of one commit's note.
func resolve(recs []notes.Record) *commitAttribution {
	live := notes.Resolve(recs)
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
	sort.SliceStable(decoded, func(i, j int) bool { return decoded[i].ID < decoded[j].ID })
	ca := &commitAttribution{files: map[string]fileRef{}, recs: decoded}
	for _, rec := range decoded {
		ca.ids = append(ca.ids, rec.ID)
		for i := range rec.Files {
			ca.files[rec.Files[i].Path] = fileRef{rec: rec, file: &rec.Files[i]}
		}
	}
	return ca
}

// line is the contributor of a line of path at the commit, nil if the
// records do not name it.
func (ca *commitAttribution) line(path string, line int) *Contributor {
	if ca == nil {
		return nil
	}
	fr, ok := ca.files[path]
	if !ok {
		return nil
	}
	return fr.rec.lookup(fr.file, line)
}

// lines expands one file's attribution to a lineMap of n lines.
func (ca *commitAttribution) lines(path string, n int) lineMap {
	m := make(lineMap, n)
	if ca == nil {
		return m
	}
	fr, ok := ca.files[path]
	if !ok {
		return m
	}
	for _, rg := range fr.file.Ranges {
		if rg.C >= len(fr.rec.Contributors) {
			continue
		}
		c := fr.rec.Contributors[rg.C]
		for l := rg.Start; l <= rg.End && l <= n; l++ {
			if l >= 1 {
				m[l-1] = &c
			}
		}
	}
	return m
}
