package reconcile_test

import (
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/reconcile"
)

// Records are per spec: marking for one spec leaves another spec that
// governs the same file unreconciled, and clearing one spec leaves the
// others warm.
func TestRecordsArePerSpec(t *testing.T) {
	r := todo(t)
	// internal/api/handlers_test.go is api's only; docs/api.md too. Use a
	// file two specs govern: add a second spec over docs/**.
	r.Commit("docs spec", map[string]string{".gloss/specs/docs.spec.yaml": "schema_version: '0.8'\nintent: docs\ntier: registered\nartifacts:\n  docs:\n    - path: docs/**\n"})
	var mark reconcile.MarkResult
	glossJSON(t, r, &mark, "spec", "mark", "docs/api.md", "--spec", "api")
	if len(mark.Records) != 1 || mark.Records[0].SpecPath != apiSpec {
		t.Fatalf("--spec api must write one record for api: %+v", mark)
	}
	if d := specDiff(t, r, "docs"); d.Cache.State != "cold" {
		t.Fatalf("docs spec must still be cold: %+v", d.Cache)
	}
	glossJSON(t, r, &mark, "spec", "mark", "docs/api.md")
	if len(mark.Records) != 2 {
		t.Fatalf("without --spec, every governing spec gets a record: %+v", mark.Records)
	}
	r.MustGloss("spec", "clear", "docs")
	if d := specDiff(t, r, "docs"); d.Cache.State != "cold" {
		t.Fatalf("cleared spec: %+v", d.Cache)
	}
	if d := specDiff(t, r, "api"); d.Cache.State != "warm" || !strings.Contains(strings.Join(d.Skipped, ","), "docs/api.md") {
		t.Fatalf("api must stay warm: %+v skipped %v", d.Cache, d.Skipped)
	}
	if _, err := r.Gloss("spec", "mark", "docs/api.md", "--spec", "storage"); err != nil {
		t.Fatalf("a file another spec governs is skipped, not an error: %v", err)
	}
	var m2 reconcile.MarkResult
	glossJSON(t, r, &m2, "spec", "mark", "docs/api.md", "--spec", "storage")
	if len(m2.Records) != 0 || len(m2.Skipped) != 1 || !strings.Contains(m2.Skipped[0].Reason, "not governed by") {
		t.Fatalf("mark outside the spec: %+v", m2)
	}
}

// Records travel with git gloss sync: marked in one clone, warm in another.
func TestRecordsTravelWithSync(t *testing.T) {
	bare := fixtures.NewBare(t)
	a := fixtures.NewTodoService(t)
	a.Git("remote", "add", "origin", bare)
	a.Git("push", "-q", "origin", "main")
	a.MustGloss("spec", "mark", "internal/api/handlers.go", "internal/api/pagination.go")
	a.MustGloss("sync")

	b := fixtures.Clone(t, bare)
	if d := specDiff(t, b, "api"); d.Cache.State != "cold" {
		t.Fatalf("before sync the clone is cold: %+v", d.Cache)
	}
	b.MustGloss("sync")
	d := specDiff(t, b, "api")
	if d.Cache.State != "warm" || len(d.Skipped) != 2 {
		t.Fatalf("after sync the clone is warm: %+v skipped %v", d.Cache, d.Skipped)
	}
}

// Records survive a rebase onto a moved base (notes.rewriteRef, which
// init sets, carries them to the rewritten commits).
func TestRecordsSurviveRebase(t *testing.T) {
	r := fixtures.NewTodoService(t)
	r.MustGloss("init")
	r.Git("checkout", "-q", "-b", "feature")
	r.Commit("handler", map[string]string{"internal/api/handlers.go": "package api\n\nfunc Create(string) int { return 5 }\n"})
	r.MustGloss("spec", "mark", "internal/api/handlers.go")
	r.Git("checkout", "-q", "main")
	r.Commit("readme", map[string]string{"README.md": "# todo-service\n\nmore\n"})
	r.Git("checkout", "-q", "feature")
	before := r.Git("rev-parse", "HEAD")
	r.Git("rebase", "-q", "main")
	if r.Git("rev-parse", "HEAD") == before {
		t.Fatal("rebase did not rewrite")
	}
	d := specDiff(t, r, "api")
	if d.Cache.State != "warm" || !strings.Contains(strings.Join(d.Skipped, ","), "internal/api/handlers.go") {
		t.Fatalf("records lost in the rebase: %+v skipped %v", d.Cache, d.Skipped)
	}
}

