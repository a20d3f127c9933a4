package fault

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxQuote is how much of a piece of user input (a path, a ref, an id) a
// message quotes: enough to recognize it, never the whole of a 4 MiB
// argument echoed back.
const MaxQuote = 256

// Quote renders user input for a message or a line of output. A short,
// plain name (printable, valid UTF-8, no quote or backslash, not starting
// with ':' or '-') is returned as is; anything else is Go-quoted, so a
// newline or a control character can never start a line of its own (a
// CI runner reads "::set-output" at the start of any line as a command)
// and a terminal never receives an escape sequence. Input longer than
// MaxQuote bytes is cut to a prefix followed by its length.
func Quote(s string) string {
	if len(s) > MaxQuote {
		cut := MaxQuote
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:cut]), len(s))
	}
	if plain(s) {
		return s
	}
	return strconv.Quote(s)
}

func plain(s string) bool {
	if s == "" || s[0] == ':' || s[0] == '-' || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) || r == '"' || r == '\\' {
			return false
		}
	}
	return true
}

// Line makes free text (a message that may embed user input) safe to
// print as one line: control characters, newlines included, are escaped
// as in a Go string, and nothing else changes.
func Line(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r == utf8.RuneError || unicode.IsControl(r) }) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// Quoted is Quote that always quotes: for messages whose form names the
// input in quotes. Input longer than MaxQuote bytes is cut the same way.
func Quoted(s string) string {
	if len(s) > MaxQuote {
		return Quote(s)
	}
	return strconv.Quote(s)
}
