package noma

import (
	"math"
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/gloss-dev/gloss/lazyregexp"
)

// JavaScript's \s and String#trim are Unicode-aware; Go's are not the same
// set. These follow JS exactly.

const wsClass = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`

// ws is a regexp fragment matching one JS whitespace character.
const ws = `[` + wsClass + `]`

func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

func jsTrim(s string) string { return strings.TrimFunc(s, isJSSpace) }

func isBlank(s string) bool { return jsTrim(s) == "" }

// utf16Len is the length of s in UTF-16 code units (JS string length).
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

var (
	reSlugDrop  = lazyregexp.New(`[^a-z0-9` + wsClass + `\-]`)
	reSlugSpace = lazyregexp.New(ws + `+`)
	reSlugDash  = lazyregexp.New(`-+`)
)

// Slugify turns a heading title into its implicit id, as the reference
// does: lower-case, NFKD, combining marks U+0300–U+036F removed, anything
// but a-z, 0-9, whitespace and '-' removed, whitespace runs to '-', '-'
// runs collapsed, one leading and one trailing '-' stripped.
func Slugify(s string) string { return slugifyFast(s) }

// slugifyRE is the regular-expression form of Slugify (kept to check the
// fast one).
func slugifyRE(s string) string {
	s = strings.ToLower(s)
	s = norm.NFKD.String(s)
	s = strings.Map(func(r rune) rune {
		if r >= 0x300 && r <= 0x36f {
			return -1
		}
		return r
	}, s)
	s = reSlugDrop.ReplaceAllString(s, "")
	s = jsTrim(s)
	s = reSlugSpace.ReplaceAllString(s, "-")
	s = reSlugDash.ReplaceAllString(s, "-")
	s = strings.TrimPrefix(s, "-")
	s = strings.TrimSuffix(s, "-")
	return s
}

// jsNumber formats f as JavaScript's Number#toString does.
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	a := math.Abs(f)
	if a >= 1e21 || a < 1e-6 {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[0]
		exp = strings.TrimLeft(exp[1:], "0")
		if exp == "" {
			exp = "0"
		}
		return mant + "e" + string(sign) + exp
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

var (
	reInt   = lazyregexp.New(`^-?\d+$`)
	reFloat = lazyregexp.New(`^-?\d+\.\d+$`)
)

// coerce turns an attribute's text into a bool, a number or a string.
func coerce(s string) any {
	switch s {
	case "true":
		return true
	case "false":
		return false
	}
	if s != "" && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) && (reInt.MatchString(s) || reFloat.MatchString(s)) {
		f, err := strconv.ParseFloat(s, 64)
		if err == nil {
			return f
		}
	}
	return s
}

var reAttrToken = lazyregexp.New(`([A-Za-z_][\w-]*)(?:=("[^"]*"|'[^']*'|[^` + wsClass + `]+))?`)

// parseAttrs reads the inside of a {…} group: key, key=value, key="v",
// key='v'; junk between tokens is ignored, the last duplicate wins at the
// first position, values are coerced.
func parseAttrs(s string) []Attr {
	var out []Attr
	scanAttrs(s, func(key, raw string, hasVal bool) {
		var val any = true
		if hasVal {
			if len(raw) >= 2 && (raw[0] == '"' && raw[len(raw)-1] == '"' || raw[0] == '\'' && raw[len(raw)-1] == '\'') {
				raw = raw[1 : len(raw)-1]
			}
			val = coerce(raw)
		}
		dup := false
		for i := range out {
			if out[i].Key == key {
				out[i].Value = val
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, Attr{key, val})
		}
	})
	return out
}

// formatAttrValue writes one attribute as the reference's renderer does.
func formatAttr(a Attr) string {
	switch v := a.Value.(type) {
	case bool:
		if v {
			return a.Key
		}
		return a.Key + "=false"
	case float64:
		if m := math.Abs(v); m >= 1e21 || m < 1e-6 && m != 0 {
			// JS prints these in exponent form, which reads back as a
			// string; written in full they stay numbers (DEVIATIONS.md).
			return a.Key + "=" + strconv.FormatFloat(v, 'f', -1, 64)
		}
		return a.Key + "=" + jsNumber(v)
	case string:
		if strings.Contains(v, `"`) && !strings.Contains(v, "'") {
			return a.Key + "='" + v + "'"
		}
		return a.Key + `="` + strings.ReplaceAll(v, `"`, `\"`) + `"`
	}
	return a.Key
}

func formatAttrs(attrs []Attr) string {
	if len(attrs) == 0 {
		return ""
	}
	parts := make([]string, len(attrs))
	for i, a := range attrs {
		parts[i] = formatAttr(a)
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// codeSpanRanges lists the byte ranges of `code` spans in s.
func codeSpanRanges(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		run := s[i:j]
		k := strings.Index(s[j:], run)
		if k < 0 {
			i = j
			continue
		}
		out = append(out, [2]int{i, j + k + len(run)})
		i = j + k + len(run)
	}
	return out
}

func inRanges(r [][2]int, i int) bool {
	for _, x := range r {
		if i >= x[0] && i < x[1] {
			return true
		}
	}
	return false
}

// Wikilink is one [[target]] or [[target|label]].
type Wikilink struct {
	Target, Label string
}

var (
	reWikilink = lazyregexp.New(`\[\[([^\[\]\n]+)\]\]`)
	reBlockRef = lazyregexp.New(`^[A-Za-z_][\w\-./:]*$`)
)

// wikilinks lists the wikilinks of s outside code spans.
func wikilinks(s string) []Wikilink {
	if !strings.Contains(s, "[[") {
		return nil
	}
	code := codeSpanRanges(s)
	var out []Wikilink
	for _, m := range reWikilink.FindAllStringSubmatchIndex(s, -1) {
		if inRanges(code, m[0]) {
			continue
		}
		inner := s[m[2]:m[3]]
		t, l, _ := strings.Cut(inner, "|")
		out = append(out, Wikilink{jsTrim(t), jsTrim(l)})
	}
	return out
}

// isBlockRef reports whether a wikilink target names a block.
func isBlockRef(t string) bool { return reBlockRef.MatchString(t) }
