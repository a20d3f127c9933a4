package cli

import (
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/tasks"
)

// TaskImportCmd is `git gloss task import`.
type TaskImportCmd struct {
	From string `name:"from" default:".chant" placeholder:"DIR" help:"The Chant project folder."`
}

// Help is the long help of task import.
func (TaskImportCmd) Help() string {
	return `Brings a Chant project over in one commit: .chant/specs/** become tasks in
.gloss/tasks (file names, ids and frontmatter unchanged; a stored "blocked"
or "ready", which both tools compute, becomes pending), .chant/archive/**
keeps its dated folders under .gloss/tasks/archive, .chant/logs/<id>.log
(and later runs <id>.N.log) become the task's log, and config.md and
prompts/ are kept verbatim in .gloss/imported/chant. Files gloss already
has are never overwritten; running it again imports only what is new.
It is one commit or nothing: a file the resolver refuses (a link into .git
or out of the repository) stops the import before anything is kept.
Symbolic links to folders are not followed and are listed as skipped.

  git gloss task import --from .chant`
}

// Run imports.
func (c *TaskImportCmd) Run(g *Globals) error {
	return g.withTasks(func(s *tasks.Store) error {
		res, err := s.ImportChant(g.ctx, c.From)
		if err != nil {
			return err
		}
		return g.emit(res, func(st *styler) {
			st.printf("imported %d task(s), %d archived, %d log(s) from %s\n", len(res.Tasks), len(res.Archived), len(res.Logs), res.From)
			if len(res.Same) > 0 {
				st.printf("%d file(s) already there, unchanged\n", len(res.Same))
			}
			for _, p := range res.Skipped {
				st.printf("skipped (symbolic link, not followed): %s\n", fault.Quote(p))
			}
			for _, p := range res.Conflict {
				st.printf("left alone (differs from Chant's): %s\n", p)
			}
			for _, id := range res.Fixed {
				st.printf("status set to pending (was a computed status): %s\n", id)
			}
			for _, l := range res.Left {
				st.printf("left in %s, not imported: %s (%d file(s)): %s\n", res.From, l.Path, l.Files, l.Why)
			}
			for _, h := range res.Hints {
				st.printf("hint: %s\n", h)
			}
		})
	})
}
