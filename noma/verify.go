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

// readExpected decodes the fixture's file name into v. ok is false when
// the fixture has no such file, and reason says why one that is there
// cannot be read or decoded.
func readExpected(dir, name string, v any) (ok bool, reason string) {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return false, ""
	}
	if err == nil {
		err = json.Unmarshal(data, v)
	}
	if err != nil {
		return false, name + ": " + err.Error()
	}
	return true, ""
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
	// Each check runs when the fixture has its expected file and reports
	// whether it ran and its failure; the first failure ends the fixture,
	// so the order of the checks is the order of the reasons.
	checks := 0
	for _, check := range []func(dir, src string, doc *Node) (bool, string){
		checkIDs, checkDiagnostics, checkRoundtrip, checkSpans, checkPatch,
	} {
		ran, reason := check(dir, src, doc)
		if ran {
			checks++
		}
		if reason != "" {
			return checks, reason
		}
	}
	return checks, ""
}

// checkIDs compares the document's ids with expected.ids.json: the
// canonical ids as a set, then each listed id's aliases as a set.
func checkIDs(dir, _ string, doc *Node) (bool, string) {
	var ids struct {
		Canonical []string            `json:"canonical"`
		Aliases   map[string][]string `json:"aliases"`
	}
	if ok, reason := readExpected(dir, "expected.ids.json", &ids); !ok {
		return false, reason
	}
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
		return true, fmt.Sprintf("ids mismatch: got %s, expected %s", jsonList(got), jsonList(want))
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
			return true, "aliases mismatch for " + k
		}
	}
	return true, ""
}

// checkDiagnostics compares the validator's diagnostics with
// expected.diagnostics.json as a set of severity:code pairs (messages and
// order are the implementation's).
func checkDiagnostics(dir, _ string, doc *Node) (bool, string) {
	var diags []struct{ Code, Severity string }
	if ok, reason := readExpected(dir, "expected.diagnostics.json", &diags); !ok {
		return false, reason
	}
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
		return true, fmt.Sprintf("diagnostics mismatch: got %s, expected %s", jsonList(got), jsonList(want))
	}
	return true, ""
}

// checkRoundtrip compares the rendered document with
// expected.roundtrip.noma, then checks that the rendering parses back to
// the same tree.
func checkRoundtrip(dir, _ string, doc *Node) (bool, string) {
	want, err := os.ReadFile(filepath.Join(dir, "expected.roundtrip.noma"))
	if err != nil {
		return false, ""
	}
	got := Render(doc)
	if got != string(want) {
		return true, fmt.Sprintf("roundtrip mismatch: got %q", got)
	}
	again, err := Parse(got)
	if err != nil {
		return true, "roundtrip property failed: " + err.Error()
	}
	if a, b := Dump(doc), Dump(again); a != b {
		return true, "roundtrip property failed: the re-parsed tree differs"
	}
	return true, ""
}

// checkSpans compares the line spans of the ids expected.spans.json lists
// (an id the document lacks is skipped).
func checkSpans(dir, _ string, doc *Node) (bool, string) {
	var spans map[string]struct{ StartLine, EndLine int }
	if ok, reason := readExpected(dir, "expected.spans.json", &spans); !ok {
		return false, reason
	}
	for _, id := range slices.Sorted(maps.Keys(spans)) {
		n := doc.Find(id)
		if n == nil {
			continue
		}
		w := spans[id]
		if n.Line != w.StartLine || n.EndLine != w.EndLine {
			return true, fmt.Sprintf("span mismatch for %q: got [%d, %d], expected [%d, %d]", id, n.Line, n.EndLine, w.StartLine, w.EndLine)
		}
	}
	return true, ""
}

// checkPatch applies the fixture's patch.json, when it has one, to the
// source and checks the outcome: the error expected.error.json names, or
// else the text of expected.post.noma.
func checkPatch(dir, src string, _ *Node) (bool, string) {
	patch, err := os.ReadFile(filepath.Join(dir, "patch.json"))
	if err != nil {
		return false, ""
	}
	ops, opErrs, err := DecodeOps(patch)
	if err != nil {
		return false, err.Error()
	}
	var expErr struct{ Code string }
	if ok, reason := readExpected(dir, "expected.error.json", &expErr); reason != "" {
		return false, reason
	} else if ok {
		return true, patchErrorMismatch(src, ops, opErrs, expErr.Code)
	}
	want, err := os.ReadFile(filepath.Join(dir, "expected.post.noma"))
	if err != nil {
		return false, ""
	}
	return true, patchOutputMismatch(src, ops, opErrs, string(want))
}

// patchErrorMismatch applies ops in order (an op that did not decode
// fails as its decoding error) and says how the first failure differs
// from a PatchError with the code expected; "" when it matches.
func patchErrorMismatch(src string, ops []Op, opErrs []*PatchError, code string) string {
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
			return fmt.Sprintf("expected PatchError(%q), got %v", code, e)
		}
		if pe.Code != code {
			return fmt.Sprintf("error code mismatch: got %q, expected %q", pe.Code, code)
		}
		return ""
	}
	return fmt.Sprintf("expected PatchError(%q), but patch succeeded", code)
}

// patchOutputMismatch applies ops to src and says how the result differs
// from want; "" when it is the same text.
func patchOutputMismatch(src string, ops []Op, opErrs []*PatchError, want string) string {
	for _, e := range opErrs {
		if e != nil {
			return "patch failed: " + e.Error()
		}
	}
	got, err := ApplySource(src, ops)
	if err != nil {
		return "patch failed: " + err.Error()
	}
	if got != want {
		return fmt.Sprintf("patch output mismatch: got %q\n--- expected ---\n%q", got, want)
	}
	return ""
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
