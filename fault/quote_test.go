package fault

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"src/main.go":         "src/main.go",
		"a b/ü.go":            "a b/ü.go",
		"":                    `""`,
		"src/evil\n::x":       `"src/evil\n::x"`,
		"::set-output name=x": `"::set-output name=x"`,
		"-rf":                 `"-rf"`,
		"a\"b":                `"a\"b"`,
		"\x1b[31mred":         `"\x1b[31mred"`,
		string([]byte{0xff}):  `"\xff"`,
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
	long := strings.Repeat("é", MaxQuote) // 2 bytes a rune: the cut falls inside one
	got := Quote(long)
	if len(got) > MaxQuote+40 || !utf8.ValidString(got) || !strings.HasSuffix(got, "… (2048 bytes)") {
		t.Errorf("Quote of %d bytes: %d bytes %q…", len(long), len(got), got[:20])
	}
}

func TestLineAndBound(t *testing.T) {
	if got := Line("one\ntwo\tthree"); got != `one\ntwo\tthree` {
		t.Errorf("Line: %s", got)
	}
	if got := Line("plain: “quoted” text"); got != "plain: “quoted” text" {
		t.Errorf("Line changed plain text: %s", got)
	}
	huge := strings.Repeat("x", 4<<20)
	err := Usagef("no such thing %q in %s", huge, "here")
	if n := len(err.Error()); n > 2*MaxQuote {
		t.Errorf("a marked error echoes %d bytes", n)
	}
	if KindOf(err) != Usage {
		t.Errorf("kind lost")
	}
	base := NotFoundf("x")
	wrapped := Bounded(errors.Join(base, errors.New(huge)))
	if len(wrapped.Error()) > MaxMessage+100 || !errors.Is(wrapped, base) || KindOf(wrapped) != NotFound {
		t.Errorf("Bounded: %d bytes, Is %v, kind %v", len(wrapped.Error()), errors.Is(wrapped, base), KindOf(wrapped))
	}
	if small := errors.New("small"); Bounded(small) != small {
		t.Errorf("Bounded wrapped a short error")
	}
}
