package notes

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/gitops"
)

// PlanSync is `git gloss sync --dry-run`: what a sync with the remote
// would do to each gloss notes ref, found without changing anything. It
// asks the remote for its tips (git ls-remote) and compares them with the
// local refs and the objects this clone already has; nothing is fetched,
// merged, pushed or written, the remote-tracking refs included.
//
// Per ref the answer is one of: up to date; push (the remote is behind);
// fast-forward (the remote is ahead and this clone has its commits);
// fetch and merge, then push (the remote has commits this clone lacks:
// which records they hold is known only after a fetch); create (only the
// remote has it). Records a forget tombstone would drop and refs a purge
// replaced are not modelled: the real sync reports them.
func PlanSync(ctx context.Context, repo *gitops.Repo, opts SyncOptions) (*SyncResult, error) {
	if opts.Remote == "" {
		opts.Remote = "origin"
	}
	res := &SyncResult{Schema: "gloss-sync/v1", Remote: opts.Remote, DryRun: true, Merged: []MergeResult{}, Pushed: []string{}, UpToDate: []string{}}
	out, err := repo.Git(ctx, "ls-remote", "--refs", opts.Remote, RefPrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("ask %s for its gloss notes: %w", opts.Remote, err)
	}
	remote := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		id, name, ok := strings.Cut(line, "\t")
		if !ok || !strings.HasPrefix(name, RefPrefix) || (name == Sessions && !opts.Sessions) {
			continue
		}
		remote[name] = id
	}
	locals, err := repo.ListRefs(RefPrefix + "*")
	if err != nil {
		return nil, err
	}
	local := map[string]string{}
	for _, l := range locals {
		if l.Name == Sessions && !opts.Sessions {
			continue
		}
		local[l.Name] = l.Target
	}
	for _, name := range sortedKeys(local, remote) {
		l, r := local[name], remote[name]
		switch {
		case r == "":
			res.Pushed = append(res.Pushed, name)
		case l == "":
			res.Merged = append(res.Merged, MergeResult{Ref: name, From: opts.Remote, Action: "created", Tip: r})
		case l == r:
			res.UpToDate = append(res.UpToDate, name)
		case !repo.HasObject(r):
			// The remote has commits this clone lacks: a fetch brings
			// them, a three-way merge joins them, and the result is pushed.
			res.Merged = append(res.Merged, MergeResult{Ref: name, From: opts.Remote, Action: "merged", Tip: r})
			res.Pushed = append(res.Pushed, name)
		default:
			if behind, _ := repo.IsAncestor(r, l); behind {
				res.Pushed = append(res.Pushed, name)
			} else if ahead, _ := repo.IsAncestor(l, r); ahead {
				res.Merged = append(res.Merged, MergeResult{Ref: name, From: opts.Remote, Action: "fast-forward", Tip: r})
			} else {
				res.Merged = append(res.Merged, MergeResult{Ref: name, From: opts.Remote, Action: "merged", Tip: r})
				res.Pushed = append(res.Pushed, name)
			}
		}
	}
	return res, nil
}

// sortedKeys is the union of two maps' keys, sorted.
func sortedKeys(a, b map[string]string) []string {
	seen := map[string]bool{}
	var keys []string
	for _, m := range []map[string]string{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}
