package web

import (
	"bytes"
	"crypto/sha1"
	"html"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
)

// Highlighting is chroma (github.com/alecthomas/chroma/v2): a maintained
// pure-Go highlighter with lexers for every language gloss reads, whose
// output is CSS classes, so the strict Content-Security-Policy needs no
// inline style. Lines are highlighted once per content and kept: the file
// page for an 8,800-line file is served warm from memory.

// highlightCache keeps the highlighted lines of the last files shown, by
// content hash.
type highlightCache struct {
	mu    sync.Mutex
	max   int
	order [][sha1.Size]byte
	lines map[[sha1.Size]byte][]string
}

func newHighlightCache(n int) *highlightCache {
	return &highlightCache{max: n, lines: map[[sha1.Size]byte][]string{}}
}

// Lines returns the file's lines as HTML (escaped text in class-named
// spans), one string per line.
func (c *highlightCache) Lines(name string, content []byte) []string {
	key := sha1.Sum(append([]byte(name+"\x00"), content...))
	c.mu.Lock()
	if l, ok := c.lines[key]; ok {
		c.mu.Unlock()
		return l
	}
	c.mu.Unlock()
	l := highlight(name, content)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.lines[key]; !ok {
		if len(c.order) >= c.max {
			delete(c.lines, c.order[0])
			c.order = c.order[1:]
		}
		c.order = append(c.order, key)
		c.lines[key] = l
	}
	return l
}

// highlight tokenises content with the lexer chroma picks for the name
// (plain text when none) and renders each line.
func highlight(name string, content []byte) []string {
	text := string(content)
	lexer := lexers.Match(name)
	if lexer == nil {
		return plainLines(text)
	}
	lexer = chroma.Coalesce(lexer)
	it, err := lexer.Tokenise(nil, text)
	if err != nil {
		return plainLines(text)
	}
	var out []string
	var b strings.Builder
	for _, line := range chroma.SplitTokensIntoLines(it.Tokens()) {
		b.Reset()
		for _, t := range line {
			v := strings.TrimSuffix(t.Value, "\n")
			if v == "" {
				continue
			}
			cls := tokenClass(t.Type)
			if cls == "" {
				b.WriteString(html.EscapeString(v))
				continue
			}
			b.WriteString(`<span class="`)
			b.WriteString(cls)
			b.WriteString(`">`)
			b.WriteString(html.EscapeString(v))
			b.WriteString(`</span>`)
		}
		out = append(out, b.String())
	}
	// A file ending in a newline has no line after it.
	if n := len(out); n > 0 && out[n-1] == "" && strings.HasSuffix(text, "\n") {
		out = out[:n-1]
	}
	return out
}

func plainLines(text string) []string {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = html.EscapeString(strings.TrimSuffix(l, "\r"))
	}
	return lines
}

// tokenClass is chroma's short CSS class for a token type, falling back
// to its category's.
func tokenClass(t chroma.TokenType) string {
	for t != 0 {
		if c, ok := chroma.StandardTypes[t]; ok && c != "" {
			return c
		}
		p := t.Parent()
		if p == t {
			break
		}
		t = p
	}
	return ""
}

// chromaCSS is the stylesheet for those classes: a light and a dark
// style, chosen by the reader's colour scheme.
func chromaCSS() []byte {
	var buf bytes.Buffer
	f := chromahtml.New(chromahtml.WithClasses(true))
	_ = f.WriteCSS(&buf, styles.Get("github"))
	// In the dark, every token first loses the light colours (a class the
	// dark style leaves alone would keep a dark-on-dark one), then takes
	// the dark style's: both more specific than the light rules.
	var dark bytes.Buffer
	_ = f.WriteCSS(&dark, styles.Get("github-dark"))
	buf.WriteString("@media (prefers-color-scheme: dark) {\n:root .chroma span { color: inherit; background-color: transparent; font-weight: inherit; font-style: inherit; }\n")
	buf.WriteString(strings.ReplaceAll(dark.String(), ".chroma", ":root .chroma"))
	buf.WriteString("}\n")
	return buf.Bytes()
}
