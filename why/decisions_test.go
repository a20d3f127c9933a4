package why_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/why"
)

const widthConstraint = "must respect the display width limit"

// lineOf is the 1-based number of the first line of content holding text.
func lineOf(t *testing.T, content, text string) int {
	t.Helper()
	for i, l := range strings.Split(content, "\n") {
		if strings.Contains(l, text) {
			return i + 1
		}
	}
	t.Fatalf("no line holds %q", text)
	return 0
}

// regionWith finds the region holding a constraint.
func regionWith(res why.ReadResult, constraint string) *why.RegionView {
	for i, r := range res.Regions {
		for _, c := range r.Constraints {
			if c.Text == constraint {
				return &res.Regions[i]
			}
		}
	}
	return nil
}

// decided builds the history of issue 26: a decision recorded on Width by
// a commit that changed only its doc comment, then three later commits —
// one rewriting every line of its body, one moving it below another
// function, one renaming the file.
func decided(t *testing.T) *fixtures.Repo {
	t.Helper()
	fx := newRepo(t)
	fx.DecideWidth(func() {
		stage(t, fx, "--file", "text/width.go", "--anchor", "Width", "--constraint", widthConstraint,
			"--rejected", "len(s) | bytes are not columns", "--risk", "wide runes overflow the line")
	})
	return fx
}

// TestDecisionBindsToItsFunction is issue 26's done-when: a decision
// recorded on a function by an older commit on other lines is in force in
// the function after its lines were rewritten, it moved and its file was
// renamed — for a read of any line of its body, and of the anchor — until
// it is flagged.
func TestDecisionBindsToItsFunction(t *testing.T) {
	fx := decided(t)
	today := fx.Read("text/columns.go")
	mid := lineOf(t, today, "cols += runeWidth(ch)")
	res := readJSON(t, fx, "text/columns.go", "--lines", fmt.Sprintf("%d:%d", mid, mid))
	r := regionWith(res, widthConstraint)
	if r == nil {
		t.Fatalf("the body's line %d: the constraint is not in force (regions %+v, notes %v)", mid, res.Regions, res.Notes)
	}
	span := fmt.Sprintf("%d-%d", lineOf(t, today, "// Width is"), lineOf(t, today, "return cols")+1)
	if r.Scope != "anchor" || r.Span == nil || fmt.Sprintf("%d-%d", r.Span.Start, r.Span.End) != span {
		t.Errorf("scope %q span %+v; want anchor over Width's lines today, %s", r.Scope, r.Span, span)
	}
	if !r.Stale || r.Status != nil {
		t.Errorf("stale %v status %+v: the description may be stale, the decision is in force", r.Stale, r.Status)
	}
	if len(r.RejectedAlternatives) != 1 || len(r.Risks) != 1 {
		t.Errorf("the rejected alternative and the risk: %+v %+v", r.RejectedAlternatives, r.Risks)
	}
	if res.Regions[0].ID != r.ID {
		t.Errorf("the decision is not ranked first: %+v", res.Regions[0])
	}
	if res.Stats.Decisions != 1 || res.Stats.DecisionsReturned != 1 {
		t.Errorf("decisions counted %d, returned %d", res.Stats.Decisions, res.Stats.DecisionsReturned)
	}
	if regionWith(readJSON(t, fx, "text/columns.go", "--anchor", "Width"), widthConstraint) == nil {
		t.Error("read --anchor Width: the constraint is missing")
	}
	// Another function's lines are not Width's.
	other := lineOf(t, today, "return 1")
	if regionWith(readJSON(t, fx, "text/columns.go", "--lines", fmt.Sprintf("%d:%d", other, other)), widthConstraint) != nil {
		t.Error("the constraint is delivered for Other")
	}
	// A flag retires it: no read shows it, --all shows it marked.
	fx.MustGloss("flag", r.ID, "--reason", "the limit moved to the renderer")
	res = readJSON(t, fx, "text/columns.go", "--lines", fmt.Sprintf("%d:%d", mid, mid))
	if regionWith(res, widthConstraint) != nil {
		t.Fatal("a flagged decision is still delivered")
	}
	if res.Stats.Retired != 1 || !strings.Contains(strings.Join(res.Notes, " "), "retired") {
		t.Errorf("the retired record is not counted: %+v %v", res.Stats, res.Notes)
	}
	all := readJSON(t, fx, "text/columns.go", "--lines", fmt.Sprintf("%d:%d", mid, mid), "--all")
	if f := regionWith(all, widthConstraint); f == nil || f.Status == nil || f.Status.State != "flagged" {
		t.Errorf("--all: %+v", f)
	}
}

