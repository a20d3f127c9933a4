package annotate

import (
	"path/filepath"
	"strings"

	"github.com/gloss-dev/gloss/capture"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
)

// Context is what an agent (or a person, or an annotator program) says
// about a change: for one region when File is set (and Anchor or Lines
// narrow it), or for the whole commit when File is empty. It is the input
// of `git gloss annotate` and gloss_annotate.
type Context struct {
	File                 string     `json:"file,omitempty" jsonschema:"repository-relative path; omit for the whole commit"`
	Anchor               string     `json:"anchor,omitempty" jsonschema:"function, method or type the context is about, e.g. Server.Handle"`
	Lines                *Lines     `json:"lines,omitempty" jsonschema:"line range in the committed file, when there is no anchor"`
	Intent               string     `json:"intent,omitempty" jsonschema:"why the code is the way it is"`
	Reasoning            string     `json:"reasoning,omitempty" jsonschema:"how it works or why this way"`
	Constraints          []string   `json:"constraints,omitempty" jsonschema:"what the code must keep doing"`
	RejectedAlternatives []Rejected `json:"rejected_alternatives,omitempty" jsonschema:"what was considered and not done, and why"`
	Deps                 []Dep      `json:"deps,omitempty" jsonschema:"other code this relies on"`
	Risks                []string   `json:"risks,omitempty"`
	Tags                 []string   `json:"tags,omitempty"`
	Author               *Author    `json:"author,omitempty" jsonschema:"who says so; defaults to an agent"`
	Supersedes           []string   `json:"supersedes,omitempty" jsonschema:"ids of earlier records this one replaces (with a commit)"`
	Expires              string     `json:"expires,omitempty" jsonschema:"date (YYYY-MM-DD or RFC 3339) after which the record is no longer delivered"`
}

// Validate checks a context before it is stored.
func (c *Context) Validate() error {
	c.File = strings.TrimPrefix(filepath.ToSlash(strings.TrimSpace(c.File)), "./")
	if c.File == "" && (c.Anchor != "" || c.Lines != nil) {
		return fault.Usagef("an anchor or a line range needs a file")
	}
	if c.Lines != nil && (c.Lines.Start < 1 || c.Lines.End < c.Lines.Start) {
		return fault.Usagef("invalid line range %d:%d", c.Lines.Start, c.Lines.End)
	}
	if c.File != "" && (strings.Contains(c.File, "..") || filepath.IsAbs(c.File) || strings.ContainsRune(c.File, 0)) {
		return fault.Usagef("file must be a path inside the repository, relative to its root: %q", c.File)
	}
	if c.Intent == "" && c.Reasoning == "" && len(c.Constraints) == 0 && len(c.RejectedAlternatives) == 0 &&
		len(c.Deps) == 0 && len(c.Risks) == 0 && len(c.Tags) == 0 && len(c.Supersedes) == 0 {
		return fault.Usagef("nothing to record: give an intent, reasoning, constraints, rejected alternatives, deps, risks or tags")
	}
	if c.Author != nil && c.Author.Kind == "" {
		c.Author.Kind = "agent"
	}
	if c.Expires != "" {
		if _, err := ParseExpiry(c.Expires); err != nil {
			return err
		}
	}
	return nil
}

// merge adds what c says to region r.
func (c *Context) merge(r *Region) {
	if c.Intent != "" {
		r.Intent = c.Intent
	}
	if c.Reasoning != "" {
		r.Reasoning = strings.TrimSpace(strings.TrimSpace(r.Reasoning) + "\n" + c.Reasoning)
	}
	for _, t := range c.Constraints {
		r.Constraints = appendConstraint(r.Constraints, Constraint{Text: t, Source: "author"})
	}
	r.RejectedAlternatives = append(r.RejectedAlternatives, c.RejectedAlternatives...)
	r.Deps = append(r.Deps, c.Deps...)
	r.Risks = appendUnique(r.Risks, c.Risks...)
	r.Tags = appendUnique(r.Tags, c.Tags...)
	if c.Expires != "" {
		r.Expires = c.Expires
	}
	// A context about this region speaks for it (the first one does); a
	// context about the whole change adds to every region but does not
	// claim authorship of them.
	if c.Author != nil && c.File != "" && r.Source == SourceHook {
		r.Author = *c.Author
		if r.Author.Kind == "agent" {
			r.Source = SourceAgent
		}
	}
}

func appendConstraint(cs []Constraint, c Constraint) []Constraint {
	for _, x := range cs {
		if x.Text == c.Text {
			return cs
		}
	}
	return append(cs, c)
}

func appendUnique(s []string, add ...string) []string {
	for _, a := range add {
		dup := false
		for _, x := range s {
			if x == a {
				dup = true
				break
			}
		}
		if !dup {
			s = append(s, a)
		}
	}
	return s
}

// Staged contexts wait in capture's spool for this worktree's next commit
// (capture.Stage): a context staged while a commit is being annotated
// goes to the next one, whole.

// Stage stores contexts for the next commit made in this worktree and
// returns how many are staged.
func Stage(repo *gitops.Repo, ctxs []Context) (int, error) {
	for i := range ctxs {
		if err := ctxs[i].Validate(); err != nil {
			return 0, err
		}
	}
	if err := checkFiles(repo, ctxs); err != nil {
		return 0, err
	}
	return capture.Stage(repo, ctxs)
}

// Pending returns the contexts staged and not yet consumed.
func Pending(repo *gitops.Repo) ([]Context, error) {
	return capture.Staged[Context](repo)
}

// takePending reads and removes the staged contexts.
func takePending(repo *gitops.Repo) ([]Context, error) {
	return capture.TakeStaged[Context](repo)
}
