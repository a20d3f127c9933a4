package gitops

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	git "github.com/libgit2/git2go/v34"
)

// The blame cache makes `read` cheaper than the `git blame -L` it would
// otherwise run: whole-file blames are kept under <git dir>/gloss/blame,
// keyed by the commit that last changed the file, and the post-commit hook
// derives the new commit's blames from its parent's by passing attribution
// through the commit's diff — the same step git blame itself takes for a
// single-parent commit. Results are identical to Blame; the test suite
// checks that line by line over every file of generated histories.
//
// Equality with git blame relies on using git's own diff with blame's
// settings: Myers (blame ignores diff.algorithm) and the configured indent
// heuristic (blame honours diff.indentHeuristic). When blame is configured
// to ignore revisions (blame.ignoreRevsFile, blame.ignoreRevs) the cache
// steps aside and every call runs git blame.

// maxPositionWalk bounds the search for the commit that last changed a
// file; past it gloss blames at the commit reached.
const maxPositionWalk = 5000

// BlameCached is Blame served from the blame cache when it can be. Results
// are the same as Blame's, for committed revisions and for the working tree
// (rev "").
func (r *Repo) BlameCached(ctx context.Context, rev, path string, start, end int) (*Blame, error) {
	wait, settle, _ := r.StartBlameCached(ctx, rev, path, start, end)
	defer settle()
	return wait()
}

// StartBlameCached is BlameCached in steps: it does what needs the
// repository handle now, and when it must run git blame (a cache miss),
// runs it in a goroutine; wait returns the result. Between the two the
// caller may go on using the repository: the goroutine only waits for git
// and writes the cache. settle waits for the background fill a range
// blame hands over to have started; call it before the process may exit.
// running reports whether git runs for it (the cache could not answer at
// once): only then has the caller time for other work meanwhile.
func (r *Repo) StartBlameCached(ctx context.Context, rev, path string, start, end int) (wait func() (*Blame, error), settle func(), running bool) {
	b, job, err := r.planBlame(ctx, rev, path, start, end)
	if job == nil {
		return func() (*Blame, error) { return b, err }, func() {}, false
	}
	done, settled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(settled)
		var handOver func()
		b, handOver, err = job()
		close(done)
		if handOver != nil {
			handOver()
		}
	}()
	return func() (*Blame, error) {
			<-done
			return b, err
		}, func() {
			<-settled
		}, true
}

// planBlame answers a cached blame at once, or returns the job that
// answers it by running git (a job touches no libgit2 handle).
func (r *Repo) planBlame(ctx context.Context, rev, path string, start, end int) (*Blame, blameJob, error) {
	path = cleanRepoPath(path)
	if r.blameCacheBypassed(ctx) {
		return nil, func() (*Blame, func(), error) {
			b, err := r.Blame(ctx, rev, path, start, end)
			return b, nil, err
		}, nil
	}
	if rev == "" {
		return r.planWorktree(ctx, path, start, end)
	}
	commit, err := r.ResolveCommit(rev)
	if err != nil {
		return nil, nil, err
	}
	key, err := r.blamePosition(commit, path)
	if err != nil {
		return nil, nil, err
	}
	if e := r.loadBlame(key, path); e != nil {
		b, err := e.slice(start, end)
		return b, nil, err
	}
	if job := r.rangeJob(ctx, commit, key, path, start, end); job != nil {
		return nil, job, nil
	}
	return nil, func() (*Blame, func(), error) {
		e, err := r.fillAt(ctx, key, path)
		if err != nil {
			return nil, nil, err
		}
		b, err := e.slice(start, end)
		return b, nil, err
	}, nil
}

// blameJob runs git blame for a planned blame: it returns the blame and,
// when it leaves work to hand over, the function that hands it over.
type blameJob func() (b *Blame, handOver func(), err error)

// blameCacheBypassed reports whether git blame is configured in a way the
// cache does not reproduce (ignored revisions), or gloss.blameCache is
// false. Every cached blame asks, so the handle reads the configuration
// once, as it does for Durable (a review's hundreds of blames read it
// hundreds of times).
func (r *Repo) blameCacheBypassed(context.Context) bool {
	r.bypassOnce.Do(func() { r.bypass = r.readBlameCacheBypassed() })
	return r.bypass
}