// TestDecisionRetirement checks each way a decision leaves delivery:
// superseded by a record on a later commit, expired, its function deleted
// — and that a function renamed with its body unchanged keeps it.
func TestDecisionRetirement(t *testing.T) {
	fx := decided(t)
	id := readJSON(t, fx, "text/columns.go", "--anchor", "Width").Regions[0].ID

	// Renamed, body unchanged: still bound, under its new name.
	renamed := strings.ReplaceAll(fx.Read("text/columns.go"), "Width(", "Columns(")
	renamed = strings.ReplaceAll(renamed, "// Width is", "// Columns is")
	renamed = strings.ReplaceAll(renamed, "runeColumns(", "runeWidth(")
	fx.Commit("text: Width is Columns", map[string]string{"text/columns.go": renamed})
	res := readJSON(t, fx, "text/columns.go", "--anchor", "Columns")
	r := regionWith(res, widthConstraint)
	if r == nil || r.Renamed != "Columns" {
		t.Fatalf("a function renamed with the same body: %+v (regions %+v)", r, res.Regions)
	}

	// Superseded by a record on a later commit.
	fx.MustGloss("annotate", "--file", "text/columns.go", "--anchor", "Columns", "--constraint", "must respect the renderer's width", "--supersedes", id)
	fx.Commit("text: columns from the renderer", map[string]string{"text/columns.go": renamed + "\n// the renderer decides\n"})
	res = readJSON(t, fx, "text/columns.go", "--anchor", "Columns")
	if regionWith(res, widthConstraint) != nil || regionWith(res, "must respect the renderer's width") == nil {
		t.Fatalf("superseded across commits: %+v", res.Regions)
	}
	all := readJSON(t, fx, "text/columns.go", "--anchor", "Columns", "--all")
	if s := regionWith(all, widthConstraint); s == nil || s.Status == nil || s.Status.State != "superseded" {
		t.Errorf("--all: the superseded one is %+v", s)
	}

	// Expired.
	fx.MustGloss("annotate", "--file", "text/columns.go", "--anchor", "Other", "--constraint", "returns one until the release", "--expires", "2020-01-01")
	fx.Commit("text: other", map[string]string{"text/columns.go": fx.Read("text/columns.go") + "// release soon\n"})
	if regionWith(readJSON(t, fx, "text/columns.go", "--anchor", "Other"), "returns one until the release") != nil {
		t.Error("an expired decision is delivered")
	}

	// Its function deleted: retired, even where its lines went.
	content := fx.Read("text/columns.go")
	start, end := strings.Index(content, "// Columns is"), strings.Index(content, "// Other comes first.")
	fx.Commit("text: drop Columns", map[string]string{"text/columns.go": content[:start] + content[end:]})
	all = readJSON(t, fx, "text/columns.go", "--all")
	if d := regionWith(all, "must respect the renderer's width"); d == nil || d.Status == nil || d.Status.State != "deleted" {
		t.Errorf("a deleted function's decision: %+v", d)
	}
	if regionWith(readJSON(t, fx, "text/columns.go"), "must respect the renderer's width") != nil {
		t.Error("a deleted function's decision is delivered")
	}
}

// TestPathDecisions records a decision on a file and one on a directory:
// each is in force for every line under it, and for no other file.
func TestPathDecisions(t *testing.T) {
	fx := newRepo(t)
	fx.Commit("text: width", map[string]string{"text/width.go": fixtures.WidthV1, "text/util/pad.go": "package util\n\nfunc Pad() {}\n", "main.go": "package main\n\nfunc main() {}\n"})
	fx.MustGloss("annotate", "--commit", "HEAD", "--file", "text/width.go", "--constraint", "no allocation per call")
	fx.MustGloss("annotate", "--commit", "HEAD", "--path", "text", "--constraint", "text never imports the terminal")
	res := readJSON(t, fx, "text/width.go", "--lines", "20:20")
	f, d := regionWith(res, "no allocation per call"), regionWith(res, "text never imports the terminal")
	if f == nil || f.Scope != "file" || d == nil || d.Scope != "directory" {
		t.Fatalf("file %+v, directory %+v", f, d)
	}
	res = readJSON(t, fx, "text/util/pad.go", "--lines", "3:3")
	if regionWith(res, "text never imports the terminal") == nil || regionWith(res, "no allocation per call") != nil {
		t.Errorf("text/util/pad.go: %+v", res.Regions)
	}
	if res := readJSON(t, fx, "main.go"); regionWith(res, "text never imports the terminal") != nil {
		t.Error("the directory's decision reaches a file outside it")
	}
}

