package gitops

import (
	"context"
	"strconv"
	"strings"
)

// Renames returns the whole-file renames in the history of rev, oldest
// path to newer path, as `git log -M` detects them. Follow a chain with
// FollowRename.
func (r *Repo) Renames(ctx context.Context, rev string) (map[string]string, error) {
	out, err := r.Git(ctx, "log", "-M", "--diff-filter=R", "--name-status", "--format=", "-z", rev)
	if err != nil {
		return nil, err
	}
	renames := map[string]string{}
	f := strings.Split(string(out), "\x00")
	for i := 0; i+2 < len(f); {
		status := strings.TrimSpace(f[i])
		if !strings.HasPrefix(status, "R") {
			i++
			continue
		}
		if _, seen := renames[f[i+1]]; !seen { // newest first: keep the latest rename of a path
			renames[f[i+1]] = f[i+2]
		}
		i += 3
	}
	return renames, nil
}

// FollowRename follows a path through renames to its newest name.
func FollowRename(renames map[string]string, path string) string {
	seen := map[string]bool{}
	for !seen[path] {
		seen[path] = true
		next, ok := renames[path]
		if !ok {
			break
		}
		path = next
	}
	return path
}

// LogFollow lists the commits that changed path, following renames
// (git log --follow), newest first, at most limit (0: all).
func (r *Repo) LogFollow(ctx context.Context, rev, path string, limit int) ([]string, error) {
	args := []string{"log", "--follow", "--format=%H"}
	if limit > 0 {
		args = append(args, "-n", strconv.Itoa(limit))
	}
	out, err := r.Git(ctx, append(args, rev, "--", path)...)
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}
