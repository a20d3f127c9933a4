package attribution

import (
	"slices"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/capture"
)

// file builds the fileLines of lines at numbers, their texts given.
func file(path string, numbers []int, texts ...string) fileLines {
	f := fileLines{path: path, lines: numbers}
	for _, t := range texts {
		f.hashes = append(f.hashes, capture.HashLine(t))
		f.trivial = append(f.trivial, isTrivial(t))
	}
	return f
}

func edit(file string, start, end int, texts ...string) capture.Edit {
	e := capture.Edit{Agent: "claude", Model: "opus", Session: "s", File: file, Lines: []capture.LineRange{{Start: start, End: end}}}
	for _, t := range texts {
		e.Hashes = append(e.Hashes, capture.HashLine(t))
	}
	return e
}

// who sums up contributors as "type[/agent]" ("-" for undecided).
func who(cs []Contributor, decided []bool) string {
	var out []string
	for i, c := range cs {
		switch {
		case decided != nil && !decided[i]:
			out = append(out, "-")
		case c.Agent != "":
			out = append(out, c.Type+"/"+c.Agent)
		default:
			out = append(out, c.Type)
		}
	}
	return strings.Join(out, " ")
}

func TestIndexClaims(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		claims []capture.Edit
		files  []fileLines
		match  bool
	}{
		{"nothing captured", nil, []fileLines{file("a.go", []int{1}, "x := 1")}, false},
		{"a real line", []capture.Edit{edit("a.go", 1, 1, "x := 1")}, []fileLines{file("a.go", []int{1}, "x := 1")}, true},
		{"only a brace", []capture.Edit{edit("a.go", 1, 1, "}")}, []fileLines{file("a.go", []int{1}, "}")}, false},
		{"another file", []capture.Edit{edit("b.go", 1, 1, "x := 1")}, []fileLines{file("a.go", []int{1}, "x := 1")}, false},
	}
	for _, c := range cases {
		ix := indexClaims(c.claims)
		if got := ix.matchAny(c.files); got != c.match {
			t.Errorf("%s: matchAny = %v, want %v", c.name, got, c.match)
		}
	}
	// The latest edit of a text wins; every edit's ranges are kept.
	ix := indexClaims([]capture.Edit{edit("a.go", 1, 2, "x", "y"), {Agent: "codex", File: "a.go", Lines: []capture.LineRange{{Start: 5, End: 5}}, Hashes: []string{capture.HashLine("x")}}})
	if got := ix.byHash["a.go"][capture.HashLine("x")].Agent; got != "codex" {
		t.Errorf("latest edit of x: %s, want codex", got)
	}
	if got := ix.written["a.go"]; !slices.Equal(got, [][2]int{{1, 2}, {5, 5}}) {
		t.Errorf("written = %v", got)
	}
}

func TestMatchLines(t *testing.T) {
	t.Parallel()
	codex := &Contributor{Type: AI, Agent: "codex"}
	cases := []struct {
		name    string
		f       fileLines
		carried lineMap
		sources map[string]*Contributor
		edits   []capture.Edit
		want    string
	}{
		{"nothing", file("a.go", []int{1, 2}, "a", "b"), nil, nil, nil, "- -"},
		{"captured", file("a.go", []int{1, 2}, "a", "b"), nil, nil, []capture.Edit{edit("a.go", 2, 2, "b")}, "- ai/claude"},
		{"carried wins", file("a.go", []int{1}, "a"), lineMap{codex}, nil, []capture.Edit{edit("a.go", 1, 1, "a")}, "ai/codex"},
		{"a source's text", file("a.go", []int{3}, "c"), nil, map[string]*Contributor{capture.HashLine("c"): codex}, nil, "ai/codex"},
		{"a source's person is no match", file("a.go", []int{3}, "c"), nil, map[string]*Contributor{capture.HashLine("c"): {Type: Human}}, nil, "-"},
	}
	for _, c := range cases {
		m := matchLines(c.f, c.carried, c.sources, indexClaims(c.edits).byHash["a.go"])
		if got := who(m.cs, m.decided); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestDropTrivialRuns(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		f     fileLines
		edits []capture.Edit
		want  string
	}{
		{"a brace alone", file("a.go", []int{4, 5}, "x := 2", "}"), []capture.Edit{edit("a.go", 9, 9, "}")}, "- -"},
		{"a brace beside a real line", file("a.go", []int{4, 5}, "x := 2", "}"), []capture.Edit{edit("a.go", 4, 5, "x := 2", "}")}, "ai/claude ai/claude"},
		{"not adjacent", file("a.go", []int{4, 9}, "x := 2", "}"), []capture.Edit{edit("a.go", 4, 5, "x := 2", "}")}, "ai/claude -"},
	}
	for _, c := range cases {
		m := matchLines(c.f, nil, nil, indexClaims(c.edits).byHash["a.go"])
		dropTrivialRuns(c.f, m)
		if got := who(m.cs, m.decided); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestFillBlocks(t *testing.T) {
	t.Parallel()
	person := Contributor{Type: Human}
	bot := &Contributor{Type: AI, Agent: "copilot"}
	cases := []struct {
		name  string
		f     fileLines
		edits []capture.Edit
		d     defaults
		want  string
	}{
		{"between the agent's lines", file("a.go", []int{1, 2, 3}, "a", "hand", "c"), []capture.Edit{edit("a.go", 1, 1, "a"), edit("a.go", 3, 3, "c")},
			defaults{captured: true, person: person}, "ai/claude mixed/claude ai/claude"},
		{"where the edit left its lines", file("a.go", []int{1, 2}, "a", "changed"), []capture.Edit{edit("a.go", 1, 2, "a", "b")},
			defaults{captured: true, person: person}, "ai/claude mixed/claude"},
		{"the person's lines around", file("a.go", []int{1, 2, 7}, "a", "hand", "later"), []capture.Edit{edit("a.go", 1, 1, "a")},
			defaults{captured: true, person: person}, "ai/claude human human"},
		{"no capture: the commit's signal", file("a.go", []int{1}, "a"), nil, defaults{signal: bot, person: person}, "ai/copilot"},
		{"no capture: an agent's annotation first", file("a.go", []int{1, 2}, "a", "b"), nil,
			defaults{signal: bot, person: person, regions: regionsByAgent{"a.go": {{Lines: annotate.Lines{Start: 2, End: 2}, Author: annotate.Author{Kind: "agent", Name: "gemini"}}}}},
			"ai/copilot ai/gemini"},
		{"no capture, no signal", file("a.go", []int{1}, "a"), nil, defaults{person: person}, "human"},
	}
	for _, c := range cases {
		ix := indexClaims(c.edits)
		m := matchLines(c.f, nil, nil, ix.byHash["a.go"])
		dropTrivialRuns(c.f, m)
		fillBlocks(c.f, m, ix.written["a.go"], c.d)
		if got := who(m.cs, nil); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
