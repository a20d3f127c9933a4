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
const MaxQuote = 1024

// Quote renders user input for a message or a line of output. A short,
// plain name (printable, valid UTF-8, no quote or backslash, not starting
// with ':' or '-') is returned as is; anything else is Go-quoted, so a
// newline or a control character can never start a line of its own (a
// CI runner reads "::set-output" at the start of any line as a command)
// and a terminal never receives an escape sequence. Input longer than
// MaxQuote bytes is cut to a prefix followed by its length.
func Quote(s string) string {
	if len(s) > MaxQuote {
		return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(prefix(s)), len(s))
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

// Bound returns args with every string longer than MaxQuote cut to a
// prefix that says how long it was: for messages built with fmt whose
// arguments are user input.
func Bound(args ...any) []any {
	var out []any // a copy, made only when something is cut
	for i, a := range args {
		if s, ok := a.(string); ok && len(s) > MaxQuote {
			if out == nil {
				out = append([]any(nil), args...)
			}
			out[i] = prefix(s) + fmt.Sprintf("… (%d bytes)", len(s))
		}
	}
	if out == nil {
		return args
	}
	return out
}

// prefix cuts s to at most MaxQuote bytes, at a rune boundary.
func prefix(s string) string {
	if len(s) <= MaxQuote {
		return s
	}
	cut := MaxQuote
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// MaxMessage bounds an error message as the front doors print or return
// it: a last guard for messages built elsewhere than here.
const MaxMessage = 8 << 10

// Bounded returns err, or, when its message is longer than MaxMessage,
// an error with the message cut (errors.Is and As still see err).
func Bounded(err error) error {
	if err == nil || len(err.Error()) <= MaxMessage {
		return err
	}
	return &bounded{err}
}

type bounded struct{ err error }

func (b *bounded) Error() string {
	msg := b.err.Error()
	cut := MaxMessage
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (message cut at %d of %d bytes)", msg[:cut], cut, len(msg))
}

func (b *bounded) Unwrap() error { return b.err }
