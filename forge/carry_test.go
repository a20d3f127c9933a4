package forge_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// regionView is the part of a read result these tests look at.
type regionView struct {
	ID     string `json:"id"`
	Commit string `json:"commit"`
	Intent string `json:"intent"`
	Source string `json:"source"`
	Lines  struct{ Start, End int }
	Anchor *struct{ Name string }
}

func glossJSON(t *testing.T, fx *fixtures.Repo, v any, args ...string) {
	t.Helper()
	cmd := fx.Command(fixtures.Binary(t), append(args, "--json")...)
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(interface{ Stderr() []byte }); ok {
			stderr = string(ee.Stderr())
		}
		t.Fatalf("git gloss %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("git gloss %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// derivedFrom reads the raw record behind a read region: read does not
// show provenance beyond source.
func derivedFrom(t *testing.T, fx *fixtures.Repo, r regionView) []string {
	t.Helper()
	note := fx.Git("notes", "--ref", "refs/notes/gloss/annotations", "show", r.Commit)
	for _, line := range fixtures.Lines(note) {
		var rec struct {
			ID          string   `json:"id"`
			DerivedFrom []string `json:"derived_from"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && rec.ID == r.ID {
			return rec.DerivedFrom
		}
	}
	t.Fatalf("record %s not in the note of %s:\n%s", r.ID, r.Commit, note)
	return nil
}

func readRegions(t *testing.T, fx *fixtures.Repo, file, anchor string) []regionView {
	t.Helper()
	var res struct{ Regions []regionView }
	glossJSON(t, fx, &res, "read", file, "--anchor", anchor)
	return res.Regions
}

// developer sets up a clone with gloss's hooks, as a team member has it.
func developer(t *testing.T, bare string) *fixtures.Repo {
	t.Helper()
	fx := fixtures.Clone(t, bare)
	fx.MustGloss("init", "--no-mcp")
	return fx
}

// forgeClone is the forge's side: a plain clone without gloss's hooks or
// fetch refspecs, where merges are made with git alone.
func forgeClone(t *testing.T, bare string) *fixtures.Repo {
	t.Helper()
	fx := fixtures.Clone(t, bare)
	if hooks, _ := fx.GitErr("config", "--get-all", "core.hooksPath"); hooks != "" {
		t.Fatalf("the forge clone has hooks: %s", hooks)
	}
	return fx
}

const shared = "package pkg\n\n// Shared is used by every handler.\nfunc Shared() int {\n\treturn 1\n}\n"

// newProject is a remote with main holding pkg/shared.go and gloss set
// up, and a developer clone with a feature branch of three annotated
// commits, pushed with its notes.
func newProject(t *testing.T) (bare string, dev *fixtures.Repo, feature []string) {
	t.Helper()
	fixtures.Binary(t)
	bare = fixtures.NewBare(t)
	seed := fixtures.Clone(t, bare)
	seed.Commit("initial", map[string]string{"README.md": "demo\n", "pkg/shared.go": shared})
	seed.Git("push", "-q", "origin", "main")

	dev = developer(t, bare)
	dev.Git("checkout", "-q", "-b", "feature")
	for _, n := range []string{"Alpha", "Beta"} {
		file := "pkg/" + strings.ToLower(n) + ".go"
		dev.MustGloss("annotate", "--file", file, "--anchor", n, "--intent", "why "+n)
		feature = append(feature, dev.Commit("add "+n, map[string]string{file: fmt.Sprintf("package pkg\n\n// %s does its job.\nfunc %s() int {\n\treturn Shared() + %d\n}\n", n, n, len(n))}))
	}
	dev.MustGloss("annotate", "--file", "pkg/shared.go", "--anchor", "Shared", "--intent", "Shared counts twice now")
	feature = append(feature, dev.Commit("shared: count twice", map[string]string{"pkg/shared.go": strings.Replace(shared, "return 1", "return 2", 1)}))
	dev.Git("push", "-q", "origin", "feature")
	dev.MustGloss("sync")
	return bare, dev, feature
}

// moveMain lands an unrelated change on main first, which shifts
// shared.go's lines: the squash's lines differ from the branch's.
func moveMain(t *testing.T, bare string) {
	t.Helper()
	other := forgeClone(t, bare)
	other.Commit("docs: header", map[string]string{"pkg/shared.go": "// Package pkg is shared code.\n// It has a header now.\n" + shared})
	other.Git("push", "-q", "origin", "main")
}

// squashMerge does what a forge's "squash and merge" does, with plain git:
// merge --squash on a clone with no gloss hooks, commit, push, and delete
// the branch (keeping the pull request's head ref, as GitHub and GitLab
// do).
func squashMerge(t *testing.T, bare string) (*fixtures.Repo, string) {
	t.Helper()
	fx := forgeClone(t, bare)
	fx.Git("fetch", "-q", "origin", "feature")
	fx.Git("merge", "-q", "--squash", "origin/feature")
	fx.Git("commit", "-q", "-m", "Feature (#1)", "-m", "* add Alpha\n* add Beta\n* shared: count twice")
	fx.Git("push", "-q", "origin", "main", "origin/feature:refs/pull/1/head", "origin/feature:refs/merge-requests/1/head")
	fx.Git("push", "-q", "origin", "--delete", "feature")
	return fx, fx.Git("rev-parse", "HEAD")
}

// checkOnMain reads, on a fresh third clone, every annotation of the
// feature on main's lines.
func checkOnMain(t *testing.T, bare, squash string, feature []string, provenance string) {
	t.Helper()
	third := developer(t, bare)
	third.MustGloss("sync")
	if got := third.Git("rev-parse", "HEAD"); provenance == "squash" && got != squash {
		t.Fatalf("third clone's main is %s, want the squash %s", got, squash)
	}
	for i, n := range []string{"Alpha", "Beta"} {
		regs := readRegions(t, third, "pkg/"+strings.ToLower(n)+".go", n)
		if len(regs) != 1 || regs[0].Intent != "why "+n || regs[0].Source != provenance || !slices.Contains(derivedFrom(t, third, regs[0]), feature[i]) {
			t.Fatalf("%s on main: %+v", n, regs)
		}
		if provenance == "squash" && regs[0].Commit != squash {
			t.Errorf("%s record is on %s, want the squash %s", n, regs[0].Commit, squash)
		}
	}
	regs := readRegions(t, third, "pkg/shared.go", "Shared")
	var found bool
	for _, r := range regs {
		if r.Intent == "Shared counts twice now" {
			found = true
			// main's header moved Shared (lines 3-6 on the branch) down by two.
			if r.Source != provenance || r.Lines.Start != 5 || r.Lines.End != 8 || !slices.Contains(derivedFrom(t, third, r), feature[2]) {
				t.Errorf("Shared on main: %+v", r)
			}
		}
	}
	if !found {
		t.Fatalf("Shared's annotation is not on main: %+v", regs)
	}
}

// TestCarryAfterForgeSquashMerge is the CI job after a squash merge: a CI
// clone (no notes, no branch) fetches the pull request's head, carries its
// records onto the squash, pushes them, and a third clone reads them on
// main's lines.
func TestCarryAfterForgeSquashMerge(t *testing.T) {
	bare, _, feature := newProject(t)
	moveMain(t, bare)
	_, squash := squashMerge(t, bare)

	ci := forgeClone(t, bare)
	ci.Git("fetch", "-q", "origin", "refs/pull/1/head")
	var res struct {
		Carried int
		Pairs   []struct {
			Target, Provenance, Match string
			Sources                   []string
		}
		Sync *struct{ Pushed []string }
	}
	glossJSON(t, ci, &res, "carry", "--from", "FETCH_HEAD", "--to", "HEAD")
	if res.Carried == 0 || len(res.Pairs) != 1 || res.Pairs[0].Target != squash || res.Pairs[0].Provenance != "squash" || !slices.Equal(res.Pairs[0].Sources, feature) {
		t.Fatalf("carry: %+v", res)
	}
	if res.Sync == nil || !slices.Contains(res.Sync.Pushed, "refs/notes/gloss/annotations") {
		t.Fatalf("carry did not push the notes: %+v", res.Sync)
	}
	checkOnMain(t, bare, squash, feature, "squash")

	// Twice is the same as once, and the push was not forced: a second CI
	// run carries nothing new.
	again := forgeClone(t, bare)
	again.Git("fetch", "-q", "origin", "refs/pull/1/head")
	glossJSON(t, again, &res, "carry", "--from", "FETCH_HEAD", "--to", "HEAD")
	if res.Carried != 0 {
		t.Fatalf("second carry copied %d records again", res.Carried)
	}
}

// TestCarryFindsDeletedBranchByPatchID is a developer whose merged branch
// was deleted on the forge: without --from, carry finds the branch's
// commits among the annotated ones by the squash's patch id.
func TestCarryFindsDeletedBranchByPatchID(t *testing.T) {
	bare, dev, feature := newProject(t)
	moveMain(t, bare)
	_, squash := squashMerge(t, bare)

	dev.Git("checkout", "-q", "main")
	dev.Git("pull", "-q", "--ff-only", "origin", "main")
	dev.Git("branch", "-q", "-D", "feature")
	var res struct {
		Carried int
		Pairs   []struct {
			Target, Provenance, Match string
			Sources                   []string
		}
	}
	glossJSON(t, dev, &res, "carry")
	if len(res.Pairs) != 1 || res.Pairs[0].Target != squash || res.Pairs[0].Match != "squash-patch-id" || !slices.Equal(res.Pairs[0].Sources, feature) {
		t.Fatalf("carry by patch id: %+v", res)
	}
	checkOnMain(t, bare, squash, feature, "squash")
}

// TestCarryAfterRebaseMerge is "rebase and merge": each commit is copied
// onto main; each copy takes its own original's records (patch id), with
// provenance rebase.
func TestCarryAfterRebaseMerge(t *testing.T) {
	bare, _, feature := newProject(t)
	moveMain(t, bare)
	fx := forgeClone(t, bare)
	before := fx.Git("rev-parse", "HEAD")
	fx.Git("fetch", "-q", "origin", "feature")
	for _, c := range feature {
		fx.Git("cherry-pick", "--allow-empty", c)
	}
	fx.Git("push", "-q", "origin", "main")
	after := fx.Git("rev-parse", "HEAD")

	ci := forgeClone(t, bare)
	ci.Git("fetch", "-q", "origin", "feature")
	var res struct {
		Pairs []struct {
			Target, Provenance, Match string
			Sources                   []string
		}
	}
	glossJSON(t, ci, &res, "carry", "--from", "FETCH_HEAD", "--to", before+".."+after)
	if len(res.Pairs) != 3 {
		t.Fatalf("rebase merge: want 3 one-to-one pairs: %+v", res)
	}
	for _, p := range res.Pairs {
		if p.Provenance != "rebase" || p.Match != "patch-id" || len(p.Sources) != 1 {
			t.Errorf("pair %+v", p)
		}
	}
	checkOnMain(t, bare, after, feature, "rebase")
}

type carryOut struct {
	Carried int
	Pairs   []struct {
		Target, Provenance, Match string
		Sources                   []string
	}
}

// TestCarryFindsRebaseMergeByPatchID: after a rebase merge, a developer
// clone that still has the original commits carries each one's records
// onto its copy without being told which branch it was.
func TestCarryFindsRebaseMergeByPatchID(t *testing.T) {
	bare, dev, feature := newProject(t)
	moveMain(t, bare)
	fx := forgeClone(t, bare)
	before := fx.Git("rev-parse", "HEAD")
	fx.Git("fetch", "-q", "origin", "feature")
	for _, c := range feature {
		fx.Git("cherry-pick", c)
	}
	fx.Git("push", "-q", "origin", "main", ":feature")
	dev.Git("checkout", "-q", "main")
	dev.Git("pull", "-q", "--ff-only", "origin", "main")
	after := dev.Git("rev-parse", "HEAD")

	var res carryOut
	glossJSON(t, dev, &res, "carry", "--to", before+".."+after)
	if len(res.Pairs) != 3 {
		t.Fatalf("want three pairs: %+v", res)
	}
	for i, p := range res.Pairs {
		if p.Match != "patch-id" || p.Provenance != "rebase" || len(p.Sources) != 1 || p.Sources[0] != feature[i] {
			t.Errorf("pair %d: %+v", i, p)
		}
	}
	checkOnMain(t, bare, after, feature, "rebase")
}

// TestCarryFindsSquashByMessage: `git merge --squash` proposes a message
// that lists the squashed commits; a squash committed with it is matched
// by those ids.
func TestCarryFindsSquashByMessage(t *testing.T) {
	bare, dev, feature := newProject(t)
	moveMain(t, bare)
	fx := forgeClone(t, bare)
	fx.Git("fetch", "-q", "origin", "feature")
	fx.Git("merge", "-q", "--squash", "origin/feature")
	fx.Git("commit", "-q", "--no-edit")
	fx.Git("push", "-q", "origin", "main", ":feature")
	squash := fx.Git("rev-parse", "HEAD")
	dev.Git("checkout", "-q", "main")
	dev.Git("pull", "-q", "--ff-only", "origin", "main")

	var res carryOut
	glossJSON(t, dev, &res, "carry")
	if len(res.Pairs) != 1 || res.Pairs[0].Match != "message" || res.Pairs[0].Target != squash || !slices.Equal(res.Pairs[0].Sources, feature) {
		t.Fatalf("carry by message: %+v", res)
	}
	checkOnMain(t, bare, squash, feature, "squash")
}

// TestCarryNeedsNothingAfterATrueMerge: a merge commit keeps the branch's
// commits on main, with their notes; carry copies nothing.
func TestCarryNeedsNothingAfterATrueMerge(t *testing.T) {
	bare, _, feature := newProject(t)
	moveMain(t, bare)
	fx := forgeClone(t, bare)
	fx.Git("fetch", "-q", "origin", "feature")
	fx.Git("merge", "-q", "--no-ff", "--no-edit", "origin/feature")
	fx.Git("push", "-q", "origin", "main")
	base := fx.Git("merge-base", "HEAD~1", "origin/feature")

	ci := forgeClone(t, bare)
	var res struct {
		carryOut
		Merged   []string `json:"already_merged"`
		Warnings []string
	}
	glossJSON(t, ci, &res, "carry", "--from", base+".."+feature[2], "--to", "HEAD")
	if res.Carried != 0 || len(res.Pairs) != 0 || !slices.Equal(res.Merged, feature) || len(res.Warnings) != 0 {
		t.Fatalf("after a true merge: %+v", res)
	}
}
