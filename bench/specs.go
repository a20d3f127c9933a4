package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/reconcile"
)

// Size of the specs case's repository.
const (
	SpecFiles   = 10000
	SpecChanged = 20
)

// PrepareSpecs builds (once; an existing one is reused) a repository of
// 10,000 files governed by one spec, reconciled, with 20 governed files
// changed in the working tree, and returns their paths.
func PrepareSpecs(dir string) ([]string, error) {
	var changed []string
	for i := 0; i < SpecChanged; i++ {
		n := i * (SpecFiles / SpecChanged)
		changed = append(changed, fmt.Sprintf("src/d%03d/f%05d.go", n/100, n))
	}
	if _, err := os.Stat(filepath.Join(dir, ".gloss", "specs", "src.spec.yaml")); err == nil {
		return changed, nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	git := func(args ...string) error {
		cmd := exec.Command("git", append([]string{"-c", "user.name=bench", "-c", "user.email=bench@gloss.invalid", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := git("init", "-q", "-b", "main"); err != nil {
		return nil, err
	}
	for _, kv := range [][2]string{{"gc.auto", "0"}, {"user.name", "bench"}, {"user.email", "bench@gloss.invalid"}} {
		if err := git("config", kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	for i := 0; i < SpecFiles; i++ {
		p := filepath.Join(dir, "src", fmt.Sprintf("d%03d", i/100), fmt.Sprintf("f%05d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		content := fmt.Sprintf("package d%03d\n\n// F%d does one thing.\nfunc F%d() int { return %d }\n", i/100, i, i, i)
		if err := os.WriteFile(p, []byte(strings.Repeat(content, 8)), 0o644); err != nil {
			return nil, err
		}
	}
	spec := "schema_version: '0.8'\nintent: all the code\ntier: registered\nartifacts:\n  code:\n    - path: src/**\n"
	if err := os.MkdirAll(filepath.Join(dir, ".gloss", "specs"), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, ".gloss", "specs", "src.spec.yaml.tmp"), []byte(spec), 0o644); err != nil {
		return nil, err
	}
	if err := git("add", "-A"); err != nil {
		return nil, err
	}
	if err := git("commit", "-qm", "base"); err != nil {
		return nil, err
	}
	repo, err := gitops.Open(dir)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	// The spec file itself goes in last, so that a half-built repository is
	// rebuilt next time.
	if err := os.Rename(filepath.Join(dir, ".gloss", "specs", "src.spec.yaml.tmp"), filepath.Join(dir, ".gloss", "specs", "src.spec.yaml")); err != nil {
		return nil, err
	}
	if err := git("add", "-A"); err != nil {
		return nil, err
	}
	if err := git("commit", "-qm", "spec"); err != nil {
		return nil, err
	}
	ctx := context.Background()
	w, err := reconcile.Open(ctx, repo)
	if err != nil {
		return nil, err
	}
	if err := w.Load(); err != nil {
		return nil, err
	}
	var all []string
	for _, f := range w.Tree.Files {
		all = append(all, f.Path)
	}
	if _, err := w.Mark(ctx, reconcile.MarkInput{Files: all}); err != nil {
		return nil, err
	}
	for _, p := range changed {
		var n int
		if _, err := fmt.Sscanf(filepath.Base(p), "f%05d.go", &n); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, p), fmt.Appendf(nil, "package d%03d\n\nfunc F%d() int { return -1 }\n", n/100, n), 0o644); err != nil {
			return nil, err
		}
	}
	return changed, git("update-index", "-q", "--refresh")
}

// specsCase is get_spec_diff with warm records against git diff
// --name-only plus git diff of the changed files.
func specsCase(dir string) Case {
	changed, prepErr := PrepareSpecs(dir)
	ctx := context.Background()
	gitCmd := func(args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		out, err := cmd.Output()
		return string(out), err
	}
	return Case{
		Name: fmt.Sprintf("get_spec_diff, %d governed files, %d changed, warm (vs git diff --name-only + git diff)", SpecFiles, len(changed)),
		Gloss: func() error {
			if prepErr != nil {
				return prepErr
			}
			repo, err := gitops.Open(dir)
			if err != nil {
				return err
			}
			defer repo.Close()
			w, err := reconcile.Open(ctx, repo)
			if err != nil {
				return err
			}
			res, err := w.SpecDiff(ctx, reconcile.DiffInput{SpecPath: ".gloss/specs/src.spec.yaml", BaseBranch: "main"})
			if err != nil {
				return err
			}
			if len(res.Files) != len(changed) {
				return fmt.Errorf("get_spec_diff listed %d files, want %d", len(res.Files), len(changed))
			}
			return nil
		},
		Git: func() error {
			if prepErr != nil {
				return prepErr
			}
			out, err := gitCmd("diff", "--name-only", "main")
			if err != nil {
				return err
			}
			_, err = gitCmd(append([]string{"diff", "main", "--"}, strings.Fields(out)...)...)
			return err
		},
	}
}
