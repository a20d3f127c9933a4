package spec_test

import (
	"context"
	"fmt"
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

// vectorInput is the BLAKE3 test vectors' input: byte i is i mod 251.
func vectorInput(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

// NotarAI's fingerprints are BLAKE3-256: the first 32 bytes of the
// specification's test vectors (test_vectors.json of the BLAKE3 reference
// implementation), across its block, chunk and tree boundaries, hashed
// whole (HashBytes) and streamed from a file (Tree.Hashes).
func TestHashesAreBLAKE3(t *testing.T) {
	vectors := map[int]string{
		0:     "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262",
		1:     "2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213",
		1023:  "10108970eeda3eb932baac1428c7a2163b0e924c9a9e25b35bba72b28f70bd11",
		1024:  "42214739f095a406f3fc83deb889744ac00df831c10daa55189b5d121c855af7",
		1025:  "d00278ae47eb27b34faecf67b4fe263f82d5412916c1ffd97c8cb7fb814b8444",
		8192:  "aae792484c8efe4f19e2ca7d371d8c467ffb10748d8a5a1ae579948f718a2a63",
		8193:  "bab6c09cb8ce8cf459261398d2e7aef35700bf488116ceb94a36d0f5f1b7bc3b",
		31744: "62b6960e1a44bcc1eb1a611a8d6235b6b4b78f32e7abc4fb4c6cdcce94895c47",
	}
	r := fixtures.NewRepo(t)
	var paths []string
	for n := range vectors {
		if got := spec.HashBytes(vectorInput(n)); got != vectors[n] {
			t.Errorf("HashBytes of %d bytes = %s, want %s", n, got, vectors[n])
		}
		p := fmt.Sprintf("input-%d.bin", n)
		r.Write(p, string(vectorInput(n)))
		paths = append(paths, p)
	}
	head := r.Commit("inputs", nil)
	repo, err := gitops.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	tree, _, err := spec.WorktreeTree(context.Background(), repo, head)
	if err != nil {
		t.Fatal(err)
	}
	hashes, failed := tree.Hashes(paths)
	for n, want := range vectors {
		if p := fmt.Sprintf("input-%d.bin", n); hashes[p] != want || failed[p] != nil {
			t.Errorf("the hash of %s = %s (%v), want %s", p, hashes[p], failed[p], want)
		}
	}
}
