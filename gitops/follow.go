package gitops

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Renames returns the whole-file renames in the history of rev, oldest
// path to newer path, as `git log -M` detects them. Follow a chain with
// FollowRename.
//
// Finding them diffs every commit of the history with rename detection:
// 4 s of CPU on git/git's 82,000 commits, for every `history` and
// `summary`. The answer for a commit never changes, so it is cached (with
// the blame cache's bound), and the answer for a descendant of a commit
// answered before is that one plus the renames of the commits between:
// after the first, a call costs the commits made since (the latest
// answers are kept to extend, and the first parent of a commit with none).
//
// The map returned is shared: callers read it, never change it.
func (r *Repo) Renames(ctx context.Context, rev string) (map[string]string, error) {
	return r.renames(ctx, rev, true)
}

// ErrRenamesPending says that the renames of a history were asked for
// without waiting (RenamesAtHand) and are not known yet: no answer of
// an ancestor to extend, and diffing the whole history is the background
// refresh's work (the one init starts), not a reader's.
var ErrRenamesPending = errors.New("the renames of the history are not known yet (the background refresh finds them)")

// RenamesAtHand is Renames when the answer is at hand: remembered, cached,
// or an answered ancestor's extended by the commits since. In a large
// repository it does not diff the whole history: it starts the
// background refresh that does and returns ErrRenamesPending. A read right
// after init must answer in git blame's time, not after a log of every
// commit (4 s of CPU on git/git).
func (r *Repo) RenamesAtHand(ctx context.Context, rev string) (map[string]string, error) {
	return r.renames(ctx, rev, false)
}

// RenamesKnown says whether this process holds the renames of rev's
// history (a Renames or a RenamesAtHand that answered).
func (r *Repo) RenamesKnown(rev string) bool {
	commit, err := r.ResolveCommit(rev)
	return err == nil && r.seenRenames(commit) != nil
}

func (r *Repo) renames(ctx context.Context, rev string, whole bool) (map[string]string, error) {
	commit, err := r.ResolveCommit(rev)
	if err != nil {
		return nil, err
	}
	if ix := r.seenRenames(commit); ix != nil {
		return ix.renames, nil
	}
	if m, ok := decodeRenames(r.LoadCached("renames", commit)); ok {
		r.rememberRenames(commit, m)
		return m, nil
	}
	renames, err := r.renamesSince(ctx, commit, whole)
	if err != nil {
		return nil, err
	}
	r.rememberRenames(commit, renames)
	return renames, nil
}

// renamesSince answers Renames for a commit the cache has not: from an
// answered ancestor, or, if whole, the first parent answered whole.
func (r *Repo) renamesSince(ctx context.Context, commit string, whole bool) (map[string]string, error) {
	tips := strings.Fields(string(r.LoadCached("renames", "tips")))
	base, from := "", map[string]string(nil)
	for _, tip := range tips {
		if m, ok := decodeRenames(r.LoadCached("renames", tip)); ok {
			if yes, err := r.IsAncestor(tip, commit); err == nil && yes {
				base, from = tip, m
				break
			}
		}
	}
	if from == nil && !whole && r.LargeRepository() && r.refreshRenamesDetached() {
		return nil, ErrRenamesPending
	}
	if from == nil {
		// No answer to extend: answer the first parent whole and keep it
		// too, so that its other children (a branch, a commit reset and
		// made again) extend it.
		if c, err := r.LookupCommit(commit); err == nil && len(c.Parents) > 0 {
			if m, err := r.renamesIn(ctx, c.Parents[0]); err == nil {
				base, from = c.Parents[0], m
				r.StoreCached("renames", base, encodeRenames(m))
			}
		}
	}
	rng := commit
	if from != nil {
		rng = base + ".." + commit
	}
	renames, err := r.renamesIn(ctx, rng)
	if err != nil {
		return nil, err
	}
	for old, now := range from { // the commits since hold the newer renames
		if _, seen := renames[old]; !seen {
			renames[old] = now
		}
	}
	r.StoreCached("renames", commit, encodeRenames(renames))
	keep := []string{commit}
	if base != "" {
		keep = append(keep, base)
	}
	for _, t := range tips {
		if len(keep) < renamesTips && !slices.Contains(keep, t) {
			keep = append(keep, t)
		}
	}
	r.StoreCached("renames", "tips", []byte(strings.Join(keep, "\n")+"\n"))
	return renames, nil
}

// refreshRenamesDetached starts the background refresh init starts
// (StartGraphRefresh: the blame graph, then the renames of HEAD, under
// the graph's lock, so that one runs at a time), and says whether one is
// under way. While one runs, it starts none: each read in the minute
// after init would otherwise start a process that finds the lock taken
// and exits. A program that is not git-gloss (a test binary) has none to
// start: it diffs the history in the foreground, as Renames does.
func (r *Repo) refreshRenamesDetached() bool {
	if r.blameGraphRefreshing() {
		return true
	}
	_, err := r.StartGraphRefresh("")
	return err == nil
}

// renamesTips is how many answered commits Renames keeps to extend: each
// costs a merge-base walk when asked whether it is an ancestor.
const renamesTips = 4

