// Package treesitter turns source files into outlines of anchors — the
// functions, methods, types and classes that annotations attach to — using
// the official tree-sitter bindings. It is the only package that imports
// tree-sitter; everything it returns is plain Go.
//
// Anchors carry qualified names in each language's own notation:
// "Server.Handle" (Go, Python, JavaScript, TypeScript, Java),
// "MqttClient::connect" (Rust, C++), and nested functions as
// "outer.inner".
package treesitter

import (
	"path/filepath"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Anchor is one named unit of code.
type Anchor struct {
	Kind      string `json:"kind"`      // function, method, class, struct, interface, type, enum, trait, impl, namespace, module
	Name      string `json:"name"`      // qualified name, e.g. "Server.Handle"
	Signature string `json:"signature"` // the declaration up to its body, on one line
	Start     int    `json:"start"`     // first line, 1-based
	End       int    `json:"end"`       // last line, inclusive
}

// Short is the anchor's own name without its qualifiers.
func (a Anchor) Short() string {
	n := a.Name
	if i := strings.LastIndexAny(n, ".:"); i >= 0 {
		n = n[i+1:]
	}
	return n
}

// Language reports which supported language a path is written in, by its
// extension, and "" when it is none of them.
func Language(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".go":
		return "go"
	case ".py", ".pyi":
		return "python"
	case ".js", ".mjs", ".cjs", ".jsx":
		return "javascript"
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "tsx"
	case ".rs":
		return "rust"
	case ".java":
		return "java"
	case ".c", ".h":
		return "c"
	case ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".c++", ".h++":
		return "cpp"
	}
	return ""
}

// SupportedExtensions names the languages Outline understands with their
// file extensions, for messages that refuse an anchor in another language.
const SupportedExtensions = "Go (.go), Python (.py), JavaScript (.js, .mjs, .cjs, .jsx), TypeScript (.ts, .tsx), " +
	"Rust (.rs), Java (.java), C (.c, .h), C++ (.cc, .cpp, .cxx, .hpp, .hh)"

// Supported reports whether Outline understands path's language.
func Supported(path string) bool { return Language(path) != "" }

// Outline parses src (the content of path) and returns its anchors in
// source order, outer anchors before the anchors nested in them. A file in
// an unsupported language has no anchors; a file with syntax errors gets
// the anchors tree-sitter could still recognise.
func Outline(path string, src []byte) []Anchor {
	spec := specFor(Language(path))
	if spec == nil {
		return nil
	}
	parser := sitter.NewParser()
	defer parser.Close()
	if err := parser.SetLanguage(spec.language()); err != nil {
		return nil
	}
	tree := parser.Parse(src, nil)
	if tree == nil {
		return nil
	}
	defer tree.Close()
	w := &walker{spec: spec, src: src}
	w.visit(tree.RootNode(), nil)
	return w.anchors
}

// walker collects anchors, keeping the chain of enclosing names.
type walker struct {
	spec    *langSpec
	src     []byte
	anchors []Anchor
}

func (w *walker) text(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return string(w.src[n.StartByte():n.EndByte()])
}

func (w *walker) visit(n *sitter.Node, scope []string) {
	kind, name, qualifier, ok := w.spec.classify(w, n)
	childScope := scope
	if ok && name != "" {
		full := append(append([]string{}, scope...), qualifier...)
		full = append(full, name)
		if kind != "" {
			w.anchors = append(w.anchors, Anchor{
				Kind:      kind,
				Name:      strings.Join(full, w.spec.sep(kind)),
				Signature: w.signature(n),
				Start:     docStart(n),
				End:       endLine(n),
			})
		}
		childScope = full
	}
	if w.spec.opaque[n.Kind()] {
		return
	}
	for i := uint(0); i < n.NamedChildCount(); i++ {
		w.visit(n.NamedChild(i), childScope)
	}
}

// docStart is the first line of a node including the comments right above
// it (a doc comment belongs to what it documents).
func docStart(n *sitter.Node) int {
	// Comments sit beside the outermost node that starts where this one
	// does: a Go type_declaration, an export statement, a decorator.
	for p := n.Parent(); p != nil && p.StartPosition().Row == n.StartPosition().Row && p.Parent() != nil; p = n.Parent() {
		n = p
	}
	start := n.StartPosition().Row
	for p := n.PrevSibling(); p != nil && strings.Contains(p.Kind(), "comment"); p = p.PrevSibling() {
		end := p.EndPosition().Row
		if p.EndPosition().Column == 0 && end > 0 {
			end--
		}
		if end+1 < start {
			break // a blank line between: not this node's comment
		}
		start = p.StartPosition().Row
	}
	return int(start) + 1
}

// endLine is the last line a node covers (tree-sitter's end point is
// exclusive: a node ending at column 0 ends on the line before).
func endLine(n *sitter.Node) int {
	end := n.EndPosition()
	line := int(end.Row) + 1
	if end.Column == 0 && end.Row > n.StartPosition().Row {
		line--
	}
	return line
}

// signature is the declaration without its body, whitespace collapsed.
func (w *walker) signature(n *sitter.Node) string {
	end := n.EndByte()
	if body := n.ChildByFieldName("body"); body != nil {
		end = body.StartByte()
	} else if i := strings.IndexByte(w.text(n), '\n'); i >= 0 {
		end = n.StartByte() + uint(i)
	}
	sig := strings.Join(strings.Fields(string(w.src[n.StartByte():end])), " ")
	sig = strings.TrimRight(sig, " {:=")
	if len(sig) > 200 {
		sig = sig[:200] + "…"
	}
	return sig
}
