package review

import (
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/gitops"
)

// The rule for "the change brings back a rejected alternative"
// (docs/review.md says what it catches and what it cannot):
//
//  1. Quoted text in the alternative (`…`, "…" or '…', at least 3
//     characters) is looked for as it is, spaces folded.
//  2. Otherwise its code-like tokens are: words with an underscore, a dot,
//     "::", "->", "/" or "()" in them, camelCase or letters mixed with
//     digits, and --flags, at least 3 characters. Each is looked for as a
//     whole token (case matters).
//  3. An alternative with neither, said in prose, needs at least two
//     content words (4 letters or more, not among a few common ones), all
//     of them whole words of the same added line, in any case.
//
// The lines searched are the lines the change adds within the record's
// scope; a term that was already on the lines the same hunks removed is
// not brought back by them (an edited or moved line keeps what it had).

// altTerms are what is looked for of one rejected alternative.
type altTerms struct {
	phrases []string // rule 1: quoted text, spaces folded
	tokens  []string // rule 2: code-like tokens
	words   []string // rule 3: content words, lowercased
}

func termsOf(alternative string) altTerms {
	var t altTerms
	for _, q := range quoted(alternative) {
		if q = foldSpaces(q); utf8.RuneCountInString(q) >= 3 {
			t.phrases = append(t.phrases, q)
		}
	}
	if len(t.phrases) > 0 {
		return t
	}
	for _, w := range tokens(alternative) {
		if codeLike(w) {
			t.tokens = append(t.tokens, w)
		}
	}
	if len(t.tokens) > 0 {
		return t
	}
	for _, w := range words(alternative) {
		if lw := strings.ToLower(w); len(lw) >= 4 && !commonWord()[lw] {
			t.words = append(t.words, lw)
		}
	}
	if len(t.words) < 2 {
		t.words = nil
	}
	return t
}

// empty reports whether the rule has nothing to look for.
func (t altTerms) empty() bool {
	return len(t.phrases) == 0 && len(t.tokens) == 0 && len(t.words) == 0
}

// matchLine returns the text of the alternative found in line, or "".
func (t altTerms) matchLine(line string) string {
	folded := foldSpaces(line)
	for _, p := range t.phrases {
		if strings.Contains(folded, p) {
			return p
		}
	}
	for _, tok := range t.tokens {
		if containsToken(line, tok) {
			return tok
		}
	}
	if len(t.words) > 0 {
		have := map[string]bool{}
		for _, w := range words(line) {
			have[strings.ToLower(w)] = true
		}
		for _, w := range t.words {
			if !have[w] {
				return ""
			}
		}
		return strings.Join(t.words, " ")
	}
	return ""
}

// numbered is an added line and its number in the head version.
type numbered struct {
	n    int
	text string
}

// findReintroduced applies the rule to each rejected alternative.
func findReintroduced(rejected []annotate.Rejected, added []numbered, removed []string) []Reintroduction {
	var out []Reintroduction
	for _, r := range rejected {
		t := termsOf(r.Text)
		if t.empty() {
			continue
		}
		for _, l := range added {
			m := t.matchLine(l.text)
			if m == "" || wasThere(t, m, removed) {
				continue
			}
			out = append(out, Reintroduction{Alternative: r.Text, Reason: r.Reason, Match: m, Line: l.n, Text: cut(strings.TrimSpace(l.text), 200)})
			break
		}
	}
	return out
}

// wasThere reports whether the removed lines already had the match.
func wasThere(t altTerms, match string, removed []string) bool {
	for _, l := range removed {
		if t.matchLine(l) == match {
			return true
		}
	}
	return false
}

// quoted returns the text between backticks, double or single quotes.
// A single quote inside a word (don't) opens nothing.
func quoted(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '`' && c != '"' && c != '\'' {
			continue
		}
		if c == '\'' && i > 0 && isWordByte(s[i-1]) {
			continue
		}
		j := strings.IndexByte(s[i+1:], c)
		if j < 0 {
			break
		}
		out = append(out, s[i+1:i+1+j])
		i += j + 1
	}
	return out
}

func foldSpaces(s string) string { return strings.Join(strings.Fields(s), " ") }

