package gitops

import git "github.com/libgit2/git2go/v34"

// libgit2 caches parsed trees only up to 4 KiB by default, so the root
// tree of a large project (git.git's is ~20 KiB, hundreds of entries) is
// parsed again by every path lookup at every commit: a warm `read` on
// diff.c spent a fifth of its time in git_commit_tree → tree parsing.
// Raising the limit keeps big trees in the (size-bounded, 256 MiB) object
// cache; a long-lived MCP session re-reads them from memory.
const treeCacheLimit = 1 << 20

func init() {
	_ = git.SetCacheObjectLimit(git.ObjectTree, treeCacheLimit)
}
