package gitops

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/gloss-dev/gloss/detach"
)

// A blame-cache miss on a few lines of a large file is answered by blaming
// just those lines (`git blame -L`, which is what the uncached Blame runs
// for them) while the whole-file blame that fills the cache runs off the
// critical path: whole-file blame of a long, old file costs about twice a
// blame of a couple of hundred lines of it, and the reader should not wait
// for the lines it did not ask about.
//
// The fill is handed to a detached git-gloss (`git gloss cache-fill`, see
// package detach), which runs at low priority. It is single-flight per
// file version: BlameCached takes a lock file under <git dir>/gloss/fill
// before handing it over, and FillBlameCache releases it, so concurrent
// readers start one fill. A program that is not git-gloss (a test binary)
// has no filler and fills in the foreground, as before.

// blameFiller runs FillBlameCache(commit, path) of the repository whose
// common git dir is commonDir, somewhere the reader does not wait for it.
// The fill lock is held for it; a filler that cannot run the fill returns
// an error and the lock is released. A filler that runs the fill in a
// process of its own returns that process's pid, which the lock then
// names: a lock whose process is gone is free at once.
type blameFiller func(commonDir, commit, path string) (pid int, err error)

var (
	fillerMu  sync.RWMutex
	fillerSet bool        // filler decided (on first use, or by a test)
	filler    blameFiller // nil: fill in the foreground
)

// detachedFill starts `git-gloss cache-fill` for the fill.
func detachedFill(commonDir, commit, path string) (int, error) {
	bin, err := detach.Self()
	if err != nil {
		return 0, err
	}
	p, err := detach.Start(bin, detach.CacheFill(commonDir, commit, path), detach.Options{Dir: commonDir})
	if err != nil {
		return 0, err
	}
	return p.Pid, nil
}

// currentFiller decides on first use, not at start: finding out whether
// this program is git-gloss reads its build information, which every
// process would otherwise pay for, the hooks included.
func currentFiller() blameFiller {
	fillerMu.RLock()
	f, set := filler, fillerSet
	fillerMu.RUnlock()
	if set {
		return f
	}
	fillerMu.Lock()
	defer fillerMu.Unlock()
	if !fillerSet {
		if _, err := detach.Self(); err == nil {
			filler = detachedFill
		}
		fillerSet = true
	}
	return filler
}

// Range blames pay off only when the whole-file blame they avoid costs
// clearly more: on a large file, for a part of it. On small files the two
// cost about the same and the foreground fill saves a process.
var (
	rangeBlameMinLines = 1000
	rangeBlameMaxShare = 0.5
)

// fillStale is how old a fill lock may get before another reader takes it
// over although its process is alive (a pid reused, a fill that hangs); a
// lock whose process is gone is taken over at once.
const fillStale = 5 * time.Minute

// wantsRangeBlame reports whether lines start..end of a file of n lines
// are few enough to blame alone.
//
// On a large repository every file counts as large: there a blame's cost
// is the depth of history it walks to find the oldest line it is asked
// for, and the whole file holds older lines than a part of it (a 400-line
// file of the generated 100,000-commit history blames in seconds, 40 of
// its lines in a fraction of that).
func wantsRangeBlame(start, end, n int, large bool) bool {
	if start <= 0 || (n < rangeBlameMinLines && !large) {
		return false
	}
	return float64(end-start+1) <= rangeBlameMaxShare*float64(n)
}

// rangeJob answers a cache miss on start..end of path at key (rev "" for
// the working tree, whose committed state is key) with a blame of those
// lines only, and hands the whole-file blame of key to the filler. It
// returns nil when this does not apply and the caller should fill in the
// foreground.
func (r *Repo) rangeJob(ctx context.Context, rev, key, path string, start, end int) blameJob {
	f := currentFiller()
	if f == nil || start <= 0 {
		return nil
	}
	var data []byte
	var err error
	if rev == "" {
		data, err = os.ReadFile(filepath.Join(r.root, filepath.FromSlash(path)))
	} else {
		data, err = r.ReadFile(key, path)
		rev = key // the same blame: nothing between them changed the file
	}
	if err != nil {
		return nil
	}
	n := CountLines(data)
	end = min(max(end, start), n)
	if start > n || !wantsRangeBlame(start, end, n, r.LargeRepository()) {
		return nil
	}
	return func() (*Blame, func(), error) {
		b, err := r.Blame(ctx, rev, path, start, end)
		if err != nil {
			return nil, nil, err
		}
		// Handed over after the blame, not beside it: the fill would
		// compete with it for the CPU.
		return b, func() {
			if r.lockFill(key, path) {
				if pid, err := f(r.commonDir, key, path); err != nil {
					r.unlockFill(key, path)
				} else if pid > 0 {
					r.setFillHolder(key, path, pid)
				}
			}
		}, nil
	}
}

// FillBlameCache blames path at commit whole and caches it, unless it is
// cached already, and releases the fill lock. `git gloss cache-fill` calls
// it.
func (r *Repo) FillBlameCache(ctx context.Context, commit, path string) error {
	path = cleanRepoPath(path)
	defer r.unlockFill(commit, path)
	if r.hasBlame(commit, path) {
		return nil
	}
	b, err := r.Blame(ctx, commit, path, 0, 0)
	if err != nil {
		return err
	}
	r.storeBlame(commit, path, entryFromBlame(b))
	return nil
}

// FillPending reports whether a fill of path at commit is under way (its
// lock is held).
func (r *Repo) FillPending(commit, path string) bool {
	_, err := os.Stat(r.fillLock(commit, path))
	return err == nil
}

// FillsPending reports whether any fill is under way in the repository.
func (r *Repo) FillsPending() bool {
	ents, err := os.ReadDir(filepath.Join(r.commonDir, "gloss", "fill"))
	return err == nil && len(ents) > 0
}

func (r *Repo) fillLock(commit, path string) string {
	return filepath.Join(r.commonDir, "gloss", "fill", cacheKey(commit, path)+".lock")
}

// lockFill takes the fill lock of path at commit; false when a live fill
// holds it.
func (r *Repo) lockFill(commit, path string) bool {
	return takeLock(r.fillLock(commit, path))
}

// setFillHolder names pid as the holder of a fill lock the reader took
// and handed over. It rewrites the lock in place and never creates it: a
// filler that was quicker has removed it already.
func (r *Repo) setFillHolder(commit, path string, pid int) {
	f, err := os.OpenFile(r.fillLock(commit, path), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return
	}
	_, _ = f.WriteString(strconv.Itoa(pid) + "\n")
	_ = f.Close()
}

func (r *Repo) unlockFill(commit, path string) {
	_ = os.Remove(r.fillLock(commit, path))
}
