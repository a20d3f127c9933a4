package notebook_test

import (
	"os"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// The CLI and the MCP tools are two doors to the same notebook: same
// bytes for the same question.
func TestCLIAndMCPAgree(t *testing.T) {
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("initial", map[string]string{"README.md": "x\n"})
	// Plain init writes nothing into the working tree: no scaffold shows
	// up as changed files nobody made.
	fx.MustGloss("init", "--no-mcp")
	if _, err := os.Stat(fx.Path(".gloss/notebook")); !os.IsNotExist(err) {
		t.Errorf("init scaffolded a notebook unasked: %v", err)
	}
	if st := fx.Git("status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("init left changes in the working tree:\n%s", st)
	}
	out := fx.MustGloss("init", "--no-mcp", "--notebook")
	for _, f := range []string{".gloss/notebook/index.md", ".gloss/notebook/kits/.gitkeep", ".gloss/notebook/diagrams/.gitkeep"} {
		if _, err := os.Stat(fx.Path(f)); err != nil {
			t.Errorf("init --notebook did not scaffold %s: %v\n%s", f, err, out)
		}
	}
	again := fx.MustGloss("init", "--no-mcp", "--notebook", "--json")
	if !strings.Contains(again, `"scaffolded":[]`) {
		t.Errorf("second init scaffolded again: %s", again)
	}

	fx.MustGloss("note", "create", "deploy", "--type", "kit", "--tag", "ops", "--title", "Deploy", "-m", "# Deploy\n\nmake release, then push the tag.\n")
	session := fx.StartMCP("--toolsets", "notebook")
	create := session.Call("create_note", map[string]any{"name": "rotate", "content": "Rotate the release token monthly.\n", "frontmatter": map[string]any{"type": "kit", "tags": []string{"ops", "security"}}})
	if create.IsError || !strings.Contains(create.Text, `"path":"kits/rotate.md"`) {
		t.Fatalf("create_note: %s", create.Text)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		cli  []string
	}{
		{"read_note", map[string]any{"path": "kits/deploy.md"}, []string{"note", "show", "kits/deploy.md"}},
		{"read_note", map[string]any{"path": "kits/deploy.md", "prettyPrint": true}, []string{"note", "show", "kits/deploy.md", "--pretty"}},
		{"list_notes", map[string]any{"folder": "kits"}, []string{"note", "list", "kits"}},
		{"search_notes", map[string]any{"query": "release token"}, []string{"note", "search", "release token"}},
		{"search_notes", map[string]any{"query": "release", "tags": []string{"security"}, "limit": 5}, []string{"note", "search", "release", "--tag", "security", "--limit", "5"}},
		{"manage_tags", map[string]any{"path": "kits/rotate.md", "operation": "list"}, []string{"note", "tag", "kits/rotate.md", "list"}},
	} {
		res := session.Call(tc.tool, tc.args)
		if res.IsError {
			t.Fatalf("%s: %s", tc.tool, res.Text)
		}
		args := tc.cli
		if !strings.Contains(strings.Join(args, " "), "--pretty") {
			args = append(args, "--json")
		}
		cli := strings.TrimRight(fx.MustGloss(args...), "\n")
		if res.Text != cli {
			t.Errorf("%s differs:\nmcp %s\ncli %s", tc.tool, res.Text, cli)
		}
	}
	// Errors keep the kit's wording on both doors; over MCP with the kit
	// server's "Error: " before it (its CallTool handler's form, see
	// mcp/notebook.go kitError).
	bad := session.Call("read_note", map[string]any{"path": "../../etc/passwd"})
	if !bad.IsError || !strings.HasPrefix(bad.Text, "Error: Path traversal not allowed") {
		t.Errorf("MCP traversal: %+v", bad)
	}
	if out, err := fx.Gloss("note", "show", "../../etc/passwd"); err == nil || !strings.Contains(out, "Path traversal not allowed") {
		t.Errorf("CLI traversal: %v %s", err, out)
	}
	if out, err := fx.Gloss("note", "rm", "kits/deploy.md", "--confirm", "kits/other.md"); err == nil || !strings.Contains(out, "Deletion cancelled") {
		t.Errorf("CLI delete without confirmation: %v %s", err, out)
	}

	// status lists uncommitted notebook changes, and nothing else.
	fx.Write("other.txt", "not in the notebook\n")
	status := fx.MustGloss("note", "status", "--json")
	for _, want := range []string{`"path":"kits/deploy.md"`, `"path":"kits/rotate.md"`, `"path":"index.md"`} {
		if !strings.Contains(status, want) {
			t.Errorf("status misses %s: %s", want, status)
		}
	}
	if strings.Contains(status, "other.txt") || strings.Contains(status, ".gitkeep") {
		t.Errorf("status lists files outside the notebook: %s", status)
	}
	fx.Git("add", ".gloss")
	fx.Git("commit", "-q", "-m", "notebook")
	if out := fx.MustGloss("note", "status"); !strings.Contains(out, "nothing to commit") {
		t.Errorf("status after commit: %s", out)
	}
	fx.MustGloss("note", "mv", "kits/deploy.md", "walkthroughs/deploy.md")
	if out := fx.MustGloss("note", "status", "--json"); !strings.Contains(out, `"deleted"`) && !strings.Contains(out, `"renamed"`) {
		t.Errorf("status after a move: %s", out)
	}
}

func TestNotebookLocationOverrides(t *testing.T) {
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Write(".gloss/config.toml", "[notebook]\npath = \"docs/notebook\"\n")
	fx.Commit("config", nil)
	fx.MustGloss("init", "--no-mcp", "--notebook")
	if _, err := os.Stat(fx.Path("docs/notebook/index.md")); err != nil {
		t.Errorf("configured notebook not scaffolded: %v", err)
	}
	env := withEnv(fx, "GLOSS_NOTEBOOK=kb")
	env.MustGloss("note", "create", "x", "-m", "in kb")
	if _, err := os.Stat(fx.Path("kb/notes/x.md")); err != nil {
		t.Errorf("GLOSS_NOTEBOOK not honoured: %v", err)
	}
	for _, bad := range []string{"../outside", ".git/nb", "/etc"} {
		out, err := withEnv(fx, "GLOSS_NOTEBOOK="+bad).Gloss("note", "list")
		if err == nil {
			t.Errorf("notebook at %s accepted: %s", bad, out)
		}
	}
}

func withEnv(fx *fixtures.Repo, kv ...string) *fixtures.Repo {
	c := *fx
	c.Env = append(append([]string{}, fx.Env...), kv...)
	return &c
}
