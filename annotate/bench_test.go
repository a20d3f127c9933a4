package annotate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/capture"
	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
)

// BenchmarkPostCommitHook measures what gloss's hooks add to a real
// `git commit` of 10 changed Go files (about 400 lines each) on a
// repository with history: the same commit is timed with the hooks and
// without them, alternately, and the difference of the medians is
// reported as hook-ms-p50 (the target is at most 100 ms).
func BenchmarkPostCommitHook(b *testing.B) {
	bin := fixtures.Binary(b)
	dir := filepath.Join(b.TempDir(), "repo")
	if _, err := fixtures.GenerateHistory(dir, fixtures.HistoryOptions{Commits: 300, Files: 12, Lines: 400, EditsPerFile: 3, FilesPerEdit: 3, Seed: 5}); err != nil {
		b.Fatal(err)
	}
	// Runs before the temporary directories are removed: what the hooks
	// left to background processes must not race that removal.
	b.Cleanup(func() { waitForWorker(b, dir) })
	fx := &fixtures.Repo{T: b, Dir: dir, Env: fixtures.Env(b.TempDir(), filepath.Dir(bin))}
	fx.MustGloss("init", "--no-mcp")
	files := strings.Fields(fx.Git("ls-files", "src/pkg*"))[:10]
	round := 0
	commit := func(hooks bool) time.Duration {
		round++
		for _, f := range files {
			p := fx.Path(f)
			data, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			lines := strings.Split(string(data), "\n")
			lines[100+round%200] = fmt.Sprintf("\tx += %d // bench %d", round, round)
			if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		fx.Git("add", "-A")
		args := []string{"commit", "-q", "-m", fmt.Sprintf("bench change %d", round)}
		if !hooks {
			args = append([]string{"-c", "core.hooksPath=/nonexistent"}, args...)
		}
		start := time.Now()
		fx.Git(args...)
		return time.Since(start)
	}
	var with, without []time.Duration
	for b.Loop() {
		with = append(with, commit(true))
		without = append(without, commit(false))
	}
	slices.Sort(with)
	slices.Sort(without)
	med := func(d []time.Duration) float64 { return float64(d[len(d)/2].Microseconds()) / 1000 }
	b.ReportMetric(med(with), "commit-with-hooks-ms-p50")
	b.ReportMetric(med(without), "commit-without-hooks-ms-p50")
	b.ReportMetric(med(with)-med(without), "hook-ms-p50")
	if os.Getenv("GLOSS_BENCH_HOOKLOG") != "" {
		b.Log(fx.Read(".git/gloss/hooks.log"))
	}
}

// waitForWorker waits until the hooks' background worker has finished
// what the commits left it (a hooked commit after an unhooked one may
// defer work), so that the temporary repository is not removed under it.
func waitForWorker(b *testing.B, dir string) {
	repo, err := gitops.Open(dir)
	if err != nil {
		return // no repository was made
	}
	defer repo.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := capture.WaitIdle(ctx, repo); err != nil {
		b.Fatal(err)
	}
}
