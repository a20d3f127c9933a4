package review

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/forge"
	"github.com/gloss-dev/gloss/gitops"
)

// The rule of docs/review.md, case by case: what it catches and what it
// must not.
func TestReintroductionRule(t *testing.T) {
	t.Parallel()
	cases := []struct {
		alt     string
		added   string
		removed string
		want    string
	}{
		{"`str[:rest]`", "\toutput += str[:rest]", "", "str[:rest]"},
		{"reuse /status", "\treturn get(\"/status\")", "", "/status"},
		{"sync.Mutex around the cache", "\tmu sync.Mutex", "", "sync.Mutex"},
		{"a global lock via sync.Mutex", "\tmu sync.RWMutex", "", ""},             // a whole token, not a part
		{"parseHeaderFast", "\treturn parseHeaderFast(b)", "", "parseHeaderFast"}, // camelCase
		{"--no-verify", "git push --no-verify", "", "--no-verify"},                // a flag
		{"sync.Mutex", "\tmu sync.Mutex // still", "\tmu sync.Mutex", ""},         // it was there: not brought back
		{"exponential backoff retries", "// retries with exponential backoff", "", "exponential backoff retries"},
		{"exponential backoff retries", "// retries later", "", ""}, // prose needs every content word
		{"recursion", "\treturn recursion(n-1)", "", ""},            // one prose word: too weak to tell
		{"don't cache", "\tcache[k] = v", "", ""},                   // an apostrophe is not a quote
	}
	for _, c := range cases {
		got := findReintroduced([]annotate.Rejected{{Text: c.alt}}, []numbered{{n: 3, text: c.added}}, []string{c.removed})
		match := ""
		if len(got) > 0 {
			match = got[0].Match
		}
		if match != c.want {
			t.Errorf("rejected %q, added %q (removed %q): matched %q, want %q", c.alt, c.added, c.removed, match, c.want)
		}
	}
}

// hostileReport is a report whose texts try to break out of the markdown.
func hostileReport(n int) *Report {
	rep := newReport()
	rep.Range = Range{Base: strings.Repeat("a", 40), Head: strings.Repeat("b", 40), BaseFrom: "the range given", Commits: 500, Files: n}
	for i := 0; i < n; i++ {
		path := fmt.Sprintf("dir/file%05d.go", i)
		rep.Authorship.Files = append(rep.Authorship.Files, FileAuthorship{Path: path, Added: 3, Examined: true, Totals: attribution.Totals{Human: 3}})
		rep.Decisions = append(rep.Decisions, Decision{Rank: RankConstraint, Record: "01X", File: path, Side: SideHead,
			Lines: &annotate.Lines{Start: 1, End: 2}, Constraints: []string{"</details> <!-- gloss-review --> @team ```"},
			Changed: []gitops.Hunk{{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1}}, Read: "git gloss read x"})
		rep.Check.Findings = append(rep.Check.Findings, forge.Finding{Check: "spec", Rule: "spec-drift", Level: "warning", File: path, Message: "drift"})
	}
	bound(rep, Default)
	return rep
}

// A 10,000-file report renders under the comment limit, says what it cut,
// and no text from the repository escapes its place.
func TestMarkdownIsBoundedAndInert(t *testing.T) {
	t.Parallel()
	rep := hostileReport(10_000)
	md := Markdown(rep, nil)
	if len(md) > MaxComment {
		t.Fatalf("markdown is %d bytes, over %d", len(md), MaxComment)
	}
	if strings.Count(md, Marker) != 1 || !strings.HasPrefix(md, Marker) {
		t.Error("the marker appears other than once at the start")
	}
	if strings.Count(md, "</details>") != strings.Count(md, "<details>") {
		t.Error("a record's text closed a <details> block")
	}
	if strings.Contains(md, "@team") {
		t.Error("a record's text mentions @team")
	}
	for _, want := range []string{"decisions in force: ", "of 10000 shown", "files in the authorship table"} {
		if !strings.Contains(md, want) {
			t.Errorf("the markdown does not say what was cut (%q)", want)
		}
	}
	// The block for AI reviewers is the same (cut) report, as JSON.
	i := strings.Index(md, "```json\n")
	j := strings.LastIndex(md, "\n```\n")
	var back Report
	if i < 0 || j < i || json.Unmarshal([]byte(md[i+len("```json\n"):j]), &back) != nil {
		t.Fatalf("no JSON block for AI reviewers")
	}
	if back.Range.Files != 10_000 || len(back.Decisions) == 0 || len(back.Decisions) > Default.Decisions || len(back.Cut) == 0 {
		t.Errorf("the JSON block: %d files, %d decisions, %d cuts", back.Range.Files, len(back.Decisions), len(back.Cut))
	}
}

func TestMarkdownCode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"a.go":    "`a.go`",
		"a`b.go":  "``a`b.go``",
		"`x":      "`` `x ``",
		"a\nb.go": "`a b.go`",
		"":        "``",
		"```evil": "```` ```evil ````",
	} {
		if got := mdCode(in); got != want {
			t.Errorf("mdCode(%q) = %q, want %q", in, got, want)
		}
	}
}
