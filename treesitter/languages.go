package treesitter

import (
	"strings"
	"sync"
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsc "github.com/tree-sitter/tree-sitter-c/bindings/go"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
	tsgo "github.com/tree-sitter/tree-sitter-go/bindings/go"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tspython "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsrust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// langSpec tells the walker which nodes of one grammar are anchors.
type langSpec struct {
	ptr       func() unsafe.Pointer
	separator string // between a scope and its members
	once      sync.Once
	lang      *sitter.Language

	// classify says whether n opens an anchor or a naming scope: kind ""
	// with a name is a scope only (a Go receiver, a Rust impl block).
	classify func(w *walker, n *sitter.Node) (kind, name string, qualifier []string, ok bool)

	// opaque lists node kinds whose insides hold no anchors in practice
	// (function bodies of languages without nested named functions,
	// argument lists, literals). Not descending into them keeps outlining
	// a fraction of a full walk.
	opaque map[string]bool
}

func kinds(ks ...string) map[string]bool {
	m := make(map[string]bool, len(ks))
	for _, k := range ks {
		m[k] = true
	}
	return m
}

func (s *langSpec) language() *sitter.Language {
	s.once.Do(func() { s.lang = sitter.NewLanguage(s.ptr()) })
	return s.lang
}

func (s *langSpec) sep(string) string { return s.separator }

var specs = map[string]*langSpec{
	"go":         {ptr: tsgo.Language, separator: ".", classify: classifyGo, opaque: kinds("block", "parameter_list", "field_declaration_list", "literal_value", "interpreted_string_literal", "raw_string_literal")},
	"python":     {ptr: tspython.Language, separator: ".", classify: classifyPython, opaque: kinds("argument_list", "string", "parameters")},
	"javascript": {ptr: tsjs.Language, separator: ".", classify: classifyJS, opaque: kinds("arguments", "string", "template_string", "formal_parameters")},
	"typescript": {ptr: tsts.LanguageTypescript, separator: ".", classify: classifyJS, opaque: kinds("arguments", "string", "template_string", "formal_parameters")},
	"tsx":        {ptr: tsts.LanguageTSX, separator: ".", classify: classifyJS, opaque: kinds("arguments", "string", "template_string", "formal_parameters", "jsx_element")},
	"rust":       {ptr: tsrust.Language, separator: "::", classify: classifyRust, opaque: kinds("block", "parameters", "arguments", "string_literal")},
	"java":       {ptr: tsjava.Language, separator: ".", classify: classifyJava, opaque: kinds("block", "constructor_body", "formal_parameters", "argument_list", "string_literal")},
	"c":          {ptr: tsc.Language, separator: "::", classify: classifyC, opaque: kinds("compound_statement", "parameter_list", "argument_list", "initializer_list", "string_literal")},
	"cpp":        {ptr: tscpp.Language, separator: "::", classify: classifyC, opaque: kinds("compound_statement", "parameter_list", "argument_list", "initializer_list", "string_literal")},
}

func specFor(lang string) *langSpec { return specs[lang] }

func nameField(w *walker, n *sitter.Node) string {
	return w.text(n.ChildByFieldName("name"))
}

func classifyGo(w *walker, n *sitter.Node) (string, string, []string, bool) {
	switch n.Kind() {
	case "function_declaration":
		return "function", nameField(w, n), nil, true
	case "method_declaration":
		var q []string
		if recv := n.ChildByFieldName("receiver"); recv != nil {
			if t := goReceiverType(w, recv); t != "" {
				q = []string{t}
			}
		}
		return "method", nameField(w, n), q, true
	case "type_spec":
		kind := "type"
		switch t := n.ChildByFieldName("type"); {
		case t == nil:
		case t.Kind() == "struct_type":
			kind = "struct"
		case t.Kind() == "interface_type":
			kind = "interface"
		}
		return kind, nameField(w, n), nil, true
	}
	return "", "", nil, false
}

// goReceiverType finds "Server" in "(s *Server)" or "(s Server[T])".
func goReceiverType(w *walker, recv *sitter.Node) string {
	var find func(n *sitter.Node) string
	find = func(n *sitter.Node) string {
		if n.Kind() == "type_identifier" {
			return w.text(n)
		}
		for i := uint(0); i < n.NamedChildCount(); i++ {
			if s := find(n.NamedChild(i)); s != "" {
				return s
			}
		}
		return ""
	}
	return find(recv)
}

func classifyPython(w *walker, n *sitter.Node) (string, string, []string, bool) {
	switch n.Kind() {
	case "function_definition":
		kind := "function"
		if p := n.Parent(); p != nil {
			if p.Kind() == "decorated_definition" {
				p = p.Parent()
			}
			if p != nil && p.Kind() == "block" && p.Parent() != nil && p.Parent().Kind() == "class_definition" {
				kind = "method"
			}
		}
		return kind, nameField(w, n), nil, true
	case "class_definition":
		return "class", nameField(w, n), nil, true
	}
	return "", "", nil, false
}

func classifyJS(w *walker, n *sitter.Node) (string, string, []string, bool) {
	switch n.Kind() {
	case "function_declaration", "generator_function_declaration", "function_signature":
		return "function", nameField(w, n), nil, true
	case "class_declaration", "abstract_class_declaration", "class":
		return "class", nameField(w, n), nil, true
	case "method_definition", "method_signature", "abstract_method_signature":
		return "method", nameField(w, n), nil, true
	case "interface_declaration":
		return "interface", nameField(w, n), nil, true
	case "type_alias_declaration":
		return "type", nameField(w, n), nil, true
	case "enum_declaration":
		return "enum", nameField(w, n), nil, true
	case "internal_module", "module":
		return "namespace", nameField(w, n), nil, true
	case "variable_declarator":
		// const handler = () => {...} and const f = function () {...}
		if v := n.ChildByFieldName("value"); v != nil {
			switch v.Kind() {
			case "arrow_function", "function_expression", "function", "generator_function":
				return "function", nameField(w, n), nil, true
			}
		}
	}
	return "", "", nil, false
}

func classifyRust(w *walker, n *sitter.Node) (string, string, []string, bool) {
	switch n.Kind() {
	case "function_item", "function_signature_item":
		kind := "function"
		if p := n.Parent(); p != nil && p.Kind() == "declaration_list" && p.Parent() != nil {
			switch p.Parent().Kind() {
			case "impl_item", "trait_item":
				kind = "method"
			}
		}
		return kind, nameField(w, n), nil, true
	case "struct_item":
		return "struct", nameField(w, n), nil, true
	case "enum_item":
		return "enum", nameField(w, n), nil, true
	case "trait_item":
		return "trait", nameField(w, n), nil, true
	case "mod_item":
		return "module", nameField(w, n), nil, true
	case "type_item":
		return "type", nameField(w, n), nil, true
	case "impl_item":
		// impl Trait for Type { ... }: members are Type::member.
		t := n.ChildByFieldName("type")
		name := w.text(t)
		if i := strings.IndexByte(name, '<'); i > 0 {
			name = name[:i]
		}
		return "", name, nil, true
	}
	return "", "", nil, false
}

func classifyJava(w *walker, n *sitter.Node) (string, string, []string, bool) {
	switch n.Kind() {
	case "class_declaration", "record_declaration":
		return "class", nameField(w, n), nil, true
	case "interface_declaration", "annotation_type_declaration":
		return "interface", nameField(w, n), nil, true
	case "enum_declaration":
		return "enum", nameField(w, n), nil, true
	case "method_declaration":
		return "method", nameField(w, n), nil, true
	case "constructor_declaration":
		return "constructor", nameField(w, n), nil, true
	}
	return "", "", nil, false
}

// classifyC serves C and C++: functions are named by their declarator, which
// already holds "Type::method" for a C++ definition outside its class.
func classifyC(w *walker, n *sitter.Node) (string, string, []string, bool) {
	switch n.Kind() {
	case "function_definition":
		name := declaratorName(w, n.ChildByFieldName("declarator"))
		kind := "function"
		if strings.Contains(name, "::") || insideClass(n) {
			kind = "method"
		}
		return kind, name, nil, true
	case "struct_specifier", "class_specifier", "union_specifier":
		if n.ChildByFieldName("body") == nil {
			return "", "", nil, false // a use, not a definition
		}
		kind := strings.TrimSuffix(n.Kind(), "_specifier")
		return kind, w.text(n.ChildByFieldName("name")), nil, true
	case "enum_specifier":
		if n.ChildByFieldName("body") == nil {
			return "", "", nil, false
		}
		return "enum", w.text(n.ChildByFieldName("name")), nil, true
	case "namespace_definition":
		return "namespace", w.text(n.ChildByFieldName("name")), nil, true
	}
	return "", "", nil, false
}

func insideClass(n *sitter.Node) bool {
	p := n.Parent()
	return p != nil && p.Kind() == "field_declaration_list"
}

// declaratorName digs the function's name out of pointer, reference and
// function declarators.
func declaratorName(w *walker, d *sitter.Node) string {
	for d != nil {
		switch d.Kind() {
		case "identifier", "field_identifier", "qualified_identifier", "destructor_name", "operator_name", "template_function":
			return strings.Join(strings.Fields(w.text(d)), "")
		}
		next := d.ChildByFieldName("declarator")
		if next == nil && d.NamedChildCount() > 0 {
			next = d.NamedChild(0)
		}
		d = next
	}
	return ""
}
