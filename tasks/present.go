package tasks

import (
	"io/fs"
	"strings"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/safepath"
)

// InUse reports whether the repository keeps tasks: a task file in the
// tasks folder or its archive. It reads two directory listings and opens
// nothing else, so a caller deciding what to offer (the MCP server's
// default toolsets) can ask on every start.
func InUse(repo *gitops.Repo) bool {
	if repo.IsBare() {
		return false
	}
	tree, err := safepath.ForRepo(repo)
	if err != nil {
		return false
	}
	defer tree.Close()
	for _, dir := range []string{Dir, ArchiveDir} {
		real, err := tree.Resolve(dir)
		if err != nil {
			continue
		}
		entries, err := fs.ReadDir(tree.Root().FS(), real)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
				return true
			}
		}
	}
	return false
}
