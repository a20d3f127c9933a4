package review

import (
	"context"
	"strings"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/forge"
	"github.com/gloss-dev/gloss/gitops"
)

// resolveRange turns the range argument into the diff's two sides: head,
// and the merge base of head with the range's start.
//
//	""      the merge base with the pull request's target (in CI), the
//	        branch's upstream when it is another branch, the remote's
//	        default branch, or a local main or master, up to HEAD
//	A..B    the merge base of A and B, up to B (either side defaults to HEAD)
//	A...B   the same
//	A       the merge base of A and HEAD, up to HEAD
func resolveRange(ctx context.Context, repo *gitops.Repo, spec, remote string, env func(string) string) (base, head, from string, err error) {
	start, end := spec, "HEAD"
	if a, b, ok := strings.Cut(spec, ".."); ok {
		start, end = a, strings.TrimPrefix(b, ".")
		if start == "" {
			start = "HEAD"
		}
		if end == "" {
			end = "HEAD"
		}
	}
	if head, err = repo.ResolveCommit(end); err != nil {
		return "", "", "", fault.NotFoundf("%s: not a commit here: %s", fault.Quote(end), fault.Line(err.Error()))
	}
	from = "the range given"
	if start == "" {
		start, from = defaultBase(ctx, repo, remote, env)
		if start == "" {
			return "", "", "", fault.Usagef("no base to compare with: give a range (git gloss review main..HEAD), or set the branch's upstream")
		}
	}
	id, err := repo.ResolveCommit(start)
	if err != nil {
		return "", "", "", fault.NotFoundf("%s: not a commit here (a shallow CI checkout? fetch the target branch, or use fetch-depth: 0): %s", fault.Quote(start), fault.Line(err.Error()))
	}
	base, err = mergeBase(ctx, repo, id, head)
	if err != nil || base == "" {
		return "", "", "", fault.NotFoundf("%s and %s share no history (a shallow clone? deepen it)", fault.Quote(start), fault.Quote(end))
	}
	return base, head, from, nil
}

// defaultBase finds what a branch is compared with when no range is
// given, and says where it came from.
func defaultBase(ctx context.Context, repo *gitops.Repo, remote string, env func(string) string) (rev, from string) {
	if env("CI_MERGE_REQUEST_DIFF_BASE_SHA") != "" || env("GITHUB_BASE_REF") != "" || env("CI_MERGE_REQUEST_TARGET_BRANCH_NAME") != "" {
		return forge.DefaultBase(ctx, repo, remote, env), "the pull request's target branch"
	}
	// The upstream, unless it is the branch's own copy on the remote
	// (feature tracking origin/feature): the merge base would be HEAD.
	if branch, err := repo.HeadBranch(); err == nil && branch != "" {
		if out, err := repo.Git(ctx, "rev-parse", "--symbolic-full-name", "@{upstream}"); err == nil {
			up := strings.TrimSpace(string(out))
			if up != "" && !strings.HasSuffix(up, "/"+branch) {
				return up, "the upstream " + strings.TrimPrefix(up, "refs/remotes/")
			}
		}
	}
	if def := forge.DefaultBase(ctx, repo, remote, func(string) string { return "" }); def != "" {
		return def, "the default branch " + strings.TrimPrefix(def, "refs/remotes/")
	}
	for _, b := range []string{"main", "master"} {
		if _, err := repo.ResolveCommit("refs/heads/" + b); err == nil {
			return "refs/heads/" + b, "the local branch " + b
		}
	}
	return "", ""
}

// mergeBase asks git, whose walk uses the commit-graph when the clone has
// one, or the blame graph's (libgit2's walk uses neither).
func mergeBase(ctx context.Context, repo *gitops.Repo, a, b string) (string, error) {
	if a == b {
		return a, nil
	}
	out, err := repo.GitWalk(ctx, "merge-base", a, b)
	return strings.TrimSpace(string(out)), err
}
