package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/cli"
	"github.com/gloss-dev/gloss/fixtures"
)

// The small things a newcomer meets first (issue 32, point 4), each
// through the real binary.

// TestBareGlossPrintsTheOverview: `git gloss` alone is a person asking
// what there is: the command overview, and success.
func TestBareGlossPrintsTheOverview(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	out, err := fx.Run("git", "gloss")
	if fixtures.ExitCode(err) != cli.ExitOK {
		t.Fatalf("git gloss: exit %d\n%s", fixtures.ExitCode(err), out)
	}
	for _, want := range []string{"Usage: git gloss <command>", "Get started in a repository", "task", "read"} {
		if !strings.Contains(out, want) {
			t.Errorf("git gloss does not print the overview (%q):\n%s", want, out)
		}
	}
}

// TestAgentStatusNamesRepositoryPaths: agent status names the project's
// files relative to the repository and the user's under ~, as docs/cli.md
// promises for every output.
func TestAgentStatusNamesRepositoryPaths(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("first", map[string]string{"a.txt": "a\n"})
	out := fx.MustGloss("agent", "status")
	if strings.Contains(out, fx.Dir) {
		t.Errorf("agent status prints absolute paths:\n%s", out)
	}
	for _, want := range []string{" .claude/settings.json ", "~/.claude/settings.json", "AGENTS.md absent"} {
		if !strings.Contains(out, want) {
			t.Errorf("agent status lacks %q:\n%s", want, out)
		}
	}
}

// TestDependsOnTakesPartOfAnID: --depends-on takes any unique part of a
// task id, as task work does, and stores the whole id; an unknown part is
// not found and an ambiguous one a conflict.
func TestDependsOnTakesPartOfAnID(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("first", map[string]string{"a.txt": "a\n"})
	var first, second struct {
		ID string `json:"spec_id"`
	}
	if err := json.Unmarshal([]byte(fx.MustGloss("task", "add", "Write the parser", "--json")), &first); err != nil || first.ID == "" {
		t.Fatalf("task add: %v", err)
	}
	if err := json.Unmarshal([]byte(fx.MustGloss("task", "add", "Write the printer", "--json")), &second); err != nil || second.ID == "" {
		t.Fatalf("task add: %v", err)
	}
	suffix := first.ID[len(first.ID)-3:]
	var third struct {
		ID string `json:"spec_id"`
	}
	if err := json.Unmarshal([]byte(fx.MustGloss("task", "add", "Wire them together", "--depends-on", suffix, "--json")), &third); err != nil {
		t.Fatal(err)
	}
	if file := fx.Read(".gloss/tasks/" + third.ID + ".md"); !strings.Contains(file, first.ID) {
		t.Errorf("--depends-on %s did not store the whole id %s:\n%s", suffix, first.ID, file)
	}
	fx.MustGloss("task", "update", third.ID, "--depends-on", second.ID[len(second.ID)-3:])
	if file := fx.Read(".gloss/tasks/" + third.ID + ".md"); !strings.Contains(file, second.ID) {
		t.Errorf("task update --depends-on did not store the whole id %s:\n%s", second.ID, file)
	}
	if out, err := fx.Gloss("task", "add", "x", "--depends-on", "zzzzzz"); fixtures.ExitCode(err) != cli.ExitNotFound {
		t.Errorf("an unknown dependency: exit %d\n%s", fixtures.ExitCode(err), out)
	}
	date := first.ID[:10] // both tasks were made today: the date is in both
	if out, err := fx.Gloss("task", "add", "x", "--depends-on", date); fixtures.ExitCode(err) != cli.ExitConflict || !strings.Contains(out, "Ambiguous") {
		t.Errorf("an ambiguous dependency: exit %d\n%s", fixtures.ExitCode(err), out)
	}
}

