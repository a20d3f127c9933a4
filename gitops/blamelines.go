package gitops

import (
	"os"
	"strings"
)

// LineCounter returns what counts the lines of a file version (path at
// a commit id) as its cached blame counts them, without reading the file:
// a read that needs only the count (most of a review's) saves inflating
// the blob, and decodes the entry its blame then takes from the handle's
// memo. The counter answers ok false when the cache holds no blame of
// it; it answers nothing when a textconv driver is configured anywhere
// (git blame then counts the lines of the converted text, not the
// file's). The configuration is read once, here: looking for a driver
// costs more than the blob it saves, so a batch of reads keeps one
// counter.
func (r *Repo) LineCounter() func(commit, path string) (n int, ok bool) {
	if r.mayTextconv() {
		return func(string, string) (int, bool) { return 0, false }
	}
	return func(commit, path string) (int, bool) {
		if !isHex(commit) {
			return 0, false
		}
		path = cleanRepoPath(path)
		key, err := r.blamePosition(commit, path)
		if err != nil {
			return 0, false
		}
		e := r.loadBlame(key, path)
		if e == nil {
			return 0, false
		}
		return e.lines, true
	}
}

// mayTextconv reports whether some diff.<driver>.textconv is set, in the
// repository's configuration or in the one git passes its children
// (git -c), which libgit2 does not read.
func (r *Repo) mayTextconv() bool {
	if strings.Contains(strings.ToLower(os.Getenv("GIT_CONFIG_PARAMETERS")), "textconv") {
		return true
	}
	if n := os.Getenv("GIT_CONFIG_COUNT"); n != "" && n != "0" {
		return true
	}
	cfg, err := r.r.Config()
	if err != nil {
		return true
	}
	defer cfg.Free()
	it, err := cfg.NewIteratorGlob(`^diff\..*\.textconv$`)
	if err != nil {
		return true
	}
	defer it.Free()
	_, err = it.Next()
	return err == nil
}
