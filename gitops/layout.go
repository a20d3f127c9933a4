package gitops

import (
	"context"
	"path/filepath"
	"strings"
)

// HooksDir is the directory git runs hooks from for this worktree, as
// `git rev-parse --git-path hooks` reports it: it honours core.hooksPath
// and linked worktrees, which a hard-coded .git/hooks would not.
func (r *Repo) HooksDir(ctx context.Context) (string, error) {
	out, err := r.Git(ctx, "rev-parse", "--git-path", "hooks")
	if err != nil {
		return "", err
	}
	p := strings.TrimSpace(string(out))
	if !filepath.IsAbs(p) {
		base := r.root
		if base == "" {
			base = r.gitDir
		}
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p), nil
}

// Remotes lists the configured remotes by name.
func (r *Repo) Remotes(ctx context.Context) ([]string, error) {
	out, err := r.Git(ctx, "remote")
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}