// TestPrePushHintNamesTheRealDefaultBranch: in a repository whose branch
// is master, the pre-push drift hint compares with master, not
// origin/main.
func TestPrePushHintNamesTheRealDefaultBranch(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Git("checkout", "-q", "-b", "master")
	fx.Commit("code", map[string]string{"src/a.go": "package a\n"})
	fx.MustGloss("init", "--no-mcp")
	fx.MustGloss("spec", "new", "api", "--govern", "src/**")
	fx.Git("add", "-A")
	fx.Git("commit", "-qm", "spec")
	fx.MustGloss("spec", "mark", "src/a.go")
	fx.Write("src/a.go", "package a\n\nfunc A() {}\n")
	fx.Git("commit", "-qam", "change what the spec governs")
	bare := fixtures.NewBare(t)
	fx.Git("remote", "add", "origin", bare)
	out, err := fx.GitErr("push", "origin", "master")
	if err != nil {
		t.Fatalf("push: %v\n%s", err, out)
	}
	if !strings.Contains(out, "out of step") {
		t.Fatalf("the push was not warned about drift:\n%s", out)
	}
	if strings.Contains(out, "origin/main") || !strings.Contains(out, "--base master") {
		t.Errorf("the hint does not name master:\n%s", out)
	}
}

// TestDocPatchHelpListsItsOperations: doc patch --help lists the 25
// operations with their fields.
func TestDocPatchHelpListsItsOperations(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	out := fx.MustGloss("doc", "patch", "--help")
	if !strings.Contains(out, "25 operations") {
		t.Errorf("doc patch --help does not count its operations:\n%s", out)
	}
	for _, want := range []string{"replace_block             id content", "add_block                 parent content [position]",
		"rename_id                 from to", "delete_dataset_column     id column", "remove_attribute          id key"} {
		if !strings.Contains(out, want) {
			t.Errorf("doc patch --help lacks %q:\n%s", want, out)
		}
	}
}

// TestDocNewTemplateTakesTheFirstEdit: the template's first natural edits
// work. They failed three ways: the placeholder text was a paragraph with
// no id, so no op could replace or remove it (replace_body on its section
// is refused: "needs a directive"); the template said to write each
// decision "in a paragraph of its own", and add_block refuses a paragraph;
// and a decision added as a directive warned decision-without-status
// below the placeholder that stayed.
func TestDocNewTemplateTakesTheFirstEdit(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("first", map[string]string{"a.txt": "a\n"})
	out := fx.MustGloss("doc", "new", "plan.noma")
	if !strings.Contains(out, `"replace_body","id":"purpose-text"`) {
		t.Errorf("doc new does not show the first patch:\n%s", out)
	}
	for _, op := range []string{
		`{"op":"replace_body","id":"purpose-text","content":"Tracks the 2.0 release."}`,
		`{"op":"replace_body","id":"first-decision","content":"We build in Go: one static binary."}`,
		`{"op":"update_attribute","id":"first-decision","key":"status","value":"accepted"}`,
		`{"op":"add_block","parent":"decisions","content":"::decision{id=\"licence\" status=\"proposed\"}\nApache-2.0.\n::"}`,
	} {
		if out, err := fx.Gloss("doc", "patch", "plan.noma", "--op", op); err != nil || !strings.Contains(out, "validation: ok") {
			t.Errorf("%s: %v\n%s", op, err, out)
		}
	}
	doc := fx.Read("plan.noma")
	for _, want := range []string{"Tracks the 2.0 release.", "We build in Go", `status="accepted"`, "Apache-2.0."} {
		if !strings.Contains(doc, want) {
			t.Errorf("the document lacks %q:\n%s", want, doc)
		}
	}
	if strings.Contains(doc, "What this document is for") {
		t.Errorf("the placeholder stayed:\n%s", doc)
	}
	if out := fx.MustGloss("doc", "check", "plan.noma"); !strings.Contains(out, "No issues found") {
		t.Errorf("the edited document does not check clean:\n%s", out)
	}
	// A hand edit of the placeholder text checks clean too.
	fx.MustGloss("doc", "new", "notes.noma")
	fx.Write("notes.noma", strings.Replace(fx.Read("notes.noma"), "What this document is for, and who keeps it up to date.", "Meeting notes; Ada keeps them.", 1))
	if out := fx.MustGloss("doc", "check", "notes.noma"); !strings.Contains(out, "No issues found") {
		t.Errorf("a hand-edited template does not check clean:\n%s", out)
	}
}

