package annotate

import (
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/safepath"
)

// fileChecker validates the file names records carry (a context's file,
// an imported region's) through the one resolver: a record names a file
// of the repository's history, which need not exist in the working tree,
// but it is never a path into a git directory or out of the repository,
// whether spelled so (".git/config", "../../etc/passwd") or reached
// through a link the working tree has ("gitlink/config" where gitlink ->
// .git).
type fileChecker struct {
	repo *gitops.Repo
	tree *safepath.Tree
	err  error
	open bool
}

func newFileChecker(repo *gitops.Repo) *fileChecker { return &fileChecker{repo: repo} }

// check returns p as records store it (clean, slash-separated, relative
// to the root), or the resolver's refusal.
func (fc *fileChecker) check(p string) (string, error) {
	if !fc.open {
		fc.open = true
		if !fc.repo.IsBare() {
			fc.tree, fc.err = safepath.ForRepo(fc.repo)
		}
	}
	if fc.err != nil {
		return "", fc.err
	}
	if fc.tree == nil { // a bare repository: the name alone can be checked
		return safepath.Clean(fc.repo.GitDir(), p)
	}
	return fc.tree.RepoPath(p)
}

func (fc *fileChecker) close() {
	if fc.tree != nil {
		fc.tree.Close()
	}
}

// checkFiles validates (and cleans) the file of every context.
func checkFiles(repo *gitops.Repo, ctxs []Context) error {
	fc := newFileChecker(repo)
	defer fc.close()
	for i := range ctxs {
		if ctxs[i].File == "" {
			continue
		}
		f, err := fc.check(ctxs[i].File)
		if err != nil {
			return err
		}
		ctxs[i].File = f
	}
	return nil
}