// TestHistoryNamesTheRecordsAuthor: an agent's record is the agent's, with
// its model, not the person's who committed it.
func TestHistoryNamesTheRecordsAuthor(t *testing.T) {
	fx := newRepo(t)
	stage(t, fx, "--file", "text/width.go", "--anchor", "Width", "--intent", "columns, not bytes", "--author-name", "claude", "--model", "opus")
	fx.Commit("text: width", map[string]string{"text/width.go": fixtures.WidthV1})
	var h why.HistoryResult
	if err := json.Unmarshal([]byte(fx.MustGloss("history", "text/width.go", "--anchor", "Width", "--json")), &h); err != nil {
		t.Fatal(err)
	}
	var by *why.Event
	for i, e := range h.Events {
		if e.Intent == "columns, not bytes" {
			by = &h.Events[i]
		}
	}
	if by == nil || by.By == nil || by.By.Kind != "agent" || by.By.Name != "claude" || by.By.Model != "opus" || by.Author != "Gloss Tester" {
		t.Fatalf("history event: %+v", by)
	}
	if out := fx.MustGloss("history", "text/width.go", "--anchor", "Width"); !strings.Contains(out, "claude (agent) opus, committed by Gloss Tester") {
		t.Errorf("history names the commit's author for the agent's record:\n%s", out)
	}
}

// TestBoundOnlyAnswersWithoutBlame is the answer a hook falls back to when
// the blame would not finish in its time: the function's decision, and
// none of the records blame would find.
func TestBoundOnlyAnswersWithoutBlame(t *testing.T) {
	fx := decided(t)
	repo, err := gitops.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	today := fx.Read("text/columns.go")
	mid := lineOf(t, today, "cols += runeWidth(ch)")
	q := why.Query{Path: "text/columns.go", Lines: &annotate.Lines{Start: mid, End: mid}}
	full, err := why.Read(context.Background(), repo, q)
	if err != nil {
		t.Fatal(err)
	}
	q.BoundOnly = true
	bound, err := why.Read(context.Background(), repo, q)
	if err != nil {
		t.Fatal(err)
	}
	if regionWith(*bound, widthConstraint) == nil {
		t.Fatalf("bound only: the decision is missing: %+v", bound.Regions)
	}
	if len(full.Regions) <= len(bound.Regions) || bound.Stats.BlamedCommits != 0 {
		t.Errorf("bound only answered %d regions (the full read %d) after blaming %d commits", len(bound.Regions), len(full.Regions), bound.Stats.BlamedCommits)
	}
}

// TestDecisionsFollowSyncAndForget: a decision recorded in one clone
// reaches a read in another after both sync (the decisions index follows
// the notes ref a sync moves), and leaves it after the first forgets it
// and both sync again.
func TestDecisionsFollowSyncAndForget(t *testing.T) {
	bare := fixtures.NewBare(t)
	a := newRepo(t)
	a.Commit("text: width", map[string]string{"text/width.go": fixtures.WidthV1})
	a.Git("remote", "add", "origin", bare)
	a.Git("push", "-q", "origin", "main")
	b := fixtures.Clone(t, bare)
	b.MustGloss("init", "--no-mcp")
	line := fmt.Sprintf("%d:%d", lineOf(t, fixtures.WidthV1, "n += runeWidth(r)"), lineOf(t, fixtures.WidthV1, "n += runeWidth(r)"))
	// B reads first: its index is built before the decision exists.
	if regionWith(readJSON(t, b, "text/width.go", "--lines", line), widthConstraint) != nil {
		t.Fatal("a decision before it was recorded")
	}
	a.MustGloss("annotate", "--commit", "HEAD~0", "--file", "text/width.go", "--anchor", "Width", "--constraint", widthConstraint)
	a.MustGloss("sync", "origin")
	b.MustGloss("sync", "origin")
	r := regionWith(readJSON(t, b, "text/width.go", "--lines", line), widthConstraint)
	if r == nil {
		t.Fatal("the decision synced from the other clone is not in force")
	}
	a.MustGloss("forget", r.ID, "--reason", "recorded by mistake")
	a.MustGloss("sync", "origin")
	b.MustGloss("sync", "origin")
	if regionWith(readJSON(t, b, "text/width.go", "--lines", line), widthConstraint) != nil {
		t.Fatal("a forgotten decision is still in force after sync")
	}
}
