package noma

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf16"
)

// FixtureResult is the outcome of one conformance fixture.
type FixtureResult struct {
	Name   string `json:"name"`
	Status string `json:"status" jsonschema:"PASS, FAIL or SKIP"`
	Reason string `json:"reason,omitempty"`
}

// VerifyReport is the outcome of a conformance run (Annex C).
type VerifyReport struct {
	Schema   string          `json:"$schema"`
	Fixtures []FixtureResult `json:"fixtures"`
	Total    int             `json:"total"`
	Passed   int             `json:"passed"`
	Failed   int             `json:"failed"`
	Skipped  int             `json:"skipped"`
}

// ErrNoFixtureDir is returned when the directory does not exist.
var ErrNoFixtureDir = errors.New("does not exist")

// Lines are the harness's output lines, summary included.
func (r *VerifyReport) Lines() []string {
	var out []string
	for _, f := range r.Fixtures {
		if f.Reason != "" {
			out = append(out, fmt.Sprintf("%s  %s  — %s", f.Status, f.Name, f.Reason))
		} else {
			out = append(out, fmt.Sprintf("%s  %s", f.Status, f.Name))
		}
	}
	sum := fmt.Sprintf("%d fixtures, %d passed", r.Total, r.Passed)
	if r.Skipped > 0 {
		sum += fmt.Sprintf(", %d skipped", r.Skipped)
	}
	return append(out, "", sum)
}

// DiscoverFixtures lists fixture directories under root: every directory
// holding input.noma (not entered further); root itself never counts.
func DiscoverFixtures(root string) ([]string, error) {
	st, err := os.Stat(root)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s %w", root, ErrNoFixtureDir)
	}
	var out []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() || p == root {
			return nil
		}
		if _, err := os.Stat(filepath.Join(p, "input.noma")); err == nil {
			out = append(out, p)
			return fs.SkipDir
		}
		return nil
	})
	return out, err
}

// utf16Compare orders strings as JavaScript's default sort does.
func utf16Compare(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

// Verify runs the conformance checks on every fixture under root. Names
// are relative to base (the working directory) when possible.
func Verify(root, base string) (*VerifyReport, error) {
	dirs, err := DiscoverFixtures(root)
	if err != nil {
		return nil, err
	}
	rep := &VerifyReport{Schema: "gloss-doc-verify/v1", Fixtures: []FixtureResult{}}
	for _, d := range dirs {
		name := d
		if base != "" {
			if abs, err := filepath.Abs(d); err == nil {
				if rel, err := filepath.Rel(base, abs); err == nil {
					name = rel
				}
			}
		}
		name = filepath.ToSlash(name)
		res := FixtureResult{Name: name, Status: "PASS"}
		checked, reason := checkFixture(d)
		switch {
		case reason != "":
			res.Status, res.Reason = "FAIL", reason
		case checked == 0:
			res.Status, res.Reason = "SKIP", "no expected.* files"
		}
		rep.Fixtures = append(rep.Fixtures, res)
	}
	slices.SortStableFunc(rep.Fixtures, func(a, b FixtureResult) int { return utf16Compare(a.Name, b.Name) })
	for _, f := range rep.Fixtures {
		rep.Total++
		switch f.Status {
		case "PASS":
			rep.Passed++
		case "FAIL":
			rep.Failed++
		default:
			rep.Skipped++
		}
	}
	return rep, nil
}

func readJSON(path string, v any) (bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, json.Unmarshal(data, v)
}

// checkFixture returns how many checks ran and the first failure.
func checkFixture(dir string) (int, string) {
	input, err := os.ReadFile(filepath.Join(dir, "input.noma"))
	if err != nil {
		return 0, err.Error()
	}
	src := string(input)
	doc, err := Parse(src)
	if err != nil {
		return 0, "parse: " + err.Error()
	}
	checks := 0

	var ids struct {
		Canonical []string            `json:"canonical"`
		Aliases   map[string][]string `json:"aliases"`
	}
	if ok, err := readJSON(filepath.Join(dir, "expected.ids.json"), &ids); err != nil {
		return checks, "expected.ids.json: " + err.Error()
	} else if ok {
		checks++
		var got []string
		Walk(doc, func(n *Node) bool {
			if n.HasID && n.ID != "" {
				got = append(got, n.ID)
			}
			return true
		})
		want := append([]string{}, ids.Canonical...)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			return checks, fmt.Sprintf("ids mismatch: got %s, expected %s", jsonList(got), jsonList(want))
		}
		for _, k := range slices.Sorted(maps.Keys(ids.Aliases)) {
			var have []string
			if n := doc.Find(k); n != nil {
				have = append(have, n.Aliases...)
			}
			exp := append([]string{}, ids.Aliases[k]...)
			slices.Sort(have)
			slices.Sort(exp)
			if !slices.Equal(have, exp) {
				return checks, "aliases mismatch for " + k
			}
		}
	}

	var diags []struct{ Code, Severity string }
	if ok, err := readJSON(filepath.Join(dir, "expected.diagnostics.json"), &diags); err != nil {
		return checks, "expected.diagnostics.json: " + err.Error()
	} else if ok {
		checks++
		var got, want []string
		for _, d := range Validate(doc, ValidateOptions{}) {
			got = append(got, d.Severity+":"+d.Code)
		}
		for _, d := range diags {
			want = append(want, d.Severity+":"+d.Code)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			return checks, fmt.Sprintf("diagnostics mismatch: got %s, expected %s", jsonList(got), jsonList(want))
		}
	}

	if want, err := os.ReadFile(filepath.Join(dir, "expected.roundtrip.noma")); err == nil {
		checks++
		got := Render(doc)
		if got != string(want) {
			return checks, fmt.Sprintf("roundtrip mismatch: got %q", got)
		}
		again, err := Parse(got)
		if err != nil {
			return checks, "roundtrip property failed: " + err.Error()
		}
		if a, b := Dump(doc), Dump(again); a != b {
			return checks, "roundtrip property failed: the re-parsed tree differs"
		}
	}

	var spans map[string]struct{ StartLine, EndLine int }
	if ok, err := readJSON(filepath.Join(dir, "expected.spans.json"), &spans); err != nil {
		return checks, "expected.spans.json: " + err.Error()
	} else if ok {
		checks++
		for _, id := range slices.Sorted(maps.Keys(spans)) {
			n := doc.Find(id)
			if n == nil {
				continue
			}
			w := spans[id]
			if n.Line != w.StartLine || n.EndLine != w.EndLine {
				return checks, fmt.Sprintf("span mismatch for %q: got [%d, %d], expected [%d, %d]", id, n.Line, n.EndLine, w.StartLine, w.EndLine)
			}
		}
	}

	patch, err := os.ReadFile(filepath.Join(dir, "patch.json"))
	if err != nil {
		return checks, ""
	}
	ops, opErrs, err := DecodeOps(patch)
	if err != nil {
		return checks, err.Error()
	}
	var expErr struct{ Code string }
	if ok, err := readJSON(filepath.Join(dir, "expected.error.json"), &expErr); err != nil {
		return checks, "expected.error.json: " + err.Error()
	} else if ok {
		checks++
		p := NewPatcher(src)
		for i, op := range ops {
			var e error
			if opErrs[i] != nil {
				e = opErrs[i]
			} else {
				e = p.Apply(op)
			}
			if e == nil {
				continue
			}
			var pe *PatchError
			if !errors.As(e, &pe) {
				return checks, fmt.Sprintf("expected PatchError(%q), got %v", expErr.Code, e)
			}
			if pe.Code != expErr.Code {
				return checks, fmt.Sprintf("error code mismatch: got %q, expected %q", pe.Code, expErr.Code)
			}
			return checks, ""
		}
		return checks, fmt.Sprintf("expected PatchError(%q), but patch succeeded", expErr.Code)
	}
	want, err := os.ReadFile(filepath.Join(dir, "expected.post.noma"))
	if err != nil {
		return checks, ""
	}
	checks++
	for _, e := range opErrs {
		if e != nil {
			return checks, "patch failed: " + e.Error()
		}
	}
	got, err := ApplySource(src, ops)
	if err != nil {
		return checks, "patch failed: " + err.Error()
	}
	if got != string(want) {
		return checks, fmt.Sprintf("patch output mismatch: got %q\n--- expected ---\n%q", got, string(want))
	}
	return checks, ""
}

