package reconcile_test

// One test per step of the reference's 13-step "todo-service" scenario
// (shared/reference/notarai.md §16.3), on the fixture fixtures builds,
// through the real binary.

import (
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/reconcile"
)

const (
	apiSpec     = ".gloss/specs/api.spec.yaml"
	storageSpec = ".gloss/specs/storage.spec.yaml"
	systemSpec  = ".gloss/specs/system.spec.yaml"
	assetsSpec  = ".gloss/specs/assets.spec.yaml"
)

// todo builds the fixture and starts a feature branch, as an agent would.
func todo(t *testing.T) *fixtures.Repo {
	t.Helper()
	r := fixtures.NewTodoService(t)
	r.Git("checkout", "-q", "-b", "feature")
	return r
}

// glossJSON runs git-gloss with --json and decodes its output into v.
func glossJSON(t *testing.T, r *fixtures.Repo, v any, args ...string) string {
	t.Helper()
	cmd := r.Command(fixtures.Binary(t), append(args, "--json")...)
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("git-gloss %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("decode %s: %v", out, err)
	}
	return string(out)
}

func affected(t *testing.T, r *fixtures.Repo, extra ...string) reconcile.AffectedResult {
	var res reconcile.AffectedResult
	glossJSON(t, r, &res, append([]string{"spec", "affected", "--base", "main"}, extra...)...)
	return res
}

func specDiff(t *testing.T, r *fixtures.Repo, sp string, extra ...string) reconcile.DiffResult {
	var res reconcile.DiffResult
	glossJSON(t, r, &res, append([]string{"spec", "diff", sp, "--base", "main"}, extra...)...)
	return res
}

func affectedPaths(res reconcile.AffectedResult) []string {
	var out []string
	for _, a := range res.AffectedSpecs {
		out = append(out, a.SpecPath)
	}
	return out
}

func mustContain[T comparable](t *testing.T, what string, list []T, items ...T) {
	t.Helper()
	for _, it := range items {
		if !slices.Contains(list, it) {
			t.Errorf("%s: %v lacks %v", what, list, it)
		}
	}
}

func mustNotContain[T comparable](t *testing.T, what string, list []T, items ...T) {
	t.Helper()
	for _, it := range items {
		if slices.Contains(list, it) {
			t.Errorf("%s: %v must not contain %v", what, list, it)
		}
	}
}

// 1. A code-only change: api is affected, storage is not; the diff shows
// the handler; a cold cache says so, and get_changed_artifacts(docs)
// returns docs/api.md.
func TestScenario01CodeOnlyChange(t *testing.T) {
	r := todo(t)
	r.Commit("handler", map[string]string{"internal/api/handlers.go": "package api\n\nfunc Create(title string) int { return 42 }\n"})
	aff := affected(t, r)
	mustContain(t, "affected", affectedPaths(aff), apiSpec)
	mustNotContain(t, "affected", affectedPaths(aff), storageSpec)
	if aff.BaseMode != "merge-base" {
		t.Errorf("base_mode %q, want merge-base by default", aff.BaseMode)
	}
	d := specDiff(t, r, "api")
	if !strings.Contains(d.Diff, "+func Create(title string) int { return 42 }") {
		t.Errorf("diff lacks the handler change:\n%s", d.Diff)
	}
	if d.Cache.State != "cold" || !strings.Contains(strings.Join(d.Warnings, "\n"), "cold cache") {
		t.Errorf("a cold cache must say so: %+v %v", d.Cache, d.Warnings)
	}
	var arts reconcile.ArtifactsResult
	glossJSON(t, r, &arts, "spec", "changed", "api", "--type", "docs")
	if !slices.Equal(arts.ChangedArtifacts, []string{"docs/api.md"}) {
		t.Errorf("changed docs: %v", arts.ChangedArtifacts)
	}
}

// 2. A binary edit lands in binary_changes, not in diff (git decides what
// is binary, .gitattributes included).
func TestScenario02BinaryFile(t *testing.T) {
	r := todo(t)
	r.Commit("new logo", map[string]string{
		"assets/logo.png": string(append(fixtures.PNG(), 0, 1, 2, 3)),
		"dist/app.wasm":   "\x00asm\x01\x00\x00\x00\x07",
	})
	d := specDiff(t, r, "assets")
	mustContain(t, "binary_changes", d.BinaryChanges, "assets/logo.png", "dist/app.wasm")
	if strings.Contains(d.Diff, "logo.png") || strings.Contains(d.Diff, "Binary files") {
		t.Errorf("binary files leaked into diff:\n%s", d.Diff)
	}
}

