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
// found in the history of the tips read last: one walk of the history
// answers them, and the next lookups at one of those tips, or at a
// descendant of the newest (the commit just made), reuse the answers
// instead of walking again. It keeps a few tips, not one: a review reads
// at its base and its head, one after the other, and would walk at every
// switch.
const reachFile = "decisions-reach.json"

type reachFileData struct {
	Tips []reachCache `json:"tips"` // most recently used first
}

type reachCache struct {
	Tip string   `json:"tip"`
	Yes []string `json:"yes"` // in the history of Tip
	No  []string `json:"no"`
}

// maxReachAnswers bounds the answers kept (a branch switch back and forth
// over a history with many decisions would otherwise grow them forever),
// maxReachTips the tips.
const (
	maxReachAnswers = 20000
	maxReachTips    = 4
)

// reachable reports which of commits are tip or its ancestors.
func reachable(repo *gitops.Repo, tip string, commits []string) (map[string]bool, error) {
	dir, err := repo.WorktreeGlossDir()
	if err != nil {
		return repo.Reachable(tip, commits)
	}
	var file reachFileData
	if data, err := os.ReadFile(filepath.Join(dir, reachFile)); err == nil {
		_ = json.Unmarshal(data, &file) // a file it cannot read (an older format) is a cache miss
	}
	c, rest, found := reachAt(repo, tip, file.Tips)
	out := make(map[string]bool, len(commits))
	for _, id := range c.Yes {
		out[id] = true
	}
	for _, id := range c.No {
		out[id] = false
	}
	var ask []string
	for _, id := range commits {
		if _, known := out[id]; !known {
			ask = append(ask, id)
		}
	}
	dirty := !found || len(ask) > 0
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
		writeReach(dir, c, rest)
	}
	return out, nil
}

// reachAt is the answers kept for tip, and the other tips' entries: those
// of tip itself (found), else the newest entry's yes's when tip descends
// from its tip (its no's are asked again: a merge may have brought them
// in), else none.
func reachAt(repo *gitops.Repo, tip string, tips []reachCache) (c reachCache, rest []reachCache, found bool) {
	for i, c := range tips {
		if c.Tip == tip {
			return c, append(slices.Clone(tips[:i]), tips[i+1:]...), true
		}
	}
	if len(tips) > 0 && tips[0].Tip != "" {
		if m, err := repo.Reachable(tip, []string{tips[0].Tip}); err == nil && m[tips[0].Tip] {
			return reachCache{Tip: tip, Yes: slices.Clone(tips[0].Yes)}, tips, false
		}
	}
	return reachCache{Tip: tip}, tips, false
}

// writeReach stores c first (the newest), then the other tips, within
// the bounds. A failed write costs a walk next time.
func writeReach(dir string, c reachCache, rest []reachCache) {
	slices.Sort(c.Yes)
	c.Yes = slices.Compact(c.Yes)
	file := reachFileData{Tips: []reachCache{c}}
	n := len(c.Yes) + len(c.No)
	for _, o := range rest {
		if len(file.Tips) >= maxReachTips || n+len(o.Yes)+len(o.No) > maxReachAnswers {
			break
		}
		file.Tips = append(file.Tips, o)
		n += len(o.Yes) + len(o.No)
	}
	if n > maxReachAnswers {
		file.Tips = []reachCache{{Tip: c.Tip}}
	}
	if data, err := json.Marshal(file); err == nil {
		if root, err := os.OpenRoot(dir); err == nil {
			_ = atomicfile.Replace(root, reachFile, data, 0o644)
			root.Close()
		}
	}
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
