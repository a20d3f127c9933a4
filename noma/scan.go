package noma

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Hand-written matchers for the hot paths of the parser. Each one is
// equivalent to the regular expression kept beside it (reOpener,
// reHeading, reAttrToken); FuzzParseRoundtrip checks that on every line.

func isKeyStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isKeyByte(c byte) bool  { return isWordByte(c) || c == '-' }

// wsAt returns the byte length of the JS whitespace character at s[i], or 0.
func wsAt(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	c := s[i]
	if c < utf8.RuneSelf {
		switch c {
		case '\t', '\n', '\v', '\f', '\r', ' ':
			return 1
		}
		return 0
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if isJSSpace(r) {
		return n
	}
	return 0
}

func skipWS(s string, i int) int {
	for {
		n := wsAt(s, i)
		if n == 0 {
			return i
		}
		i += n
	}
}

func allWS(s string) bool { return skipWS(s, 0) == len(s) }

// scanOpener matches a directive opener: colons, name, optional {…}
// (first { to last }), nothing else but whitespace. It returns the parts
// as reOpener's submatches would.
func scanOpener(s string) (colons, name, group string, ok bool) {
	n := colonRun(s)
	if n < 2 {
		return "", "", "", false
	}
	i := skipWS(s, n)
	if i >= len(s) || !isKeyStart(s[i]) {
		return "", "", "", false
	}
	j := i + 1
	for j < len(s) && isKeyByte(s[j]) {
		j++
	}
	for j+2 < len(s) && s[j] == ':' && s[j+1] == ':' && isKeyStart(s[j+2]) {
		j += 3
		for j < len(s) && isKeyByte(s[j]) {
			j++
		}
	}
	name = s[i:j]
	k := skipWS(s, j)
	if k == len(s) {
		return s[:n], name, "", true
	}
	if s[k] != '{' {
		return "", "", "", false
	}
	last := strings.LastIndexByte(s, '}')
	if last < k || !allWS(s[last+1:]) {
		return "", "", "", false
	}
	return s[:n], name, s[k : last+1], true
}

// scanHeading matches a heading line: 1-6 '#', whitespace, a title, an
// optional trailing " {…}" without '}' inside. It returns reHeading's
// submatches.
func scanHeading(s string) (hashes, title, attrs string, ok bool) {
	h := 0
	for h < len(s) && s[h] == '#' {
		h++
	}
	if h == 0 || h > 6 {
		return "", "", "", false
	}
	first := wsAt(s, h)
	if first == 0 {
		return "", "", "", false
	}
	i := skipWS(s, h)
	rest := s[i:]
	if rest == "" {
		// the lazy title takes the last whitespace character back
		if i-h == first {
			return "", "", "", false
		}
		_, n := utf8.DecodeLastRuneInString(s[:i])
		return s[:h], s[i-n : i], "", true
	}
	body := strings.TrimRightFunc(rest, isJSSpace)
	if strings.HasSuffix(body, "}") {
		inner := body[:len(body)-1]
		k := strings.LastIndexByte(inner, '}')
		for q := k + 1; q < len(inner)-1; q++ {
			if inner[q] != '{' {
				continue
			}
			// whitespace run right before q, with a title before it
			l := q
			for l > 0 {
				r, n := utf8.DecodeLastRuneInString(body[:l])
				if !isJSSpace(r) {
					break
				}
				l -= n
			}
			if l < q && l >= 1 {
				return s[:h], body[:l], inner[q+1:], true
			}
		}
	}
	return s[:h], body, "", true
}

// scanAttrs is parseAttrs's token scan: key, key=value with "…", '…' or a
// bare run; anything else is skipped.
func scanAttrs(s string, fn func(key, val string, hasVal bool)) {
	i := 0
	for i < len(s) {
		if !isKeyStart(s[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && isKeyByte(s[j]) {
			j++
		}
		key := s[i:j]
		if j < len(s) && s[j] == '=' && j+1 < len(s) {
			v := j + 1
			switch q := s[v]; {
			case q == '"' || q == '\'':
				if e := strings.IndexByte(s[v+1:], q); e >= 0 {
					fn(key, s[v:v+1+e+1], true)
					i = v + 1 + e + 1
					continue
				}
			}
			e := v
			for e < len(s) && wsAt(s, e) == 0 {
				_, n := utf8.DecodeRuneInString(s[e:])
				e += n
			}
			if e > v {
				fn(key, s[v:e], true)
				i = e
				continue
			}
		}
		fn(key, "", false)
		i = j
	}
}

// slugifyFast is Slugify without regular expressions.
func slugifyFast(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	s = strings.ToLower(s)
	if !ascii {
		s = norm.NFKD.String(s)
	}
	kept := make([]rune, 0, len(s))
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			kept = append(kept, r)
		case isJSSpace(r):
			kept = append(kept, ' ')
		}
	}
	// trim, whitespace runs to '-', collapse '-' runs
	start, end := 0, len(kept)
	for start < end && kept[start] == ' ' {
		start++
	}
	for end > start && kept[end-1] == ' ' {
		end--
	}
	out := make([]byte, 0, end-start)
	for _, r := range kept[start:end] {
		if r == ' ' {
			r = '-'
		}
		if r == '-' && len(out) > 0 && out[len(out)-1] == '-' {
			continue
		}
		out = append(out, byte(r))
	}
	res := string(out)
	res = strings.TrimPrefix(res, "-")
	return strings.TrimSuffix(res, "-")
}