// 3. Exclude patterns (an exact name and a glob) keep files out of diff,
// files and file_categories; excluded lists the files, exclude_patterns
// echoes the patterns.
func TestScenario03ExcludePatterns(t *testing.T) {
	r := todo(t)
	r.Commit("deps", map[string]string{"go.sum": "example.com/dep v1.0.1 h1:def=\n", "package-lock.json": "{\"lockfileVersion\": 3, \"x\": 1}\n"})
	d := specDiff(t, r, "system", "--exclude", "go.sum", "--exclude", "package-*.json")
	for _, f := range []string{"go.sum", "package-lock.json"} {
		if strings.Contains(d.Diff, f) {
			t.Errorf("%s in diff", f)
		}
		if _, ok := d.FileCategories[f]; ok {
			t.Errorf("%s in file_categories", f)
		}
	}
	mustNotContain(t, "files", d.Files, "go.sum", "package-lock.json")
	mustContain(t, "excluded", d.Excluded, "go.sum", "package-lock.json")
	if !slices.Equal(d.ExcludePatterns, []string{"go.sum", "package-*.json"}) {
		t.Errorf("exclude_patterns: %v", d.ExcludePatterns)
	}
	// Without excludes both are there.
	d = specDiff(t, r, "system")
	mustContain(t, "files", d.Files, "go.sum", "package-lock.json")
}

// 4. Mark storage's files and its spec, then edit only the spec: storage
// is affected (its own file changed), its text goes out in spec_changes
// with the system spec's content, and the marked files move from skipped
// to spec_invalidated.
func TestScenario04SpecOnlyChange(t *testing.T) {
	r := todo(t)
	r.MustGloss("spec", "mark", "internal/storage/store.go", "internal/storage/memory.go", "migrations/001_init.sql", storageSpec)
	d := specDiff(t, r, "storage")
	if len(d.Files) != 0 || len(d.Skipped) != 3 {
		t.Fatalf("after marking, all should be skipped: files %v skipped %v", d.Files, d.Skipped)
	}
	r.Commit("spec only", map[string]string{storageSpec: fixtures.TodoServiceSpecs[storageSpec] + "constraints:\n  - writes are atomic\n"})
	aff := affected(t, r)
	if !slices.Equal(affectedPaths(aff), []string{storageSpec}) || !aff.AffectedSpecs[0].SpecChanged {
		t.Fatalf("want storage affected by its own file: %+v", aff.AffectedSpecs)
	}
	d = specDiff(t, r, "storage")
	if len(d.SpecChanges) != 1 || d.SpecChanges[0].Path != storageSpec || !strings.Contains(*d.SpecChanges[0].Content, "writes are atomic") {
		t.Fatalf("spec_changes: %+v", d.SpecChanges)
	}
	if d.SystemSpec == nil || d.SystemSpec.Path != systemSpec || d.SystemSpec.Content == nil {
		t.Fatalf("system_spec must carry content: %+v", d.SystemSpec)
	}
	if len(d.Skipped) != 0 || len(d.SpecInvalidated) != 3 {
		t.Fatalf("marked files belong in spec_invalidated: skipped %v invalidated %v", d.Skipped, d.SpecInvalidated)
	}
}

// 5. Edit the system spec and a sub-spec: diffing the system spec gives
// system_spec as just {path}; diffing the sub-spec gives its content.
func TestScenario05SystemAndSubSpec(t *testing.T) {
	r := todo(t)
	r.Commit("specs", map[string]string{
		systemSpec: fixtures.TodoServiceSpecs[systemSpec] + "notes: edited\n",
		apiSpec:    fixtures.TodoServiceSpecs[apiSpec] + "notes: edited\n",
	})
	d := specDiff(t, r, "system")
	if d.SystemSpec == nil || d.SystemSpec.Path != systemSpec || d.SystemSpec.Content != nil {
		t.Fatalf("system diff: system_spec must be {path} only: %+v", d.SystemSpec)
	}
	d = specDiff(t, r, "api")
	if d.SystemSpec == nil || d.SystemSpec.Content == nil || !strings.Contains(*d.SystemSpec.Content, "notes: edited") {
		t.Fatalf("api diff: system_spec must carry content: %+v", d.SystemSpec)
	}
	aff := affected(t, r)
	mustContain(t, "affected", affectedPaths(aff), systemSpec, apiSpec)
}

