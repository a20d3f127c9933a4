package review

import (
	"path"
	"sort"
	"strings"

	"github.com/gloss-dev/gloss/forge"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/spec"
	"github.com/gloss-dev/gloss/tasks"
)

// specsOf lists the specs (as of head) that govern a changed file or whose
// own file changed; one is reconciled when the check has nothing to say
// about it.
func specsOf(repo *gitops.Repo, head string, files []*fileWork, findings []forge.Finding) ([]Spec, error) {
	tree, err := spec.CommitTree(repo, head)
	if err != nil {
		return nil, err
	}
	set, err := spec.LoadSet(tree)
	if err != nil {
		return nil, err
	}
	present := map[string]bool{}
	var changed []string
	for _, f := range files {
		for _, p := range []string{f.change.Path, f.change.OldPath} {
			if p != "" && !present[p] {
				present[p] = true
				changed = append(changed, p)
			}
		}
	}
	sort.Strings(changed)
	outOfStep := map[string]bool{}
	for _, fd := range findings {
		if fd.Spec != "" {
			outOfStep[fd.Spec] = true
		}
	}
	out := []Spec{}
	for _, sp := range set.Usable() {
		s := Spec{Path: sp.Path, Governed: []string{}, Changed: present[sp.Path]}
		for _, p := range changed {
			if !set.IsSpecPath(p) && sp.Governs(p) {
				s.Governed = append(s.Governed, p)
			}
		}
		if len(s.Governed) == 0 && !s.Changed {
			continue
		}
		s.Reconciled = !outOfStep[sp.Path]
		out = append(out, s)
	}
	return out, nil
}

// tasksOf reads each changed task file at base and at head: its status
// before and after, and whether the range completes it (a move into the
// archive included).
func tasksOf(repo *gitops.Repo, base, head string, files []*fileWork) []Task {
	out := []Task{}
	for _, f := range files {
		ch := f.change
		if !isTaskFile(ch.Path) && !isTaskFile(ch.OldPath) {
			continue
		}
		var t Task
		if ch.Status != gitops.Added && ch.Status != gitops.Copied {
			if data, err := repo.ReadFile(base, basePath(ch)); err == nil {
				old := tasks.Parse(basePath(ch), data)
				t.ID, t.Title, t.From = old.ID, old.Title, old.Status
			}
		}
		if ch.Status != gitops.Deleted {
			if data, err := repo.ReadFile(head, ch.Path); err == nil {
				now := tasks.Parse(ch.Path, data)
				t.ID, t.Title, t.To = now.ID, now.Title, now.Status
			}
		}
		if t.ID == "" {
			continue
		}
		t.Completed = t.To == "completed" && t.From != "completed"
		out = append(out, t)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Completed != out[j].Completed {
			return out[i].Completed
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// isTaskFile reports whether p is a task file, active or archived.
func isTaskFile(p string) bool {
	dir := path.Dir(p)
	return (dir == tasks.Dir || dir == tasks.ArchiveDir) && strings.HasSuffix(p, ".md") && tasks.ValidID(strings.TrimSuffix(path.Base(p), ".md"))
}
