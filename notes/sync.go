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

	// Purge allows the one force-update sync ever does: replacing a remote
	// notes ref whose history predates a purge made here (see Purge). The
	// lease is the remote tip just fetched, and the result names it.
	Purge bool

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
	DryRun   bool          `json:"dry_run,omitempty" jsonschema:"nothing was changed: merged, pushed and up_to_date say what a sync would do (sync --dry-run)"`
	Attempts int           `json:"attempts"`
	Merged   []MergeResult `json:"merged"`
	Pushed   []string      `json:"pushed"`
	UpToDate []string      `json:"up_to_date"`
	// Replaced lists the remote refs sync --purge force-updated.
	Replaced []ReplacedRef `json:"replaced,omitempty"`
	// PurgePending lists the refs not pushed because the remote still holds
	// history purged here: git gloss sync --purge replaces it.
	PurgePending []string `json:"purge_pending,omitempty"`
	// SessionPrompts: prompt summaries dropped from the agents' session
	// state because tombstones forget them (filled in by the caller).
	SessionPrompts int `json:"session_prompts,omitempty"`
}

// ReplacedRef is a remote notes ref that sync --purge force-updated.
type ReplacedRef struct {
	Ref string `json:"ref"`
	Old string `json:"old" jsonschema:"the remote tip replaced: history that held forgotten text"`
	New string `json:"new"`
}

// ErrPushRejected means the remote kept refusing the push because others
// kept pushing first.
var ErrPushRejected = errors.New("push rejected")

