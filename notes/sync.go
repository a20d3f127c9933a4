package notes

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/schemas"
)

// TrackingPrefix is where a remote's gloss notes land on fetch:
// refs/notes/remotes/<remote>/gloss/<name>. Fetching into a tracking ref,
// never into the live one, is what keeps unpublished local records safe
// (the forced `+refs/notes/*:refs/notes/*` refspec is how git-ai and
// CommitLore users lost theirs).
func TrackingPrefix(remote string) string {
	return "refs/notes/remotes/" + remote + "/gloss/"
}

// FetchRefspec is the refspec that brings a remote's gloss notes into its
// tracking refs. The "+" applies to the tracking refs only.
func FetchRefspec(remote string) string {
	return "+" + RefPrefix + "*:" + TrackingPrefix(remote) + "*"
}

// SyncOptions configures Sync.
type SyncOptions struct {
	Remote      string
	MaxAttempts int // fetch→merge→push rounds before giving up (default 30)

	// Sessions exchanges refs/notes/gloss/sessions too ([sync] sessions =
	// true): agent sessions stay on the machine unless the team says so.
	Sessions bool

	// Progress, when set, is told what sync is doing, for people watching.
	Progress func(step string)

	// beforePush, when set, runs between the merge and the push of each
	// attempt. Tests use it to make another clone win the race.
	beforePush func(attempt int)
}

// SyncResult reports one sync.
type SyncResult struct {
	Schema   string        `json:"$schema"`
	Remote   string        `json:"remote"`
	Attempts int           `json:"attempts"`
	Merged   []MergeResult `json:"merged"`
	Pushed   []string      `json:"pushed"`
	UpToDate []string      `json:"up_to_date"`
}

// ErrPushRejected means the remote kept refusing the push because others
// kept pushing first.
var ErrPushRejected = errors.New("push rejected")

// Sync exchanges gloss notes with a remote: fetch the remote's refs into
// tracking refs, merge each into the local ref line-wise, and push the
// local refs without force. A push that loses a race (the remote moved
// after our fetch) is retried from the fetch, so concurrent syncs from
// several clones converge on the union of everyone's records.
func Sync(ctx context.Context, repo *gitops.Repo, opts SyncOptions) (*SyncResult, error) {
	if opts.Remote == "" {
		opts.Remote = "origin"
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = defaultSyncAttempts
	}
	res := &SyncResult{Schema: "gloss-sync/v1", Remote: opts.Remote, Merged: []MergeResult{}, Pushed: []string{}, UpToDate: []string{}}
	for attempt := 1; ; attempt++ {
		res.Attempts = attempt
		err := syncOnce(ctx, repo, opts, attempt, res)
		if err == nil {
			return res, nil
		}
		if !retryable(err) {
			return res, err
		}
		if attempt >= opts.MaxAttempts {
			return res, fault.As(fault.Conflict, fmt.Errorf("%w (others pushed first %d times in a row; run git gloss sync again)", err, attempt))
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(syncBackoff(attempt)):
		}
	}
}

// defaultSyncAttempts is how many fetch→merge→push rounds sync tries. A
// peer syncing in a loop wins a round now and then; with jittered backoff
// losing this many in a row does not happen in practice.
const defaultSyncAttempts = 30

// syncBackoff is the pause before round attempt+1: random ("full
// jitter"), so that two clones that lost to each other do not retry in
// lockstep and collide again, growing to at most half a second.
func syncBackoff(attempt int) time.Duration {
	ceiling := min(20*time.Millisecond<<min(attempt, 5), 500*time.Millisecond)
	return time.Duration(rand.Int64N(int64(ceiling))) + 5*time.Millisecond
}

// retryable reports whether a round failed only because someone else
// moved a ref at the same moment: a push that lost the race, a local ref
// that changed under the merge, a ref lock another git held.
func retryable(err error) bool {
	return errors.Is(err, ErrPushRejected) || errors.Is(err, gitops.ErrRefChanged) || errors.Is(err, errRefLocked)
}

// errRefLocked marks a fetch that found a ref locked by another git.
var errRefLocked = errors.New("ref locked")

