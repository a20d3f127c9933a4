package safepath

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
)

// ForRepo opens the working tree of repo, guarding its git dir and common
// dir, with per-file locks under <common dir>/gloss/locks, its writes
// synced when the repository's are (gitops.Repo.Durable). A bare
// repository has no working tree and is refused here, once, for every
// capability.
func ForRepo(repo *gitops.Repo) (*Tree, error) {
	t, err := ForReading(repo)
	if err != nil {
		return nil, err
	}
	t.SetDurable(repo.Durable())
	return t, nil
}

// ForReading is ForRepo for a caller that only reads the working tree (a
// read's file, the capture's view of the edited files, the team's
// redaction rules): it does not look up how writes are synced.
func ForReading(repo *gitops.Repo) (*Tree, error) {
	if repo.IsBare() {
		return nil, fault.Usagef("this repository is bare: the command needs a working tree")
	}
	return OpenTree(repo.Root(), filepath.Join(repo.CommonDir(), "gloss", "locks"), repo.GitDir(), repo.CommonDir())
}

// OpenInput opens a file named as input to a command (an export to
// import): a path inside the working tree goes through the resolver like
// every other, so ".git/config" or a link out of the tree is refused; a
// path outside the working tree is the user's own file, opened as named,
// unless its real location is inside the repository's git directory or
// its working tree (then the resolver decides, as if named from inside).
func OpenInput(repo *gitops.Repo, abs string) (io.ReadCloser, error) {
	dirs := []string{repo.GitDir(), repo.CommonDir()}
	var tree *Tree
	if !repo.IsBare() {
		t, err := ForRepo(repo)
		if err != nil {
			return nil, err
		}
		defer t.Close()
		tree = t
		dirs = append(dirs, t.Dir())
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		real = abs // missing: the open below says so
	}
	for _, p := range []string{abs, real} {
		for _, d := range dirs {
			if d == "" || !within(d, p) {
				continue
			}
			if tree == nil || !within(tree.Dir(), p) {
				return nil, refuse(abs, ErrGitDir)
			}
			data, err := tree.ReadFile(p, 0)
			if err != nil {
				return nil, err
			}
			return io.NopCloser(bytes.NewReader(data)), nil
		}
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, fault.NotFoundf("%s: %v", fault.Quoted(abs), errors.Unwrap(err))
	}
	return f, nil
}

// within reports whether the absolute path p is dir or below it, with
// dir's own links resolved as far as they exist.
func within(dir, p string) bool {
	for _, d := range []string{filepath.Clean(dir), resolveExisting(dir)} {
		if rel, err := filepath.Rel(d, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
