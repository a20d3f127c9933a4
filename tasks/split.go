package tasks

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/frontmatter"
)

// Split turns a pending task into a driver with one member task per
// acceptance criterion (<id>.1, <id>.2, …), each depending on the one
// before. No agent is involved: the criteria are the plan.
func (s *Store) Split(ctx context.Context, id string, force bool) (*SplitResult, error) {
	unlock, err := s.writeLock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	t, g, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	if t.Status != "pending" && !force {
		return nil, fault.Checkf("Task '%s' must be in pending status to split. Current status: %s", t.ID, t.Status)
	}
	if len(g.members(t.ID)) > 0 {
		return nil, fault.Checkf("Task '%s' already has members", t.ID)
	}
	c := criteriaOf(t.Body)
	if c.Total < 2 {
		return nil, fault.Checkf("Task '%s' has %d acceptance criteria; splitting needs at least two", t.ID, c.Total)
	}
	res := &SplitResult{Schema: schemaTag, TaskID: t.ID, Members: []string{}}
	paths := []string{t.Path}
	for i, item := range append(append([]string{}, c.Open...), checkedItems(t.Body)...) {
		text := strings.TrimSpace(item[strings.Index(item, "]")+1:])
		m := &Task{ID: fmt.Sprintf("%s.%d", t.ID, i+1), fm: frontmatter.NewMapping()}
		m.Path = path.Join(Dir, m.ID+".md")
		m.Body = []byte(fmt.Sprintf("# %s\n\nPart %d of %s: %s\n\n## Acceptance Criteria\n\n- [ ] %s\n", text, i+1, t.ID, t.Title, text))
		_ = m.set("type", "code")
		_ = m.set("status", "pending")
		if err := s.save(m); err != nil {
			return nil, err
		}
		paths = append(paths, m.Path)
		res.Members = append(res.Members, m.ID)
	}
	_ = t.set("type", "driver")
	if err := s.save(t); err != nil {
		return nil, err
	}
	if err := s.record(ctx, t.ID, fmt.Sprintf("split into %d members", len(res.Members)), paths...); err != nil {
		return nil, err
	}
	res.Message = fmt.Sprintf("Split task %s into %d members", t.ID, len(res.Members))
	return res, nil
}

// SplitResult is task_split's answer.
type SplitResult struct {
	Schema  string   `json:"$schema"`
	TaskID  string   `json:"spec_id"`
	Members []string `json:"members"`
	Message string   `json:"message"`
}

func checkedItems(body []byte) []string {
	c := criteriaOf(body)
	if c.Start < 0 {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(body), "\n")[c.Start+1:] {
		if strings.HasPrefix(line, "## ") {
			break
		}
		if box(line) == "checked" {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}