func syncOnce(ctx context.Context, repo *gitops.Repo, opts SyncOptions, attempt int, res *SyncResult) error {
	remote := opts.Remote
	progress := opts.Progress
	if progress == nil {
		progress = func(string) {}
	}
	tracking, merged, err := fetchAndMerge(ctx, repo, remote, opts.Sessions, progress)
	if err != nil {
		return err
	}
	res.Merged = append(res.Merged[:0], merged...)
	if opts.beforePush != nil {
		opts.beforePush(attempt)
	}
	locals, err := repo.ListRefs(RefPrefix + "*")
	if err != nil {
		return err
	}
	remoteTips := map[string]string{}
	for _, t := range tracking {
		remoteTips[RefPrefix+strings.TrimPrefix(t.Name, TrackingPrefix(remote))] = t.Target
	}
	var specs []string
	res.Pushed, res.UpToDate = res.Pushed[:0], res.UpToDate[:0]
	for _, l := range locals {
		if l.Name == Sessions && !opts.Sessions {
			continue
		}
		if remoteTips[l.Name] == l.Target {
			res.UpToDate = append(res.UpToDate, l.Name)
			continue
		}
		specs = append(specs, l.Name+":"+l.Name)
	}
	if len(specs) == 0 {
		return nil
	}
	progress("pushing gloss notes to " + remote + "…")
	// --no-verify: this push is gloss's own and must not run the user's
	// pre-push hook (nor gloss's, which would recurse).
	args := append([]string{"push", "--porcelain", "--no-verify", remote}, specs...)
	out, err := repo.Git(ctx, args...)
	if err != nil {
		if rejected(string(out)) || rejected(errText(err)) {
			return fmt.Errorf("%s: %w: %s", remote, ErrPushRejected, strings.TrimSpace(string(out)+"\n"+errText(err)))
		}
		return fmt.Errorf("push notes to %s: %w", remote, err)
	}
	for _, s := range specs {
		name, _, _ := strings.Cut(s, ":")
		res.Pushed = append(res.Pushed, name)
	}
	return nil
}

// Fetch brings a remote's gloss notes into its tracking refs and merges
// each into the local ref, line-wise, without pushing: the first half of
// Sync, for readers that need the team's records but write none (a CI
// check), or that push later.
func Fetch(ctx context.Context, repo *gitops.Repo, remote string) ([]MergeResult, error) {
	_, merged, err := fetchAndMerge(ctx, repo, remote, false, func(string) {})
	return merged, err
}

// fetchAndMerge fetches the remote's notes into tracking refs and merges
// them; it returns the tracking refs and the merges that changed a ref.
func fetchAndMerge(ctx context.Context, repo *gitops.Repo, remote string, sessions bool, progress func(string)) ([]gitops.Ref, []MergeResult, error) {
	progress("fetching gloss notes from " + remote + "…")
	args := []string{"fetch", "--quiet", "--no-tags", "--prune", "--no-write-fetch-head", remote, FetchRefspec(remote)}
	if !sessions {
		args = append(args, "^"+Sessions) // a negative refspec: leave the sessions ref out
	}
	if _, err := repo.Git(ctx, args...); err != nil {
		if locked(errText(err)) {
			return nil, nil, fmt.Errorf("fetch notes from %s: %w: %s", remote, errRefLocked, strings.TrimSpace(errText(err)))
		}
		return nil, nil, fmt.Errorf("fetch notes from %s: %w", remote, err)
	}
	tracking, err := repo.ListRefs(TrackingPrefix(remote) + "*")
	if err != nil {
		return nil, nil, err
	}
	merged := []MergeResult{}
	progress("merging…")
	for _, t := range tracking {
		local := RefPrefix + strings.TrimPrefix(t.Name, TrackingPrefix(remote))
		if local == Sessions && !sessions {
			continue
		}
		m, err := MergeRef(ctx, repo, local, t.Name)
		if err != nil {
			return nil, nil, fmt.Errorf("merge %s into %s: %w", t.Name, local, err)
		}
		if m.Action != "none" {
			merged = append(merged, m)
		}
	}
	return tracking, merged, nil
}

// rejected recognises git's report of a push that lost a race: the remote
// ref moved (non-fast-forward, fetch first) or changed under its lock.
func rejected(s string) bool {
	for _, m := range []string{"[rejected]", "non-fast-forward", "fetch first", "stale info", "cannot lock ref", "failed to update ref", "[remote rejected]"} {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// locked recognises git's report of a ref lock held by another process.
func locked(s string) bool {
	return strings.Contains(s, "cannot lock ref") || (strings.Contains(s, "Unable to create") && strings.Contains(s, ".lock"))
}

func errText(err error) string {
	var ge *gitops.GitError
	if errors.As(err, &ge) {
		return ge.Stderr
	}
	return err.Error()
}

func init() {
	schemas.Register(schemas.Entry{Name: "sync", Tag: "gloss-sync/v1", Description: "What git gloss sync exchanged with a remote.", Type: schemas.TypeOf[SyncResult]()})
}
