package gitops

import "context"

// SetBlameFiller installs f as the filler of every repository of the test
// process (nil restores foreground fills).
func SetBlameFiller(f func(commonDir, commit, path string) (pid int, err error)) {
	fillerMu.Lock()
	defer fillerMu.Unlock()
	filler, fillerSet = f, true
}

// RangeBlameFrom makes files of n lines or more eligible for range blames
// until the test ends (test files are small).
func RangeBlameFrom(n int) (restore func()) {
	old := rangeBlameMinLines
	rangeBlameMinLines = n
	return func() { rangeBlameMinLines = old }
}

// CachedBlameEntry is the stored whole-file blame of path at commit, as
// bytes; nil when there is none.
func (r *Repo) CachedBlameEntry(commit, path string) []byte {
	e := r.loadStoredBlame(commit, path)
	if e == nil {
		return nil
	}
	return e.encode()
}

// BlameGraphEnv is the environment gloss's git blame gets for the blame
// graph; nil when it runs without one.
func (r *Repo) BlameGraphEnv() []string { return r.blameGraphEnv() }

// BuildFileHistory builds the file history of path from key afresh,
// without the history cache.
func (r *Repo) BuildFileHistory(ctx context.Context, key, path string, limit int, members []string) (*FileHistory, error) {
	clear(fileLogs.m)
	return r.buildHistory(ctx, key, path, limit, members)
}

// RenamesUncached is Renames without its cache.
func (r *Repo) RenamesUncached(ctx context.Context, rev string) (map[string]string, error) {
	return r.renamesIn(ctx, rev)
}

// AncestryFromGraph reports whether the ancestry walk of a file history
// from key over members is answered by the blame graph read in process.
func (r *Repo) AncestryFromGraph(key string, members []string) bool {
	h := &FileHistory{index: map[string]int{}, unreached: map[string]bool{}}
	for _, m := range members {
		h.index[m] = len(h.members)
		h.members = append(h.members, m)
	}
	h.below = make([][]byte, len(h.members))
	return r.graphAncestry(key, h, (len(h.members)+7)/8)
}

// GraphFileLog is FileLog answered from the blame graph in process; ok is
// false when the graph cannot answer and FileLog asks git.
func (r *Repo) GraphFileLog(rev, path string, limit int) ([]string, bool) {
	clear(fileLogs.m)
	return r.graphFileLog(context.Background(), rev, path, limit)
}

// IsAncestorByWalk is IsAncestor answered by libgit2's walk alone.
func (r *Repo) IsAncestorByWalk(a, b string) (bool, error) { return r.isAncestorByWalk(a, b) }

// RefreshRenamesDetached is refreshRenamesDetached: whether a background
// refresh of the renames is under way (started now, or already running).
func (r *Repo) RefreshRenamesDetached() bool { return r.refreshRenamesDetached() }
