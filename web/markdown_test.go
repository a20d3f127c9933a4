package web

import (
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
