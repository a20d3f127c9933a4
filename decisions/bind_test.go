package decisions

import (
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/treesitter"
)

const today = `package text

// Columns is the number of columns s takes.
func Columns(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

func runeWidth(r rune) int {
	return 1
}
`

// widthThen is Columns as it was, under its old name.
const widthThen = `// Width is the number of columns s takes.
func Width(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}
`

// TestBindStage is the lookup stage's binding of an entry to today's code,
// case by case (the history search is the follower's: its answers are
// given here as its cache would hold them).
func TestBindStage(t *testing.T) {
	outline := treesitter.Outline("text/columns.go", []byte(today))
	b := binder{
		file:   File{Path: "text/columns.go", Content: func() []byte { return []byte(today) }, Outline: func() []treesitter.Anchor { return outline }},
		follow: &follower{cache: map[string]followed{"followed": {Name: "runeWidth"}, "gone": {}}},
	}
	for _, c := range []struct {
		name string
		e    Entry
		how  string
		at   string // the anchor bound to
	}{
		{"by its name", Entry{ID: "a", Scope: annotate.ScopeAnchor, Anchor: "Columns"}, BoundByName, "Columns"},
		{"renamed, the same body", Entry{ID: "b", Scope: annotate.ScopeAnchor, Anchor: "Width", Body: BodyHash([]byte(widthThen), "Width")}, BoundRenamed, "Columns"},
		{"renamed, followed through the history", Entry{ID: "followed", Scope: annotate.ScopeAnchor, Anchor: "width"}, BoundRenamed, "runeWidth"},
		{"deleted", Entry{ID: "gone", Scope: annotate.ScopeAnchor, Anchor: "Height"}, BoundNotFound, ""},
		{"a whole file", Entry{ID: "f", Scope: annotate.ScopeFile}, BoundToPath, ""},
		{"a directory", Entry{ID: "d", Scope: annotate.ScopeDir}, BoundToPath, ""},
		{"only the whole name binds", Entry{ID: "gone", Scope: annotate.ScopeAnchor, Anchor: "text.Columns"}, BoundNotFound, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			bd := b.bind(c.e)
			at := ""
			if len(bd.Spans) > 0 {
				at = bd.Spans[0].Name
			}
			if bd.How != c.how || at != c.at {
				t.Errorf("bound %s to %q, want %s to %q", bd.How, at, c.how, c.at)
			}
		})
	}
}

// TestEntriesOfANote: which records of a note the index keeps, and the
// links of records that supersede one on another note.
func TestEntriesOfANote(t *testing.T) {
	region := func(id string, mut func(r *annotate.Region)) []byte {
		r := annotate.Region{Header: notes.Header{Schema: annotate.Schema, ID: id}, Kind: annotate.KindRegion, Commit: "c1", File: "text/width.go",
			Lines: annotate.Lines{Start: 3, End: 10}}
		mut(&r)
		line, err := notes.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return append(line, '\n')
	}
	var note []byte
	note = append(note, region("anchor", func(r *annotate.Region) {
		r.Anchor = &annotate.Anchor{Kind: "function", Name: "Width"}
		r.Constraints = []annotate.Constraint{{Text: "columns, not bytes"}}
		r.Supersedes = []string{"elsewhere"}
	})...)
	note = append(note, region("trace", func(r *annotate.Region) { r.Anchor = &annotate.Anchor{Kind: "function", Name: "Width"} })...)
	note = append(note, region("lines", func(r *annotate.Region) { r.Constraints = []annotate.Constraint{{Text: "x"}} })...)
	note = append(note, region("file", func(r *annotate.Region) { r.Scope, r.Intent = annotate.ScopeFile, "the file" })...)
	note = append(note, region("dir", func(r *annotate.Region) { r.Scope, r.File, r.Intent = annotate.ScopeDir, "text", "the folder" })...)
	note = append(note, region("markdown", func(r *annotate.Region) {
		r.File, r.Anchor, r.Intent = "docs/a.md", &annotate.Anchor{Kind: "section", Name: "Intro"}, "a section"
	})...)
	read := func(commit, path string) []byte { return []byte("package text\n\n" + widthThen) }
	entries, links := entriesOf("c1", note, read)
	var got []string
	for _, e := range entries {
		got = append(got, e.ID+":"+e.Scope)
	}
	if want := "anchor:anchor,file:file,dir:directory"; strings.Join(got, ",") != want {
		t.Errorf("entries %v, want %s (a trace that says nothing, a record of lines and an anchor in a language gloss cannot parse stay with blame)", got, want)
	}
	if entries[0].Body != BodyHash([]byte(widthThen), "Width") {
		t.Errorf("the anchor's body hash is not taken from its lines at the commit")
	}
	if len(links) != 1 || links[0] != (link{Target: "elsewhere", By: "anchor", Commit: "c1"}) {
		t.Errorf("links %+v", links)
	}
}

func TestBodyHashIgnoresTheNameAndLayout(t *testing.T) {
	a := BodyHash([]byte("func Width(s string) int {\n\treturn Width(s[1:])\n}\n"), "Width")
	b := BodyHash([]byte("func  Columns(s string) int {\n\n    return Columns(s[1:])\n}"), "text.Columns")
	c := BodyHash([]byte("func Columns(s string) int {\n\treturn Widths(s[1:])\n}\n"), "Columns")
	if a != b || a == c || a == "" || BodyHash(nil, "x") != "" {
		t.Errorf("hashes %s %s %s", a, b, c)
	}
}