// 6. A deleted governed file is reported (affected, deleted_files, and
// the deletion in the diff), committed or only in the working tree.
func TestScenario06Deletion(t *testing.T) {
	r := todo(t)
	if err := os.Remove(r.Path("internal/storage/memory.go")); err != nil {
		t.Fatal(err)
	}
	for _, stage := range []string{"working tree", "committed"} {
		if stage == "committed" {
			r.Git("add", "-A")
			r.Git("commit", "-qm", "drop memory store")
		}
		aff := affected(t, r)
		mustContain(t, stage+": affected", affectedPaths(aff), storageSpec)
		mustContain(t, stage+": deleted_files", aff.DeletedFiles, "internal/storage/memory.go")
		d := specDiff(t, r, "storage")
		mustContain(t, stage+": deleted_files", d.DeletedFiles, "internal/storage/memory.go")
		if !strings.Contains(d.Diff, "deleted file mode") || !strings.Contains(d.Diff, "-type Memory struct") {
			t.Errorf("%s: diff lacks the deletion:\n%s", stage, d.Diff)
		}
	}
}

// 7. An untracked governed file is reported and its content is in the
// diff.
func TestScenario07Untracked(t *testing.T) {
	r := todo(t)
	r.Write("internal/api/new.go", "package api\n\nfunc New() {}\n")
	aff := affected(t, r)
	mustContain(t, "untracked_files", aff.UntrackedFiles, "internal/api/new.go")
	mustContain(t, "affected", affectedPaths(aff), apiSpec)
	d := specDiff(t, r, "api")
	mustContain(t, "files", d.Files, "internal/api/new.go")
	mustContain(t, "untracked_files", d.UntrackedFiles, "internal/api/new.go")
	if !strings.Contains(d.Diff, "+++ b/internal/api/new.go") || !strings.Contains(d.Diff, "+func New() {}") {
		t.Errorf("diff lacks the untracked file:\n%s", d.Diff)
	}
}

// 8. A rename: the spec governing the old path is affected, the rename is
// reported with both paths, and the now-orphaned glob is warned about.
func TestScenario08Rename(t *testing.T) {
	r := todo(t)
	r.Git("mv", "docs/api.md", "docs/http-api.md")
	r.Git("commit", "-qm", "rename api doc")
	aff := affected(t, r)
	mustContain(t, "affected", affectedPaths(aff), apiSpec)
	mustContain(t, "renamed_files", aff.RenamedFiles, reconcile.Rename{From: "docs/api.md", To: "docs/http-api.md"})
	d := specDiff(t, r, "api")
	mustContain(t, "renamed_files", d.RenamedFiles, reconcile.Rename{From: "docs/api.md", To: "docs/http-api.md"})
	if !strings.Contains(strings.Join(d.Warnings, "\n"), `orphan glob: .gloss/specs/api.spec.yaml artifacts.docs "docs/api.md" matches no file`) {
		t.Errorf("no orphan-glob warning: %v", d.Warnings)
	}
	if !strings.Contains(d.Diff, "rename from docs/api.md") {
		t.Errorf("diff lacks the rename:\n%s", d.Diff)
	}
}

