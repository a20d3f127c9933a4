// Package noma implements the Noma Agent Protocol v1.0: a parser for .noma
// documents with exact line spans and canonical block ids, a source
// renderer, the validator, the source-preserving patch engine with its 25
// ops, transcripts, and the Annex C conformance harness.
//
// Behaviour follows the reference implementation (ferax564/noma v0.17.0)
// where the conformance corpus pins it; deliberate differences are listed
// in DEVIATIONS.md.
package noma

// Node types.
const (
	TypeDocument    = "document"
	TypeFrontmatter = "frontmatter"
	TypeSection     = "section"
	TypeDirective   = "directive"
	TypeParagraph   = "paragraph"
	TypeCode        = "code"
	TypeList        = "list"
	TypeListItem    = "list_item"
	TypeQuote       = "quote"
	TypeTable       = "table"
	TypeBreak       = "thematic_break"
)

// Attr is one directive attribute. Value is a string, a float64 or a bool.
type Attr struct {
	Key   string
	Value any
}

// Node is one block of a document. Lines are 1-based and inclusive.
type Node struct {
	Type    string
	Line    int
	EndLine int

	ID    string // canonical id; meaningful when HasID
	HasID bool

	// section
	Level    int
	Title    string
	Aliases  []string
	explicit bool // the id came from {id="…"} (not part of the AST's identity)

	// directive
	Name  string
	Attrs []Attr
	Body  string

	// paragraph, code, list item, quote (lines joined by \n)
	Text string
	Lang string // code

	// list
	Ordered bool

	// table
	Header []string
	Align  []string // "left", "right", "center" or ""
	Rows   [][]string

	// frontmatter
	Raw  string
	Data any

	Children []*Node

	// document
	Meta map[string]any
}

// Attr returns the value of the attribute key, and whether it is present.
func (n *Node) Attr(key string) (any, bool) {
	for _, a := range n.Attrs {
		if a.Key == key {
			return a.Value, true
		}
	}
	return nil, false
}

// StringAttr returns the attribute key when it is a string.
func (n *Node) StringAttr(key string) (string, bool) {
	v, ok := n.Attr(key)
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	return s, ok
}

// Walk visits n and its descendants in pre-order (list items included);
// fn returning false stops the walk.
func Walk(n *Node, fn func(n *Node) bool) bool {
	if !fn(n) {
		return false
	}
	for _, c := range n.Children {
		if !Walk(c, fn) {
			return false
		}
	}
	return true
}

// Find returns the first node in pre-order whose canonical id is id.
func (n *Node) Find(id string) *Node {
	var found *Node
	Walk(n, func(x *Node) bool {
		if x.HasID && x.ID == id {
			found = x
			return false
		}
		return true
	})
	return found
}