// A snapshot written by NotarAI (epoch-seconds timestamp) is read back.
func TestReadsNotarAISnapshot(t *testing.T) {
	r := todo(t)
	var d reconcile.DiffResult
	// Hash through gloss itself: mark, snapshot, then rewrite the snapshot
	// in NotarAI's own timestamp form and drop the records.
	r.MustGloss("spec", "mark", "internal/api/handlers.go", apiSpec)
	r.MustGloss("spec", "snapshot")
	state := r.Read(reconcile.StatePath)
	i := strings.Index(state, `"timestamp": "`)
	j := strings.Index(state[i+14:], `"`)
	state = state[:i+14] + "1773423102Z" + state[i+14+j:]
	r.Write(reconcile.StatePath, state)
	r.Git("update-ref", "-d", "refs/notes/gloss/reconcile")
	glossJSON(t, r, &d, "spec", "diff", "api", "--base", "main")
	if d.Cache.Source != "snapshot" || !strings.Contains(strings.Join(d.Skipped, ","), "internal/api/handlers.go") {
		t.Fatalf("NotarAI snapshot not read: %+v skipped %v", d.Cache, d.Skipped)
	}
	// A tombstone newer than the snapshot makes it stop counting.
	r.MustGloss("spec", "clear")
	glossJSON(t, r, &d, "spec", "diff", "api", "--base", "main")
	if d.Cache.State != "cold" {
		t.Fatalf("after clear, the snapshot must not count: %+v", d.Cache)
	}
	// A broken snapshot is a warning, not a failure.
	r.Write(reconcile.StatePath, "{broken")
	glossJSON(t, r, &d, "spec", "diff", "api", "--base", "main")
	if !strings.Contains(strings.Join(d.Warnings, "\n"), "not valid JSON") {
		t.Fatalf("warnings: %v", d.Warnings)
	}
}

// Hostile input: bad exclude globs, paths outside the repository and
// invalid UTF-8 are clear usage errors, unknown specs not-found errors; the
// plain base is honoured.
func TestHostileInputAndPlainBase(t *testing.T) {
	r := todo(t)
	r.Commit("handler", map[string]string{"internal/api/handlers.go": "package api\n"})
	r.Git("checkout", "-q", "main")
	r.Commit("main moves", map[string]string{"docs/api.md": "# API v2\n"})
	r.Git("checkout", "-q", "feature")
	for _, args := range [][]string{
		{"spec", "diff", "api", "--base", "main", "--exclude", "src/["},
		{"spec", "diff", "../../x", "--base", "main"},
		{"spec", "mark", "../outside.go"},
	} {
		out, err := r.Gloss(args...)
		if fixtures.ExitCode(err) != 2 {
			t.Errorf("%q: want exit 2, got %v\n%s", args, err, out)
		}
	}
	if out, err := r.Gloss("spec", "diff", "nosuch", "--base", "main"); fixtures.ExitCode(err) != 3 || !strings.Contains(out, "no spec") {
		t.Errorf("unknown spec: want exit 3, got %v\n%s", err, out)
	}
	if out, err := r.Gloss("spec", "diff", "api\xff", "--base", "main"); fixtures.ExitCode(err) != 2 || !strings.Contains(out, "not valid UTF-8") {
		t.Errorf("invalid UTF-8: want exit 2, got %v\n%s", err, out)
	}
	mb := specDiff(t, r, "api")
	if mb.BaseMode != "merge-base" || strings.Contains(mb.Diff, "API v2") {
		t.Fatalf("merge-base diff must not show main's own change: %s\n%s", mb.BaseMode, mb.Diff)
	}
	plain := specDiff(t, r, "api", "--plain-base")
	if plain.BaseMode != "plain" || !strings.Contains(plain.Diff, "API v2") {
		t.Fatalf("plain base diff must show main's change: %s\n%s", plain.BaseMode, plain.Diff)
	}
}
