package why

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/decisions"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/treesitter"
)

// Each stage of a read on its own, table by table: the target, what is
// in force, how much changed since, and the ranking. (The stages together,
// on real repositories through the real binary, are why_test.go's and
// decisions_test.go's.)

// outlineOf is a file of 40 lines with a type holding a method, and a
// function, as tree-sitter would outline them.
var outlineOf = []treesitter.Anchor{
	{Kind: "struct", Name: "Server", Start: 3, End: 20},
	{Kind: "method", Name: "Server.Handle", Start: 8, End: 18},
	{Kind: "function", Name: "Parse", Start: 25, End: 35},
	{Kind: "function", Name: "Parse", Start: 37, End: 40}, // a second definition
}

func readingOf(q Query) *reading {
	f := &file{rel: "srv.go", lines: 40, anchors: outlineOf}
	return &reading{q: q, f: f, res: &ReadResult{Notes: []string{}}}
}

func TestTargetStage(t *testing.T) {
	for _, c := range []struct {
		name      string
		q         Query
		want      annotate.Lines
		anchors   int
		enclosing []string
		note      string
	}{
		{"an anchor", Query{Anchor: "Server.Handle"}, annotate.Lines{Start: 8, End: 18}, 1, []string{"Server", "Server.Handle"}, ""},
		{"an anchor defined twice", Query{Anchor: "Parse"}, annotate.Lines{Start: 25, End: 40}, 2, []string{"Parse", "Parse"}, "ambiguous"},
		{"lines inside a method", Query{Lines: &annotate.Lines{Start: 10, End: 10}}, annotate.Lines{Start: 10, End: 10}, 0, []string{"Server", "Server.Handle"}, ""},
		{"lines between functions", Query{Lines: &annotate.Lines{Start: 22, End: 23}}, annotate.Lines{Start: 22, End: 23}, 0, nil, ""},
		{"lines past the end", Query{Lines: &annotate.Lines{Start: 30, End: 90}}, annotate.Lines{Start: 30, End: 40}, 0, []string{"Parse", "Parse"}, "reading 30-40"},
		{"lines after the file", Query{Lines: &annotate.Lines{Start: 50, End: 60}}, annotate.Lines{Start: 1, End: 40}, 0, []string{"Server", "Server.Handle", "Parse", "Parse"}, "file-level"},
		{"the whole file", Query{}, annotate.Lines{Start: 1, End: 40}, 0, []string{"Server", "Server.Handle", "Parse", "Parse"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := readingOf(c.q)
			r.target = r.resolveLines()
			if r.target != c.want || len(r.res.Resolved.Anchors) != c.anchors {
				t.Errorf("target %+v with %d anchors, want %+v with %d", r.target, len(r.res.Resolved.Anchors), c.want, c.anchors)
			}
			var names []string
			for _, a := range r.enclosing() {
				names = append(names, a.Name)
			}
			if strings.Join(names, ",") != strings.Join(c.enclosing, ",") {
				t.Errorf("enclosing %v, want %v", names, c.enclosing)
			}
			if got := strings.Join(r.res.Notes, " "); (c.note == "") != (got == "") || !strings.Contains(got, c.note) {
				t.Errorf("notes %q, want one saying %q", got, c.note)
			}
		})
	}
}

// TestInForceStage is place's decision: is a record in force in the
// target, and where.
func TestInForceStage(t *testing.T) {
	decision := annotate.Region{File: "srv.go", Lines: annotate.Lines{Start: 8, End: 18}, Anchor: &annotate.Anchor{Kind: "method", Name: "Server.Handle"},
		Constraints: []annotate.Constraint{{Text: "must answer in 10 ms"}}}
	intent := decision
	intent.Constraints, intent.Intent = nil, "routes in one place"
	handle := decisions.Bound{How: decisions.BoundByName, Spans: []treesitter.Anchor{outlineOf[1]}}
	parse := decisions.Bound{How: decisions.BoundByName, Spans: []treesitter.Anchor{outlineOf[2], outlineOf[3]}}
	renamed := decisions.Bound{How: decisions.BoundRenamed, Spans: []treesitter.Anchor{{Kind: "method", Name: "Server.Serve", Start: 8, End: 18}}}
	path := decisions.Bound{How: decisions.BoundToPath}
	gone := decisions.Bound{How: decisions.BoundNotFound}
	// The commit's lines 8-9 are lines 10-11 today (two lines were
	// inserted above).
	owns := &owned{orig: map[string]map[int]int{"srv.go": {8: 10, 9: 11}}}
	for _, c := range []struct {
		name    string
		q       Query
		reg     annotate.Region
		bound   *decisions.Bound
		o       *owned
		in      bool
		span    string // "start-end" of the span in force, "" for none
		renamed string
	}{
		{"a decision in its function, on lines its commit did not write", Query{Lines: &annotate.Lines{Start: 15, End: 15}}, decision, &handle, nil, true, "8-18", ""},
		{"a decision, lines of another function", Query{Lines: &annotate.Lines{Start: 30, End: 30}}, decision, &handle, nil, false, "", ""},
		{"a decision, the second definition of its name", Query{Lines: &annotate.Lines{Start: 38, End: 38}}, decision, &parse, nil, true, "37-40", ""},
		{"a decision on a function renamed since", Query{Lines: &annotate.Lines{Start: 9, End: 9}}, decision, &renamed, nil, true, "8-18", "Server.Serve"},
		{"a file's decision", Query{Lines: &annotate.Lines{Start: 30, End: 30}}, decision, &path, nil, true, "", ""},
		{"a deleted function's decision (retired later)", Query{Lines: &annotate.Lines{Start: 30, End: 30}}, decision, &gone, nil, true, "", ""},
		{"an intent, lines its commit wrote", Query{Lines: &annotate.Lines{Start: 11, End: 11}}, intent, &handle, owns, true, "", ""},
		{"an intent, other lines of its function", Query{Lines: &annotate.Lines{Start: 15, End: 15}}, intent, &handle, owns, false, "", ""},
		{"an intent, its function asked for", Query{Anchor: "Server.Handle"}, intent, &handle, owns, true, "8-18", ""},
		{"a record of lines, found by blame", Query{Lines: &annotate.Lines{Start: 10, End: 10}}, decision, nil, owns, true, "", ""},
		{"a record of lines, other lines", Query{Lines: &annotate.Lines{Start: 15, End: 15}}, decision, nil, owns, false, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := readingOf(c.q)
			r.target = r.resolveLines()
			var b decisions.Bound
			if c.bound != nil {
				b = *c.bound
			}
			v, in := r.place(&c.reg, c.o, b, c.bound != nil)
			if in != c.in {
				t.Fatalf("in force: %v, want %v", in, c.in)
			}
			if !in {
				return
			}
			span := ""
			if v.Span != nil {
				span = fmt.Sprintf("%d-%d", v.Span.Start, v.Span.End)
			}
			if span != c.span || v.Renamed != c.renamed {
				t.Errorf("span %q renamed %q, want %q %q", span, v.Renamed, c.span, c.renamed)
			}
		})
	}
}

