package notes

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// A forgotten record's text can come back under another id: a copy of a
// copy (cherry-pick then amend: copy 2 supersedes copy 1, which supersedes
// the forgotten record), held in an old export or in a clone that dropped
// copy 1 without a tombstone. Following `supersedes` finds such copies only
// while every link of the chain is at hand. So a tombstone also keeps, for
// each record it forgets, where the record came from (the commit it was on
// and the commits it was carried from: not secret) and a fingerprint of
// each of its text strings (TextPrint: a hash, never the text). A record
// carried from a commit the forgotten record came from (its derived_from
// names one), on the same anchor, that holds all of the forgotten record's
// text is a copy of it, whatever its chain says.
//
// A record carried from the same commit with other text (a bystander's
// copy) is kept, and so is every record that was not carried: a sibling on
// the same commit, even with the same text, or a record a person wrote
// again by hand, is a record of its own; forget it by its id. The
// fingerprints also let the session state drop a prompt whose summary
// became a forgotten record's text (agent.ForgetPrompts).

// textPrintPrefix separates these fingerprints from any other hash of the
// same text.
const textPrintPrefix = "gloss-forgotten-text/v1\x00"

// TextPrint is the fingerprint of one string of a record's text, as kept
// in tombstones: 128 bits of SHA-256, hex. It confirms a guess of the whole
// string; it does not reveal it (say so in docs/forget.md).
func TextPrint(s string) string {
	sum := sha256.Sum256([]byte(textPrintPrefix + strings.TrimSpace(s)))
	return hex.EncodeToString(sum[:16])
}

// minText is the shortest string that counts as text: shorter ones (a
// kind, a tag, a model name) say too little to tell records apart.
const minText = 8

// structural are the keys whose values say what a record is about and
// where it came from, not what it says: a copy changes them (a new id, a
// new commit, remapped lines, a new source) and keeps the rest.
var structural = map[string]bool{
	"$schema": true, "id": true, "ts": true, "supersedes": true, "commit": true, "object": true,
	"derived_from": true, "source": true, "kind": true, "file": true, "files": true, "lines": true,
	"anchor": true, "author": true, "session": true, "agent": true, "model": true, "started": true,
	"expires": true, "origin": true, "ref": true, "forgets": true, "copy_of": true,
}

// recordPrint is what a tombstone keeps of a record to recognise its
// copies.
type recordPrint struct {
	text   []string // TextPrint of each text string, sorted, unique
	anchor string   // TextPrint of the anchor's name, "" when none
	from   []string // the commit it is on and the commits it was carried from
}

// printOf reads a record's print from its raw JSON; object is the object
// its note is attached to (the commit, for annotations).
func printOf(raw []byte, object string) recordPrint {
	res := gjson.ParseBytes(raw)
	var p recordPrint
	res.ForEach(func(k, v gjson.Result) bool {
		if !structural[k.Str] {
			collectText(v, &p.text)
		}
		return true
	})
	slices.Sort(p.text)
	p.text = slices.Compact(p.text)
	if name := res.Get("anchor.name"); name.Type == gjson.String && name.Str != "" {
		p.anchor = TextPrint(name.Str)
	}
	for _, c := range append([]gjson.Result{res.Get("commit")}, res.Get("derived_from").Array()...) {
		if c.Type == gjson.String && c.Str != "" {
			p.from = append(p.from, c.Str)
		}
	}
	if object != "" {
		p.from = append(p.from, object)
	}
	slices.Sort(p.from)
	p.from = slices.Compact(p.from)
	return p
}

// collectText adds the prints of the text strings in v (any depth).
func collectText(v gjson.Result, out *[]string) {
	switch {
	case v.Type == gjson.String:
		if len(strings.TrimSpace(v.Str)) >= minText {
			*out = append(*out, TextPrint(v.Str))
		}
	case v.IsArray() || v.IsObject():
		v.ForEach(func(_, x gjson.Result) bool {
			collectText(x, out)
			return true
		})
	}
}

// derivedFrom lists the commits a record says it was carried from.
func derivedFrom(raw []byte) []string {
	var out []string
	for _, c := range gjson.GetBytes(raw, "derived_from").Array() {
		if c.Type == gjson.String && c.Str != "" {
			out = append(out, c.Str)
		}
	}
	return out
}

// copies indexes forgotten records' prints by the commits they came from.
type copies struct {
	byFrom map[string][]copyOrigin
}

type copyOrigin struct {
	id    string // the forgotten record
	print recordPrint
}

func (c *copies) add(id string, p recordPrint) {
	if len(p.text) == 0 {
		return // nothing to recognise a copy by
	}
	if c.byFrom == nil {
		c.byFrom = map[string][]copyOrigin{}
	}
	for _, f := range p.from {
		// Clipped: a filter grows a clone of this map, which must not
		// write into the original's slices.
		c.byFrom[f] = append(slices.Clip(c.byFrom[f]), copyOrigin{id, p})
	}
}

// copyOf returns the forgotten record that the record raw (on object) is
// a copy of, or "" (the rules above).
func (c *copies) copyOf(raw []byte, object string) string {
	if len(c.byFrom) == 0 {
		return ""
	}
	var carried []copyOrigin
	for _, f := range derivedFrom(raw) {
		carried = append(carried, c.byFrom[f]...)
	}
	if len(carried) == 0 {
		return ""
	}
	p := printOf(raw, object)
	for _, o := range carried {
		if o.print.anchor == p.anchor && holdsAll(p.text, o.print.text) {
			return o.id
		}
	}
	return ""
}

// holdsAll reports whether the sorted set have holds every element of the
// sorted set want.
func holdsAll(have, want []string) bool {
	for _, w := range want {
		if _, ok := slices.BinarySearch(have, w); !ok {
			return false
		}
	}
	return len(want) > 0
}
