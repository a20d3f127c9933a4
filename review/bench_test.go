package review_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/bench"
	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/runenv"
)

// BenchmarkReview times `git gloss review A..B --json` of a 200-commit
// range as a whole process, warm (a first run fills the blame cache),
// beside git's own diff of the same range (`git diff -U0`), which the
// review cannot do without, in the same run; it reports wall and CPU
// (children included) per run and the ratio of the two walls.
//
// With GLOSS_BENCH_REPO, a clone of git/git that has 3f664917, it
// measures 3f664917~200..3f664917 (200 first-parent commits, 820 in all,
// 902 files, +35,447 -14,852) on the clone bench.PrepareRecipe makes of
// it (bench.GitRecipe: gloss set up, region records on diff.c's
// diff_flush, commit-level records on the newest 500 commits) in the temp
// dir's gloss-bench-review-git, kept between runs. Otherwise a generated
// 600-commit history, HEAD~200..HEAD.
func BenchmarkReview(b *testing.B) {
	bin := fixtures.Binary(b)
	dir, rng := reviewTarget(b, bin)
	run := func(name string, args ...string) (wall, cpu time.Duration) {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s %v: %v\n%.2000s", name, args, err, out)
		}
		return time.Since(start), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	run(bin, "review", rng, "--json") // warm
	measure := func(name string, args ...string) time.Duration {
		var wall, cpu time.Duration
		n := 0
		b.Run(filepath.Base(name), func(b *testing.B) {
			for b.Loop() {
				w, c := run(name, args...)
				wall, cpu, n = wall+w, cpu+c, n+1
			}
			b.ReportMetric(float64(wall.Milliseconds())/float64(n), "ms/run")
			b.ReportMetric(float64(cpu.Milliseconds())/float64(n), "cpu-ms/run")
		})
		return wall / time.Duration(max(n, 1))
	}
	review := measure(bin, "review", rng, "--json")
	diff := measure("git", "diff", "-U0", "--no-color", rng)
	b.Logf("%s: git gloss review %v, git diff -U0 %v, ratio %.2fx", rng, review.Round(time.Millisecond), diff.Round(time.Millisecond), float64(review)/float64(diff))
}

// reviewTarget prepares the repository and the range to review.
func reviewTarget(b *testing.B, bin string) (dir, rng string) {
	if src := runenv.Get(runenv.BenchRepo); src != "" {
		if err := exec.Command("git", "-C", src, "cat-file", "-e", bench.GitRecipe.Rev+"^{commit}").Run(); err != nil {
			b.Skipf("%s has no commit %s: the review benchmark runs on git/git", src, bench.GitRecipe.Rev)
		}
		dir = filepath.Join(os.TempDir(), "gloss-bench-review-git")
		env, err := bench.PrepareRecipe(context.Background(), bench.GitRecipe, src, dir, bin)
		if err != nil {
			b.Fatal(err)
		}
		return env.Dir, bench.GitRecipe.Rev + "~200.." + bench.GitRecipe.Rev
	}
	dir = filepath.Join(b.TempDir(), "repo")
	if _, err := fixtures.GenerateHistory(dir, fixtures.HistoryOptions{Commits: 600, Files: 40, Lines: 400, HotLines: 1000, EditsPerFile: 3, FilesPerEdit: 3, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, "init", "--no-mcp")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("init: %v\n%s", err, out)
	}
	return dir, "HEAD~200..HEAD"
}