// renamesIn runs the rename-detecting log over a revision range.
func (r *Repo) renamesIn(ctx context.Context, rng string) (map[string]string, error) {
	out, err := r.Git(ctx, "log", "-M", "--diff-filter=R", "--name-status", "--format=", "-z", rng)
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

const renamesCacheVersion = "gloss-renames v1\x00"

func encodeRenames(m map[string]string) []byte {
	var b bytes.Buffer
	b.WriteString(renamesCacheVersion)
	for _, old := range slices.Sorted(maps.Keys(m)) {
		b.WriteString(old + "\x00" + m[old] + "\x00")
	}
	return b.Bytes()
}

func decodeRenames(data []byte) (map[string]string, bool) {
	rest, ok := bytes.CutPrefix(data, []byte(renamesCacheVersion))
	if !ok {
		return nil, false
	}
	f := strings.Split(string(rest), "\x00")
	if len(f)%2 != 1 || f[len(f)-1] != "" {
		return nil, false
	}
	m := make(map[string]string, len(f)/2)
	for i := 0; i+1 < len(f); i += 2 {
		m[f[i]] = f[i+1]
	}
	return m, true
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
// (git log --follow), newest first, at most limit (0: all). git reads
// parents and dates from the blame graph when there is one.
func (r *Repo) LogFollow(ctx context.Context, rev, path string, limit int) ([]string, error) {
	args := []string{"-c", "log.showSignature=false", "--literal-pathspecs", "log", "--no-color", "--follow", "--format=%H"}
	if limit > 0 {
		args = append(args, "-n", strconv.Itoa(limit))
	}
	var ids []string
	err := r.streamGit(ctx, append(args, rev, "--", path), func(line string) (bool, error) {
		if line != "" {
			ids = append(ids, line)
		}
		return true, nil
	})
	return ids, err
}

// FileVersion is one commit of a file's history and the file's name in
// it (and before it, for a rename).
type FileVersion struct {
	Commit  string
	Path    string
	OldPath string // the name in the parent, when the commit renamed the file
}

// LogFollowPaths lists the commits of rng (a revision, or "A..B") that
// changed path, following renames (git log --follow), newest first, each
// with the file's name there.
func (r *Repo) LogFollowPaths(ctx context.Context, rng, path string) ([]FileVersion, error) {
	args := []string{"-c", "log.showSignature=false", "--literal-pathspecs", "log", "--no-color", "--follow",
		"--name-status", "--format=%x01%H", "-z", rng, "--", path}
	out, err := r.Git(ctx, args...)
	if err != nil {
		return nil, err
	}
	var log []FileVersion
	for _, chunk := range strings.Split(string(out), "\x01") {
		f := strings.Split(strings.TrimLeft(chunk, "\n"), "\x00")
		if len(f) < 3 || !isHex(f[0]) {
			continue
		}
		v := FileVersion{Commit: f[0]}
		status := strings.TrimSpace(f[1])
		switch {
		case (strings.HasPrefix(status, "R") || strings.HasPrefix(status, "C")) && len(f) >= 4:
			v.OldPath, v.Path = f[2], f[3]
		default:
			v.Path = f[2]
		}
		log = append(log, v)
	}
	return log, nil
}

// renamesRead remembers the rename maps this process read, by commit:
// the answer for a commit never changes, and a read of many files (a
// review reads 900) asks for the same one for each file, which decoded
// git/git's thousands of renames from the cache every time.
var renamesRead = struct {
	sync.Mutex
	m map[string]*renameIndex
}{m: map[string]*renameIndex{}}

// renameIndex is one commit's renames and, built on first use, the
// former names of every path that has some.
type renameIndex struct {
	renames map[string]string
	once    sync.Once
	former  map[string][]string
}

func (r *Repo) seenRenames(commit string) *renameIndex {
	renamesRead.Lock()
	defer renamesRead.Unlock()
	return renamesRead.m[r.commonDir+"\x00"+commit]
}

func (r *Repo) rememberRenames(commit string, renames map[string]string) {
	renamesRead.Lock()
	defer renamesRead.Unlock()
	if len(renamesRead.m) >= 8 { // a long-lived server asks about many tips: keep a few
		clear(renamesRead.m)
	}
	renamesRead.m[r.commonDir+"\x00"+commit] = &renameIndex{renames: renames}
}

// FormerNames are the names path had before renames in rev's history
// (Renames, followed to path), sorted; none when it had no other.
func (r *Repo) FormerNames(ctx context.Context, rev, path string) ([]string, error) {
	return r.formerNames(ctx, rev, path, true)
}

// FormerNamesAtHand is FormerNames from RenamesAtHand: ErrRenamesPending
// rather than a diff of the whole history.
func (r *Repo) FormerNamesAtHand(ctx context.Context, rev, path string) ([]string, error) {
	return r.formerNames(ctx, rev, path, false)
}

func (r *Repo) formerNames(ctx context.Context, rev, path string, whole bool) ([]string, error) {
	if _, err := r.renames(ctx, rev, whole); err != nil {
		return nil, err
	}
	commit, err := r.ResolveCommit(rev)
	if err != nil {
		return nil, err
	}
	ix := r.seenRenames(commit)
	if ix == nil { // dropped meanwhile by another goroutine's commit
		renames, err := r.renames(ctx, commit, whole)
		if err != nil {
			return nil, err
		}
		ix = &renameIndex{renames: renames}
	}
	ix.once.Do(func() {
		ix.former = map[string][]string{}
		for old := range ix.renames {
			if now := FollowRename(ix.renames, old); now != old {
				ix.former[now] = append(ix.former[now], old)
			}
		}
		for _, names := range ix.former {
			slices.Sort(names)
		}
	})
	return ix.former[path], nil
}
