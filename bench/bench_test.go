package bench

import (
	"fmt"
	"os"
	"path/filepath"
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
