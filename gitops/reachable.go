package gitops

import (
	git "github.com/libgit2/git2go/v34"
)

// Reachable reports which of ids are tip or its ancestors: whether the
// commit a record is on is in the history being read, so that a decision
// recorded on another branch, or on a commit rewritten away, is not taken
// for one in force here. Ids that are not commits of this repository (a
// teammate's notes name commits this clone never fetched) are not
// reachable.
//
// libgit2's descendant test costs a merge-base walk per pair (5 s for
// git/git's root commit). Here one walk answers every id: over the blame
// graph read in process, from tip down to the topological level of the
// oldest id asked (a commit's level is above its parents', so nothing
// below that level can lead to an id), after a walk through libgit2 of
// the commits newer than the graph. Without a usable graph, a revision
// walk from tip that stops once every id is found.
func (r *Repo) Reachable(tip string, ids []string) (map[string]bool, error) {
	out := make(map[string]bool, len(ids))
	want := map[string]bool{}
	for _, id := range ids {
		if id == tip {
			out[id] = true
		} else if isHex(id) {
			want[id] = true
		}
	}
	if len(want) == 0 {
		return out, nil
	}
	if r.reachableInGraph(tip, want, out) {
		return out, nil
	}
	return out, r.reachableByWalk(tip, want, out)
}

// reachableInGraph answers through the blame graph; false when it cannot
// (no usable graph, rewritten parents), with out untouched for the ids
// still wanted.
func (r *Repo) reachableInGraph(tip string, want, out map[string]bool) bool {
	if r.blameGraphEnv() == nil || r.parentsRewritten() {
		return false
	}
	g, err := openCommitGraph(r.blameGraphPath())
	if err != nil {
		return false
	}
	// The commits newer than the graph: walked through libgit2 until each
	// line of descent enters the graph. A wanted id among them is found
	// here or nowhere (a commit in the graph has all its ancestors there).
	var starts []uint32
	found := map[string]bool{}
	seen := map[string]bool{}
	stack := []string{tip}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[id] {
			continue
		}
		seen[id] = true
		if pos, ok := g.lookup(id); ok {
			starts = append(starts, pos)
			continue
		}
		if want[id] {
			found[id] = true
		}
		parents, err := r.parentIDs(id)
		if err != nil {
			return false
		}
		stack = append(stack, parents...)
	}
	targets := map[uint32]string{}
	floor := uint32(graphLevelMax)
	for id := range want {
		if found[id] {
			continue
		}
		if pos, ok := g.lookup(id); ok {
			targets[pos] = id
			floor = min(floor, g.level(pos))
		}
	}
	if len(targets) > 0 && len(starts) > 0 {
		if !g.reach(starts, floor, targets, found) {
			return false
		}
	}
	for id := range want {
		out[id] = found[id]
	}
	return true
}

// reach walks the graph down from starts, highest level first, and adds
// to found the targets it meets; it stops when none is left or the walk
// is below floor, the lowest target's level. false when a level gives no
// order (a graph written without them).
func (g *commitGraph) reach(starts []uint32, floor uint32, targets map[uint32]string, found map[string]bool) bool {
	seen := make([]bool, g.n)
	q := pqueue[levelItem]{first: func(a, b levelItem) bool { return a.level > b.level }}
	push := func(pos uint32) bool {
		level := g.level(pos)
		if level == graphLevelUnknown || level >= graphLevelMax {
			return false
		}
		seen[pos] = true
		if level >= floor {
			q.push(levelItem{pos, level})
		}
		return true
	}
	for _, s := range starts {
		if !seen[s] && !push(s) {
			return false
		}
	}
	left := len(targets)
	var parents []uint32
	for q.len() > 0 && left > 0 {
		it := q.pop()
		if id, ok := targets[it.pos]; ok && !found[id] {
			found[id] = true
			left--
		}
		var err error
		if _, parents, err = g.commit(it.pos, parents[:0]); err != nil {
			return false
		}
		for _, p := range parents {
			if !seen[p] && !push(p) {
				return false
			}
		}
	}
	return true
}

// reachableByWalk answers with a revision walk from tip, for a repository
// without a usable blame graph.
func (r *Repo) reachableByWalk(tip string, want, out map[string]bool) error {
	for id := range want {
		out[id] = false
	}
	o, err := oid(tip)
	if err != nil {
		return err
	}
	w, err := r.r.Walk()
	if err != nil {
		return err
	}
	defer w.Free()
	if err := w.Push(o); err != nil {
		return err
	}
	left := len(want)
	err = w.Iterate(func(c *git.Commit) bool {
		if id := c.Id().String(); want[id] {
			out[id] = true
			left--
		}
		return left > 0
	})
	return err
}

// parentIDs are the parents of the commit id.
func (r *Repo) parentIDs(id string) ([]string, error) {
	o, err := oid(id)
	if err != nil {
		return nil, err
	}
	c, err := r.r.LookupCommit(o)
	if err != nil {
		return nil, err
	}
	defer c.Free()
	ps := make([]string, c.ParentCount())
	for i := range ps {
		ps[i] = c.ParentId(uint(i)).String()
	}
	return ps, nil
}