// readBlameCacheBypassed is blameCacheBypassed, read from the
// configuration in process.
func (r *Repo) readBlameCacheBypassed() bool {
	cfg, err := r.r.Config()
	if err != nil {
		return true
	}
	defer cfg.Free()
	if on, err := cfg.LookupBool("gloss.blameCache"); err == nil && !on {
		return true
	}
	for _, key := range []string{"blame.ignoreRevsFile", "blame.ignoreRevs"} {
		if v, err := cfg.LookupString(key); err == nil && v != "" {
			return true
		}
	}
	return false
}

// fillAt blames path at key, the commit that last changed it, whole, and
// caches the result.
func (r *Repo) fillAt(ctx context.Context, key, path string) (*blameEntry, error) {
	b, err := r.Blame(ctx, key, path, 0, 0)
	if err != nil {
		return nil, err
	}
	e := entryFromBlame(b)
	r.storeBlame(key, path, e)
	return e, nil
}

// blamePosition finds the commit whose blame of path equals commit's: it
// follows first parents while each commit has one parent holding the same
// version of the file (git blame passes every line of such a commit to its
// parent). It stops at the commit that changed the file, a merge, or a root.
// Positions found by a long walk are remembered, so the next lookup from a
// descendant is short.
func (r *Repo) blamePosition(commit, path string) (string, error) {
	// Only a commit id names the same commit for good (not HEAD, a branch).
	memo := isHex(commit)
	if k, ok := r.memo.position(commit, path); ok && memo {
		return k, nil
	}
	key, err := r.findBlamePosition(commit, path)
	if err == nil && memo {
		r.memo.keepPosition(commit, path, key)
	}
	return key, err
}

// findBlamePosition is blamePosition without the handle's memo.
func (r *Repo) findBlamePosition(commit, path string) (string, error) {
	id, err := oid(commit)
	if err != nil {
		return "", err
	}
	c, err := r.r.LookupCommit(id)
	if err != nil {
		return "", fmt.Errorf("read commit %s: %w", commit, err)
	}
	blob, ok := blobAt(c, path)
	if !ok {
		c.Free()
		return "", fmt.Errorf("%s at %s: %w", path, ShortID(commit), ErrNotFound)
	}
	steps := 0
	for {
		cur := c.Id().String()
		if k, ok := r.loadPosition(cur, path); ok {
			c.Free()
			if steps > 0 {
				r.storePosition(commit, path, k)
			}
			return k, nil
		}
		if c.ParentCount() != 1 || steps >= maxPositionWalk {
			break
		}
		p := c.Parent(0)
		if p == nil {
			break
		}
		pb, ok := blobAt(p, path)
		if !ok || pb != blob {
			p.Free()
			break
		}
		c.Free()
		c = p
		steps++
	}
	key := c.Id().String()
	c.Free()
	if steps > 8 {
		r.storePosition(commit, path, key)
	}
	return key, nil
}

func blobAt(c *git.Commit, path string) (string, bool) {
	t, err := c.Tree()
	if err != nil {
		return "", false
	}
	defer t.Free()
	e, err := t.EntryByPath(path)
	if err != nil || e.Type != git.ObjectBlob {
		return "", false
	}
	return e.Id.String(), true
}

