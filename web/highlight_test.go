package web

import (
	"reflect"
	"testing"
)

func TestLanguage(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"server/server.go": "go", "Makefile": "makefile", "web/js/app.MJS": "javascript",
		"README.md": "markdown", "go.sum": "", "LICENSE": "", "notes.txt": "", "a.b/c": "",
	} {
		if got := language(name); got != want {
			t.Errorf("language(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestEscapeLines(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]string{
		"":                   nil,
		"a<b\r\n\"c\" & d\n": {"a&lt;b", "&#34;c&#34; &amp; d"},
		"no newline at end":  {"no newline at end"},
		"two\n\nblank\n":     {"two", "", "blank"},
		"</pre><script>x\n":  {"&lt;/pre&gt;&lt;script&gt;x"},
	} {
		if got := escapeLines([]byte(in)); !reflect.DeepEqual(got, want) {
			t.Errorf("escapeLines(%q) = %q, want %q", in, got, want)
		}
	}
}
