package safepath

import (
	"path/filepath"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
)

// ForRepo opens the working tree of repo, guarding its git dir and common
// dir, with per-file locks under <common dir>/gloss/locks. A bare
// repository has no working tree and is refused here, once, for every
// capability.
func ForRepo(repo *gitops.Repo) (*Tree, error) {
	if repo.IsBare() {
		return nil, fault.Usagef("this repository is bare: the command needs a working tree")
	}
	return OpenTree(repo.Root(), filepath.Join(repo.CommonDir(), "gloss", "locks"), repo.GitDir(), repo.CommonDir())
}
