package gitops_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
)

// benchHistory: thousands of commits and a hot file of 5,000+ lines that
// every commit touches — blame's worst case.
var benchHistory = fixtures.HistoryOptions{Commits: 2000, Files: 10, Lines: 400, HotLines: 5200, EditsPerFile: 3, FilesPerEdit: 1, Seed: 3}

var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
)

func benchRepo(b *testing.B) *gitops.Repo {
	benchOnce.Do(func() {
		benchDir = filepath.Join(os.TempDir(), fmt.Sprintf("gloss-gitops-bench-%d-%d-%d", benchHistory.Commits, benchHistory.HotLines, benchHistory.Seed))
		if _, err := os.Stat(benchDir); os.IsNotExist(err) {
			_, benchErr = fixtures.GenerateHistory(benchDir, benchHistory)
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	r, err := gitops.Open(benchDir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(r.Close)
	return r
}

// BenchmarkBlameRange compares, on the same lines of the hot file, git's
// own `blame -L` with gloss's cached blame (warm, as the post-commit hook
// keeps it) and libgit2's blame.
func BenchmarkBlameRange(b *testing.B) {
	r := benchRepo(b)
	ctx := context.Background()
	const start, end = 2500, 2540
	b.Run("git-blame-L", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command("git", "blame", "--porcelain", "-L", fmt.Sprintf("%d,%d", start, end), "HEAD", "--", "src/hot.go")
			cmd.Dir = benchDir
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	})
	b.Run("gloss-cached-warm", func(b *testing.B) {
		if _, err := r.BlameCached(ctx, "HEAD", "src/hot.go", start, end); err != nil { // warm
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := r.BlameCached(ctx, "HEAD", "src/hot.go", start, end); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("libgit2", func(b *testing.B) {
		for b.Loop() {
			if _, err := r.BlameLibgit2("HEAD", "src/hot.go", start, end); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkUpdateBlameCache is the post-commit hook's share: deriving the
// new commit's blame of the 5,200-line hot file from its parent's.
func BenchmarkUpdateBlameCache(b *testing.B) {
	r := benchRepo(b)
	ctx := context.Background()
	if _, err := r.BlameCached(ctx, "HEAD~1", "src/hot.go", 1, 1); err != nil {
		b.Fatal(err)
	}
	head, _ := r.ResolveCommit("HEAD")
	for b.Loop() {
		if err := r.UpdateBlameCache(ctx, head); err != nil {
			b.Fatal(err)
		}
	}
}