// UpdateBlameCache derives the blames of the files commit changed from its
// parent's cached blames, so that reading them stays fast. Files whose
// parent blame is not cached are left for the first read. Merges and root
// commits are skipped (their blame combines several parents). The
// post-commit hook calls this; it runs git's diff only for the files it can
// derive, and no git at all when there are none.
func (r *Repo) UpdateBlameCache(ctx context.Context, commit string) error {
	if r.blameCacheBypassed(ctx) {
		return nil
	}
	c, err := r.LookupCommit(commit)
	if err != nil {
		return err
	}
	if len(c.Parents) != 1 {
		return nil
	}
	parent := c.Parents[0]
	changes, err := r.DiffTrees(parent, c.ID, DiffOptions{NoRenames: true})
	if err != nil {
		return err
	}
	var added, deleted, derive []string
	for _, ch := range changes {
		switch ch.Status {
		case Added:
			added = append(added, ch.Path)
		case Deleted:
			deleted = append(deleted, ch.Path)
		case Modified:
			if key, err := r.blamePosition(parent, ch.Path); err == nil && r.hasBlame(key, ch.Path) {
				derive = append(derive, ch.Path)
			}
		}
	}
	// An added file is new — all its lines are the commit's — unless git
	// pairs it with a deleted one as a rename; only then does git decide.
	if len(deleted) > 0 && len(added) > 0 {
		derive = append(append(derive, added...), deleted...)
		added = nil
	}
	if len(derive) == 0 && len(added) == 0 {
		return nil
	}
	meta, err := r.blameMeta(ctx, c)
	if err != nil {
		return err
	}
	for _, p := range added {
		data, err := r.ReadFile(c.ID, p)
		if err != nil {
			return err
		}
		r.storeBlame(c.ID, p, newFileEntry(c.ID, p, CountLines(data), meta))
	}
	if len(derive) == 0 {
		return nil
	}
	files, err := r.commitDiff(ctx, parent, c.ID, derive, true)
	if err != nil {
		return err
	}
	for _, f := range files {
		if f.NewPath == "" || f.Binary {
			continue
		}
		var e *blameEntry
		if f.OldPath == "" {
			data, err := r.ReadFile(c.ID, f.NewPath)
			if err != nil {
				return err
			}
			e = newFileEntry(c.ID, f.NewPath, CountLines(data), meta)
		} else {
			key, err := r.blamePosition(parent, f.OldPath)
			if err != nil {
				continue
			}
			prev := r.loadBlame(key, f.OldPath)
			if prev == nil {
				continue
			}
			e = prev.pass(f.Ranges(), c.ID, f.NewPath, meta)
		}
		r.storeBlame(c.ID, f.NewPath, e)
	}
	return nil
}

func (r *Repo) hasBlame(commit, path string) bool {
	_, err := os.Stat(r.blameFile("e", commit, path))
	return err == nil
}

// blameMeta describes commit as git blame does: the author's name (through
// .mailmap when there is one, which only git applies) and the subject as
// %s joins it.
func (r *Repo) blameMeta(ctx context.Context, c *Commit) (BlameCommit, error) {
	if !r.hasMailmap() {
		return BlameCommit{Author: c.AuthorName, AuthorTime: c.AuthorTime.UTC(), Summary: gitSubject(c.Message)}, nil
	}
	out, err := r.Git(ctx, "show", "-s", "--format=%aN%x00%at%x00%s", c.ID)
	if err != nil {
		return BlameCommit{}, err
	}
	f := strings.SplitN(strings.TrimRight(string(out), "\n"), "\x00", 3)
	if len(f) != 3 {
		return BlameCommit{}, fmt.Errorf("describe %s: unexpected output", c.ID)
	}
	sec, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return BlameCommit{}, fmt.Errorf("describe %s: %w", c.ID, err)
	}
	return BlameCommit{Author: f[0], AuthorTime: time.Unix(sec, 0).UTC(), Summary: f[2]}, nil
}

// hasMailmap reports whether author names may be rewritten by a mailmap.
func (r *Repo) hasMailmap() bool {
	if r.root != "" {
		if _, err := os.Stat(filepath.Join(r.root, ".mailmap")); err == nil {
			return true
		}
	}
	cfg, err := r.r.Config()
	if err != nil {
		return true
	}
	defer cfg.Free()
	for _, k := range []string{"mailmap.file", "mailmap.blob"} {
		if v, err := cfg.LookupString(k); err == nil && v != "" {
			return true
		}
	}
	return false
}

// gitSubject is what git's %s prints: the first paragraph of the message,
// its lines joined by spaces.
func gitSubject(msg string) string {
	para, _, _ := strings.Cut(strings.TrimLeft(msg, "\n"), "\n\n")
	return strings.Join(strings.Fields(para), " ")
}
