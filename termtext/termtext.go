// Package termtext keeps stored text from driving a reader's terminal.
//
// Everything gloss prints for people holds text other people and agents
// wrote: annotations, tasks, notes, commit subjects, prompts, model names,
// session ids, synced from any clone. A terminal obeys the control
// sequences in what it is sent: ESC ]0;…BEL retitles the window, ESC [2J
// clears it, CR and backspace overwrite what was printed, OSC 8 plants a
// link behind innocent text. Strip and Writer are the one place where such
// text is made inert: escape sequences (CSI, OSC, DCS, SOS, PM, APC and
// two-byte ones) are dropped whole, and so is every other C0 and C1
// control but line feed and tab; invalid UTF-8 becomes U+FFFD. The text of
// an OSC 8 link stays, its target goes.
//
// gloss's own styling (colour, the progress line's erase) goes through the
// same Writer, marked by Mark with a token drawn at random per process,
// which stored text cannot know, so that it passes while the same bytes in
// stored text do not.
package termtext

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// Strip returns s without terminal control sequences or control
// characters (line feed and tab kept), invalid UTF-8 replaced.
func Strip(s string) string {
	if clean(s) {
		return s
	}
	var c cleaner
	return string(c.run(nil, []byte(s), true))
}

// clean reports whether s needs no change: the common case costs one pass.
func clean(s string) bool {
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if (b < 0x20 && b != '\n' && b != '\t') || b == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || (r >= 0x80 && r <= 0x9f) {
			return false
		}
		i += n
	}
	return true
}

var (
	tokenOnce sync.Once
	token     string
)

// markToken is the per-process secret that tells gloss's own sequences
// from stored text's.
func markToken() string {
	tokenOnce.Do(func() {
		b := make([]byte, 12)
		_, _ = rand.Read(b)
		token = hex.EncodeToString(b)
	})
	return token
}

// Mark wraps seq, a control sequence gloss itself emits (an SGR colour, an
// erase of the line), so that a Writer passes it through. Stripped
// everywhere else.
func Mark(seq string) string {
	return "\x00" + markToken() + seq + "\x00"
}

// Style is text in the SGR style code (e.g. "1" bold, "32" green), marked
// for a Writer: the text itself is stripped like any other.
func Style(code, text string) string {
	return Mark("\x1b["+code+"m") + text + Mark("\x1b[0m")
}

// KeepColour strips s except its SGR sequences (colours and attributes,
// but not "conceal"), which it marks for a Writer: for output of git run
// with colour, where git's colours and the commit's own text arrive mixed.
func KeepColour(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		j := i + 2
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';') {
			j++
		}
		if j < len(s) && s[j] == 'm' && sgrShows(s[i+2:j]) {
			b.WriteString(Mark(s[i : j+1]))
			s = s[j+1:]
			continue
		}
		b.WriteString("\x1b") // left for the Writer to strip with what follows
		s = s[i+1:]
	}
}

// sgrShows reports whether an SGR parameter list leaves text visible
// (8 is "conceal").
func sgrShows(params string) bool {
	for p := range strings.SplitSeq(params, ";") {
		if p == "8" {
			return false
		}
	}
	return true
}

// Writer strips what is written to it, as Strip does, except sequences
// made by Mark, and writes the rest to the writer it wraps. A sequence
// split across writes is followed across them; one left open is closed at
// the end of its line, so a stray ESC in one record cannot swallow the
// next.
type Writer struct {
	w io.Writer
	c cleaner
}

// NewWriter wraps w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w, c: cleaner{marks: true}}
}

