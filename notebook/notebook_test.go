package notebook_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notebook"
)

func open(t *testing.T) (*fixtures.Repo, *notebook.Notebook) {
	t.Helper()
	fx := fixtures.NewRepo(t)
	fx.Commit("initial", map[string]string{"README.md": "project\n"})
	repo, err := gitops.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(repo.Close)
	nb, err := notebook.Open(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nb.Close)
	if _, err := nb.Scaffold(); err != nil {
		t.Fatal(err)
	}
	return fx, nb
}

// must unwraps a result in tests; an error fails the test by panicking
// (Go cannot pass a multi-value call after another argument).
func must[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprintf("unexpected error: %v", err))
	}
	return v
}

func TestRoutingByType(t *testing.T) {
	fx, nb := open(t)
	for _, tc := range []struct {
		name, folder string
		fm           any
		want         string
	}{
		{"deploy", "", map[string]any{"type": "kit"}, "kits/deploy.md"},
		{"tour", "", map[string]any{"type": "walkthrough"}, "walkthroughs/tour.md"},
		{"reviewer", "", map[string]any{"type": "agent"}, "agents/reviewer.md"},
		{"flow", "", map[string]any{"type": "diagram"}, "diagrams/flow.mmd"},
		{"misc", "", nil, "notes/misc.md"},
		{"odd", "", map[string]any{"type": "unknown-type"}, "notes/odd.md"},
		{"explicit", "custom/place", map[string]any{"type": "kit"}, "custom/place/explicit.md"},
		{"auth/login", "", `{"type":"walkthrough"}`, "walkthroughs/auth/login.md"},
		{"config", "blueprints/app", nil, "blueprints/app/config.md"},
		{"schema.json", "blueprints/app", map[string]any{"type": "blueprint"}, "blueprints/app/schema.json"},
	} {
		res := must(nb.Create(notebook.CreateInput{Name: tc.name, Folder: tc.folder, Content: "body of " + tc.name + "\n", Frontmatter: tc.fm}))
		if res.Path != tc.want || !res.Success {
			t.Errorf("create %s: %+v, want %s", tc.name, res, tc.want)
		}
		if _, err := os.Stat(filepath.Join(nb.Abs, tc.want)); err != nil {
			t.Errorf("%s not on disk: %v", tc.want, err)
		}
	}
	if _, err := nb.Create(notebook.CreateInput{Name: "deploy", Content: "x", Frontmatter: map[string]any{"type": "kit"}}); notebook.CategoryOf(err) != notebook.AlreadyExists {
		t.Errorf("creating over an existing note: %v", err)
	}
	_ = fx
}

