package web

import (
	"strings"
	"testing"
)

func TestHasMermaidFence(t *testing.T) {
	t.Parallel()
	for src, want := range map[string]bool{
		"```mermaid\ngraph LR\n```\n":        true,
		"text\n\n   ~~~ mermaid\nA-->B\n~~~": true,
		"```mermaid {theme: dark}\n```":      true,
		"```go\nmermaid\n```":                false,
		"    ```mermaid\n":                   false, // indented code, not a fence
		"``mermaid``":                        false,
		"```mermaidish\n```":                 false,
		"no diagrams":                        false,
	} {
		if got := hasMermaidFence(src); got != want {
			t.Errorf("hasMermaidFence(%q) = %v, want %v", src, got, want)
		}
	}
}

func TestRenderNoteSendsSource(t *testing.T) {
	t.Parallel()
	h, mermaid := renderNote("a.md", "# T\n\n<script>x()</script>\n\n```mermaid\nA-->B\n```\n")
	if want := `<pre class="md-source" data-markdown="note"># T` + "\n\n" + `&lt;script&gt;x()&lt;/script&gt;`; !strings.HasPrefix(string(h), want) || !mermaid {
		t.Errorf("renderNote = %s, %v; want it to start %s, with mermaid", h, mermaid, want)
	}
	if h, mermaid := renderNote("d.mmd", "A-->B<"); string(h) != `<pre><code class="language-mermaid">A--&gt;B&lt;</code></pre>` || !mermaid {
		t.Errorf(".mmd note = %s, %v", h, mermaid)
	}
	if h, mermaid := renderNote("d.json", `{"a":"<b>"}`); string(h) != `<pre><code>{&#34;a&#34;:&#34;&lt;b&gt;&#34;}</code></pre>` || mermaid {
		t.Errorf(".json note = %s, %v", h, mermaid)
	}
	if h := renderMarkdown("See [[x]]."); string(h) != `<pre class="md-source" data-markdown="doc">See [[x]].</pre>` {
		t.Errorf("renderMarkdown = %s", h)
	}
}
