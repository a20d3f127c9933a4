package tasks_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/tasks"
)

// BenchmarkListAndReady reads a repository of 3,000 task files — chains
// of dependencies, groups, a tenth archived — the way task_list and
// task_ready do on every call (nothing is cached between calls), and
// compares with `git grep` reading every task's status line, the least a
// reader of every file pays.
func BenchmarkListAndReady(b *testing.B) {
	fx := fixtures.NewRepo(b)
	fx.Commit("initial", map[string]string{"README.md": "x\n"})
	day := time.Now().UTC().Format("2006-01-02")
	for i := 0; i < 3000; i++ {
		id := fmt.Sprintf("%s-%03s-a%02d", day, fmt.Sprintf("%03d", i%1000), i/1000)
		dir := tasks.Dir
		if i%10 == 9 {
			dir = tasks.ArchiveDir
		}
		deps := "[]"
		if i%4 != 0 && i > 0 {
			deps = fmt.Sprintf("[%s-%03d-a%02d]", day, (i-1)%1000, (i-1)/1000)
		}
		status := []string{"pending", "completed", "in_progress", "pending"}[i%4]
		body := fmt.Sprintf("---\ntype: code\nstatus: %s\ndepends_on: %s\nlabels: [l%d]\n---\n# Task %d: add the endpoint number %d\n\n## Acceptance Criteria\n\n- [ ] it answers\n- [x] it is tested\n", status, deps, i%9, i, i)
		p := filepath.Join(fx.Dir, dir, id+".md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	fx.Git("add", "-A")
	fx.Git("commit", "-q", "-m", "3000 tasks")
	repo, err := gitops.Open(fx.Dir)
	if err != nil {
		b.Fatal(err)
	}
	defer repo.Close()
	ctx := context.Background()

	b.Run("list", func(b *testing.B) {
		for b.Loop() {
			s, err := tasks.Open(ctx, repo)
			if err != nil {
				b.Fatal(err)
			}
			if l, err := s.List("", 50); err != nil || l.Total == 0 {
				b.Fatalf("list: %v", err)
			}
			s.Close()
		}
	})
	b.Run("ready", func(b *testing.B) {
		for b.Loop() {
			s, err := tasks.Open(ctx, repo)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Ready(50); err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
	})
	b.Run("git-grep-status", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command("git", "grep", "-h", "^status:", "--", ".gloss/tasks")
			cmd.Dir = fx.Dir
			if _, err := cmd.Output(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
