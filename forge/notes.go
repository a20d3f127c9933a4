package forge

import (
	"context"
	"fmt"
	"strings"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// FetchNotes brings a remote's gloss notes into its tracking refs and
// merges each into the local ref, line-wise, without pushing: the first
// half of `git gloss sync`. CI clones have no notes refs (actions/checkout
// and GitLab's clone fetch branches only), so every check that reads
// records starts here.
func FetchNotes(ctx context.Context, repo *gitops.Repo, remote string) error {
	if _, err := repo.Git(ctx, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote, notes.FetchRefspec(remote)); err != nil {
		return fmt.Errorf("fetch gloss notes from %s: %w", remote, err)
	}
	tracking, err := repo.ListRefs(notes.TrackingPrefix(remote) + "*")
	if err != nil {
		return err
	}
	for _, t := range tracking {
		local := notes.RefPrefix + strings.TrimPrefix(t.Name, notes.TrackingPrefix(remote))
		if _, err := notes.MergeRef(ctx, repo, local, t.Name); err != nil {
			return fmt.Errorf("merge %s into %s: %w", t.Name, local, err)
		}
	}
	return nil
}

// hasRemote reports whether remote is configured in repo.
func hasRemote(ctx context.Context, repo *gitops.Repo, remote string) bool {
	rs, err := repo.Remotes(ctx)
	if err != nil {
		return false
	}
	for _, r := range rs {
		if r == remote {
			return true
		}
	}
	return false
}
