package attribution

import (
	"context"
	"os"

	"github.com/gloss-dev/gloss/capture"
	"github.com/gloss-dev/gloss/gitops"
)

// Preview computes the attribution a commit gets from the agent capture as
// it stands now, without storing it: given a commit object of the staged
// tree that is not on any branch yet (prepare-commit-msg makes one), it
// says what post-commit will record for the commit about to be made.
func Preview(ctx context.Context, repo *gitops.Repo, commit string) (*Record, error) {
	claims, err := capture.PendingEdits(repo)
	if err != nil {
		return nil, err
	}
	in := &input{id: commit}
	if err := in.gather(ctx, repo); err != nil {
		return nil, err
	}
	return compute(in, computation{claims: claims, env: os.Getenv, source: SourceHook}), nil
}
