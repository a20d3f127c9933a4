// Package decisions finds the records that bind to code: a record written
// for a function (an anchor), a file or a directory is a decision about
// it, in force wherever that code is today, until it is retired. The
// lines its commit happened to change do not limit it.
//
// The index under the git dir (<git dir>/gloss/decisions) lists, by
// recorded path, every such record: where it is (the commit whose note
// holds it, its id) and what it binds to (the anchor's name and a hash of
// its body then). It follows refs/notes/gloss/annotations by diffing the
// notes trees, so a commit, a sync, a forget or a flag costs the notes
// they change; it can be deleted at any time and is rebuilt on demand.
// It is never a second source of truth: a reader takes from it only where
// to look, and reads the records themselves from the notes.
package decisions

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/notes"
)

// Entry is one record that binds to code, as the index keeps it.
type Entry struct {
	Path   string `json:"p"`           // the file (or directory) as recorded
	Scope  string `json:"s"`           // annotate.ScopeAnchor, ScopeFile or ScopeDir
	Anchor string `json:"a,omitempty"` // the anchor's qualified name (ScopeAnchor)
	Kind   string `json:"k,omitempty"` // the anchor's kind
	Body   string `json:"b,omitempty"` // BodyHash of the anchor at the commit, "" when unknown
	Commit string `json:"c"`           // the commit whose note holds the record
	ID     string `json:"i"`
}

// link is a record superseding one on another commit's note: a reader
// checking a record's note alone would not see it.
type link struct {
	Target string `json:"t"`
	By     string `json:"b"`
	Commit string `json:"c"` // the note holding By
}

// readFile reads a file at a commit: what an entry's body hash is taken
// from. nil when the file is not there.
type readFile func(commit, path string) []byte

// entriesOf lists the entries of one note: its region records that bind
// to code and say something (a region the hook derived from a commit that
// stated nothing is a trace of the change, found through blame, not a
// decision), and the links of its records to records on other notes.
func entriesOf(object string, note []byte, read readFile) ([]Entry, []link) {
	recs, _ := notes.Parse(note)
	here := map[string]bool{}
	for _, r := range recs {
		here[r.ID] = true
	}
	var entries []Entry
	var links []link
	for _, r := range recs {
		for _, s := range r.Supersedes {
			if !here[s] {
				links = append(links, link{Target: s, By: r.ID, Commit: object})
			}
		}
	}
	for _, d := range annotate.Decode(recs) {
		reg := d.Region
		if reg == nil || !reg.Says() {
			continue
		}
		e := Entry{Path: reg.File, Scope: reg.ScopeOf(), Commit: object, ID: reg.ID}
		switch e.Scope {
		case annotate.ScopeLines:
			continue // found through blame, by its lines
		case annotate.ScopeAnchor:
			e.Anchor, e.Kind = reg.Anchor.Name, reg.Anchor.Kind
			if src := read(reg.Commit, reg.File); src != nil {
				e.Body = BodyHash(linesOf(src, reg.Lines.Start, reg.Lines.End), reg.Anchor.Name)
			}
		}
		entries = append(entries, e)
	}
	return entries, links
}

// linesOf returns lines start..end (1-based, inclusive) of src.
func linesOf(src []byte, start, end int) []byte {
	if start < 1 {
		return nil
	}
	line, from := 1, -1
	for i := 0; i <= len(src); i++ {
		if line == start && from < 0 {
			from = i
		}
		if i == len(src) || src[i] == '\n' {
			if line == end {
				if from < 0 {
					return nil
				}
				return src[from:min(i+1, len(src))]
			}
			line++
		}
	}
	if from < 0 {
		return nil
	}
	return src[from:]
}

// BodyHash identifies an anchor's code whatever its name and layout: its
// text with every whole-word use of its own short name taken out (the
// declaration, a recursive call) and whitespace collapsed, blank lines
// dropped. A function renamed with its body unchanged hashes the same
// under its new name; "" for no text.
func BodyHash(text []byte, name string) string {
	short := name
	if i := strings.LastIndexAny(short, ".:"); i >= 0 {
		short = short[i+1:]
	}
	var b strings.Builder
	for _, line := range strings.Split(string(text), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		b.WriteString(withoutWord(strings.Join(fields, " "), short))
		b.WriteByte('\n')
	}
	if b.Len() == 0 {
		return ""
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:12])
}

// withoutWord removes the whole-word occurrences of word from s.
func withoutWord(s, word string) string {
	if word == "" {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, word)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := i + len(word)
		whole := (i == 0 || !isWordByte(s[i-1])) && (j == len(s) || !isWordByte(s[j]))
		b.WriteString(s[:i])
		if !whole {
			b.WriteString(word)
		}
		s = s[j:]
	}
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}
