package gitops

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// HooksDir is the directory git runs hooks from for this worktree, as
// `git rev-parse --git-path hooks` reports it: it honours core.hooksPath
// and linked worktrees, which a hard-coded .git/hooks would not.
func (r *Repo) HooksDir(ctx context.Context) (string, error) {
	p, ok := r.hooksDirInProcess(ctx)
	if !ok {
		out, err := r.Git(ctx, "rev-parse", "--git-path", "hooks")
		if err != nil {
			return "", err
		}
		p = strings.TrimSpace(string(out))
	}
	if !filepath.IsAbs(p) {
		base := r.root
		if base == "" {
			base = r.gitDir
		}
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p), nil
}

// hooksDirInProcess answers HooksDir from configuration read in process,
// which is what git does: core.hooksPath (with ~/ expanded), else hooks in
// the common git dir. Spellings only git expands (~user/, %(prefix)/) are
// left to it.
func (r *Repo) hooksDirInProcess(ctx context.Context) (string, bool) {
	if !configInProcess() {
		return "", false
	}
	v, set, err := r.ConfigGet(ctx, "core.hooksPath")
	switch {
	case err != nil:
		return "", false
	case !set || v == "":
		return filepath.Join(r.commonDir, "hooks"), true
	case strings.HasPrefix(v, "~/"):
		home, err := os.UserHomeDir()
		if err != nil {
			return "", false
		}
		return filepath.Join(home, v[2:]), true
	case strings.HasPrefix(v, "~") || strings.HasPrefix(v, "%("):
		return "", false
	}
	return v, true
}

// Remotes lists the configured remotes by name, as `git remote` does.
func (r *Repo) Remotes(ctx context.Context) ([]string, error) {
	if configInProcess() {
		names, err := r.r.Remotes.List()
		if err == nil {
			slices.Sort(names)
			return names, nil
		}
	}
	out, err := r.Git(ctx, "remote")
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}
