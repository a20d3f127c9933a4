package termtext

import (
	"bytes"
	"strings"
	"testing"
)

// The attacks of issue 28 and their neighbours: each input, what a reader
// must see.
var cases = []struct{ name, in, want string }{
	{"plain", "intent: keep it simple", "intent: keep it simple"},
	{"newline and tab kept", "a\n\tb", "a\n\tb"},
	{"window title (OSC 0, BEL)", "x\x1b]0;pwned\x07y", "xy"},
	{"window title (OSC 2, ST)", "x\x1b]2;pwned\x1b\\y", "xy"},
	{"clear screen", "\x1b[2Jhello\x1b[H", "hello"},
	{"colour from a record", "\x1b[31mred\x1b[0m", "red"},
	{"OSC 8 link keeps its text", "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\", "click"},
	{"carriage return", "safe\rEVIL", "safeEVIL"},
	{"backspace", "rm -rf /\b\b\b\b\b\b\bls", "rm -rf /ls"},
	{"bell and other C0", "a\x07b\x00c\x01d\x7fe", "abcde"},
	{"C1 CSI", "a\u009b2Jb", "ab"},
	{"C1 OSC to ST", "a\u009d0;t\u009cb", "ab"},
	{"other C1", "a\u0085b", "ab"},
	{"invalid UTF-8", "a\xffb", "a\uFFFDb"},
	{"unterminated OSC ends at the line", "a\x1b]0;title\nnext", "a\nnext"},
	{"unterminated CSI", "a\x1b[12\nb", "a\nb"},
	{"DCS", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
	{"two-byte escape", "a\x1b7b\x1b8c", "abc"},
	{"charset (nF)", "a\x1b(0b", "ab"},
	{"ESC inside a string starts a new sequence", "a\x1b]0;x\x1b[2Jb", "ab"},
	{"unicode kept", "naïve — 日本 🙂", "naïve — 日本 🙂"},
	{"a forged mark is stripped", "\x00" + strings.Repeat("0", 24) + "\x1b[2J\x00x", strings.Repeat("0", 24) + "x"},
}

func TestStrip(t *testing.T) {
	for _, c := range cases {
		if got := Strip(c.in); got != c.want {
			t.Errorf("%s: Strip(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

// A Writer strips the same, whatever the writes are cut into, and lets
// gloss's own marked sequences through.
func TestWriterSplitsAndMarks(t *testing.T) {
	for _, c := range cases {
		for cut := 0; cut <= len(c.in); cut++ {
			var buf bytes.Buffer
			w := NewWriter(&buf)
			w.Write([]byte(c.in[:cut]))
			w.Write([]byte(c.in[cut:]))
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if buf.String() != c.want {
				t.Errorf("%s cut at %d: %q, want %q", c.name, cut, buf.String(), c.want)
			}
		}
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	// An open sequence from stored text is ended by gloss's own output.
	in := "stored \x1b]0;title " + Style("1", "bold\x1b[2J") + Mark("\r\x1b[2K") + "done"
	for i := range len(in) {
		w.Write([]byte{in[i]})
	}
	w.Flush()
	if want := "stored \x1b[1mbold\x1b[0m\r\x1b[2Kdone"; buf.String() != want {
		t.Errorf("marked output: %q, want %q", buf.String(), want)
	}
}

func TestKeepColour(t *testing.T) {
	in := "\x1b[33mcommit abc\x1b[m\n    subject \x1b]0;t\x07 \x1b[8mhidden\x1b[0m \x1b[2J"
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.Write([]byte(KeepColour(in)))
	want := "\x1b[33mcommit abc\x1b[m\n    subject  hidden\x1b[0m "
	if buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}

func BenchmarkStripClean(b *testing.B) {
	s := strings.Repeat("an intent that holds nothing odd, as nearly all do. ", 20)
	for b.Loop() {
		Strip(s)
	}
}
