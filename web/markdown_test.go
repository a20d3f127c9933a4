package web

import (
	"reflect"
	"strings"
	"testing"
)

func TestFences(t *testing.T) {
	t.Parallel()
	m, c, both, none := fenced{Mermaid: true}, fenced{Code: true}, fenced{true, true}, fenced{}
	for src, want := range map[string]fenced{
		"```mermaid\ngraph LR\n```\n":        m,
		"text\n\n   ~~~ mermaid\nA-->B\n~~~": m,
		"```mermaid {theme: dark}\n```":      m,
		"```go\nfunc f() {}\n```":            c,
		"```go\n```\n\n```mermaid\n```":      both,
		"```\nplain\n```":                    none,
		"    ```mermaid\n":                   none, // indented code, not a fence
		"``mermaid``":                        none,
		"```mermaidish\n```":                 c,
		"no diagrams":                        none,
	} {
		if got := fences(src); got != want {
			t.Errorf("fences(%q) = %+v, want %+v", src, got, want)
		}
	}
}

func TestRenderNoteSendsSource(t *testing.T) {
	t.Parallel()
	h, f := renderNote("a.md", "# T\n\n<script>x()</script>\n\n```mermaid\nA-->B\n```\n")
	if want := `<pre class="md-source" data-markdown="note"># T` + "\n\n" + `&lt;script&gt;x()&lt;/script&gt;`; !strings.HasPrefix(string(h), want) || f != (fenced{Mermaid: true}) {
		t.Errorf("renderNote = %s, %+v; want it to start %s, with mermaid", h, f, want)
	}
	if h, f := renderNote("d.mmd", "A-->B<"); string(h) != `<pre><code class="language-mermaid">A--&gt;B&lt;</code></pre>` || !f.Mermaid {
		t.Errorf(".mmd note = %s, %+v", h, f)
	}
	if h, f := renderNote("d.json", `{"a":"<b>"}`); string(h) != `<pre><code>{&#34;a&#34;:&#34;&lt;b&gt;&#34;}</code></pre>` || f != (fenced{}) {
		t.Errorf(".json note = %s, %+v", h, f)
	}
	if h := renderMarkdown("See [[x]]."); string(h) != `<pre class="md-source" data-markdown="doc">See [[x]].</pre>` {
		t.Errorf("renderMarkdown = %s", h)
	}
}

// TestNoteScripts: the scripts come in the order they must run, each only
// when its library is built in; without marked or DOMPurify none runs, so
// the sources stay as served, diagrams and code among them.
func TestNoteScripts(t *testing.T) {
	t.Parallel()
	all := func(string) bool { return true }
	only := func(names ...string) func(string) bool {
		return func(a string) bool {
			for _, n := range names {
				if a == n {
					return true
				}
			}
			return false
		}
	}
	both := fenced{Mermaid: true, Code: true}
	for _, c := range []struct {
		name     string
		markdown bool
		blocks   fenced
		has      func(string) bool
		want     []string
	}{
		{"everything", true, both, all, []string{"vendor/marked.umd.js", "vendor/purify.min.js", "markdown-init.js",
			"vendor/mermaid.min.js", "mermaid-init.js", "vendor/highlight.min.js", "markdown-highlight.js"}},
		{"plain markdown", true, fenced{}, all, []string{"vendor/marked.umd.js", "vendor/purify.min.js", "markdown-init.js"}},
		{"no vendor files", true, both, only(), nil},
		{"no DOMPurify", true, both, only("vendor/marked.umd.js", "vendor/mermaid.min.js", "vendor/highlight.min.js"), nil},
		{"no mermaid", true, both, only("vendor/marked.umd.js", "vendor/purify.min.js", "vendor/highlight.min.js"),
			[]string{"vendor/marked.umd.js", "vendor/purify.min.js", "markdown-init.js", "vendor/highlight.min.js", "markdown-highlight.js"}},
		{".mmd note", false, fenced{Mermaid: true}, all, []string{"vendor/mermaid.min.js", "mermaid-init.js"}},
	} {
		if got := noteScripts(c.markdown, c.blocks, c.has); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: scripts %v, want %v", c.name, got, c.want)
		}
	}
}