// 9. mark_reconciled then diff: the file is skipped; bypass_cache shows
// it again; clear_cache makes the cache cold (and keeps history).
func TestScenario09MarkAndBypass(t *testing.T) {
	r := todo(t)
	r.Commit("handler", map[string]string{"internal/api/handlers.go": "package api\n\nfunc Create(title string) int { return 7 }\n"})
	var mark reconcile.MarkResult
	glossJSON(t, r, &mark, "spec", "mark", "internal/api/handlers.go", "scratch/notes.txt", "nope.go")
	if mark.Updated != 1 || len(mark.Records) != 1 || mark.Records[0].SpecPath != apiSpec {
		t.Fatalf("mark: %+v", mark)
	}
	if len(mark.Skipped) != 2 {
		t.Fatalf("unspecced and missing files must be reported as skipped: %+v", mark.Skipped)
	}
	d := specDiff(t, r, "api")
	mustContain(t, "skipped", d.Skipped, "internal/api/handlers.go")
	mustNotContain(t, "files", d.Files, "internal/api/handlers.go")
	if d.Cache.State != "warm" || d.Cache.Record != mark.Records[0].ID {
		t.Errorf("cache: %+v", d.Cache)
	}
	if strings.Contains(d.Diff, "handlers.go") {
		t.Errorf("a reconciled file is out of the diff")
	}
	d = specDiff(t, r, "api", "--bypass-cache")
	mustContain(t, "files (bypass)", d.Files, "internal/api/handlers.go")
	if d.Cache.State != "bypassed" {
		t.Errorf("bypass: %+v", d.Cache)
	}
	var clr reconcile.ClearResult
	glossJSON(t, r, &clr, "spec", "clear")
	d = specDiff(t, r, "api")
	mustContain(t, "files (cleared)", d.Files, "internal/api/handlers.go")
	if d.Cache.State != "cold" {
		t.Errorf("after clear: %+v", d.Cache)
	}
	// History is kept: the mark and the tombstone are both in the ref.
	log := r.Git("notes", "--ref", "refs/notes/gloss/reconcile", "show", "HEAD")
	if !strings.Contains(log, `"kind":"mark"`) || !strings.Contains(log, `"kind":"clear"`) {
		t.Errorf("records: %s", log)
	}
	// Marking again after the tombstone warms it up.
	r.MustGloss("spec", "mark", "internal/api/handlers.go")
	d = specDiff(t, r, "api")
	mustContain(t, "skipped (re-marked)", d.Skipped, "internal/api/handlers.go")
}

// 10. snapshot_state, then rewrite the recorded commit: the records follow
// the rewrite (notes.rewriteRef, set by init), and a clone with only the
// committed snapshot (no notes) still starts warm.
func TestScenario10HistoryRewrite(t *testing.T) {
	r := todo(t)
	r.MustGloss("init")
	r.Commit("handler", map[string]string{"internal/api/handlers.go": "package api\n\nfunc Create(title string) int { return 8 }\n"})
	r.MustGloss("spec", "mark", "internal/api/handlers.go", apiSpec)
	var snap reconcile.SnapshotResult
	glossJSON(t, r, &snap, "spec", "snapshot")
	if snap.StatePath != reconcile.StatePath || snap.Specs != 1 || snap.Files != 1 {
		t.Fatalf("snapshot: %+v", snap)
	}
	state := r.Read(reconcile.StatePath)
	if !strings.HasSuffix(state, "}\n") || !strings.Contains(state, `"schema_version": "1"`) || !strings.Contains(state, `"file_fingerprints": {`+"\n"+`    "internal/api/handlers.go": {`) {
		t.Fatalf("state file not in NotarAI's format:\n%s", state)
	}
	// Fold the state file into the recorded commit: its git_hash is no
	// longer an ancestor of HEAD.
	old := r.Git("rev-parse", "HEAD")
	r.Git("add", reconcile.StatePath)
	r.Git("commit", "-q", "--amend", "--no-edit")
	if out, _ := r.GitErr("merge-base", "--is-ancestor", old, "HEAD"); out != "" {
		t.Fatal(out)
	}
	if _, err := r.GitErr("merge-base", "--is-ancestor", old, "HEAD"); err == nil {
		t.Fatalf("the recorded commit is still an ancestor")
	}
	d := specDiff(t, r, "api")
	if d.Cache.Source != "records+snapshot" && d.Cache.Source != "records" {
		t.Errorf("records did not follow the amend: %+v", d.Cache)
	}
	mustContain(t, "skipped after amend", d.Skipped, "internal/api/handlers.go")

	// A clone of a pushed copy has the snapshot but no notes.
	bare := fixtures.NewBare(t)
	r.Git("push", "-q", "--no-verify", bare, "feature:main")
	c := fixtures.Clone(t, bare)
	if out := c.Git("for-each-ref", "refs/notes"); out != "" {
		t.Fatalf("the clone should have no notes: %s", out)
	}
	var cd reconcile.DiffResult
	glossJSON(t, c, &cd, "spec", "diff", "api", "--base", "HEAD")
	if cd.Cache.State != "warm" || cd.Cache.Source != "snapshot" {
		t.Fatalf("fresh clone must start warm from the snapshot: %+v", cd.Cache)
	}
	mustContain(t, "skipped from snapshot", cd.Skipped, "internal/api/handlers.go")
	var st reconcile.StatusResult
	glossJSON(t, c, &st, "spec", "status")
	for _, row := range st.Specs {
		if row.SpecPath == apiSpec && row.Source != "snapshot" {
			t.Errorf("status source: %+v", row)
		}
	}
}

