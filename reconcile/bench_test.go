package reconcile_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/reconcile"
)

const (
	benchFiles   = 10000
	benchChanged = 20
)

// benchRepo builds a repository of 10,000 files, all governed by one spec
// (src/**), reconciled, with 20 governed files then changed in the working
// tree. It returns the repository and the changed paths.
func benchRepo(b *testing.B) (*fixtures.Repo, []string) {
	b.Helper()
	r := fixtures.NewRepo(b)
	// 10,000 new objects would start a detached auto gc that is still
	// writing when the temporary directory is removed.
	r.Git("config", "gc.auto", "0")
	for i := 0; i < benchFiles; i++ {
		p := filepath.Join(r.Dir, "src", fmt.Sprintf("d%03d", i/100), fmt.Sprintf("f%05d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		content := fmt.Sprintf("package d%03d\n\n// F%d does one thing.\nfunc F%d() int { return %d }\n", i/100, i, i, i)
		if err := os.WriteFile(p, []byte(strings.Repeat(content, 8)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	r.Write(".gloss/specs/src.spec.yaml", "schema_version: '0.8'\nintent: all the code\ntier: registered\nartifacts:\n  code:\n    - path: src/**\n")
	r.Git("add", "-A")
	r.Git("commit", "-qm", "base")
	r.Git("checkout", "-q", "-b", "work")

	repo, err := gitops.Open(r.Dir)
	if err != nil {
		b.Fatal(err)
	}
	defer repo.Close()
	ctx := context.Background()
	markAll(b, ctx, repo)
	var changed []string
	for i := 0; i < benchChanged; i++ {
		n := i * (benchFiles / benchChanged)
		p := fmt.Sprintf("src/d%03d/f%05d.go", n/100, n)
		r.Write(p, fmt.Sprintf("package d%03d\n\nfunc F%d() int { return -1 }\n", n/100, n))
		changed = append(changed, p)
	}
	// Settle the index's stat information the way any git status would,
	// for both sides alike.
	r.Git("update-index", "-q", "--refresh")
	return r, changed
}

// BenchmarkSpecDiffWarm compares get_spec_diff with warm records against
// what an agent would run by hand — git diff --name-only plus git diff of
// the changed files — measured in the same run on the same repository,
// and reports the ratio (target: at most 2×).
func BenchmarkSpecDiffWarm(b *testing.B) {
	r, changed := benchRepo(b)
	ctx := context.Background()
	repo, err := gitops.Open(r.Dir)
	if err != nil {
		b.Fatal(err)
	}
	defer repo.Close()

	specDiff := func() *reconcile.DiffResult {
		w, err := reconcile.Open(ctx, repo)
		if err != nil {
			b.Fatal(err)
		}
		res, err := w.SpecDiff(ctx, reconcile.DiffInput{SpecPath: ".gloss/specs/src.spec.yaml", BaseBranch: "main"})
		if err != nil {
			b.Fatal(err)
		}
		return res
	}
	gitBaseline := func() {
		out, err := gitRun(r, "diff", "--name-only", "main")
		if err != nil {
			b.Fatal(err)
		}
		files := strings.Fields(out)
		if _, err := gitRun(r, append([]string{"diff", "main", "--"}, files...)...); err != nil {
			b.Fatal(err)
		}
	}
	res := specDiff()
	if len(res.Files) != benchChanged || len(res.Skipped) != benchFiles-benchChanged || res.Cache.State != "warm" {
		b.Fatalf("unexpected result: %d files, %d skipped, cache %+v", len(res.Files), len(res.Skipped), res.Cache)
	}
	for _, p := range changed {
		if !strings.Contains(res.Diff, "b/"+p) {
			b.Fatalf("diff lacks %s", p)
		}
	}
	gitBaseline()

	var glossTime, gitTime time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		specDiff()
		t1 := time.Now()
		gitBaseline()
		t2 := time.Now()
		glossTime += t1.Sub(t0)
		gitTime += t2.Sub(t1)
	}
	b.StopTimer()
	ratio := float64(glossTime) / float64(gitTime)
	b.ReportMetric(float64(glossTime.Microseconds())/float64(b.N)/1000, "gloss-ms/op")
	b.ReportMetric(float64(gitTime.Microseconds())/float64(b.N)/1000, "git-ms/op")
	b.ReportMetric(ratio, "ratio")
	b.Logf("get_spec_diff warm %.1f ms, git diff --name-only + git diff %.1f ms, ratio %.2f× (target ≤ 2×)",
		float64(glossTime.Microseconds())/float64(b.N)/1000, float64(gitTime.Microseconds())/float64(b.N)/1000, ratio)
}

// BenchmarkMarkAll hashes every file of the 10,000-file repository
// with BLAKE3 (a cold mark), on every core.
func BenchmarkMarkAll(b *testing.B) {
	r, _ := benchRepo(b)
	ctx := context.Background()
	repo, err := gitops.Open(r.Dir)
	if err != nil {
		b.Fatal(err)
	}
	defer repo.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		markAll(b, ctx, repo)
	}
}

// markAll records every file of the repository as reconciled.
func markAll(b *testing.B, ctx context.Context, repo *gitops.Repo) {
	w, err := reconcile.Open(ctx, repo)
	if err != nil {
		b.Fatal(err)
	}
	if err := w.Load(); err != nil {
		b.Fatal(err)
	}
	var all []string
	for _, f := range w.Tree.Files {
		all = append(all, f.Path)
	}
	if _, err := w.Mark(ctx, reconcile.MarkInput{Files: all}); err != nil {
		b.Fatal(err)
	}
}

func gitRun(r *fixtures.Repo, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	cmd.Env = r.Env
	out, err := cmd.Output()
	return string(out), err
}
