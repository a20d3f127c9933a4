package noma

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// shape is a tree's structure for the roundtrip property: types, ids,
// names, titles, attributes (by their text), content; not line numbers,
// which rendering legitimately moves (blank lines collapse, frontmatter
// fences). Known lossy renderings of the reference are normalised: blank
// line runs inside code collapse, numbers print as JS does.
func shape(n *Node) string {
	var b strings.Builder
	var walk func(n *Node, d int)
	walk = func(n *Node, d int) {
		if n.Type == TypeFrontmatter && isBlank(n.Raw) {
			return // empty frontmatter is lost on render (as in the reference)
		}
		fmt.Fprintf(&b, "%s%s", strings.Repeat(" ", d), n.Type)
		if n.HasID {
			fmt.Fprintf(&b, " id=%q", n.ID)
		}
		switch n.Type {
		case TypeSection:
			fmt.Fprintf(&b, " h%d %q %q", min(max(n.Level, 1), 6), n.Title, n.Aliases)
		case TypeDirective:
			fmt.Fprintf(&b, " %s", n.Name)
			for _, a := range n.Attrs {
				fmt.Fprintf(&b, " %s=%s", a.Key, attrText(a.Value))
			}
			fmt.Fprintf(&b, " body=%q", collapse(n.Body))
		case TypeParagraph, TypeListItem, TypeQuote:
			fmt.Fprintf(&b, " %q", collapse(n.Text))
		case TypeCode:
			fmt.Fprintf(&b, " %q %q", n.Lang, dropBlank(n.Text))
		case TypeTable:
			fmt.Fprintf(&b, " %q %q %q", n.Header, n.Align, n.Rows)
		case TypeFrontmatter:
			fmt.Fprintf(&b, " %q", collapse(n.Raw))
		}
		b.WriteByte('\n')
		for _, c := range n.Children {
			walk(c, d+1)
		}
	}
	walk(n, 0)
	return b.String()
}

var reBlankRun = regexp.MustCompile(`\n{3,}`)

func collapse(s string) string { return reBlankRun.ReplaceAllString(s, "\n\n") }

func dropBlank(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func attrText(v any) string {
	switch t := v.(type) {
	case float64:
		return jsNumber(t)
	case bool:
		return fmt.Sprint(t)
	}
	return fmt.Sprint(v)
}

// lossy reports inputs the reference cannot round-trip either: attribute
// strings holding both quote characters (rendered with an escape the
// parser does not read), headings with an empty title.
func lossy(doc *Node) bool {
	bad := false
	Walk(doc, func(n *Node) bool {
		if n.Type == TypeSection && n.Title == "" {
			bad = true // "#  " has an empty title: "# " is not a heading
		}
		for _, a := range n.Attrs {
			if s, ok := a.Value.(string); ok && strings.Contains(s, `"`) && strings.Contains(s, "'") {
				bad = true
			}
		}
		return !bad
	})
	return bad
}

func seedInputs(f *testing.F) []string {
	var out []string
	_ = filepath.Walk(filepath.Join("..", "fixtures", "noma-conformance"), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(p, ".noma") {
			data, _ := os.ReadFile(p)
			out = append(out, string(data))
		}
		return nil
	})
	return out
}

func FuzzParseRoundtrip(f *testing.F) {
	for _, s := range seedInputs(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, l := range strings.Split(src, "\n") {
			checkMatchers(t, l)
		}
		doc, err := Parse(src)
		if err != nil || !utf8.ValidString(src) {
			return // documents are UTF-8: the store refuses anything else
		}
		_ = Validate(doc, ValidateOptions{IgnoreRules: []string{"x"}})
		_, _ = ReadDoc(src)
		_ = ListIDs(doc)
		if lossy(doc) {
			return
		}
		out := Render(doc)
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("render output does not parse: %v\n%q", err, out)
		}
		if a, b := shape(doc), shape(again); a != b {
			t.Fatalf("parse(render(parse(x))) differs from parse(x)\ninput %q\nrender %q\n--- parse(x)\n%s--- again\n%s", src, out, a, b)
		}
		// the rendered form is a fixed point, spans included
		if out2 := Render(again); out2 != out {
			t.Fatalf("render is not idempotent:\n%q\n%q", out, out2)
		}
		if Dump(mustParseF(t, out)) != Dump(again) {
			t.Fatalf("unstable parse")
		}
	})
}

func mustParseF(t *testing.T, s string) *Node {
	d, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func FuzzPatch(f *testing.F) {
	root := filepath.Join("..", "fixtures", "noma-conformance")
	for _, track := range []string{"patch", "patch-error"} {
		entries, _ := os.ReadDir(filepath.Join(root, track))
		for _, e := range entries {
			in, _ := os.ReadFile(filepath.Join(root, track, e.Name(), "input.noma"))
			p, _ := os.ReadFile(filepath.Join(root, track, e.Name(), "patch.json"))
			f.Add(string(in), string(p))
		}
	}
	f.Fuzz(func(t *testing.T, src, patch string) {
		if _, err := Parse(src); err != nil {
			return
		}
		ops, errs, err := DecodeOps([]byte(patch))
		if err != nil {
			return
		}
		p := NewPatcher(src)
		for i, op := range ops {
			if errs[i] != nil {
				return
			}
			if err := p.Apply(op); err != nil {
				if _, ok := err.(*PatchError); !ok {
					t.Fatalf("non-PatchError %T: %v", err, err)
				}
				return
			}
			// the cached tree (attribute fast path) equals a fresh parse
			if !p.dirty {
				fresh, err := Parse(p.Text())
				if err == nil && Dump(fresh) != Dump(p.doc) {
					t.Fatalf("cached tree differs after %s:\n%s\n%s", mustJSON(op), Dump(p.doc), Dump(fresh))
				}
			}
		}
		// untouched bytes: every op leaves the original CRs of lines it did not rewrite
		if !strings.Contains(src, "\r") && strings.Contains(p.Text(), "\r") && !strings.Contains(patch, `\r`) {
			t.Fatalf("a CR appeared from nowhere")
		}
	})
}

func mustJSON(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}
