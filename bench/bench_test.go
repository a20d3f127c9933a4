package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// benchHistory is smaller than the harness's default so that `go test
// -bench` stays quick; the generated repository is kept in the temp dir.
var benchHistory = fixtures.HistoryOptions{Commits: 800, Files: 20, Lines: 400, HotLines: 3000, EditsPerFile: 3, FilesPerEdit: 2, Seed: 7}

var (
	envOnce sync.Once
	env     *Env
	envErr  error
)

func benchEnv(b *testing.B) *Env {
	envOnce.Do(func() {
		dir := filepath.Join(os.TempDir(), fmt.Sprintf("gloss-gobench-v2-%d-%d", benchHistory.Commits, benchHistory.Seed))
		env, envErr = Prepare(dir, benchHistory, benchHistory.Commits)
		if envErr == nil {
			env.Binary = fixtures.Binary(b)
		}
	})
	if envErr != nil {
		b.Fatal(envErr)
	}
	return env
}

// BenchmarkCases runs every harness case both ways, so `go test -bench`
// reports gloss and the git CLI side by side (compare the ns/op of the
// gloss/ and git/ sub-benchmarks of each case).
func BenchmarkCases(b *testing.B) {
	e := benchEnv(b)
	for _, c := range e.Cases() {
		b.Run(c.Name+"/gloss", func(b *testing.B) {
			for b.Loop() {
				if err := c.Gloss(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.Name+"/git", func(b *testing.B) {
			for b.Loop() {
				if err := c.Git(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestMeasureReportsBothSides(t *testing.T) {
	calls := 0
	r := Measure(Case{Name: "x", Gloss: func() error { calls++; return nil }, Git: func() error { return nil }}, 3)
	if r.GlossErr != nil || r.GitErr != nil || r.Runs != 3 || calls != 4 {
		t.Errorf("Measure = %+v after %d gloss calls", r, calls)
	}
}

// The recipe harness works end to end on a small repository: it clones,
// sets up, annotates the blamed commits and times every case once. (The
// real measurement is `make bench REPO=path/to/fzf`.)
func TestRecipeSmoke(t *testing.T) {
	bin := fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	src := "package p\n\ntype T struct{}\n\nfunc (T) M() int {\n\treturn 1\n}\n"
	fx.Commit("one", map[string]string{"p/p.go": src})
	fx.Commit("two", map[string]string{"p/p.go": strings.Replace(src, "return 1", "x := 2\n\treturn x", 1)})
	fx.Commit("three", map[string]string{"README": "p\n"})
	rc := Recipe{Rev: fx.Git("rev-parse", "HEAD~1"), File: "p/p.go", Anchor: "T.M", Summaries: 2}
	ctx := context.Background()
	e, err := PrepareRecipe(ctx, rc, fx.Dir, filepath.Join(t.TempDir(), "clone"), bin)
	if err != nil {
		t.Fatal(err)
	}
	if e.Start != 5 || e.End != 8 || e.Blamed != 2 || e.Records != 4 {
		t.Errorf("recipe env = %+v", e)
	}
	if out := fx.Git("notes", "--ref", "gloss/annotations", "list"); out != "" {
		t.Errorf("the source repository was annotated: %q", out)
	}
	for _, c := range e.Cases() {
		if _, err := e.Measure(ctx, c, 1); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
	out, err := fx.Run("git", "-C", e.Dir, "notes", "--ref", "gloss/annotations", "list")
	if err != nil || len(fixtures.Lines(out)) != 2 {
		t.Errorf("notes in the clone: %v", out)
	}
}
