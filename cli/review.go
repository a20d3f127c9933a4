package cli

import (
	"fmt"
	"os"
	"runtime/debug"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/review"
)

// ReviewCmd is `git gloss review`.
type ReviewCmd struct {
	Range    string `arg:"" optional:"" placeholder:"RANGE" help:"A..B, or A (A..HEAD). Default: from the merge base with the pull request's target (in CI), the upstream or the default branch, to HEAD."`
	Format   string `name:"format" enum:"text,markdown" default:"text" help:"text (default) or markdown (a pull-request comment); --json prints gloss-review/v1."`
	Post     bool   `name:"post" help:"Post the markdown report as the pull request's (GitHub Actions) or merge request's (GitLab CI) gloss comment: created once, then edited."`
	DryRun   bool   `name:"dry-run" help:"With --post: print the comment and say whether it would be created or edited; write nothing."`
	Fetch    bool   `name:"fetch" help:"Fetch gloss's notes from the remote first (CI clones have none), and its sessions when the team shares them."`
	Remote   string `name:"remote" default:"origin" help:"Remote for --fetch and for the default branch."`
	MaxFiles int    `name:"max-files" placeholder:"N" help:"Examine at most N changed files, those with the most changed lines (default 1000); the others are only counted."`
}

// Help is the long help of review.
func (ReviewCmd) Help() string {
	return `A report of a range for the people (and AI reviewers) deciding whether it goes
in:

  - the decisions in force the change touches: each recorded constraint,
    rejected alternative and risk whose lines the diff changes, a change that
    brings back a rejected alternative first, then constraints;
  - who wrote it: the added lines by human, agent (by agent and model) and
    mixed, per file and overall, as git gloss blame counts them; and the
    agent sessions' redacted prompts when the team shares sessions;
  - the specs governing changed files (reconciled or not), the tasks it
    changes or completes, and the findings of git gloss ci check;
  - the files to read first.

The report is bounded (a 500-commit range or a 10,000-file diff still gives a
short one, and says what was cut). --post keeps one comment on the pull or
merge request up to date, through the forge's REST API with the job's token
(see ci/ and docs/review.md):

  git gloss review                         # this branch against its base
  git gloss review main..feature --format markdown
  git gloss review --json                  # see: git gloss schema review
  git gloss review --fetch --post          # in CI
  git gloss review --post --dry-run        # what would be posted`
}

// Run reviews.
func (c *ReviewCmd) Run(g *Globals) error {
	if c.DryRun && !c.Post {
		return fault.Usagef("--dry-run goes with --post")
	}
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	// A review allocates much that lives briefly (the blames, hunks and
	// notes of some 2,000 file versions on a large range) and then exits:
	// collecting at a quarter of the pace saves a tenth of its CPU for
	// some tens of MB.
	debug.SetGCPercent(400)
	rep, err := review.Build(g.ctx, repo, review.Options{Range: c.Range, Remote: c.Remote, Fetch: c.Fetch, MaxFiles: c.MaxFiles})
	if err != nil {
		return err
	}
	if c.Post {
		return c.post(g, rep)
	}
	switch {
	case g.JSON:
		return g.printJSON(rep)
	case c.Format == "markdown":
		_, err = fmt.Fprint(g.stdout, review.Markdown(rep, review.LinksFor(os.Getenv)))
		return err
	}
	return review.WriteText(g.stdout, rep)
}

// post prints the markdown it posts (the job's log keeps the report even
// when nothing can be posted), then one line on what it did.
func (c *ReviewCmd) post(g *Globals, rep *review.Report) error {
	body := review.Markdown(rep, review.LinksFor(os.Getenv))
	if g.JSON {
		if err := g.printJSON(rep); err != nil {
			return err
		}
	} else if _, err := fmt.Fprint(g.stdout, body); err != nil {
		return err
	}
	res, err := review.Post(g.ctx, body, review.PostOptions{DryRun: c.DryRun})
	if err != nil {
		return err
	}
	fmt.Fprintln(g.stderr, res.Line())
	return nil
}
