package tasks

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/frontmatter"
)

// AddResult is task_add's answer.
type AddResult struct {
	Schema  string     `json:"$schema"`
	TaskID  string     `json:"spec_id"`
	Path    string     `json:"path"`
	Message string     `json:"message"`
	Lint    LintResult `json:"lint"`
}

// AddInput describes a new task.
type AddInput struct {
	Description string   `json:"description" jsonschema:"what to do; the first sentence or line becomes the title"`
	Prompt      string   `json:"prompt,omitempty" jsonschema:"prompt template name"`
	Type        string   `json:"type,omitempty" jsonschema:"code (default), task, driver, documentation, research or group"`
	DependsOn   []string `json:"depends_on,omitempty"`
	Labels      []string `json:"labels,omitempty"`
	Criteria    []string `json:"criteria,omitempty" jsonschema:"acceptance criteria, one per item"`
}

// Add creates a task file (and commits it).
func (s *Store) Add(ctx context.Context, in AddInput) (*AddResult, error) {
	unlock, err := s.writeLock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	desc := strings.TrimSpace(in.Description)
	if desc == "" {
		return nil, fault.Usagef("Missing required parameter: description")
	}
	for _, err := range []error{checkText("description", desc), checkText("criteria", in.Criteria...),
		checkText("labels", in.Labels...), checkText("depends_on", in.DependsOn...), checkText("prompt", in.Prompt)} {
		if err != nil {
			return nil, err
		}
	}
	if in.Type == "" {
		in.Type = "code"
	}
	if !slices.Contains(Types, in.Type) {
		return nil, fault.Usagef("Invalid type: %s. Must be one of: %s", in.Type, strings.Join(Types, ", "))
	}
	title, body := splitDescription(desc)
	id, release, err := s.newID()
	if err != nil {
		return nil, err
	}
	defer release()
	all, g, err := s.active()
	if err != nil {
		return nil, err
	}
	_ = all
	if in.DependsOn, err = g.resolveIDs(in.DependsOn); err != nil {
		return nil, err
	}
	t := &Task{ID: id, Path: path.Join(Dir, id+".md"), fm: frontmatter.NewMapping()}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", title)
	if body != "" {
		fmt.Fprintf(&b, "\n%s\n", body)
	}
	if len(in.Criteria) > 0 {
		b.WriteString("\n## Acceptance Criteria\n\n")
		for _, c := range in.Criteria {
			fmt.Fprintf(&b, "- [ ] %s\n", strings.TrimSpace(c))
		}
	}
	t.Body = []byte(b.String())
	for _, kv := range []struct {
		k string
		v any
	}{{"type", in.Type}, {"status", "pending"}, {"prompt", in.Prompt}, {"depends_on", in.DependsOn}, {"labels", in.Labels}} {
		if err := t.set(kv.k, kv.v); err != nil {
			return nil, err
		}
	}
	if err := s.save(t); err != nil {
		return nil, err
	}
	if err := s.record(ctx, id, "created", t.Path); err != nil {
		return nil, err
	}
	g.add(t)
	return &AddResult{Schema: schemaTag, TaskID: id, Path: t.Path, Message: "Created task: " + id, Lint: s.lint(g, t)}, nil
}

// resolveIDs turns each part of a task id into the whole id, as task
// work and every other command that names a task take it ("gdv",
// "001-gdv"): an unknown part is not found, an ambiguous one a conflict.
func (g graph) resolveIDs(parts []string) ([]string, error) {
	if parts == nil {
		return nil, nil
	}
	all := make([]*Task, 0, len(g.byID))
	for _, t := range g.byID {
		all = append(all, t)
	}
	slices.SortFunc(all, func(a, b *Task) int { return CompareIDs(a.ID, b.ID) })
	ids := make([]string, 0, len(parts))
	for _, p := range parts {
		t, err := resolveIn(all, p)
		if err != nil {
			return nil, err
		}
		ids = append(ids, t.ID)
	}
	return ids, nil
}

// splitDescription takes a title off a description: the first line, or up
// to the first ". " when the description is long (over 80 characters).
func splitDescription(d string) (string, string) {
	if len(d) <= 80 && !strings.Contains(d, "\n") {
		return d, ""
	}
	if i := strings.IndexByte(d, '\n'); i >= 0 && i <= 80 {
		return strings.TrimSpace(d[:i]), strings.TrimSpace(d[i+1:])
	}
	if i := strings.Index(d, ". "); i >= 0 && i <= maxTitle {
		return strings.TrimSpace(d[:i+1]), strings.TrimSpace(d[i+2:])
	}
	if len(d) <= maxTitle && !strings.Contains(d, "\n") {
		return d, ""
	}
	// No short first line or sentence: the title is the first words, and
	// the body keeps the whole description (a title is shown in every
	// list and every answer about the task).
	cut := strings.LastIndexByte(d[:80], ' ')
	if cut < 40 {
		cut = 80
		for cut > 0 && !utf8.RuneStart(d[cut]) {
			cut--
		}
	}
	return strings.TrimSpace(d[:cut]) + "…", d
}

// maxTitle bounds a title taken from a description's first sentence.
const maxTitle = 200
