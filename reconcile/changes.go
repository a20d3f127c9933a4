package reconcile

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
)

// BaseInfo says what a comparison was made against.
type BaseInfo struct {
	Base       string `json:"base"`        // as given
	BaseMode   string `json:"base_mode"`   // "merge-base" (default) or "plain"
	BaseCommit string `json:"base_commit"` // the commit compared with the working tree
}

func (w *Workspace) resolveBase(base string, plain bool) (BaseInfo, error) {
	if strings.TrimSpace(base) == "" {
		return BaseInfo{}, missing("base_branch", "the branch or commit to compare with (for example main); gloss never assumes one")
	}
	id, err := w.Repo.ResolveCommit(base)
	if err != nil {
		return BaseInfo{}, fault.As(fault.NotFound, fmt.Errorf("base_branch %q: %w", base, err))
	}
	info := BaseInfo{Base: base, BaseMode: "plain", BaseCommit: id}
	if plain || w.Head == "" {
		return info, nil
	}
	mb, err := w.Repo.MergeBase(id, w.Head)
	if err != nil {
		return info, err
	}
	if mb == "" {
		return info, fault.Usagef("base_branch %q shares no history with HEAD; pass plain_base to compare with it directly", base)
	}
	info.BaseMode, info.BaseCommit = "merge-base", mb
	return info, nil
}

// Rename is a file moved since the base.
type Rename struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// changeSet is what differs between a base and the working tree (or a
// commit).
type changeSet struct {
	changed   []string // every path involved: new paths, deleted paths, old paths of renames
	deleted   []string
	renamed   []Rename
	untracked []string
	present   map[string]bool
}

func newChangeSet(changes []gitops.Change) *changeSet {
	cs := &changeSet{present: map[string]bool{}}
	add := func(p string) {
		if !cs.present[p] {
			cs.present[p] = true
			cs.changed = append(cs.changed, p)
		}
	}
	for _, c := range changes {
		switch c.Status {
		case gitops.Deleted:
			cs.deleted = append(cs.deleted, c.Path)
		case gitops.Renamed:
			cs.renamed = append(cs.renamed, Rename{From: c.OldPath, To: c.Path})
			add(c.OldPath)
		case gitops.Untracked:
			cs.untracked = append(cs.untracked, c.Path)
		case gitops.Copied:
			// the source is unchanged
		}
		add(c.Path)
	}
	slices.Sort(cs.changed)
	slices.Sort(cs.deleted)
	slices.Sort(cs.untracked)
	slices.SortFunc(cs.renamed, func(a, b Rename) int { return strings.Compare(a.To, b.To) })
	return cs
}

func (w *Workspace) worktreeChanges(baseCommit string) (*changeSet, error) {
	if err := w.prepare(baseCommit); err != nil {
		return nil, err
	}
	return w.changes, nil
}