// tokens splits text into candidate code tokens: runs of letters, digits
// and the punctuation identifiers, paths and calls are made of, with
// sentence punctuation trimmed from their ends.
func tokens(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_.:/->()$#", r))
	}) {
		f = strings.TrimRight(f, ".:,;")
		f = strings.TrimLeft(f, ".:,;(")
		if strings.HasSuffix(f, ")") && !strings.HasSuffix(f, "()") {
			f = strings.TrimRight(f, ")")
		}
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// codeLike reports whether a token looks like code rather than prose.
func codeLike(w string) bool {
	if utf8.RuneCountInString(w) < 3 {
		return false
	}
	if strings.HasPrefix(w, "--") && len(w) > 3 {
		return true
	}
	for _, mark := range []string{"_", "::", "->", "/", "()", "$", "#"} {
		if strings.Contains(w, mark) {
			return true
		}
	}
	if i := strings.IndexByte(w, '.'); i > 0 && i < len(w)-1 {
		return true
	}
	letters, digits := false, false
	prevLower := false
	for _, r := range w {
		switch {
		case unicode.IsDigit(r):
			digits = true
		case unicode.IsLetter(r):
			letters = true
			if unicode.IsUpper(r) && prevLower {
				return true // camelCase
			}
		}
		prevLower = unicode.IsLower(r)
	}
	return letters && digits
}

// containsToken reports whether tok occurs in line as a whole token: not
// preceded or followed by a letter, digit or underscore.
func containsToken(line, tok string) bool {
	for from := 0; ; {
		i := strings.Index(line[from:], tok)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(tok)
		before := i == 0 || !isWordByte(line[i-1]) || !isWordByte(tok[0])
		after := end == len(line) || !isWordByte(line[end]) || !isWordByte(tok[len(tok)-1])
		if before && after {
			return true
		}
		from = i + 1
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// words splits text into runs of letters.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
}

// commonWord are words of four letters or more that say nothing about
// what an alternative is (built on first use, not at every start).
var commonWord = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"that": true, "this": true, "with": true, "from": true, "into": true, "instead": true, "would": true,
		"should": true, "could": true, "them": true, "they": true, "then": true, "than": true, "there": true,
		"their": true, "when": true, "where": true, "which": true, "while": true, "have": true, "each": true,
		"every": true, "only": true, "also": true, "just": true, "some": true, "more": true, "most": true,
		"using": true, "make": true, "makes": true, "made": true, "what": true, "does": true, "done": true,
		"about": true, "over": true, "after": true, "before": true, "other": true, "same": true, "like": true,
		"keep": true, "call": true, "calls": true, "code": true, "here": true, "your": true,
	}
})

// cut shortens s to at most n bytes on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// reintroductions checks the file's decisions with rejected alternatives
// against the lines the change adds in their scope: at head, the added
// lines within the record's lines; at base (the record's lines were
// deleted or replaced), the lines its hunks added in their place. The
// removed lines of the same hunks are read from base.
func reintroductions(repo *gitops.Repo, f *fileWork, base, head string) error {
	var baseLines, headLines []string
	loaded := false
	for i := range f.decisions {
		d := &f.decisions[i]
		if len(d.Rejected) == 0 {
			continue
		}
		if !loaded {
			var err error
			if baseLines, err = linesAt(repo, base, basePath(f.change), f.change.Status != gitops.Added); err != nil {
				return err
			}
			if headLines, err = linesAt(repo, head, f.change.Path, f.change.Status != gitops.Deleted); err != nil {
				return err
			}
			loaded = true
		}
		var added []numbered
		var removed []string
		for _, h := range d.Changed {
			for l := h.NewStart; l < h.NewStart+h.NewLines; l++ {
				if d.Side == SideHead && d.Lines != nil && (l < d.Lines.Start || l > d.Lines.End) {
					continue
				}
				if l >= 1 && l <= len(headLines) {
					added = append(added, numbered{n: l, text: headLines[l-1]})
				}
			}
			for l := h.OldStart; l < h.OldStart+h.OldLines; l++ {
				if l >= 1 && l <= len(baseLines) {
					removed = append(removed, baseLines[l-1])
				}
			}
		}
		d.Reintroduced = findReintroduced(d.Rejected, added, removed)
	}
	return nil
}

// linesAt reads a file's lines at a commit; none when it is not there.
func linesAt(repo *gitops.Repo, rev, path string, exists bool) ([]string, error) {
	if !exists {
		return nil, nil
	}
	data, err := repo.ReadFile(rev, path)
	if err != nil {
		if gitops.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("read %s at %s: %w", path, gitops.ShortID(rev), err)
	}
	return strings.Split(string(data), "\n"), nil
}
