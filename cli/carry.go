package cli

import (
	"fmt"
	"strings"

	"github.com/gloss-dev/gloss/forge"
	"github.com/gloss-dev/gloss/gitops"
)

// CarryCmd is `git gloss carry`.
type CarryCmd struct {
	From   string `name:"from" placeholder:"RANGE|REF" help:"The pull request's commits: A..B, or a ref (its commits not on --to). Without it, gloss finds them from the annotations notes by patch id."`
	To     string `name:"to" placeholder:"COMMIT|RANGE" default:"HEAD" help:"The squash commit the forge made, or the range of commits a rebase merge made (default HEAD)."`
	Remote string `name:"remote" default:"origin" help:"Remote to fetch notes from and push them to."`
	NoPush bool   `name:"no-push" help:"Carry locally; do not fetch or push notes."`
}

// Help is the long help of carry.
func (CarryCmd) Help() string {
	return `A forge's "squash and merge" or "rebase and merge" makes new commits on
the server, where no post-rewrite hook runs: the pull request's annotations
stay on commits that are no longer on the default branch. carry copies them
onto the new commits, mapping their lines through the diff from each old
commit's version of a file to the new commit's, with provenance
source: squash (or rebase) and derived_from naming the old commit.

  git gloss carry --from origin/feature --to HEAD      a squash merge
  git gloss carry --from main@{1}..feature --to main@{1}..main
  git gloss carry --to HEAD                            find the branch by patch id

Without --from, the pull request's commits are found among the annotated
commits this clone has that are not on --to: by the commit message (git
merge --squash lists them), by patch id (a rebased commit), or by the patch
id of a branch's whole diff (a squash). They must be present in the clone:
in CI, fetch the pull request's head first.

Notes are fetched from the remote first and pushed after, without force
(as git gloss sync). Running carry twice adds nothing.`
}

// Run carries.
func (c *CarryCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	res, err := forge.Carry(g.ctx, repo, forge.CarryOptions{From: c.From, To: c.To, Remote: c.Remote, Push: !c.NoPush})
	if err != nil {
		return err
	}
	return g.emit(res, func(s *styler) {
		for _, p := range res.Pairs {
			srcs := make([]string, len(p.Sources))
			for i, id := range p.Sources {
				srcs[i] = gitops.ShortID(id)
			}
			s.printf("  %s %d record(s) onto %s from %s %s\n", s.green("carried"), p.Records, gitops.ShortID(p.Target), strings.Join(srcs, " "), s.dim("("+p.Provenance+", by "+p.Match+")"))
		}
		for _, w := range res.Warnings {
			s.printf("  %s %s\n", s.yellow("warning:"), w)
		}
		if len(res.Merged) > 0 {
			s.printf("  %s\n", s.dim(fmt.Sprintf("%d commit(s) already in the target history: nothing to carry", len(res.Merged))))
		}
		if res.Sync != nil {
			s.printf("  %s notes with %s\n", s.green("synced"), res.Sync.Remote)
		}
		s.printf("%s %d record(s)\n", s.bold("carried"), res.Carried)
	})
}
