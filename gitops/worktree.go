package gitops

import (
	"context"
	"strings"
)

// Worktree is one linked worktree.
type Worktree struct {
	Path   string
	Head   string
	Branch string // short name, "" when detached
}

// AddWorktree creates a worktree at path on branch: a new branch starting
// at base when base is given, else the existing branch.
func (r *Repo) AddWorktree(ctx context.Context, path, branch, base string) error {
	args := []string{"worktree", "add", "--quiet"}
	if base != "" {
		args = append(args, "-b", branch, path, base)
	} else {
		args = append(args, path, branch)
	}
	_, err := r.Git(ctx, args...)
	return err
}

// RemoveWorktree removes a worktree; git refuses when it has changes that
// are not committed, and so does gloss.
func (r *Repo) RemoveWorktree(ctx context.Context, path string) error {
	_, err := r.Git(ctx, "worktree", "remove", path)
	return err
}

// Worktrees lists the repository's worktrees, the main one first.
func (r *Repo) Worktrees(ctx context.Context) ([]Worktree, error) {
	out, err := r.Git(ctx, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	var list []Worktree
	var cur *Worktree
	for _, line := range strings.Split(string(out), "\n") {
		key, val, _ := strings.Cut(line, " ")
		switch key {
		case "worktree":
			list = append(list, Worktree{Path: val})
			cur = &list[len(list)-1]
		case "HEAD":
			if cur != nil {
				cur.Head = val
			}
		case "branch":
			if cur != nil {
				cur.Branch = strings.TrimPrefix(val, "refs/heads/")
			}
		}
	}
	return list, nil
}

// BranchExists reports whether refs/heads/<name> exists.
func (r *Repo) BranchExists(name string) bool {
	id, err := r.RefTarget("refs/heads/" + name)
	return err == nil && id != ""
}