// 11. pre-push: a branch at (1) fails without records under a strict
// policy and passes with them; a new branch (all-zero remote sha) is
// compared from its merge-base with the remote's default branch;
// --no-verify bypasses; warn only warns; off is silent.
func TestScenario11PrePush(t *testing.T) {
	bare := fixtures.NewBare(t)
	r := fixtures.NewTodoService(t)
	r.MustGloss("init")
	r.Git("remote", "add", "origin", bare)
	r.Git("push", "-q", "origin", "main")
	r.Git("fetch", "-q", "origin")
	r.Git("remote", "set-head", "origin", "main")
	r.Git("checkout", "-q", "-b", "feature")
	r.Commit("handler", map[string]string{"internal/api/handlers.go": "package api\n\nfunc Create(title string) int { return 11 }\n"})

	push := func(args ...string) (string, error) {
		return r.GitErr(append([]string{"push", "origin"}, args...)...)
	}
	// warn (the system spec's coverage.policy): pushes, with a warning.
	out, err := push("feature:warned")
	if err != nil || !strings.Contains(out, "gloss: warning") || !strings.Contains(out, apiSpec) || !strings.Contains(out, "internal/api/handlers.go") {
		t.Fatalf("warn policy: %v\n%s", err, out)
	}
	// A new branch is compared from its merge-base with origin/main: only
	// the feature's own change counts, not every file of the repository.
	if strings.Contains(out, storageSpec) || strings.Contains(out, systemSpec) {
		t.Fatalf("new branch compared from the root instead of the merge-base:\n%s", out)
	}
	// strict: blocked, with what to run.
	r.Git("config", "gloss.prepush", "strict")
	out, err = push("feature")
	if err == nil || !strings.Contains(out, "push blocked") || !strings.Contains(out, "git gloss spec mark") {
		t.Fatalf("strict without records must block: %v\n%s", err, out)
	}
	if _, e := r.GitErr("ls-remote", "--exit-code", "origin", "refs/heads/feature"); e == nil {
		t.Fatalf("the blocked branch reached the remote")
	}
	// --no-verify bypasses.
	if out, err := push("--no-verify", "feature:bypassed"); err != nil {
		t.Fatalf("--no-verify: %v\n%s", err, out)
	}
	// With records, the new branch passes.
	r.MustGloss("spec", "mark", "internal/api/handlers.go")
	out, err = push("feature")
	if err != nil || strings.Contains(out, "gloss:") {
		t.Fatalf("strict with records must pass quietly: %v\n%s", err, out)
	}
	// An update of an existing branch: only the new range counts.
	r.Commit("storage", map[string]string{"internal/storage/memory.go": "package storage\n\ntype Memory struct{ items []int }\n"})
	out, err = push("feature")
	if err == nil || !strings.Contains(out, storageSpec) || strings.Contains(out, apiSpec) {
		t.Fatalf("update range: want storage only, blocked: %v\n%s", err, out)
	}
	// An invalid spec blocks under strict even without drift.
	r.MustGloss("spec", "mark", "internal/storage/memory.go")
	r.Commit("break spec", map[string]string{storageSpec: "schema_version: 0.8\nintent: x\nartifacts: {}\n"})
	out, err = push("feature")
	if err == nil || !strings.Contains(out, "invalid:") {
		t.Fatalf("an invalid affected spec must block under strict: %v\n%s", err, out)
	}
	// off: silent.
	r.Git("config", "gloss.prepush", "off")
	if out, err := push("feature"); err != nil || strings.Contains(out, "gloss:") {
		t.Fatalf("off: %v\n%s", err, out)
	}
}

