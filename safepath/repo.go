package safepath

import (
	"path/filepath"
	"strings"

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
	t, err := OpenTree(repo.Root(), filepath.Join(repo.CommonDir(), "gloss", "locks"), repo.GitDir(), repo.CommonDir())
	if err != nil {
		return nil, err
	}
	t.SetDurable(Durable(repo))
	return t, nil
}

// Durable decides whether gloss's writes are synced to stable storage
// (the working tree's, and the post-commit queue's): `git config gloss.fsync true|false` when set, else whatever the
// repository asks of git itself — a core.fsync that covers refs or the
// index (all, committed, added, reference, index) means yes. Git's own
// default syncs neither, and neither does gloss then: every write is
// still atomic and safe against a killed process.
func Durable(repo *gitops.Repo) bool {
	if v, ok := repo.LookupConfig("gloss.fsync"); ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "yes", "on", "1":
			return true
		case "false", "no", "off", "0":
			return false
		}
	}
	v, _ := repo.LookupConfig("core.fsync")
	for _, c := range strings.Split(v, ",") {
		switch strings.TrimSpace(c) {
		case "all", "committed", "added", "reference", "index":
			return true
		}
	}
	return false
}
