// Package annotate records why code is the way it is, at the moment it is
// committed: one gloss/annotation/v1 record per changed region (a function,
// a method, a type, or a line range where a language has no anchors) plus
// one commit summary, as JSON Lines in refs/notes/gloss/annotations.
//
// Records come from the post-commit hook (commit message, trailers, what an
// agent staged beforehand, an optional personal annotator program), from
// `git gloss annotate --commit` after the fact, and from rewrites (amend,
// rebase, cherry-pick, squash merges), which carry the records of the old
// commits over to the new ones with their lines remapped.
package annotate

import (
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/schemas"
	"github.com/gloss-dev/gloss/treesitter"
)

// Schema is the tag of every annotation record.
const Schema = "gloss/annotation/v1"

// Record kinds.
const (
	KindRegion  = "region"
	KindSummary = "summary"
)

// Sources: where a record came from.
const (
	SourceHook       = "hook"
	SourceAgent      = "agent"
	SourceAmend      = "amend"
	SourceRebase     = "rebase"
	SourceCherryPick = "cherry-pick"
	SourceSquash     = "squash"
	SourceImport     = "import"
)

// Anchor names the unit of code a region is about.
type Anchor struct {
	Kind      string `json:"kind" jsonschema:"function, method, class, struct, interface, type, enum, trait, namespace, module, or lines"`
	Name      string `json:"name" jsonschema:"qualified name such as Server.Handle or MqttClient::connect"`
	Signature string `json:"signature,omitempty"`
}

// Lines is an inclusive, 1-based line range in the file as of the
// annotated commit.
type Lines struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Constraint is something the code must keep doing.
type Constraint struct {
	Text   string `json:"text"`
	Source string `json:"source" jsonschema:"author (stated by whoever wrote the code) or inferred"`
}

// Rejected is an alternative that was considered and not taken.
type Rejected struct {
	Text   string `json:"text"`
	Reason string `json:"reason,omitempty"`
}

// Dep is a semantic dependency: this region relies on another.
type Dep struct {
	File   string `json:"file"`
	Anchor string `json:"anchor,omitempty"`
	Nature string `json:"nature,omitempty" jsonschema:"what is relied on, e.g. token format"`
}

// Author is who wrote the record.
type Author struct {
	Kind  string `json:"kind" jsonschema:"human, agent or tool"`
	Name  string `json:"name,omitempty"`
	Model string `json:"model,omitempty"`
}

// Region is the annotation of one changed region of one file.
type Region struct {
	notes.Header
	Kind                 string       `json:"kind" jsonschema:"region"`
	Commit               string       `json:"commit" jsonschema:"the commit the lines refer to"`
	File                 string       `json:"file"`
	Anchor               *Anchor      `json:"anchor,omitempty"`
	Lines                Lines        `json:"lines"`
	Intent               string       `json:"intent"`
	Reasoning            string       `json:"reasoning,omitempty"`
	Constraints          []Constraint `json:"constraints,omitempty"`
	RejectedAlternatives []Rejected   `json:"rejected_alternatives,omitempty"`
	Deps                 []Dep        `json:"deps,omitempty"`
	Risks                []string     `json:"risks,omitempty"`
	Tags                 []string     `json:"tags,omitempty"`
	Author               Author       `json:"author"`
	Source               string       `json:"source" jsonschema:"hook, agent, amend, rebase, cherry-pick, squash or import"`
	DerivedFrom          []string     `json:"derived_from,omitempty" jsonschema:"commits this record was carried over from"`
	Origin               *Origin      `json:"origin,omitempty" jsonschema:"for imported records: the tool, schema and entry kind they came from"`
	Expires              string       `json:"expires,omitempty" jsonschema:"date (YYYY-MM-DD or RFC 3339) after which the record is no longer delivered"`
	// Scope is set for a decision about a whole file or directory (File
	// names it); empty, the record is about its anchor, or without one,
	// its lines (ScopeOf).
	Scope string `json:"scope,omitempty" jsonschema:"file or directory: the record is about everything in File; empty: about its anchor, or its lines"`
}

