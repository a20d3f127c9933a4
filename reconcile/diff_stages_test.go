package reconcile

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/spec"
)

// todoWorkspace is the todo-service fixture with a spec over another
// spec's file and an untracked file, loaded against HEAD.
func todoWorkspace(t *testing.T) *Workspace {
	t.Helper()
	r := fixtures.NewTodoService(t)
	r.Write(".gloss/specs/meta.spec.yaml", "schema_version: '0.8'\nintent: The API's spec.\nartifacts:\n  specs:\n    - path: .gloss/specs/api.spec.yaml\n  docs:\n    - path: docs/*.md\n")
	r.Write("docs/new.md", "# New\n")
	repo, err := gitops.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(repo.Close)
	w, err := Open(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Load(); err != nil {
		t.Fatal(err)
	}
	return w
}

func mustSpec(t *testing.T, w *Workspace, name string) *spec.Spec {
	t.Helper()
	sp, err := w.Specs.Resolve(w.Repo.Root(), name)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// TestDiffStages pins two stages of SpecDiff: which files a spec governs
// (spec files apart, exclusions apart), and how the changed files become
// the answer's lists and the paths git diffs.
func TestDiffStages(t *testing.T) {
	w := todoWorkspace(t)
	governed := []struct {
		spec                          string
		exclude                       []string
		governed, specFiles, excluded []string
	}{
		{"api", nil, []string{"api/openapi.yaml", "docs/api.md", "internal/api/handlers.go", "internal/api/handlers_test.go", "internal/api/pagination.go"}, nil, nil},
		{"api", []string{"internal/**", "docs/*.md"}, []string{"api/openapi.yaml"}, nil,
			[]string{"docs/api.md", "internal/api/handlers.go", "internal/api/handlers_test.go", "internal/api/pagination.go"}},
		{"meta", nil, []string{"docs/api.md", "docs/architecture.md", "docs/new.md"}, []string{".gloss/specs/api.spec.yaml"}, nil},
		{"meta", []string{".gloss/**"}, []string{"docs/api.md", "docs/architecture.md", "docs/new.md"}, nil, []string{".gloss/specs/api.spec.yaml"}},
	}
	for _, c := range governed {
		excl, err := spec.CompileGlobs(c.exclude)
		if err != nil {
			t.Fatal(err)
		}
		g, s, x := w.governedFiles(mustSpec(t, w, c.spec), excl)
		if !slices.Equal(g, c.governed) || !slices.Equal(s, c.specFiles) || !slices.Equal(x, c.excluded) {
			t.Errorf("governedFiles(%s, %q) = %q, %q, %q; want %q, %q, %q", c.spec, c.exclude, g, s, x, c.governed, c.specFiles, c.excluded)
		}
	}

	changed := []struct {
		name       string
		changed    []string
		deleted    []string
		renamed    []Rename
		untracked  []string
		categories map[string]string
		pathspec   []string
	}{
		{"nothing changed", nil, nil, nil, nil, map[string]string{}, nil},
		{"tracked and untracked", []string{"docs/api.md", "docs/new.md"}, nil, nil, []string{"docs/new.md"},
			map[string]string{"docs/api.md": "docs", "docs/new.md": "docs"}, []string{"docs/api.md"}},
		{"deletions and both ends of renames", []string{"docs/architecture.md"}, []string{"docs/old.md"}, []Rename{{From: "docs/a.md", To: "docs/b.md"}}, nil,
			map[string]string{"docs/architecture.md": "docs"}, []string{"docs/architecture.md", "docs/old.md", "docs/a.md", "docs/b.md"}},
	}
	for _, c := range changed {
		res := &DiffResult{FileCategories: map[string]string{}, DeletedFiles: c.deleted, RenamedFiles: c.renamed}
		pathspec := w.addChangedFiles(mustSpec(t, w, "meta"), c.changed, res)
		if !slices.Equal(res.Files, c.changed) || !slices.Equal(res.UntrackedFiles, c.untracked) ||
			!maps.Equal(res.FileCategories, c.categories) || !slices.Equal(pathspec, c.pathspec) {
			t.Errorf("%s: files %q, untracked %q, categories %v, pathspec %q; want %q, %q, %v, %q",
				c.name, res.Files, res.UntrackedFiles, res.FileCategories, pathspec, c.changed, c.untracked, c.categories, c.pathspec)
		}
	}
}