// Sync exchanges gloss notes with a remote: fetch the remote's refs into
// tracking refs, merge each into the local ref three-way, record by record
// (MergeNote), and push the local refs without force. A push that loses a
// race (the remote moved after our fetch) is retried from the fetch, so
// concurrent syncs from several clones converge on everyone's changes.
// Tombstones are merged first and honoured by every other merge; a purged
// history is adopted, or (with Purge) force-pushed, never merged with the
// old one.
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
			recordSync(repo, res, time.Now())
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
	fm, err := fetchAndMerge(ctx, repo, remote, opts.Sessions, opts.Purge, progress)
	if err != nil {
		return err
	}
	tracking, merged := fm.tracking, fm.merged
	res.Merged = append(res.Merged[:0], merged...)
	res.PurgePending, res.Replaced = res.PurgePending[:0], res.Replaced[:0]
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
	var specs, leases []string
	res.Pushed, res.UpToDate = res.Pushed[:0], res.UpToDate[:0]
	for _, l := range locals {
		if l.Name == Sessions && !opts.Sessions {
			continue
		}
		if old, stale := fm.stale[l.Name]; stale {
			if !opts.Purge {
				res.PurgePending = append(res.PurgePending, l.Name)
				continue
			}
			// The one force-update: only this ref, only over the tip just
			// fetched (a lease), and reported.
			leases = append(leases, "--force-with-lease="+l.Name+":"+old)
			specs = append(specs, "+"+l.Name+":"+l.Name)
			res.Replaced = append(res.Replaced, ReplacedRef{Ref: l.Name, Old: old, New: l.Target})
			progress("replacing " + remote + "'s " + l.Name + " " + old + " (history purged here) with " + l.Target)
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
	args := append(append([]string{"push", "--porcelain", "--no-verify"}, leases...), remote)
	args = append(args, specs...)
	out, err := repo.Git(ctx, args...)
	if err != nil {
		if rejected(string(out)) || rejected(errText(err)) {
			return fmt.Errorf("%s: %w: %s", remote, ErrPushRejected, strings.TrimSpace(string(out)+"\n"+errText(err)))
		}
		return fmt.Errorf("push notes to %s: %w", remote, err)
	}
	for _, s := range specs {
		name, _, _ := strings.Cut(strings.TrimPrefix(s, "+"), ":")
		res.Pushed = append(res.Pushed, name)
	}
	if len(res.Replaced) > 0 {
		ts, err := LoadTombstones(repo)
		if err != nil {
			return err
		}
		for _, r := range res.Replaced {
			if _, _, err := dropOldHistory(ctx, repo, r.Ref, ts, ""); err != nil {
				return err
			}
		}
	}
	return nil
}

// Fetch brings a remote's gloss notes into its tracking refs and merges
// each into the local ref, three-way, without pushing: the first half of
// Sync, for readers that need the team's records but write none (a CI
// check), or that push later.
func Fetch(ctx context.Context, repo *gitops.Repo, remote string) ([]MergeResult, error) {
	return FetchWith(ctx, repo, remote, FetchOptions{})
}

// FetchOptions configures FetchWith.
type FetchOptions struct {
	// Sessions fetches refs/notes/gloss/sessions too: for a team that
	// shares them ([sync] sessions = true), as sync would.
	Sessions bool
}

// FetchWith is Fetch with options.
func FetchWith(ctx context.Context, repo *gitops.Repo, remote string, opts FetchOptions) ([]MergeResult, error) {
	fm, err := fetchAndMerge(ctx, repo, remote, opts.Sessions, false, func(string) {})
	if err != nil {
		return nil, err
	}
	return fm.merged, nil
}

// fetched is what fetchAndMerge did.
type fetched struct {
	tracking []gitops.Ref
	merged   []MergeResult
	// stale maps a local ref purged here to the remote tip that still
	// holds the old history: pushed only by sync --purge, with that lease.
	stale map[string]string
}

// fetchAndMerge fetches the remote's notes into tracking refs and merges
// them: the tombstones first, so that every other merge honours them, then
// each notes ref, three-way. A ref whose history a purge replaced is never
// merged with its old history: the clone behind adopts the purged one.
func fetchAndMerge(ctx context.Context, repo *gitops.Repo, remote string, sessions, purge bool, progress func(string)) (*fetched, error) {
	before := map[string]string{}
	if refs, err := repo.ListRefs(TrackingPrefix(remote) + "*"); err == nil {
		for _, r := range refs {
			before[r.Name] = r.Target
		}
	}
	progress("fetching gloss notes from " + remote + "…")
	args := []string{"fetch", "--quiet", "--no-tags", "--prune", "--no-write-fetch-head", remote, FetchRefspec(remote)}
	if !sessions {
		args = append(args, "^"+Sessions) // a negative refspec: leave the sessions ref out
	}
	if _, err := repo.Git(ctx, args...); err != nil {
		if locked(errText(err)) {
			return nil, fmt.Errorf("fetch notes from %s: %w: %s", remote, errRefLocked, strings.TrimSpace(errText(err)))
		}
		return nil, fmt.Errorf("fetch notes from %s: %w", remote, err)
	}
	tracking, err := repo.ListRefs(TrackingPrefix(remote) + "*")
	if err != nil {
		return nil, err
	}
	fm := &fetched{tracking: tracking, merged: []MergeResult{}, stale: map[string]string{}}
	progress("merging…")
	oldTomb, err := repo.RefTarget(ForgottenRef)
	if err != nil {
		return nil, err
	}
	for _, t := range tracking {
		if local := RefPrefix + strings.TrimPrefix(t.Name, TrackingPrefix(remote)); local == ForgottenRef {
			m, err := MergeRef(ctx, repo, local, t.Name)
			if err != nil {
				return nil, fmt.Errorf("merge %s into %s: %w", t.Name, local, err)
			}
			if m.Action != "none" {
				fm.merged = append(fm.merged, m)
			}
		}
	}
	ts, err := LoadTombstones(repo)
	if err != nil {
		return nil, err
	}
	newTombstones := ts.Tip != oldTomb
	swept := map[string]bool{}
	for _, t := range tracking {
		local := RefPrefix + strings.TrimPrefix(t.Name, TrackingPrefix(remote))
		if local == ForgottenRef || (local == Sessions && !sessions) {
			continue
		}
		m, err := mergeTracking(ctx, repo, local, t, before[t.Name], purge, ts, fm)
		if err != nil {
			return nil, fmt.Errorf("merge %s into %s: %w", t.Name, local, err)
		}
		if m.Action == "purge-pending" {
			fm.merged = append(fm.merged, m.MergeResult)
			continue
		}
		// Sweep what either side changed since they last agreed (a record
		// written back here by hand included), or everything when new
		// tombstones arrived.
		since := ""
		if !newTombstones && m.before != "" {
			if since, err = repo.MergeBase(m.before, t.Target); err != nil {
				return nil, err
			}
		}
		removed, err := sweep(ctx, repo, local, ts, since)
		if err != nil {
			return nil, err
		}
		swept[local] = true
		for _, r := range removed {
			m.Forgotten = append(m.Forgotten, r.ID)
		}
		if len(removed) > 0 {
			m.Tip = mustTarget(repo, local)
			if m.Action == "none" {
				m.Action = "swept"
			}
		}
		if m.Action != "none" || len(removed) > 0 {
			fm.merged = append(fm.merged, m.MergeResult)
		}
	}
	if newTombstones {
		// Tombstones this clone had not seen: refs the remote does not have
		// may hold those records too.
		refs, err := dataRefs(repo)
		if err != nil {
			return nil, err
		}
		for _, ref := range refs {
			if swept[ref] {
				continue
			}
			removed, err := sweep(ctx, repo, ref, ts, "")
			if err != nil {
				return nil, err
			}
			if len(removed) > 0 {
				m := MergeResult{Ref: ref, From: ForgottenRef, Action: "swept", Tip: mustTarget(repo, ref)}
				for _, r := range removed {
					m.Forgotten = append(m.Forgotten, r.ID)
				}
				fm.merged = append(fm.merged, m)
			}
		}
	}
	return fm, nil
}

// trackingMerge is a MergeResult and the local tip before it.
type trackingMerge struct {
	MergeResult
	before string
}

// mergeTracking merges one tracking ref into its local ref, minding
// purges: when the remote holds a later purge than the local ref, the
// local ref adopts the remote's history (its own records merged on top,
// three-way against the history both had before the purge); when the local
// ref holds a later purge than the remote, the remote's old history is
// never merged: with purge its records are merged into a commit on the
// local history and the ref is marked for the forced push, without it
// the ref waits (purge-pending) and the tracking ref, which holds the old
// text, is deleted again.
func mergeTracking(ctx context.Context, repo *gitops.Repo, local string, t gitops.Ref, before string, purge bool, ts *Tombstones, fm *fetched) (trackingMerge, error) {
	localTip, err := repo.RefTarget(local)
	if err != nil {
		return trackingMerge{}, err
	}
	out := trackingMerge{MergeResult: MergeResult{Ref: local, From: t.Name, Action: "none", Tip: localTip}, before: localTip}
	gL, err := ts.generation(repo, local, localTip)
	if err != nil {
		return out, err
	}
	gR, err := ts.generation(repo, local, t.Target)
	if err != nil {
		return out, err
	}
	switch {
	case localTip == "" || gL == gR:
		m, err := MergeRef(ctx, repo, local, t.Name)
		out.MergeResult = m
		return out, err
	case gR > gL:
		p := ts.latestPurge(gR)
		base := ""
		for _, cand := range []string{p.Replaces, before} {
			if cand != "" && repo.HasObject(cand) {
				if base, err = repo.MergeBase(localTip, cand); err != nil {
					return out, err
				}
				break
			}
		}
		tip, n, conflicts, err := mergeContent(ctx, repo, local, localTip, base, t.Target, []string{t.Target}, ts, "gloss: adopt the purged history of "+local+" from "+t.Name)
		if err != nil {
			return out, err
		}
		out.Action, out.Tip, out.Notes, out.Conflicts = "adopted-purge", tip, n, conflicts
		// The old history is unreachable from local now: drop what else holds it.
		remote, _, _ := strings.Cut(strings.TrimPrefix(t.Name, "refs/notes/remotes/"), "/gloss/")
		if _, _, err := dropOldHistory(ctx, repo, local, ts, remote); err != nil {
			return out, err
		}
		return out, nil
	default: // gL > gR: the remote still holds history purged here
		fm.stale[local] = t.Target
		if !purge {
			out.Action = "purge-pending"
			if err := repo.DeleteRef(t.Name, t.Target); err != nil {
				return out, err
			}
			return out, nil
		}
		p := ts.latestPurge(gL)
		base := ""
		if p.Replaces != "" && repo.HasObject(p.Replaces) {
			if base, err = repo.MergeBase(t.Target, p.Replaces); err != nil {
				return out, err
			}
		}
		tip, n, conflicts, err := mergeContent(ctx, repo, local, localTip, base, t.Target, []string{localTip}, ts, "gloss: merge the records of "+t.Name+" (old history left out)")
		if err != nil {
			return out, err
		}
		if tip != localTip {
			out.Action = "merged"
		}
		out.Tip, out.Notes, out.Conflicts = tip, n, conflicts
		return out, nil
	}
}

// mergeContent merges the notes of theirTip into the local ref's (at
// localTip) three-way against base, drops forgotten records, and commits
// the result with exactly parents: the way to merge across a purge
// without making the other side's history reachable.
func mergeContent(ctx context.Context, repo *gitops.Repo, ref, localTip, base, theirTip string, parents []string, ts *Tombstones, msg string) (string, int, []MergeConflict, error) {
	ours, err := repo.ReadNotes(ref)
	if err != nil {
		return "", 0, nil, err
	}
	defer ours.Close()
	if ours.Tip != localTip {
		return "", 0, nil, gitops.ErrRefChanged
	}
	changes, conflicts, err := mergeTrees(repo, ref, base, ours, theirTip)
	if err != nil {
		return "", 0, nil, err
	}
	entries, err := ours.List()
	if err != nil {
		return "", 0, nil, err
	}
	final := map[string][]byte{}
	for _, e := range entries {
		if final[e.Object], err = repo.ReadBlob(e.Blob); err != nil {
			return "", 0, nil, err
		}
	}
	for _, c := range changes {
		if c.Data == nil {
			delete(final, c.Object)
		} else {
			final[c.Object] = c.Data
		}
	}
	dropped, removed := ts.filter(ref, final)
	all := map[string][]byte{}
	for _, c := range changes {
		all[c.Object] = c.Data
	}
	for _, c := range dropped {
		all[c.Object] = c.Data
	}
	merged := make([]gitops.NoteChange, 0, len(all))
	for obj, data := range all {
		merged = append(merged, gitops.NoteChange{Object: obj, Data: data})
	}
	if len(merged) == 0 && len(parents) == 1 && parents[0] == localTip {
		return localTip, 0, conflicts, nil // nothing new: no commit
	}
	tip, err := repo.ReplaceNotes(ours, merged, parents, msg)
	if err != nil {
		return "", 0, nil, err
	}
	// Copies dropped here get tombstones of their own, as a sweep's do:
	// else an export holding them, or a copy of them, would bring the
	// text back with nothing to say it is forgotten.
	return tip, len(merged), conflicts, ts.add(ctx, repo, removed, "", "")
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