// What a record is a decision about (Region.ScopeOf).
const (
	ScopeAnchor = "anchor"    // the function, method or type, wherever it is today
	ScopeFile   = "file"      // every line of the file
	ScopeDir    = "directory" // every file under the directory
	ScopeLines  = "lines"     // the lines it was recorded on, as blame finds them today
)

// ScopeOf says what the record is about: its Scope when set, its anchor
// when it has one that tree-sitter can find again (in a language gloss
// parses; an anchor a context named and the commit did not have yet
// counts), else its lines.
func (r *Region) ScopeOf() string {
	switch {
	case r.Scope == ScopeFile || r.Scope == ScopeDir:
		return r.Scope
	case r.Anchor != nil && r.Anchor.Name != "" && r.Anchor.Kind != "lines" && treesitter.Supported(r.File):
		return ScopeAnchor
	}
	return ScopeLines
}

// Says reports whether the record states anything beyond the change
// itself: an intent, reasoning, a decision (constraint, rejected
// alternative, risk) or a dependency.
func (r *Region) Says() bool {
	return r.Intent != "" || r.Reasoning != "" || len(r.Constraints) > 0 || len(r.RejectedAlternatives) > 0 ||
		len(r.Risks) > 0 || len(r.Deps) > 0
}

// Decides reports whether the record holds a decision: a constraint, a
// rejected alternative or a risk, which stay in force until retired.
func (r *Region) Decides() bool {
	return len(r.Constraints) > 0 || len(r.RejectedAlternatives) > 0 || len(r.Risks) > 0
}

// Summary is the commit-level record.
type Summary struct {
	notes.Header
	Kind        string       `json:"kind" jsonschema:"summary"`
	Commit      string       `json:"commit"`
	Intent      string       `json:"intent"`
	Reasoning   string       `json:"reasoning,omitempty"`
	Constraints []Constraint `json:"constraints,omitempty"`
	Risks       []string     `json:"risks,omitempty"`
	Tags        []string     `json:"tags,omitempty"`
	Files       []string     `json:"files"`
	Author      Author       `json:"author"`
	Source      string       `json:"source"`
	DerivedFrom []string     `json:"derived_from,omitempty"`
	Origin      *Origin      `json:"origin,omitempty"`
	Expires     string       `json:"expires,omitempty"`
}

func init() {
	schemas.Register(
		schemas.Entry{Name: "annotation", Tag: Schema, Description: "A region annotation stored in refs/notes/gloss/annotations (kind region).", Type: schemas.TypeOf[Region]()},
		schemas.Entry{Name: "annotation-summary", Tag: Schema, Description: "The commit-level annotation record (kind summary).", Type: schemas.TypeOf[Summary]()},
		schemas.Entry{Name: "annotate", Tag: "gloss-annotate/v1", Description: "What git gloss annotate staged or wrote.", Type: schemas.TypeOf[Result]()},
		// An input, so no tag: what annotate --stdin and gloss_annotate take.
		schemas.Entry{Name: "annotate-context", Description: "One context as git gloss annotate --stdin and gloss_annotate take it (an object, an array or JSON Lines of them).", Type: schemas.TypeOf[Context]()},
	)
}

// newRegion starts a region record for commit.
func newRegion(commit, file string) Region {
	return Region{Header: notes.NewHeader(Schema), Kind: KindRegion, Commit: commit, File: file}
}

// Decoded is a stored record decoded into whichever kind it is.
type Decoded struct {
	Record  notes.Record
	Region  *Region
	Summary *Summary
}

// Decode reads the annotation records among recs; records of other
// schemas or unreadable ones are skipped.
func Decode(recs []notes.Record) []Decoded {
	var out []Decoded
	for _, r := range recs {
		if r.Schema != Schema {
			continue
		}
		d := Decoded{Record: r}
		var probe struct {
			Kind string `json:"kind"`
		}
		if r.Decode(&probe) != nil {
			continue
		}
		switch probe.Kind {
		case KindRegion:
			var reg Region
			if r.Decode(&reg) != nil {
				continue
			}
			d.Region = &reg
		case KindSummary:
			var s Summary
			if r.Decode(&s) != nil {
				continue
			}
			d.Summary = &s
		default:
			continue
		}
		out = append(out, d)
	}
	return out
}
