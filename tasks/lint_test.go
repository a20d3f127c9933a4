package tasks

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// lintCase is one task for one stage of lint: what that stage alone
// makes of it.
type lintCase struct {
	name string
	task Task
	want LintResult // the fields the stage fills (the others stay zero)
	// pre fills the grades a stage reads (the traffic light's).
	pre LintResult
}

const idA, idB = "2026-01-01-aaa-aaa", "2026-01-01-bbb-bbb"

func body(lines ...string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }

// lintTables holds a table per stage of lintStages, by its name.
var lintTables = map[string][]lintCase{
	"structure": {
		{name: "sound", task: Task{ID: idA, Title: "T", DependsOn: []string{idB}}},
		{name: "no title, unknown dependency", task: Task{ID: idA, DependsOn: []string{"2026-09-09-zzz-zzz"}},
			want: LintResult{Diagnostics: []Diagnostic{{"title", "error", "no title: the body needs a '# ' heading"}, {"dependency", "error", "depends on unknown task 2026-09-09-zzz-zzz"}}}},
		{name: "unparsable", task: Task{ID: idA, Title: "T", parseErr: errors.New("bad front matter")},
			want: LintResult{Diagnostics: []Diagnostic{{"parse", "error", "bad front matter"}}}},
		{name: "approved by nobody", task: Task{ID: idA, Title: "T", Approval: &Approval{Required: true, Status: ApprovalApproved, At: "2026-01-01"}},
			want: LintResult{Diagnostics: []Diagnostic{{"approval", "error", "Approval status is Approved but 'by' field is missing"}}}},
		{name: "unknown approval status", task: Task{ID: idA, Title: "T", Approval: &Approval{Status: "maybe"}},
			want: LintResult{Diagnostics: []Diagnostic{{"approval", "error", "Invalid approval status: maybe. Must be one of: pending, approved, rejected"}}}},
		{name: "pending, by someone", task: Task{ID: idA, Title: "T", Approval: &Approval{Status: ApprovalPending, By: "ada"}},
			want: LintResult{Diagnostics: []Diagnostic{{"approval", "error", "Approval has 'by' field set but status is still 'pending'"}}}},
	},
	"complexity": {
		{name: "small", task: Task{Body: body("- [ ] one", "- [ ] two")}, want: LintResult{Complexity: "A"}},
		{name: "many files", task: Task{TargetFiles: []string{"a", "b", "c", "d", "e", "f"}},
			want: LintResult{Complexity: "D", Diagnostics: []Diagnostic{{"complexity", "warning", "6 target files; consider splitting"}}}},
		{name: "criteria grade C", task: Task{Body: body("## Acceptance Criteria", "- [ ] 1", "- [ ] 2", "- [ ] 3", "- [ ] 4", "- [ ] 5", "- [ ] 6")}, want: LintResult{Complexity: "C"}},
	},
	"confidence": {
		{name: "no text", task: Task{}, want: LintResult{Confidence: "D"}},
		{name: "instructions", task: Task{Body: body("- Add the flag", "- Test it", "- Document it")}, want: LintResult{Confidence: "A"}},
		{name: "prose", task: Task{Body: body("We should look at this.", "It is slow.", "Maybe later.")}, want: LintResult{Confidence: "D"}},
		{name: "vague", task: Task{Title: "Improve things", Body: body("- Add caching", "- Fix errors etc", "some text")},
			want: LintResult{Confidence: "B", Suggestions: []string{"replace 2 vague word(s) (improve, as needed, etc) with specifics"}}},
	},
	"criteria": {
		{name: "none", task: Task{Body: body("text")}, want: LintResult{ACQuality: "D", Suggestions: []string{"add a '## Acceptance Criteria' section with '- [ ]' items"}}},
		{name: "one", task: Task{Body: body("## Acceptance Criteria", "- [ ] works")}, want: LintResult{ACQuality: "C"}},
		{name: "three", task: Task{Body: body("## Acceptance Criteria", "- [ ] a", "- [ ] b", "- [ ] c")}, want: LintResult{ACQuality: "B"}},
		{name: "four", task: Task{Body: body("## Acceptance Criteria", "- [ ] a", "- [ ] b", "- [ ] c", "- [x] d")}, want: LintResult{ACQuality: "A"}},
	},
	"splittability": {
		{name: "sections and files", task: Task{TargetFiles: []string{"a", "b", "c"}, Body: body("## One", "## Two", "## Three")}, want: LintResult{Splittability: "A"}},
		{name: "coupled", task: Task{TargetFiles: []string{"a", "b", "c"}, Body: body("## One", "## Two", "## Three", "These are tightly coupled.")}, want: LintResult{Splittability: "D"}},
		{name: "two files", task: Task{TargetFiles: []string{"a", "b"}, Body: body("## One")}, want: LintResult{Splittability: "B"}},
		{name: "plain", task: Task{Body: body("text")}, want: LintResult{Splittability: "C"}},
	},
	"coupling": {
		{name: "names another", task: Task{ID: idA, Body: body("see " + idB)},
			want: LintResult{Diagnostics: []Diagnostic{{"coupling", "warning", "the body names task " + idB + "; use depends_on instead"}}}},
		{name: "names its member", task: Task{ID: idA, Body: body("see " + idA + ".1")}},
		{name: "a driver", task: Task{ID: idA, Type: "driver", Body: body("see " + idB)}},
	},
	"traffic light": {
		{name: "green", pre: LintResult{Complexity: "A", Confidence: "B", ACQuality: "A"}, want: LintResult{TrafficLight: "green"}},
		{name: "red", pre: LintResult{Complexity: "A", Confidence: "A", ACQuality: "D"}, want: LintResult{TrafficLight: "red"}},
		{name: "yellow, split", pre: LintResult{Complexity: "C", Confidence: "A", ACQuality: "A"},
			want: LintResult{TrafficLight: "yellow", Suggestions: []string{"split it into smaller tasks (task_split)"}}},
	},
}

func TestLintStages(t *testing.T) {
	t.Parallel()
	var settings LintSettings
	settings.defaults()
	for _, st := range lintStages {
		if len(lintTables[st.name]) == 0 {
			t.Errorf("lint stage %q has no table", st.name)
		}
	}
	for name, cases := range lintTables {
		i := slices.IndexFunc(lintStages, func(s lintStage) bool { return s.name == name })
		if i < 0 {
			t.Errorf("lintTables has a table for %q, which is no stage", name)
			continue
		}
		for _, c := range cases {
			task := c.task
			g := newGraph([]*Task{&task, {ID: idB, Title: "B"}})
			got := c.pre
			lintStages[i].run(newLintFacts(settings, g, &task), &got)
			want := c.want
			want.Complexity = first(want.Complexity, c.pre.Complexity)
			want.Confidence = first(want.Confidence, c.pre.Confidence)
			want.ACQuality = first(want.ACQuality, c.pre.ACQuality)
			if !lintEqual(got, want) {
				t.Errorf("%s, %s:\n got %+v\nwant %+v", name, c.name, got, want)
			}
		}
	}
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func lintEqual(a, b LintResult) bool {
	return a.TrafficLight == b.TrafficLight && a.Complexity == b.Complexity && a.Confidence == b.Confidence &&
		a.Splittability == b.Splittability && a.ACQuality == b.ACQuality && (a.Isolation == nil) == (b.Isolation == nil) &&
		slices.Equal(a.Suggestions, b.Suggestions) && slices.Equal(a.Diagnostics, b.Diagnostics)
}
