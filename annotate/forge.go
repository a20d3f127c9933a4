package annotate

import (
	"context"
	"fmt"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// CarryOnto carries the live records of sources onto to, remapping their
// lines through the diff from each source's version of a file to to's, with
// provenance source (SourceSquash, SourceRebase, …) and derived_from naming
// the source commit. It is the server-side counterpart of the squash and
// rebase hooks: a forge's "squash and merge" runs no hook, so CI calls this
// after the merge. Records to already has a copy of are not copied again,
// so running it twice adds nothing. It returns the number of records
// written.
func CarryOnto(ctx context.Context, repo *gitops.Repo, sources []string, to, source string) (int, error) {
	store := notes.Open(repo, notes.Annotations)
	recs, err := store.Read(sources)
	if err != nil {
		return 0, err
	}
	var out []any
	for _, s := range sources {
		if len(recs[s]) == 0 {
			continue
		}
		carried, _, err := carryRecords(ctx, repo, recs[s], s, to, source)
		if err != nil {
			return 0, fmt.Errorf("carry %s onto %s: %w", gitops.ShortID(s), gitops.ShortID(to), err)
		}
		out = append(out, carried...)
	}
	if len(out) == 0 {
		return 0, nil
	}
	if err := store.Append(ctx, to, out...); err != nil {
		return 0, err
	}
	return len(out), nil
}
