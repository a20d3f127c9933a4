package decisions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/gitops"
)

// reachFile keeps, per worktree, which commits holding decisions were
// found in the history of the last tip read: one walk of the history
// answers them, and the next lookups at that tip, or at a descendant of it
// (the commit just made), reuse the answers instead of walking again.
const reachFile = "decisions-reach.json"

type reachCache struct {
	Tip string   `json:"tip"`
	Yes []string `json:"yes"` // in the history of Tip
	No  []string `json:"no"`
}

// maxReachAnswers bounds the answers kept (a branch switch back and forth
// over a history with many decisions would otherwise grow them forever).
const maxReachAnswers = 20000

// reachable reports which of commits are tip or its ancestors.
func reachable(repo *gitops.Repo, tip string, commits []string) (map[string]bool, error) {
	out := make(map[string]bool, len(commits))
	dir, err := repo.WorktreeGlossDir()
	if err != nil {
		return repo.Reachable(tip, commits)
	}
	name := filepath.Join(dir, reachFile)
	var c reachCache
	if data, err := os.ReadFile(name); err == nil && json.Unmarshal(data, &c) == nil && c.Tip != "" {
		keep := c.Tip == tip
		if !keep {
			// A descendant of the cached tip keeps every yes; its no's are
			// asked again (a merge may have brought them in).
			if m, err := repo.Reachable(tip, []string{c.Tip}); err == nil && m[c.Tip] {
				keep, c.No = true, nil
			}
		}
		if keep {
			for _, id := range c.Yes {
				out[id] = true
			}
			for _, id := range c.No {
				out[id] = false
			}
		} else {
			c = reachCache{}
		}
	}
	var ask []string
	for _, id := range commits {
		if _, known := out[id]; !known {
			ask = append(ask, id)
		}
	}
	dirty := c.Tip != tip || len(ask) > 0
	c.Tip = tip
	if len(ask) > 0 {
		m, err := repo.Reachable(tip, ask)
		if err != nil {
			return nil, err
		}
		for _, id := range ask {
			out[id] = m[id]
			if m[id] {
				c.Yes = append(c.Yes, id)
			} else {
				c.No = append(c.No, id)
			}
		}
	}
	if dirty {
		if len(c.Yes)+len(c.No) > maxReachAnswers {
			c.Yes, c.No = nil, nil
		}
		slices.Sort(c.Yes)
		c.Yes = slices.Compact(c.Yes)
		if data, err := json.Marshal(c); err == nil {
			if root, err := os.OpenRoot(dir); err == nil {
				_ = atomicfile.Replace(root, reachFile, data, 0o644) // a cache: a failed write costs a walk
				root.Close()
			}
		}
	}
	return out, nil
}

// reachable is the package's reachable, remembered by the index for the
// rest of its lookups.
func (ix *Index) reachable(tip string, commits []string) (map[string]bool, error) {
	known := ix.reach[tip]
	var ask []string
	for _, c := range commits {
		if _, ok := known[c]; !ok {
			ask = append(ask, c)
		}
	}
	if len(ask) > 0 {
		found, err := reachable(ix.repo, tip, ask)
		if err != nil {
			return nil, err
		}
		if known == nil {
			if ix.reach == nil {
				ix.reach = map[string]map[string]bool{}
			}
			known = map[string]bool{}
			ix.reach[tip] = known
		}
		for _, c := range ask {
			known[c] = found[c]
		}
	}
	out := make(map[string]bool, len(commits))
	for _, c := range commits {
		out[c] = known[c]
	}
	return out, nil
}