func TestCRUDKeepsFrontmatterAndBody(t *testing.T) {
	_, nb := open(t)
	must(nb.Create(notebook.CreateInput{Name: "auth", Content: "# Auth\n\nTokens expire after 1h.\nTokens expire after 1h.\n",
		Frontmatter: map[string]any{"type": "note", "tags": []string{"security"}, "owner": "ada"}}))
	p := "notes/auth.md"
	read := must(nb.Read(p))
	if read.Frontmatter["owner"] != "ada" || !strings.HasPrefix(read.Content, "# Auth") {
		t.Fatalf("read = %+v", read)
	}
	must(nb.Update(notebook.UpdateInput{Path: p, Content: "Refresh with /renew.", Mode: "append"}))
	must(nb.Update(notebook.UpdateInput{Path: p, Content: "> reviewed", Mode: "prepend"}))
	read = must(nb.Read(p))
	if !strings.HasPrefix(read.Content, "> reviewed\n# Auth") || !strings.HasSuffix(read.Content, "Refresh with /renew.") || read.Frontmatter["owner"] != "ada" {
		t.Errorf("append/prepend lost something: %+v", read)
	}
	// patch: two matches refused unless replaceAll
	_, err := nb.Patch(notebook.PatchInput{Path: p, OldString: "Tokens expire after 1h.", NewString: "Tokens expire after 2h."})
	if notebook.CategoryOf(err) != notebook.MultipleMatches || !strings.Contains(err.Error(), "Found 2 occurrences") {
		t.Errorf("patch with two matches: %v", err)
	}
	must(nb.Patch(notebook.PatchInput{Path: p, OldString: "Tokens expire after 1h.", NewString: "Tokens expire after 2h.", ReplaceAll: true}))
	if _, err := nb.Patch(notebook.PatchInput{Path: p, OldString: "nowhere", NewString: "x"}); notebook.CategoryOf(err) != notebook.StringNotFound {
		t.Errorf("patch of a missing string: %v", err)
	}
	// frontmatter tools keep the body byte for byte
	before := readFile(t, nb, p)
	body := before[strings.Index(before, "\n---\n")+5:]
	must(nb.UpdateFrontmatter(p, map[string]any{"status": "current"}, true))
	must(nb.ManageTags(p, "add", []string{"auth", "tokens"}))
	must(nb.ManageTags(p, "remove", []string{"security"}))
	after := readFile(t, nb, p)
	if !strings.HasSuffix(after, body) || after[strings.Index(after, "\n---\n")+5:] != body {
		t.Errorf("frontmatter edit changed the body:\n%q\n%q", body, after)
	}
	fm := must(nb.Frontmatter(p))
	if fm.Frontmatter["status"] != "current" || fm.Frontmatter["owner"] != "ada" {
		t.Errorf("merged frontmatter = %v", fm.Frontmatter)
	}
	tags := must(nb.ManageTags(p, "list", nil))
	if strings.Join(tags.Tags, ",") != "auth,tokens" {
		t.Errorf("tags = %v", tags.Tags)
	}
	must(nb.UpdateFrontmatter(p, map[string]any{"only": "this"}, false))
	if fm := must(nb.Frontmatter(p)); len(fm.Frontmatter) != 1 {
		t.Errorf("replace kept old keys: %v", fm.Frontmatter)
	}
	// info reads no content: it works on a note whose frontmatter is broken
	broken := filepath.Join(nb.Abs, "notes/broken.md")
	if err := os.WriteFile(broken, []byte("---\nkey: [unclosed\n---\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	info := must(nb.Info("notes/broken.md"))
	if info.Size == 0 || info.Type != "note" {
		t.Errorf("info = %+v", info)
	}
	if _, err := nb.Read("notes/broken.md"); notebook.CategoryOf(err) != notebook.InvalidFrontmatter {
		t.Errorf("reading broken frontmatter: %v", err)
	}
	// move creates folders; delete needs the exact path
	must(nb.Move(p, "archive/2026/auth.md", false))
	if _, err := nb.Delete("archive/2026/auth.md", "archive/2026/AUTH.md"); notebook.CategoryOf(err) != notebook.DeletionCancelled {
		t.Errorf("delete with a wrong confirmation: %v", err)
	}
	must(nb.Delete("archive/2026/auth.md", "archive/2026/auth.md"))
	if _, err := nb.Read("archive/2026/auth.md"); notebook.CategoryOf(err) != notebook.NotFound {
		t.Errorf("read after delete: %v", err)
	}
	// folders
	must(nb.CreateFolder("runbooks/db"))
	folders := must(nb.ListFolders())
	var names []string
	for _, f := range folders.Folders {
		names = append(names, f.Path)
	}
	if !strings.Contains(strings.Join(names, " "), "runbooks/db") || !strings.Contains(strings.Join(names, " "), "kits") {
		t.Errorf("folders = %v", names)
	}
	sum := must(nb.FolderSummary("notes"))
	if sum.Notes != 1 || sum.Types["note"] != 1 {
		t.Errorf("summary = %+v", sum)
	}
}

func readFile(t *testing.T, nb *notebook.Notebook, p string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(nb.Abs, p))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// checksum hashes every file of dir except those under skip.
func checksum(t *testing.T, dir, skip string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == skip || strings.HasSuffix(p, "/.git/gloss") {
			return fs.SkipDir // the notebook itself; gloss's own locks and caches
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			lines = append(lines, p+" -> "+target)
			return nil
		}
		if d.IsDir() {
			lines = append(lines, p+"/")
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		lines = append(lines, p+" "+hex.EncodeToString(sum[:]))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func TestHostileInputsAreRefused(t *testing.T) {
	fx, nb := open(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(nb.Abs, "notes", "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(nb.Abs, "notes", "link.md")); err != nil {
		t.Fatal(err)
	}
	must(nb.Create(notebook.CreateInput{Name: "ok", Content: "fine\n"}))
	parent := filepath.Dir(fx.Dir) // the repository and everything beside it
	before := checksum(t, parent, nb.Abs)
	beforeOutside := checksum(t, outside, "")

	bomb := "---\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n---\nboom\n"
	deep := strings.Repeat("[", 40) + strings.Repeat("]", 40)
	long := strings.Repeat("a", 300)
	type attempt struct {
		name string
		want notebook.Category
		run  func() error
	}
	create := func(name, folder string, fm any) func() error {
		return func() error {
			_, err := nb.Create(notebook.CreateInput{Name: name, Folder: folder, Content: "x", Frontmatter: fm})
			return err
		}
	}
	read := func(p string) func() error { return func() error { _, err := nb.Read(p); return err } }
	attempts := []attempt{
		{"read ../", notebook.PathTraversal, read("../../README.md")},
		{"read nested ..", notebook.PathTraversal, read("notes/../../config.toml")},
		{"read absolute outside", notebook.PathTraversal, read(filepath.Join(outside, "secret.md"))},
		{"read /etc/passwd", notebook.PathTraversal, read("/etc/passwd")},
		{"read through symlinked dir", notebook.PathTraversal, read("notes/escape/secret.md")},
		{"read symlinked file", notebook.PathTraversal, read("notes/link.md")},
		{"read .git", notebook.AccessDenied, read(".git/config")},
		{"read hidden file", notebook.AccessDenied, read("notes/.secret.md")},
		{"read hidden dir", notebook.AccessDenied, read(".hidden/x.md")},
		{"read node_modules", notebook.AccessDenied, read("node_modules/x.md")},
		{"read NUL", notebook.InvalidArgument, read("notes/a\x00.md")},
		{"read backslash", notebook.InvalidArgument, read("notes\\..\\..\\x.md")},
		{"read bad utf8", notebook.InvalidArgument, read("notes/\xff.md")},
		{"read disallowed ext", notebook.AccessDenied, read("notes/script.sh")},
		{"read no ext", notebook.AccessDenied, read("notes/file")},
		{"read over-long", notebook.InvalidArgument, read("notes/" + long + ".md")},
		{"read empty", notebook.InvalidArgument, read("")},
		{"read missing", notebook.NotFound, read("notes/nope.md")},
		{"create ../ name", notebook.PathTraversal, create("../../pwned", "", nil)},
		{"create absolute folder", notebook.PathTraversal, create("x", outside, nil)},
		{"create in .git", notebook.AccessDenied, create("x", ".git", nil)},
		{"create hidden name", notebook.AccessDenied, create(".env", "", nil)},
		{"create through symlink", notebook.PathTraversal, create("x", "notes/escape", nil)},
		{"move to a script", notebook.AccessDenied, func() error { _, err := nb.Move("notes/ok.md", "notes/ok.sh", false); return err }},
		{"create over-long", notebook.InvalidArgument, create(long, "", nil)},
		{"create alias bomb", notebook.InvalidFrontmatter, func() error {
			_, err := nb.Create(notebook.CreateInput{Name: "bomb", Content: bomb})
			return err
		}},
		{"fm anchor", notebook.InvalidFrontmatter, create("a1", "", "x: &anchor 1\ny: *anchor")},
		{"fm custom tag", notebook.InvalidFrontmatter, create("a2", "", "x: !!python/object:os.system ls")},
		{"fm local tag", notebook.InvalidFrontmatter, create("a3", "", "secret: !vault abc")},
		{"fm not a mapping", notebook.InvalidFrontmatter, create("a4", "", "[1, 2, 3]")},
		{"fm too deep", notebook.InvalidFrontmatter, create("a5", "", "x: "+deep)},
		{"fm unclosed in content", notebook.InvalidFrontmatter, func() error {
			_, err := nb.Create(notebook.CreateInput{Name: "a6", Content: "---\ntitle: x\nno end\n"})
			return err
		}},
		{"move out", notebook.PathTraversal, func() error { _, err := nb.Move("notes/ok.md", "../../moved.md", false); return err }},
		{"move into .git", notebook.AccessDenied, func() error { _, err := nb.Move("notes/ok.md", ".git/hooks/x.md", false); return err }},
		{"delete outside", notebook.PathTraversal, func() error { _, err := nb.Delete("../../README.md", "../../README.md"); return err }},
		{"delete unconfirmed", notebook.DeletionCancelled, func() error { _, err := nb.Delete("notes/ok.md", ""); return err }},
		{"patch through symlink", notebook.PathTraversal, func() error {
			_, err := nb.Patch(notebook.PatchInput{Path: "notes/link.md", OldString: "secret", NewString: "pwned"})
			return err
		}},
		{"folder outside", notebook.PathTraversal, func() error { _, err := nb.CreateFolder("../../evil"); return err }},
		{"search outside folder", notebook.PathTraversal, func() error { _, err := nb.Search(notebook.SearchInput{Query: "x", Folder: "../.."}); return err }},
		{"list .git", notebook.AccessDenied, func() error { _, err := nb.List(".git"); return err }},
	}
	if len(attempts) < 30 {
		t.Fatalf("only %d hostile inputs", len(attempts))
	}
	for _, a := range attempts {
		err := a.run()
		if got := notebook.CategoryOf(err); got != a.want {
			t.Errorf("%s: error %v (category %q), want %q", a.name, err, got, a.want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), string(a.want)) && a.want != notebook.MultipleMatches {
			t.Errorf("%s: message %q does not start with %q", a.name, err, a.want)
		}
	}
	if after := checksum(t, parent, nb.Abs); after != before {
		t.Errorf("something outside the notebook changed")
	}
	if after := checksum(t, outside, ""); after != beforeOutside {
		t.Errorf("the directory a symlink points to changed")
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "secret.md")); string(data) != "secret" {
		t.Errorf("secret.md = %q", data)
	}
}

func TestSearchBM25FiltersAndIndex(t *testing.T) {
	_, nb := open(t)
	notes := map[string]notebook.CreateInput{
		"k1": {Name: "oauth-tokens", Content: "# OAuth tokens\n\nHow we rotate oauth tokens.\nTokens live 1h; oauth refresh tokens live 30 days.\n", Frontmatter: map[string]any{"type": "kit", "tags": []string{"auth"}}},
		"k2": {Name: "deploy", Content: "# Deploy\n\nShip with make release. The release needs a token from the vault.\n", Frontmatter: map[string]any{"type": "kit", "tags": []string{"ops"}}},
		"w1": {Name: "login-flow", Content: "# Login\n\nThe login flow checks the session, then the oauth token.\n", Frontmatter: map[string]any{"type": "walkthrough", "tags": []string{"auth", "web"}}},
		"n1": {Name: "misc", Content: "Unrelated notes about the cafeteria.\n"},
	}
	for _, k := range []string{"k1", "k2", "w1", "n1"} {
		must(nb.Create(notes[k]))
	}
	res := must(nb.Search(notebook.SearchInput{Query: "oauth tokens"}))
	if len(res.Results) < 2 || res.Results[0].Path != "kits/oauth-tokens.md" {
		t.Fatalf("ranking = %+v", res.Results)
	}
	top := res.Results[0]
	if top.Title != "OAuth tokens" || top.Line == 0 || !strings.Contains(strings.ToLower(top.Excerpt), "oauth") || top.MatchCount < 5 {
		t.Errorf("top hit = %+v", top)
	}
	if got := must(nb.Search(notebook.SearchInput{Query: "oauth", Type: "walkthrough"})); len(got.Results) != 1 || got.Results[0].Path != "walkthroughs/login-flow.md" {
		t.Errorf("type filter = %+v", got.Results)
	}
	if got := must(nb.Search(notebook.SearchInput{Query: "token", Tags: []string{"ops"}})); len(got.Results) != 1 || got.Results[0].Path != "kits/deploy.md" {
		t.Errorf("tag filter = %+v", got.Results)
	}
	if got := must(nb.Search(notebook.SearchInput{Query: "oauth", Folder: "walkthroughs"})); len(got.Results) != 1 {
		t.Errorf("folder filter = %+v", got.Results)
	}
	f := false
	if got := must(nb.Search(notebook.SearchInput{Query: "ops", SearchContent: &f})); len(got.Results) != 1 {
		t.Errorf("frontmatter-only search for a tag = %+v", got.Results)
	}
	if got := must(nb.Search(notebook.SearchInput{Query: "ops", SearchFrontmatter: &f})); len(got.Results) != 0 {
		t.Errorf("content-only search found a tag: %+v", got.Results)
	}
	// The index follows changes.
	must(nb.Patch(notebook.PatchInput{Path: "notes/misc.md", OldString: "cafeteria", NewString: "oauth cafeteria"}))
	if got := must(nb.Search(notebook.SearchInput{Query: "cafeteria oauth"})); got.Results[0].Path != "notes/misc.md" {
		t.Errorf("index not updated after a patch: %+v", got.Results)
	}
	must(nb.Delete("notes/misc.md", "notes/misc.md"))
	if got := must(nb.Search(notebook.SearchInput{Query: "cafeteria"})); len(got.Results) != 0 {
		t.Errorf("deleted note still found: %+v", got.Results)
	}
	// Limits.
	for i := 0; i < 60; i++ {
		must(nb.Create(notebook.CreateInput{Name: fmt.Sprintf("bulk%02d", i), Content: "bulk word\n"}))
	}
	if got := must(nb.Search(notebook.SearchInput{Query: "bulk"})); len(got.Results) != notebook.DefaultLimit || got.Total != 60 {
		t.Errorf("default limit: %d results of %d", len(got.Results), got.Total)
	}
	if got := must(nb.Search(notebook.SearchInput{Query: "bulk", Limit: 500})); len(got.Results) != notebook.MaxLimit {
		t.Errorf("max limit: %d results", len(got.Results))
	}
	if _, err := nb.Search(notebook.SearchInput{Query: "  !!  "}); notebook.CategoryOf(err) != notebook.InvalidArgument {
		t.Errorf("empty query: %v", err)
	}
}

func TestPrettyExpandsKeys(t *testing.T) {
	_, nb := open(t)
	must(nb.Create(notebook.CreateInput{Name: "x", Content: "hello world\n", Frontmatter: map[string]any{"p": "keeps its own keys"}}))
	data := must(notebook.Pretty(must(nb.Read("notes/x.md"))))
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	fm := m["frontmatter"].(map[string]any)
	if m["path"] != "notes/x.md" || fm["p"] != "keeps its own keys" || !strings.Contains(string(data), "\n  ") {
		t.Errorf("pretty = %s", data)
	}
}

// TestSnippetStartsAtAWord: a search result's excerpt of a long line
// starts and ends at word boundaries ("…the rollout", never
// "…ployment waits"), with the match inside.
func TestSnippetStartsAtAWord(t *testing.T) {
	_, nb := open(t)
	line := "Before every production deployment the operator confirms that the staging environment answered all of its health probes within budget, and only then does the zephyrine rollout begin across the remaining regions of the cluster in waves of ten percent each."
	must(nb.Create(notebook.CreateInput{Name: "rollout", Content: "# Rollout\n\n" + line + "\n"}))
	res := must(nb.Search(notebook.SearchInput{Query: "zephyrine"}))
	if len(res.Results) != 1 {
		t.Fatalf("results = %+v", res.Results)
	}
	ex := res.Results[0].Excerpt
	if !strings.Contains(ex, "zephyrine") || !strings.HasPrefix(ex, "…") || !strings.HasSuffix(ex, "…") {
		t.Fatalf("excerpt %q", ex)
	}
	body := strings.TrimSuffix(strings.TrimPrefix(ex, "…"), "…")
	words := strings.Fields(line)
	first, last := strings.Fields(body)[0], strings.Fields(body)[len(strings.Fields(body))-1]
	if !slices.Contains(words, first) || !slices.Contains(words, last) {
		t.Errorf("excerpt %q starts or ends mid-word (%q … %q)", ex, first, last)
	}
}