// TestSyncSaysWhereAndDryRunChangesNothing: --dry-run says what a sync
// would do and changes nothing (no local ref, no tracking ref, nothing on
// the remote); sync without a remote uses the one git push would and
// says, on the first sync, what it pushes there; a repository with no
// remote is told to add one.
func TestSyncSaysWhereAndDryRunChangesNothing(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.MustGloss("init", "--no-mcp")
	fx.Commit("add a", map[string]string{"a.go": "package a\n"})
	if out, err := fx.Gloss("sync"); fixtures.ExitCode(err) != cli.ExitUsage || !strings.Contains(out, "git remote add") {
		t.Errorf("sync with no remote: exit %d\n%s", fixtures.ExitCode(err), out)
	}
	bare := fixtures.NewBare(t)
	fx.Git("remote", "add", "team", bare)
	refs := func(dir string) string {
		out, _ := fx.Run("git", "--git-dir", dir, "for-each-ref", "refs/notes/")
		return out
	}
	before := refs(filepath.Join(fx.Dir, ".git"))

	out := fx.MustGloss("sync", "--dry-run")
	for _, want := range []string{"dry run: nothing was changed", "team (the only remote)", "push to team gloss/annotations"} {
		if !strings.Contains(out, want) {
			t.Errorf("sync --dry-run lacks %q:\n%s", want, out)
		}
	}
	if got := refs(bare); got != "" {
		t.Errorf("sync --dry-run pushed: %s", got)
	}
	if got := refs(filepath.Join(fx.Dir, ".git")); got != before {
		t.Errorf("sync --dry-run changed local refs:\n%s\nwas\n%s", got, before)
	}
	if _, err := os.Stat(filepath.Join(fx.Dir, ".git", "gloss", "last-sync.json")); err == nil {
		t.Errorf("sync --dry-run recorded a sync")
	}

	out = fx.MustGloss("sync")
	if !strings.Contains(out, "first sync with team:") || !strings.Contains(out, "never your branches") || !strings.Contains(out, "pushed gloss/annotations") {
		t.Errorf("the first sync does not say what it pushes where:\n%s", out)
	}
	if got := refs(bare); !strings.Contains(got, "refs/notes/gloss/annotations") {
		t.Errorf("sync did not push: %s", got)
	}
	out = fx.MustGloss("sync")
	if strings.Contains(out, "first sync") || !strings.Contains(out, "up to date gloss/annotations") {
		t.Errorf("a second sync:\n%s", out)
	}
	// A clone behind: the dry run says it would take the remote's notes.
	clone := fixtures.Clone(t, bare)
	fx.Commit("add b", map[string]string{"b.go": "package a\n"})
	fx.MustGloss("sync")
	clone.Git("fetch", "-q", "origin", "+refs/notes/gloss/*:refs/notes/gloss/*")
	fx.Commit("add c", map[string]string{"c.go": "package a\n"})
	fx.MustGloss("sync", "team")
	if out := clone.MustGloss("sync", "-n"); !strings.Contains(out, "fetch from origin and merge three-way gloss/annotations") {
		t.Errorf("dry run of a clone behind:\n%s", out)
	}
	fx.Git("remote", "add", "other", fixtures.NewBare(t))
	if out, err := fx.Gloss("sync"); fixtures.ExitCode(err) != cli.ExitUsage || !strings.Contains(out, "name one") {
		t.Errorf("sync with two remotes and no origin: exit %d\n%s", fixtures.ExitCode(err), out)
	}
}
