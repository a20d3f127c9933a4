package web

import (
	"bytes"
	"html"
	"html/template"
	"path"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/gloss-dev/gloss/lazyregexp"
)

// Markdown is goldmark (github.com/yuin/goldmark): CommonMark-compliant,
// maintained, pure Go, and safe by default — raw HTML in a note is left
// out, not passed to the page. GitHub's tables, task lists and
// strikethrough are on, as notes are written for GitHub too.
var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

// renderNote turns a notebook note into HTML and says whether it holds
// mermaid diagrams: ```mermaid blocks of markdown, or a whole .mmd file.
// A diagram is emitted as its source in <pre><code class="language-mermaid">;
// mermaid, when its script is there, draws it in place.
func renderNote(name, content string) (template.HTML, bool) {
	switch path.Ext(name) {
	case ".mmd":
		return template.HTML(`<pre><code class="language-mermaid">` + html.EscapeString(content) + `</code></pre>`), true //nolint:gosec // escaped
	case ".json":
		return template.HTML(`<pre><code>` + html.EscapeString(content) + `</code></pre>`), false //nolint:gosec // escaped
	}
	var buf bytes.Buffer
	if err := md.Convert([]byte(content), &buf); err != nil {
		return template.HTML(`<pre>` + html.EscapeString(content) + `</pre>`), false //nolint:gosec // escaped
	}
	// GFM task-list boxes are read-only; give them a name a screen
	// reader can say.
	out := strings.ReplaceAll(buf.String(), `<input checked="" disabled="" type="checkbox">`, `<input checked="" disabled="" type="checkbox" aria-label="done">`)
	out = strings.ReplaceAll(out, `<input disabled="" type="checkbox">`, `<input disabled="" type="checkbox" aria-label="not done">`)
	return template.HTML(out), strings.Contains(out, `class="language-mermaid"`) //nolint:gosec // goldmark escapes text and drops raw HTML
}

// renderMarkdown renders a block of a document; its [[id]] references
// link to the blocks they name on the same page.
func renderMarkdown(src string) template.HTML {
	h, _ := renderNote("block.md", src)
	return template.HTML(blockRef.ReplaceAllString(string(h), `<a href="#b-$1">[[$1]]</a>`)) //nolint:gosec // ids are [A-Za-z0-9_.:-]
}

var blockRef = lazyregexp.New(`\[\[([A-Za-z0-9_.:-]+)\]\]`)
