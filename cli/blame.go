package cli

import (
	"fmt"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/why"
)

// BlameCmd is `git gloss blame`.
type BlameCmd struct {
	Path string `arg:"" help:"File to blame (relative to the current directory, like git)."`
	Rev  string `name:"rev" placeholder:"REV" help:"Blame the file as of REV instead of the working tree."`
}

// Help is the long help of blame.
func (BlameCmd) Help() string {
	return `Annotated blame: each run of lines one commit last changed, with its author,
date and the intent of the annotation that covers it (and, with --json, the
full regions of a whole-file read and the file's outline). It is the data of
the file page of git gloss serve.

  git gloss blame server/server.go
  git gloss blame src/terminal.go --json`
}

// Run blames.
func (c *BlameCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	res, err := why.Blame(g.ctx, repo, why.BlameQuery{Path: g.path(c.Path), Rev: c.Rev})
	if err != nil {
		return err
	}
	return g.emit(res, func(s *styler) {
		intent := map[string]string{}
		for _, r := range res.Regions {
			intent[r.ID] = r.Intent
		}
		for _, h := range res.Hunks {
			when := h.Time
			if len(when) >= 10 {
				when = when[:10]
			}
			who := h.Author
			if h.By != nil && h.By.Model != "" {
				who += " (" + h.By.Model + ")"
			}
			why := ""
			if len(h.Regions) > 0 {
				why = intent[h.Regions[0]]
			}
			s.printf("%6s  %s %-10s %-24s %s\n", fmt.Sprintf("%d-%d", h.Start, h.End), s.dim(gitops.ShortID(h.Commit)), s.dim(when), who, s.green(why))
		}
		printSkipped(s, res.Skipped)
	})
}
