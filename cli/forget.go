package cli

import (
	"strings"

	"github.com/gloss-dev/gloss/agent"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// ForgetCmd is `git gloss forget`.
type ForgetCmd struct {
	IDs      []string `arg:"" name:"record-id" help:"Ids of the records to forget (the \"id\" of a record: git gloss export shows them)."`
	Reason   string   `name:"reason" placeholder:"TEXT" help:"Why (required). Stored in the tombstone and shared with the team: never repeat the secret."`
	Purge    bool     `name:"purge" help:"Also replace the history of the notes refs that held the records, so no reachable object keeps the text."`
	PruneNow bool     `name:"prune-now" help:"Then run git gc --prune=now, deleting the unreachable old objects at once."`
}

// Help is the long help of forget.
func (ForgetCmd) Help() string {
	return `Takes records back for good. Each id gets a tombstone in
refs/notes/gloss/forgotten (id, reason, who, when; never the text), the
records are removed from every gloss notes ref, and so are their copies,
through every generation (amend, rebase, cherry-pick and carry copy a record
by superseding it; a correction may repeat the text; a copy whose chain was
lost is known by its provenance and its text's fingerprint). The agents'
session state under the git dir loses the prompt summaries the records held.
Every sync, import and carry, here and on every clone that syncs, honours
the tombstones: a forgotten record never comes back.

The text stays in the notes history. --purge replaces that history with a
single new commit holding today's notes, deletes remote-tracking notes refs
that still hold the old one and expires the reflogs involved. Then:

  git gloss sync --purge     here: force-updates the remote's notes ref
                             (printed, with a lease on the tip just fetched)
  git gloss sync             on every other clone: it sees the purge marker
                             and adopts the new history instead of merging
                             the old one back

The old objects stay on disk, unreachable, until git gc prunes them
(--prune-now runs git gc --prune=now here); the remote's copy until the
remote is garbage-collected. See docs/forget.md.

  git gloss forget 01JB7Q9V3M0000000000000000 --reason "API key in a prompt summary" --purge
  git gloss sync --purge`
}

// Run forgets.
func (c *ForgetCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	by := identity(g, repo)
	res, err := notes.Forget(g.ctx, repo, notes.ForgetOptions{IDs: c.IDs, Reason: c.Reason, By: by, Purge: c.Purge})
	if err != nil {
		return err
	}
	if res.SessionPrompts, err = forgetPrompts(repo); err != nil {
		return err
	}
	if c.PruneNow {
		if err := notes.PruneNow(g.ctx, repo); err != nil {
			return err
		}
	}
	return g.emit(res, func(s *styler) {
		for _, f := range res.Forgotten {
			line := "  " + s.green("forgot") + " " + f.ID + " " + s.dim("on "+f.Object[:min(12, len(f.Object))]+" in "+strings.TrimPrefix(f.Ref, "refs/notes/"))
			if f.CopyOf != "" {
				line += s.dim(" (a copy of " + f.CopyOf + ")")
			}
			s.println(line)
		}
		for _, id := range res.Already {
			s.printf("  %s %s\n", s.dim("already forgotten"), id)
		}
		for _, p := range res.Purged {
			s.printf("  %s %s: %s replaced by %s\n", s.green("purged"), strings.TrimPrefix(p.Ref, "refs/notes/"), p.Old, p.New)
			for _, d := range p.DroppedTracking {
				s.printf("    deleted %s (it held the old history)\n", d)
			}
		}
		if res.SessionPrompts > 0 {
			s.printf("  %s %d prompt summary(ies) from the agents' session state\n", s.green("dropped"), res.SessionPrompts)
		}
		if c.PruneNow {
			s.println("  ran git gc --prune=now")
		}
		s.println(s.bold("next:"))
		for _, n := range res.Next {
			s.printf("  %s\n", n)
		}
	})
}

// forgetPrompts drops from the agents' session state the prompts that
// forgotten records held: after every command that forgets or may bring
// tombstones (forget, sync, import), so that no later commit writes them
// again.
func forgetPrompts(repo *gitops.Repo) (int, error) {
	ts, err := notes.LoadTombstones(repo)
	if err != nil {
		return 0, err
	}
	return agent.ForgetPrompts(repo, ts)
}

// identity is the user's git identity, for the tombstone's "by".
func identity(g *Globals, repo *gitops.Repo) string {
	name, _, _ := repo.ConfigGet(g.ctx, "user.name")
	email, _, _ := repo.ConfigGet(g.ctx, "user.email")
	if email != "" {
		return strings.TrimSpace(name + " <" + email + ">")
	}
	return name
}