func jsonList(s []string) string {
	if s == nil {
		s = []string{}
	}
	data, _ := json.Marshal(s)
	return string(data)
}

// Dump is a canonical text form of a tree (types, spans, ids, attributes
// in order, text, meta) used to compare trees structurally.
func Dump(n *Node) string {
	var b strings.Builder
	dump(&b, n, 0)
	return b.String()
}

func dump(b *strings.Builder, n *Node, depth int) {
	ind := strings.Repeat(" ", depth)
	fmt.Fprintf(b, "%s%s %d-%d", ind, n.Type, n.Line, n.EndLine)
	if n.HasID {
		fmt.Fprintf(b, " id=%q", n.ID)
	}
	switch n.Type {
	case TypeSection:
		fmt.Fprintf(b, " h%d %q aliases=%q", n.Level, n.Title, n.Aliases)
	case TypeDirective:
		fmt.Fprintf(b, " %s", n.Name)
		for _, a := range n.Attrs {
			fmt.Fprintf(b, " %s=%#v", a.Key, a.Value)
		}
		fmt.Fprintf(b, " body=%q", n.Body)
	case TypeParagraph, TypeListItem, TypeQuote:
		fmt.Fprintf(b, " %q", n.Text)
	case TypeCode:
		fmt.Fprintf(b, " lang=%q %q", n.Lang, n.Text)
	case TypeList:
		fmt.Fprintf(b, " ordered=%v", n.Ordered)
	case TypeTable:
		fmt.Fprintf(b, " %q %q %q", n.Header, n.Align, n.Rows)
	case TypeFrontmatter:
		fmt.Fprintf(b, " raw=%q", n.Raw)
	case TypeDocument:
		data, _ := json.Marshal(n.Meta)
		fmt.Fprintf(b, " meta=%s", data)
	}
	b.WriteByte('\n')
	for _, c := range n.Children {
		dump(b, c, depth+1)
	}
}
