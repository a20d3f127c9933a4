package web

import (
	"html"
	"html/template"
	"path"
	"strings"
)

// Markdown is rendered in the browser, not here: the server sends a
// note's or a document block's source escaped in a <pre class="md-source">
// (readable as it is with scripts off, or in a binary built without the
// vendor scripts), and web/assets/markdown-init.js renders it with marked
// and sanitizes the result with DOMPurify. A Go markdown library's package
// init (goldmark's: about 1 ms) would run in every git-gloss process,
// every git hook and agent hook, for a page almost none of them serve.

// markdownScripts are the scripts that render the carriers, in the order
// they must run (deferred scripts run in document order): the two
// libraries, then the renderer. Without the libraries (make web-assets
// could not run npm) the page shows the sources.
var markdownScripts = []string{"vendor/marked.umd.js", "vendor/purify.min.js", "markdown-init.js"}

// mermaidScripts draw the diagrams that markdown-init.js left as
// <pre><code class="language-mermaid">; they come after it.
var mermaidScripts = []string{"vendor/mermaid.min.js", "mermaid-init.js"}

// codeScripts colour the fenced code blocks that name a language; last,
// when the diagrams' blocks are gone.
var codeScripts = []string{"vendor/highlight.min.js", "markdown-highlight.js"}

// renderNote turns a notebook note into the HTML the page holds and says
// which fenced blocks it holds: mermaid diagrams (```mermaid blocks of
// markdown, or a whole .mmd file) and code in a named language. A
// diagram is emitted as its source in <pre><code
// class="language-mermaid">; mermaid, when its script is there, draws it
// in place.
func renderNote(name, content string) (template.HTML, fenced) {
	switch path.Ext(name) {
	case ".mmd":
		return template.HTML(`<pre><code class="language-mermaid">` + html.EscapeString(content) + `</code></pre>`), fenced{Mermaid: true} //nolint:gosec // escaped
	case ".json":
		return template.HTML(`<pre><code>` + html.EscapeString(content) + `</code></pre>`), fenced{} //nolint:gosec // escaped
	}
	return markdownCarrier("note", content), fences(content)
}

// renderMarkdown is a block of a document; the browser links its [[id]]
// references to the blocks they name on the same page.
func renderMarkdown(src string) template.HTML {
	return markdownCarrier("doc", src)
}

// markdownCarrier is the escaped source that markdown-init.js replaces
// with its rendering; kind "doc" also turns [[id]] into links.
func markdownCarrier(kind, src string) template.HTML {
	return template.HTML(`<pre class="md-source" data-markdown="` + kind + `">` + html.EscapeString(src) + `</pre>`) //nolint:gosec // escaped
}

// fenced says which scripts a markdown source's fenced blocks need.
type fenced struct {
	Mermaid bool // a ```mermaid block
	Code    bool // a block in another named language
}

func (f fenced) or(g fenced) fenced {
	return fenced{Mermaid: f.Mermaid || g.Mermaid, Code: f.Code || g.Code}
}

// fences finds the fenced blocks of markdown that name a language by
// their opening lines. A line inside another fence that looks like one
// counts too; that only loads a script for nothing.
func fences(src string) fenced {
	var f fenced
	for line := range strings.Lines(src) {
		l := strings.TrimLeft(line, " ")
		if len(line)-len(l) > 3 {
			continue
		}
		rest := strings.TrimLeft(l, "`")
		if len(l)-len(rest) < 3 {
			rest = strings.TrimLeft(l, "~")
			if len(l)-len(rest) < 3 {
				continue
			}
		}
		lang, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
		lang, _, _ = strings.Cut(lang, "{")
		switch {
		case lang == "mermaid":
			f.Mermaid = true
		case lang != "":
			f.Code = true
		}
	}
	return f
}
