package noma

import (
	"github.com/gloss-dev/gloss/gitops"
)

// GitBaseFinder finds a version of rel in the history of HEAD (newest
// first) whose sha256 is the one asked for.
func GitBaseFinder(repo *gitops.Repo, rel string) BaseFinder {
	return func(want string) (string, string, bool) {
		var text, from string
		found := false
		_ = repo.Walk("HEAD", gitops.LogOptions{Path: rel}, func(c *gitops.Commit) bool {
			data, err := repo.ReadFile(c.ID, rel)
			if err == nil && sha(string(data)) == want {
				text, from, found = string(data), "commit:"+c.ID, true
				return false
			}
			return true
		})
		return text, from, found
	}
}
