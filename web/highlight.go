package web

import (
	"html"
	"path"
	"strings"
)

// Highlighting happens in the browser, with highlight.js (npm
// @highlightjs/cdn-assets, built into the embedded assets by make like
// mermaid): the server sends each line escaped, and the code cells carry
// the language as a class (language-go). It used to be chroma, in Go, but
// chroma's lexers and styles packages parse their embedded definitions in
// package init, about 10 ms on every start of git-gloss, that is on every
// git hook and agent hook, for a page few of those processes ever serve.
// Without the script the page is the same, unhighlighted.

// escapeLines returns the file's lines as escaped HTML, one string per
// line; a file ending in a newline has no line after it.
func escapeLines(content []byte) []string {
	text := strings.TrimSuffix(string(content), "\n")
	if text == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = html.EscapeString(strings.TrimSuffix(l, "\r"))
	}
	return lines
}

// languages maps file extensions to the highlight.js language of that
// name, for the languages its common build holds.
var languages = map[string]string{
	".go": "go", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp",
	".cs": "csharp", ".css": "css", ".diff": "diff", ".patch": "diff", ".graphql": "graphql", ".gql": "graphql",
	".ini": "ini", ".cfg": "ini", ".toml": "ini", ".java": "java",
	".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
	".json": "json", ".kt": "kotlin", ".kts": "kotlin", ".less": "less", ".lua": "lua", ".mk": "makefile",
	".md": "markdown", ".markdown": "markdown", ".m": "objectivec", ".pl": "perl", ".pm": "perl", ".php": "php",
	".py": "python", ".r": "r", ".rb": "ruby", ".rs": "rust", ".scss": "scss",
	".sh": "bash", ".bash": "bash", ".zsh": "bash", ".sql": "sql", ".swift": "swift",
	".ts": "typescript", ".tsx": "typescript", ".mts": "typescript", ".vb": "vbnet", ".wat": "wasm",
	".xml": "xml", ".html": "xml", ".htm": "xml", ".svg": "xml", ".yaml": "yaml", ".yml": "yaml",
}

// byName maps file names without a telling extension.
var byName = map[string]string{
	"Makefile": "makefile", "GNUmakefile": "makefile", "makefile": "makefile",
	"Gemfile": "ruby", "Rakefile": "ruby", "go.mod": "go", "go.sum": "",
}

// language is the highlight.js language of a file by its name, "" when
// gloss does not know it (the lines stay plain).
func language(name string) string {
	base := path.Base(name)
	if l, ok := byName[base]; ok {
		return l
	}
	return languages[strings.ToLower(path.Ext(base))]
}
