package forge

import (
	"context"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

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

// fetchNotes brings the remote's gloss notes in: CI clones have no notes
// refs (actions/checkout and GitLab's clone fetch branches only), so every
// command here that reads records starts with it.
func fetchNotes(ctx context.Context, repo *gitops.Repo, remote string) error {
	_, err := notes.Fetch(ctx, repo, remote)
	return err
}
