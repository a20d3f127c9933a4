package gitops

// SetBlameFiller installs f as the filler of every repository of the test
// process (nil restores foreground fills).
func SetBlameFiller(f func(commonDir, commit, path string) (pid int, err error)) {
	fillerMu.Lock()
	defer fillerMu.Unlock()
	filler = f
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
	e := r.loadBlame(commit, path)
	if e == nil {
		return nil
	}
	return e.encode()
}

// BlameGraphEnv is the environment gloss's git blame gets for the blame
// graph; nil when it runs without one.
func (r *Repo) BlameGraphEnv() []string { return r.blameGraphEnv() }
