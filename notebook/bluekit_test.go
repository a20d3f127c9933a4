package notebook_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// gloss runs a git-gloss command with extra environment variables.
func glossEnv(t *testing.T, fx *fixtures.Repo, env []string, args ...string) string {
	t.Helper()
	cmd := fx.Command(fixtures.Binary(t), args...)
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git-gloss %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

const deployKit = "---\nid: deploy\ntype: kit\ntags: [ops]\n---\n# Deploy\n\nTag, then push the tag.\n"

// A BlueKit project keeps its notebook in .bluekit/: gloss reads and
// writes it there, and init adds nothing to it.
func TestExistingBlueKitNotebook(t *testing.T) {
	fx := fixtures.NewRepo(t)
	fx.Commit("bluekit", map[string]string{
		".bluekit/bluekit.md":     "# Our notebook\n",
		".bluekit/kits/deploy.md": deployKit,
	})
	fx.MustGloss("init", "--no-mcp", "--notebook")
	if st := fx.Git("status", "--porcelain", "--untracked-files=all", ".bluekit", ".gloss/notebook"); st != "" {
		t.Fatalf("init wrote into the existing notebook (or a second one):\n%s", st)
	}
	if out := fx.MustGloss("note", "show", "kits/deploy.md"); !strings.Contains(out, "Tag, then push the tag.") {
		t.Fatalf("the .bluekit notebook is not read:\n%s", out)
	}
	out := fx.MustGloss("note", "create", "rollback", "--type", "walkthrough", "-m", "# Rollback\n", "--json")
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res["path"] != "walkthroughs/rollback.md" || res["success"] != true {
		t.Fatalf("write results carry the kit's path key: %s", out)
	}
	if _, ok := res["p"]; ok {
		t.Fatalf("no short key where the kit has none: %s", out)
	}
	if _, err := os.Stat(fx.Path(".bluekit/walkthroughs/rollback.md")); err != nil {
		t.Fatalf("the note must land in .bluekit: %v", err)
	}
}

// BLUEKIT_ROOT names the notebook folder, as the kit's server reads it.
func TestBlueKitRootVariable(t *testing.T) {
	fx := fixtures.NewRepo(t)
	fx.Commit("kb", map[string]string{"docs/kb/kits/deploy.md": deployKit})
	env := []string{"BLUEKIT_ROOT=docs/kb"}
	if out := glossEnv(t, fx, env, "note", "search", "push the tag"); !strings.Contains(out, "kits/deploy.md") {
		t.Fatalf("search in $BLUEKIT_ROOT:\n%s", out)
	}
	glossEnv(t, fx, env, "init", "--no-mcp", "--notebook")
	if st := fx.Git("status", "--porcelain", "--untracked-files=all"); strings.Contains(st, "docs/kb") || strings.Contains(st, ".gloss/notebook") {
		t.Fatalf("init must not scaffold into (or beside) an existing notebook:\n%s", st)
	}
}

// A new repository still gets the scaffold; a configured notebook that
// already has notes does not.
func TestScaffoldOnlyANewNotebook(t *testing.T) {
	fx := fixtures.NewRepo(t)
	fx.Commit("kb", map[string]string{
		".gloss/config.toml": "[notebook]\npath = \"kb\"\n",
		"kb/notes/first.md":  "# First\n",
	})
	var res struct {
		Scaffolded []string `json:"scaffolded"`
	}
	out := fx.MustGloss("init", "--no-mcp", "--notebook", "--json")
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Scaffolded) != 0 {
		t.Fatalf("scaffolded into an existing notebook: %v", res.Scaffolded)
	}
	if _, err := os.Stat(fx.Path("kb/index.md")); err == nil {
		t.Fatal("index.md written into an existing notebook")
	}
}

// A blueprint lands where the kit keeps blueprints — blueprints/<name>/
// blueprint.json, its tasks/ beside it — not as a markdown note (layout of
// https://github.com/stephan-chiorean/blueKit/blob/470e2b4/.bluekit/kits/bluekit-notebook-mcp-server.md).
func TestBlueprintAsTheKitLaysItOut(t *testing.T) {
	fx := fixtures.NewRepo(t)
	fx.Commit("bluekit", map[string]string{".bluekit/bluekit.md": "# Our notebook\n"})
	blueprint := `{"id":"saas-starter","name":"SaaS starter","tasks":["tasks/01-auth.md"]}`
	out := fx.MustGloss("note", "create", "saas-starter", "--type", "blueprint", "-m", blueprint, "--json")
	if !strings.Contains(out, `"path":"blueprints/saas-starter/blueprint.json"`) {
		t.Fatalf("create: %s", out)
	}
	if got := fx.Read(".bluekit/blueprints/saas-starter/blueprint.json"); got != blueprint+"\n" {
		t.Fatalf("blueprint.json: %q", got)
	}
	if _, err := os.Stat(fx.Path(".bluekit/blueprints/saas-starter.md")); err == nil {
		t.Fatal("a blueprint written as markdown")
	}
	if out, err := fx.Gloss("note", "create", "broken", "--type", "blueprint", "-m", "# not json\n"); err == nil {
		t.Fatalf("a blueprint that is not JSON: %s", out)
	}
}

// The kit routes by folder as by type ("Explicit folder parameter
// overrides type-based routing", create_note's folder in the same file):
// create_note {"folder": "blueprints"} over MCP writes the blueprint where
// the kit keeps it, and its refusals read as the kit's server words them,
// "Error: " first ("Error Handling" there).
func TestBlueprintByFolderAndKitErrors(t *testing.T) {
	fx := fixtures.NewRepo(t)
	fx.Commit("bluekit", map[string]string{".bluekit/bluekit.md": "# Our notebook\n"})
	session := fx.StartMCP("--toolsets", "notebook")
	blueprint := `{"id":"api","name":"API starter"}`
	res := session.Call("create_note", map[string]any{"name": "api", "folder": "blueprints", "content": blueprint})
	if res.IsError || !strings.Contains(res.Text, "blueprints/api/blueprint.json") {
		t.Fatalf("create_note in blueprints/: %s", res.Text)
	}
	if got := fx.Read(".bluekit/blueprints/api/blueprint.json"); got != blueprint+"\n" {
		t.Fatalf("blueprint.json: %q", got)
	}
	if _, err := os.Stat(fx.Path(".bluekit/blueprints/api.md")); err == nil {
		t.Fatal("a blueprint written as markdown")
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"read_note", map[string]any{"path": "kits/nothing.md"}, "Error: File not found: kits/nothing.md"},
		{"create_note", map[string]any{"name": "api", "folder": "blueprints", "content": blueprint}, "Error: File already exists: "},
		{"delete_note", map[string]any{"path": "blueprints/api/blueprint.json", "confirmPath": "kits/x.md"}, "Error: Deletion cancelled: confirmation path does not match"},
	} {
		res := session.Call(c.tool, c.args)
		if !res.IsError || !strings.HasPrefix(res.Text, c.want) {
			t.Errorf("%s %v: %q, want it to start %q", c.tool, c.args, res.Text, c.want)
		}
	}
}