// Write strips p and writes what is left. It reports len(p) written when
// the wrapped writer took all of it.
func (w *Writer) Write(p []byte) (int, error) {
	out := w.c.run(nil, p, false)
	if len(out) == 0 {
		return len(p), nil
	}
	if _, err := w.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what a write left pending (an incomplete UTF-8 sequence at
// the very end of the output, as U+FFFD).
func (w *Writer) Flush() error {
	out := w.c.run(nil, nil, true)
	if len(out) == 0 {
		return nil
	}
	_, err := w.w.Write(out)
	return err
}

// Unwrap returns the wrapped writer (for terminal checks).
func (w *Writer) Unwrap() io.Writer { return w.w }

type state uint8

const (
	ground state = iota
	escape       // after ESC
	csi          // in a control sequence: ESC [ or CSI
	nf           // ESC and intermediate bytes
	str          // in a control string: OSC, DCS, SOS, PM, APC
	strEsc       // ESC inside a control string: ST, or the start of another sequence
)

// maxPending bounds what a Writer holds back waiting for the rest of a
// mark: gloss writes its marks whole, so only a broken one gets this long.
const maxPending = 256

type cleaner struct {
	st      state
	marks   bool
	pending []byte
}

// run appends the stripped form of p (after what was pending) to out.
// Unless final, an incomplete UTF-8 sequence or mark at the end is kept
// for the next call.
func (c *cleaner) run(out, p []byte, final bool) []byte {
	data := p
	if len(c.pending) > 0 {
		data = append(c.pending, p...)
		c.pending = nil
	}
	for i := 0; i < len(data); {
		if c.marks && data[i] == 0 {
			n, seq, wait := c.mark(data[i:], final)
			if wait {
				c.pending = append([]byte(nil), data[i:]...)
				return out
			}
			if n > 0 {
				c.st = ground // gloss's own output ends whatever stored text left open
				out = append(out, seq...)
				i += n
				continue
			}
		}
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 && !final && !utf8.FullRune(data[i:]) {
			c.pending = append([]byte(nil), data[i:]...)
			return out
		}
		out = c.step(out, r, data[i:i+n])
		i += n
	}
	return out
}

// mark recognises a Mark at the start of data: its length and the
// sequence it carries, or wait when data ends before it could tell.
func (c *cleaner) mark(data []byte, final bool) (n int, seq []byte, wait bool) {
	tok := markToken()
	rest := data[1:]
	if len(rest) < len(tok) {
		return 0, nil, !final && strings.HasPrefix(tok, string(rest))
	}
	if string(rest[:len(tok)]) != tok {
		return 0, nil, false
	}
	body := rest[len(tok):]
	end := -1
	for j, b := range body {
		if b == 0 {
			end = j
			break
		}
	}
	if end < 0 {
		return 0, nil, !final && len(data) < maxPending
	}
	return 1 + len(tok) + end + 1, body[:end], false
}

// step feeds one rune (raw: its bytes in data) through the state machine.
func (c *cleaner) step(out []byte, r rune, raw []byte) []byte {
	for {
		switch c.st {
		case ground:
			switch {
			case r == '\n' || r == '\t':
				return append(out, byte(r))
			case r == 0x1b:
				c.st = escape
			case r == 0x9b:
				c.st = csi
			case r == 0x90 || r == 0x98 || r == 0x9d || r == 0x9e || r == 0x9f:
				c.st = str
			case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
				// dropped: CR, backspace, BEL, other controls
			case r == utf8.RuneError && len(raw) == 1:
				return append(out, "\uFFFD"...)
			default:
				return append(out, raw...)
			}
			return out
		case escape:
			switch {
			case r == '[':
				c.st = csi
			case r == ']' || r == 'P' || r == 'X' || r == '^' || r == '_':
				c.st = str
			case r >= 0x20 && r <= 0x2f:
				c.st = nf
			case r >= 0x30 && r <= 0x7e:
				c.st = ground
			default:
				c.st = ground
				continue // not a sequence: the rune stands on its own
			}
			return out
		case csi, nf:
			switch {
			case c.st == csi && r >= 0x20 && r <= 0x3f, c.st == nf && r >= 0x20 && r <= 0x2f:
			case r >= 0x30 && r <= 0x7e:
				c.st = ground
			default:
				c.st = ground
				continue
			}
			return out
		case str:
			switch r {
			case 0x07, 0x9c:
				c.st = ground
			case 0x1b:
				c.st = strEsc
			case '\n':
				c.st = ground
				continue
			}
			return out
		case strEsc:
			if r == '\\' {
				c.st = ground
				return out
			}
			c.st = escape
			continue
		}
	}
}
