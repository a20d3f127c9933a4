package noma

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func ids(doc *Node) []string {
	var out []string
	Walk(doc, func(n *Node) bool {
		if n.HasID {
			out = append(out, n.ID)
		}
		return true
	})
	return out
}

func mustParse(t *testing.T, src string) *Node {
	t.Helper()
	d, err := Parse(src)
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	return d
}

func TestSlugify(t *testing.T) {
	for in, want := range map[string]string{
		"Hello, World!":     "hello-world",
		"Café Ünïcode ﬁ ①":  "cafe-unicode-fi-1",
		"!!!":               "",
		"  -Leading-  ":     "leading",
		"a\u00a0b":          "a-b",
		"Ｆｕｌｌ":              "full",
		"x -- y":            "x-y",
		"--a--":             "a",
		"Tab\there":         "tab-here",
		"Ünïcode\u3000Wide": "unicode-wide",
	} {
		if got := Slugify(in); got != want {
			t.Errorf("Slugify(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCollisionSuffixes(t *testing.T) {
	cases := []struct {
		src  string
		want []string
	}{
		{"# Hello World\n# Hello World\n# Hello World 2\n", []string{"hello-world", "hello-world-2", "hello-world-2-2"}},
		{"# !!!\n# !!!\n# ???\n", []string{"", "-2", "-3"}},
		{"# A {id=\"a\"}\n# A\n", []string{"a", "a"}},
		{"::note{id=\"n\"}\n# Dup\n# Dup\n::\n", []string{"n", "dup", "dup"}},
		{"# Sub\n## Sub\n### Sub\n", []string{"sub", "sub-2", "sub-3"}},
	}
	for _, c := range cases {
		if got := ids(mustParse(t, c.src)); !slices.Equal(got, c.want) {
			t.Errorf("%q: ids %q, want %q", c.src, got, c.want)
		}
	}
	d := mustParse(t, "::note{id=\"n\"}\n# Dup\n# Dup\n::\n")
	var dups int
	for _, x := range Validate(d, ValidateOptions{}) {
		if x.Code == "duplicate-id" {
			dups++
		}
	}
	if dups != 1 {
		t.Errorf("two # Dup inside a directive: %d duplicate-id, want 1", dups)
	}
}

func TestAttributes(t *testing.T) {
	cases := []struct {
		in   string
		want []Attr
	}{
		{`a="x", b=1`, []Attr{{"a", "x"}, {"b", 1.0}}},
		{`a = "x"`, []Attr{{"a", true}, {"x", true}}},
		{`-a=1`, []Attr{{"a", 1.0}}},
		{`a=1 b=2 a=3`, []Attr{{"a", 3.0}, {"b", 2.0}}},
		{`n=007 f="1.50" t="true" e=1e5 h=0x1F d=.5 s=""`, []Attr{{"n", 7.0}, {"f", 1.5}, {"t", true}, {"e", "1e5"}, {"h", "0x1F"}, {"d", ".5"}, {"s", ""}}},
		{`q='it "x"'`, []Attr{{"q", `it "x"`}}},
	}
	for _, c := range cases {
		if got := parseAttrs(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseAttrs(%q) = %#v, want %#v", c.in, got, c.want)
		}
	}
	d := mustParse(t, "::claim{id=\"123\"}\nx\n::\n")
	if d.Children[0].HasID {
		t.Errorf(`id="123" is a number: the block must have no id`)
	}
	h := mustParse(t, "# Title {id=\"42\"}\n")
	if h.Children[0].ID != "title" {
		t.Errorf("numeric heading id falls back to the slug, got %q", h.Children[0].ID)
	}
}

func TestFrontmatter(t *testing.T) {
	d := mustParse(t, "---\n---\n# A\n")
	if d.Children[0].Type != TypeSection || len(d.Meta) != 0 {
		t.Errorf("empty frontmatter is consumed without a node: %s", Dump(d))
	}
	d = mustParse(t, "---\n- a\n# b\n")
	if d.Children[0].Type != TypeBreak || d.Children[1].Type != TypeList || d.Children[2].Type != TypeSection {
		t.Errorf("unclosed frontmatter parses as blocks: %s", Dump(d))
	}
	d = mustParse(t, "---\n- 1\n- 2\n---\n")
	if d.Children[0].Type != TypeFrontmatter || len(d.Meta) != 0 {
		t.Errorf("a non-mapping keeps the node with empty meta: %s", Dump(d))
	}
	if _, err := Parse("---\na: [\n---\n"); err == nil {
		t.Errorf("invalid YAML must fail")
	}
	d = mustParse(t, "\ufeff---\nx: 1\n---\n")
	if d.Children[0].Type == TypeFrontmatter {
		t.Errorf("a BOM is not stripped: no frontmatter")
	}
	d = mustParse(t, "---\ntitle: T\naliases: [ a , b]\n---\n\n# H\n")
	if got := d.Find("h").Aliases; !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("aliases %q", got)
	}
	d, _ = ParseWith("# Intro\n", Options{Filename: `docs\01-Getting Started.NOMA`})
	if got := d.Find("intro").Aliases; !slices.Equal(got, []string{"getting-started"}) {
		t.Errorf("filename alias %q", got)
	}
}

func TestDirectivesAndFences(t *testing.T) {
	src := "::a{id=\"a\"}\n```\n::\n```\n:::b{id=\"b\"}\nx\n:::\n::\n"
	d := mustParse(t, src)
	a := d.Find("a")
	if a == nil || a.EndLine != 8 || d.Find("b") == nil || d.Find("b").Line != 5 {
		t.Fatalf("fence inside a directive must not close it: %s", Dump(d))
	}
	d = mustParse(t, "::a{id=\"a\"}\nbody\n")
	if n := d.Find("a"); n.EndLine != 3 || n.Body != "body" {
		t.Errorf("unclosed directive runs to the range end (incl. trailing empty line): %s", Dump(d))
	}
	d = mustParse(t, "```python\ncode\n```js\nafter\n")
	if d.Children[0].Type != TypeCode || d.Children[0].EndLine != 3 || d.Children[1].Text != "after" {
		t.Errorf("a fence with a language closes: %s", Dump(d))
	}
	for _, s := range []string{"```js title=x\n", "~~~\n", "````\n"} {
		if mustParse(t, s).Children[0].Type != TypeParagraph {
			t.Errorf("%q is not a fence", s)
		}
	}
	d = mustParse(t, "::a{id=\"x\"} trailing\n")
	if d.Children[0].Type != TypeParagraph {
		t.Errorf("trailing text after the group makes a paragraph")
	}
	d = mustParse(t, strings.Repeat(":", 65)+"a\n")
	if d.Children[0].Type != TypeParagraph {
		t.Errorf("more than 64 colons makes a paragraph")
	}
}

func TestTablesListsQuotes(t *testing.T) {
	d := mustParse(t, "| a | b |\n|:-:|---|\n")
	if d.Children[0].Type == TypeTable {
		t.Errorf("|:-:| is not a separator")
	}
	d = mustParse(t, "| a | b |\n| --- |\n| 1 | 2 |\n")
	if d.Children[0].Type != TypeParagraph || d.Children[0].EndLine != 3 {
		t.Errorf("a separator with another cell count makes paragraph text (no endless loop): %s", Dump(d))
	}
	d = mustParse(t, "| a | `x|y` | c\\|d |\n| --- | --- | --- |\n| 1 |\n")
	tb := d.Children[0]
	if tb.Type != TypeTable || !slices.Equal(tb.Header, []string{"a", "`x|y`", `c\|d`}) || len(tb.Rows[0]) != 3 {
		t.Fatalf("table cells: %s", Dump(d))
	}
	d = mustParse(t, "| 😀 | b |\n| --- | --- |\n")
	if got := Render(d); !strings.Contains(got, "| 😀  | b   |") {
		t.Errorf("non-BMP characters count as two UTF-16 units: %q", got)
	}
	d = mustParse(t, "- a\n* b\n  continued\n3. c\n+ d\n1) e\n")
	if d.Children[0].Type != TypeList || len(d.Children[0].Children) != 2 || d.Children[1].Type != TypeParagraph {
		t.Errorf("one-line list items: %s", Dump(d))
	}
	d = mustParse(t, "> a\n>\n>\tb\n")
	if d.Children[0].Text != "a\n\nb" {
		t.Errorf("quote text %q", d.Children[0].Text)
	}
}

func TestSpans(t *testing.T) {
	src := "# A\n\npara\n\n## B\n\n::x{id=\"x\"}\nbody\n::\n\n\n# C\n"
	d := mustParse(t, src)
	want := map[string][2]int{"a": {1, 9}, "b": {5, 9}, "x": {7, 9}, "c": {12, 12}}
	for id, w := range want {
		n := d.Find(id)
		if n == nil || n.Line != w[0] || n.EndLine != w[1] {
			t.Errorf("%s: span %v, want %v", id, n, w)
		}
	}
	if d.EndLine != 12 {
		t.Errorf("document endLine %d", d.EndLine)
	}
	if d := mustParse(t, "a\r\nb\rc\r\n"); d.EndLine != 3 {
		t.Errorf("CRLF and CR normalise: %d", d.EndLine)
	}
}

func TestRenderRoundtrip(t *testing.T) {
	cases := map[string]string{
		"# T\n\n***\n\n3. x\n9. y\n":                        "# T\n\n---\n\n1. x\n2. y\n",
		"::c{a=007 t=true f=false s='say \"hi\"'}\nx\n::\n": "::c{a=7 t f=false s='say \"hi\"'}\nx\n::\n",
		"# Hello\n# Hello\n":                                "# Hello\n\n# Hello {id=\"hello-2\"}\n",
		"":                                                  "",
	}
	for in, want := range cases {
		d := mustParse(t, in)
		got := Render(d)
		if got != want {
			t.Errorf("Render(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestJSNumber(t *testing.T) {
	for f, want := range map[float64]string{0: "0", 1e21: "1e+21", 1.5e-7: "1.5e-7", 0.95: "0.95", -3: "-3", 123456789012: "123456789012"} {
		if got := jsNumber(f); got != want {
			t.Errorf("jsNumber(%v) = %q, want %q", f, got, want)
		}
	}
}

// parseAttrsRE is the regular-expression form of parseAttrs's scan.
func parseAttrsRE(s string) [][3]string {
	var out [][3]string
	for _, m := range reAttrToken.FindAllStringSubmatchIndex(s, -1) {
		v, has := "", "0"
		if m[4] >= 0 {
			v, has = s[m[4]:m[5]], "1"
		}
		out = append(out, [3]string{s[m[2]:m[3]], v, has})
	}
	return out
}

func scanAttrsList(s string) [][3]string {
	var out [][3]string
	scanAttrs(s, func(k, v string, has bool) {
		h := "0"
		if has {
			h = "1"
		}
		out = append(out, [3]string{k, v, h})
	})
	return out
}

// checkMatchers compares the hand-written matchers with their regular
// expressions on one line.
func checkMatchers(t *testing.T, l string) {
	if a, b := matchOpener(l), matchOpenerRE(l); !reflect.DeepEqual(a, b) {
		t.Fatalf("opener %q: scan %q, regexp %q", l, a, b)
	}
	if a, b := matchHeading(l), matchHeadingRE(l); !reflect.DeepEqual(a, b) {
		t.Fatalf("heading %q: scan %q, regexp %q", l, a, b)
	}
	if a, b := scanAttrsList(l), parseAttrsRE(l); !reflect.DeepEqual(a, b) {
		t.Fatalf("attrs %q: scan %q, regexp %q", l, a, b)
	}
	if utf8.ValidString(l) {
		if a, b := Slugify(l), slugifyRE(l); a != b {
			t.Fatalf("slug %q: fast %q, regexp %q", l, a, b)
		}
	}
}

func TestMatchersAgree(t *testing.T) {
	for _, l := range []string{"::a", "::a{b}", ":: a {b} ", "::a::b{x}", "::a::", "::a {x} y", "::a{x}}", "::a{x}}  ", "::-a", ":::a\u00a0{x}\u3000",
		"#", "# ", "#  ", "# T", "#T", "####### T", "# T {x}", "# T {}", "# {x}", "# T {a {b}", "# T  {x}  ", "# T {x} {y}", "# T {x}}", "#\tT\t{id=\"a\"}", "# T\u00a0{x}",
		`a="x", b=1`, `a = "x"`, `-a=1`, `a="unclosed b=2`, `a='x' b="y"`, "a=\u00a0b", "a=é b", `9ab=1`, "Hello, World!", "Café Ünïcode ﬁ ①", " --x-- y "} {
		checkMatchers(t, l)
	}
}

// TestBlock pins the block stage: one block from its first line, as the
// grammar's precedence decides its kind, and the line after it.
func TestBlock(t *testing.T) {
	cases := []struct {
		name      string
		src       string
		minColons int
		want      string // Dump of the block
		next      int
	}{
		{"directive with a one-paragraph body", "::note{id=\"n\"}\nbody\n::\nafter", 2,
			"directive 1-3 id=\"n\" note id=\"n\" body=\"body\"\n paragraph 2-2 \"body\"\n", 3},
		{"unclosed directive runs to the end", "::note\na\n\nb", 2,
			"directive 1-4 note body=\"\"\n paragraph 2-2 \"a\"\n paragraph 4-4 \"b\"\n", 4},
		{"opener with too few colons is a paragraph", "::note\nx", 3, "paragraph 1-1 \"::note\"\n", 1},
		{"stray closer is a paragraph", "::\nx", 2, "paragraph 1-1 \"::\"\n", 1},
		{"heading", "## Two {id=\"t\"}\nx", 2, "section 1-1 id=\"t\" h2 \"Two\" aliases=[]\n", 1},
		{"fenced code", "```go\nx := 1\n```\nafter", 2, "code 1-3 lang=\"go\" \"x := 1\"\n", 3},
		{"unclosed fence runs to the end", "```\na\nb", 2, "code 1-3 lang=\"\" \"a\\nb\"\n", 3},
		{"table, rows cut and padded to the header", "| a | b |\n| --- | :---: |\n| 1 |\n| 1 | 2 | 3 |\ntext", 2,
			"table 1-4 [\"a\" \"b\"] [\"\" \"center\"] [[\"1\" \"\"] [\"1\" \"2\"]]\n", 4},
		{"break", "***\nx", 2, "thematic_break 1-1\n", 1},
		{"quote without markers", "> a\n>\tb\n>\nc", 2, "quote 1-3 \"a\\nb\\n\"\n", 3},
		{"ordered list", "1. a\n- b\nc", 2,
			"list 1-2 ordered=true\n list_item 1-1 \"a\"\n list_item 2-2 \"b\"\n", 2},
		{"paragraph up to a heading", "a\nb\n# H", 2, "paragraph 1-2 \"a\\nb\"\n", 2},
		{"paragraph up to a blank line", "a\n\nb", 2, "paragraph 1-1 \"a\"\n", 1},
	}
	for _, c := range cases {
		lines := strings.Split(c.src, "\n")
		p := &parser{lines: lines, seen: map[string]bool{}, next: map[string]int{}}
		n, next := p.block(0, len(lines), c.minColons, true)
		if got := Dump(n); got != c.want || next != c.next {
			t.Errorf("%s: got %q, next %d; want %q, next %d", c.name, got, next, c.want, c.next)
		}
	}
}