// TestStalenessStage counts the later commits that own lines of a span.
func TestStalenessStage(t *testing.T) {
	b := &gitops.Blame{Lines: []gitops.BlameLine{
		{Line: 1, Commit: "old"}, {Line: 2, Commit: "rec"}, {Line: 3, Commit: "new1"},
		{Line: 4, Commit: "new1"}, {Line: 5, Commit: "new2"}, {Line: 6, Commit: gitops.Uncommitted},
	}}
	later := func(a, c string) bool { return strings.HasPrefix(c, "new") }
	for _, c := range []struct {
		span annotate.Lines
		want int
	}{
		{annotate.Lines{Start: 1, End: 2}, 0},
		{annotate.Lines{Start: 1, End: 4}, 1},
		{annotate.Lines{Start: 1, End: 5}, 2},
		{annotate.Lines{Start: 1, End: 6}, 3}, // an uncommitted change counts
	} {
		if got := laterCommits(b, c.span, "rec", later); got != c.want {
			t.Errorf("span %+v: %d later commits, want %d", c.span, got, c.want)
		}
	}
}

// TestRankStage: live before retired, constraints and rejected
// alternatives, then risks, then the rest; directives before claims; then
// the score. The budget drops from the end.
func TestRankStage(t *testing.T) {
	st := &annotate.Status{State: annotate.StateFlagged}
	views := []RegionView{
		{ID: "intent-high", Intent: "x", Score: 0.99},
		{ID: "risk", Risks: []string{"r"}, Score: 0.5},
		{ID: "retired-constraint", Constraints: []annotate.Constraint{{Text: "c"}}, Status: st, Score: 1},
		{ID: "rejected", RejectedAlternatives: []annotate.Rejected{{Text: "r"}}, Score: 0.2},
		{ID: "constraint-claim", Constraints: []annotate.Constraint{{Text: "c"}}, Trust: "claim", Score: 0.9},
		{ID: "constraint-directive", Constraints: []annotate.Constraint{{Text: "c"}}, Trust: "directive", Score: 0.1},
	}
	sortViews(views)
	var order []string
	for _, v := range views {
		order = append(order, v.ID)
	}
	want := "constraint-directive,constraint-claim,rejected,risk,intent-high,retired-constraint"
	if strings.Join(order, ",") != want {
		t.Errorf("order %v, want %s", order, want)
	}
	kept, dropped, _ := trimToBudget(views, tokens(views[:3])+1)
	if len(kept) != 3 || dropped != 3 || kept[2].ID != "rejected" {
		t.Errorf("trimmed to %d (dropped %d): %+v", len(kept), dropped, kept)
	}
}

// TestSpanStage: the definition of a name that holds the target, and how
// specific a span is for it.
func TestSpanStage(t *testing.T) {
	a, ok := spanHolding(outlineOf[2:], annotate.Lines{Start: 38, End: 39})
	if !ok || a.Start != 37 {
		t.Errorf("spanHolding: %+v %v", a, ok)
	}
	if _, ok := spanHolding(outlineOf[2:], annotate.Lines{Start: 36, End: 36}); ok {
		t.Error("a line between the definitions is held")
	}
	method, typ := specificity(&annotate.Lines{Start: 8, End: 18}, annotate.Lines{Start: 10, End: 10}), specificity(&annotate.Lines{Start: 3, End: 20}, annotate.Lines{Start: 10, End: 10})
	if method <= typ || typ < 0.6 || method > 1 {
		t.Errorf("specificity: the method %.3f, the type around it %.3f", method, typ)
	}
}
