package spec_test

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/spec"
)

// The file universe is tracked files plus working-tree changes: untracked
// files are in (marked), ignored files are out, deleted files are listed
// apart, modified files lose their blob id (content must be hashed).
func TestWorktreeTree(t *testing.T) {
	r := fixtures.NewTodoService(t)
	r.Write(".gitignore", "*.log\n")
	r.Write("internal/api/new.go", "package api\n")
	r.Write("debug.log", "noise\n")
	r.Write("internal/api/handlers.go", "package api\n// edited\n")
	if err := os.Remove(r.Path("internal/storage/memory.go")); err != nil {
		t.Fatal(err)
	}
	repo, err := gitops.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	head, err := repo.Head()
	if err != nil {
		t.Fatal(err)
	}
	tree, _, err := spec.WorktreeTree(context.Background(), repo, head)
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := tree.Lookup("internal/api/new.go"); !ok || !f.Untracked {
		t.Errorf("untracked file missing or unmarked: %+v", f)
	}
	if tree.Has("debug.log") {
		t.Errorf("ignored file listed")
	}
	if tree.Has("internal/storage/memory.go") || !slices.Contains(tree.Deleted, "internal/storage/memory.go") {
		t.Errorf("deleted file not reported as deleted: %v", tree.Deleted)
	}
	if f, _ := tree.Lookup("internal/api/handlers.go"); f.Blob != "" {
		t.Errorf("modified file kept its stale blob id")
	}
	if f, _ := tree.Lookup("internal/api/pagination.go"); f.Blob == "" {
		t.Errorf("clean file has no blob id")
	}
	set, err := spec.LoadSet(tree)
	if err != nil {
		t.Fatal(err)
	}
	if set.System == nil || set.System.Path != ".gloss/specs/system.spec.yaml" {
		t.Fatalf("system spec: %+v", set.System)
	}
	api := set.Get(".gloss/specs/api.spec.yaml")
	got := tree.Glob(spec.GlobSet{mustGlob(t, "internal/api/**")})
	want := []string{"internal/api/handlers.go", "internal/api/handlers_test.go", "internal/api/new.go", "internal/api/pagination.go"}
	if !slices.Equal(got, want) {
		t.Errorf("expand internal/api/**: %v, want %v", got, want)
	}
	if c := api.Category("internal/api/handlers_test.go"); c != "tests" {
		t.Errorf("most specific category of a test: %q", c)
	}
	if c := api.Categories("internal/api/handlers_test.go"); !slices.Equal(c, []string{"code", "tests"}) {
		t.Errorf("every category: %v", c)
	}
	hashes, failed := tree.Hashes([]string{"README.md", "nope"})
	if hashes["README.md"] != spec.HashBytes([]byte(fixtures.TodoServiceFiles["README.md"])) || failed["nope"] == nil {
		t.Errorf("hashes %v failed %v", hashes, failed)
	}
}

func mustGlob(t *testing.T, p string) *spec.Glob {
	g, err := spec.CompileGlob(p)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// A branch with no commit yet: the index and untracked files, all new,
// the untracked ones marked.
func TestWorktreeTreeUnborn(t *testing.T) {
	r := fixtures.NewRepo(t)
	r.Write("staged.go", "package a\n")
	r.Write("loose.go", "package a\n")
	r.Git("add", "staged.go")
	repo, err := gitops.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	tree, changes, err := spec.WorktreeTree(context.Background(), repo, "")
	if err != nil {
		t.Fatal(err)
	}
	staged, _ := tree.Lookup("staged.go")
	loose, _ := tree.Lookup("loose.go")
	if !tree.Has("staged.go") || staged.Untracked || !loose.Untracked || len(changes) != 2 {
		t.Fatalf("staged %+v loose %+v changes %+v", staged, loose, changes)
	}
}
