package cli

import (
	"fmt"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/schemas"
)

// SchemaCmd is `git gloss schema [NAME]`.
type SchemaCmd struct {
	Name string `arg:"" optional:"" help:"Shape to print, by name or by $$schema tag; omit to list them all."`
}

// Help is the long help of schema.
func (SchemaCmd) Help() string {
	return `Every machine-readable output and stored record of gloss carries a
"$schema" tag and has a JSON Schema (draft 2020-12) generated from the code
that writes it. Agents can learn the shapes from here instead of guessing.

  git gloss schema            list the shapes
  git gloss schema status     the JSON Schema of git gloss status --json`
}

// Run prints a schema or the list.
func (c *SchemaCmd) Run(g *Globals) error {
	if c.Name == "" {
		out := schemas.List()
		return g.emit(out, func(s *styler) {
			for _, it := range out.Schemas {
				s.printf("%-22s %-28s %s\n", s.bold(it.Name), s.dim(it.Tag), it.Description)
			}
		})
	}
	e, ok := schemas.Find(c.Name)
	if !ok {
		return fault.NotFoundf("no schema named %q; run 'git gloss schema' for the list", c.Name)
	}
	doc, err := schemas.Document(e.Name)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(g.rawStdout, "%s\n", doc)
	return err
}