// 12. Validation of a spec by path, as an editor hook would call it: an
// absolute path to an invalid spec fails with line-numbered errors, a
// relative path is resolved, a non-spec file is refused as a usage error,
// broken YAML is a FAIL, never a crash.
func TestScenario12ValidatePaths(t *testing.T) {
	r := todo(t)
	r.Write(".gloss/specs/bad.spec.yaml", "schema_version: '0.8'\nintent: x\nartifacts: {}\n")
	out, err := r.Gloss("spec", "validate", r.Path(".gloss/specs/bad.spec.yaml"))
	if fixtures.ExitCode(err) != 1 || !strings.Contains(out, "FAIL .gloss/specs/bad.spec.yaml") || !strings.Contains(out, "line 1: /: missing required key \"behaviors\"") {
		t.Fatalf("absolute invalid: %v\n%s", err, out)
	}
	cmd := r.Command(fixtures.Binary(t), "spec", "validate", "../specs/api.spec.yaml")
	cmd.Dir = r.Path(".gloss/specs")
	if data, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(data), "PASS .gloss/specs/api.spec.yaml") {
		t.Fatalf("relative: %v\n%s", err, data)
	}
	if out, err := r.Gloss("spec", "validate", "README.md"); fixtures.ExitCode(err) != 2 || !strings.Contains(out, "not a spec file") {
		t.Fatalf("non-spec file: %v\n%s", err, out)
	}
	r.Write(".gloss/specs/bad.spec.yaml", "schema_version: '0.8'\n  - : [\n\xff")
	if out, err := r.Gloss("spec", "validate", ".gloss/specs/bad.spec.yaml"); fixtures.ExitCode(err) != 1 || !strings.Contains(out, "FAIL") {
		t.Fatalf("malformed: %v\n%s", err, out)
	}
	// The tools keep working next to a broken spec, and say why it is
	// ignored.
	aff := affected(t, r)
	if !strings.Contains(strings.Join(aff.Warnings, "\n"), "bad.spec.yaml is invalid") {
		t.Fatalf("warnings: %v", aff.Warnings)
	}
}

// 13. init twice: one pre-push shim call, one fetch refspec for the notes
// (reconcile records included), no rewrite of an unparseable .mcp.json
// (init refuses it before changing anything; with --no-mcp it sets up the
// rest); specs and records are untouched.
func TestScenario13InitTwice(t *testing.T) {
	r := todo(t)
	bare := fixtures.NewBare(t)
	r.Git("remote", "add", "origin", bare)
	r.Write(".mcp.json", "{not json")
	r.MustGloss("spec", "mark", "internal/api/handlers.go")
	if out, err := r.Gloss("init"); err == nil {
		t.Fatalf("init accepted an unparseable .mcp.json:\n%s", out)
	}
	if fetch, _ := r.GitErr("config", "--get-all", "remote.origin.fetch"); strings.Contains(fetch, "refs/notes/gloss") {
		t.Fatalf("a refused init changed the config: %s", fetch)
	}
	for i := 0; i < 2; i++ {
		r.MustGloss("init", "--no-mcp")
	}
	if got := r.Read(".mcp.json"); got != "{not json" {
		t.Fatalf(".mcp.json rewritten: %q", got)
	}
	fetch := fixtures.Lines(r.Git("config", "--get-all", "remote.origin.fetch"))
	n := 0
	for _, f := range fetch {
		if strings.Contains(f, "refs/notes/gloss/*") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("notes fetch refspecs: %v", fetch)
	}
	hooksDir := r.Git("rev-parse", "--git-path", "hooks")
	data, err := os.ReadFile(r.Path(hooksDir + "/pre-push"))
	if err != nil {
		t.Fatal(err)
	}
	if c := strings.Count(string(data), "git-gloss hook \"$hook\""); c != 1 || !strings.Contains(string(data), "hook=pre-push") {
		t.Fatalf("pre-push shim calls gloss %d times:\n%s", c, data)
	}
	d := specDiff(t, r, "api")
	mustContain(t, "skipped after init", d.Skipped, "internal/api/handlers.go")
}
