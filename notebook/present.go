package notebook

import (
	"io/fs"
	"strings"

	"github.com/gloss-dev/gloss/config"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/safepath"
)

// HasNotes reports whether the repository's notebook holds a note of its
// own: a file other than what init scaffolds (index.md, .gitkeep). Unlike
// Open it creates nothing, and it stops at the first note it finds.
func HasNotes(repo *gitops.Repo) bool {
	if repo.IsBare() {
		return false
	}
	cfg, err := config.LoadTeam(repo)
	if err != nil {
		return false
	}
	var s Settings
	if cfg.Section("notebook", &s) != nil {
		return false
	}
	tree, err := safepath.ForRepo(repo)
	if err != nil {
		return false
	}
	defer tree.Close()
	real, err := tree.Resolve(notebookPath(tree, s))
	if err != nil || real == "." {
		return false
	}
	found := false
	_ = fs.WalkDir(tree.Root().FS(), real, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.IsDir():
			return nil
		case p == real+"/"+IndexNote || strings.HasPrefix(d.Name(), "."):
			return nil
		}
		found = true
		return fs.SkipAll
	})
	return found
}
