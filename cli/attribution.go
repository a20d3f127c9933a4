package cli

import (
	"fmt"
	"strings"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/gitops"
)

// BlameCmd is `git gloss blame`.
type BlameCmd struct {
	Path  string `arg:"" help:"File to blame (relative to the current directory, like git)."`
	Lines string `name:"lines" short:"L" placeholder:"A:B" help:"Only lines A to B."`
	Rev   string `name:"rev" placeholder:"REV" help:"Blame the file as of REV instead of the working tree."`
}

// Help is the long help of blame.
func (BlameCmd) Help() string {
	return `git blame with who wrote each line: a person (human), an agent (ai, with
the agent and model), both (mixed), or nobody knows (unknown: the commit was
made before gloss recorded attribution, or without its hooks). Each run of
lines from one commit shows the intent of the annotation that covers it.

It answers from gloss's blame cache and keeps each blame's contributors and
intents in gloss's cache beside it (a new note, sync or rewrite refreshes
them), so a warm blame of a whole file costs a fraction of git blame's.

  git gloss blame server/server.go
  git gloss blame src/terminal.go -L 120:180 --rev v0.40.0
  git gloss blame main.py --json      # see: git gloss schema blame`
}

// Run blames.
func (c *BlameCmd) Run(g *Globals) error {
	q := attribution.BlameQuery{Path: g.path(c.Path), Rev: c.Rev}
	lines, err := linesFlag(c.Lines)
	if err != nil {
		return err
	}
	q.Lines = lines
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	res, err := attribution.Blame(g.ctx, repo, q)
	if err != nil {
		return err
	}
	return g.emit(res, func(s *styler) { printBlame(s, res) })
}

// contributorLabel is the short column blame prints for a contributor.
func contributorLabel(c attribution.Contributor) string {
	who := c.Type
	if c.Agent != "" {
		who += " " + c.Agent
		if c.Model != "" {
			who += "/" + c.Model
		}
	}
	return who
}

func printBlame(s *styler, res *attribution.BlameResult) {
	width := 0
	for _, l := range res.Lines {
		width = max(width, len(contributorLabel(l.Contributor)))
	}
	width = min(width, 32)
	numWidth := 1
	if n := len(res.Lines); n > 0 {
		numWidth = len(fmt.Sprint(res.Lines[n-1].Line))
	}
	h := 0
	for _, l := range res.Lines {
		for h < len(res.Hunks) && res.Hunks[h].End < l.Line {
			h++
		}
		if h < len(res.Hunks) && res.Hunks[h].Start == l.Line {
			hk := res.Hunks[h]
			head := gitops.ShortID(hk.Commit)[:8]
			if hk.Commit == gitops.Uncommitted {
				head = "not committed"
			}
			meta := strings.TrimSpace(hk.Author + " " + dateOf(hk.Time))
			if hk.Commit == gitops.Uncommitted {
				meta = ""
			}
			line := s.dim(head + " " + meta)
			if hk.Intent != "" {
				line += "  " + s.green(hk.Intent)
			}
			s.println(line)
		}
		label := contributorLabel(l.Contributor)
		if len(label) > width {
			label = label[:width]
		}
		s.printf("  %s %*d  %s\n", paintType(s, l.Contributor.Type, fmt.Sprintf("%-*s", width, label)), numWidth, l.Line, l.Text)
	}
	t := res.Totals
	s.println(s.dim(fmt.Sprintf("%d line(s): %d human, %d ai, %d mixed, %d unknown", len(res.Lines), t.Human, t.AI, t.Mixed, t.Unknown)))
}

func paintType(s *styler, typ, text string) string {
	switch typ {
	case attribution.AI:
		return s.cyan(text)
	case attribution.Mixed:
		return s.yellow(text)
	case attribution.Human:
		return s.green(text)
	}
	return s.dim(text)
}

func dateOf(rfc string) string {
	d, _, _ := strings.Cut(rfc, "T")
	return d
}

// attributionLine renders a region's attribution summary in one line.
func attributionLine(a *attribution.Summary) string {
	var parts []string
	for _, p := range []struct {
		n    int
		name string
	}{{a.Human, "human"}, {a.AI, "ai"}, {a.Mixed, "mixed"}, {a.Unknown, "unknown"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.name))
		}
	}
	for _, ag := range a.Agents {
		name := ag.Agent
		if ag.Model != "" {
			name += "/" + ag.Model
		}
		parts = append(parts, fmt.Sprintf("%s %d", name, ag.Lines))
	}
	return strings.Join(parts, ", ")
}

// FlagCmd is `git gloss flag`.
type FlagCmd struct {
	ID         string `arg:"" placeholder:"RECORD-ID" help:"The annotation record to flag (read --json shows ids; a unique prefix will do)."`
	Reason     string `name:"reason" required:"" help:"Why the record no longer holds."`
	AuthorName string `name:"author-name" help:"Who flags it (default: git config user.name)."`
}

// Help is the long help of flag.
func (FlagCmd) Help() string {
	return `Marks an annotation record as no longer to be trusted. Records are never
edited: a flag record is added beside it, and read, gloss_read and the
agent's pre-edit context leave the flagged record out from then on
(read --all shows it, marked flagged, with the reason).

  git gloss flag 01JD3Q8M2V --reason "we moved off the retry queue in #412"`
}

// Run flags.
func (c *FlagCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	res, err := annotate.FlagRecord(g.ctx, repo, c.ID, c.Reason, annotate.Author{Kind: "human", Name: userName(g, repo, c.AuthorName)})
	if err != nil {
		return err
	}
	return g.emit(res, func(s *styler) {
		s.printf("flagged %s on %s (flag record %s)\n", strings.ToUpper(c.ID), gitops.ShortID(res.Commit), strings.Join(res.Written, ""))
	})
}

// CorrectCmd is `git gloss correct`.
type CorrectCmd struct {
	ID         string   `arg:"" placeholder:"RECORD-ID" help:"The annotation record to correct."`
	Intent     string   `name:"intent" short:"i" help:"The corrected intent."`
	Reasoning  string   `name:"reasoning" short:"r" help:"The corrected reasoning."`
	Constraint []string `name:"constraint" sep:"none" short:"c" help:"The corrected constraints (replace the old ones; repeatable)."`
	Risk       []string `name:"risk" sep:"none" help:"The corrected risks (replace the old ones; repeatable)."`
	Expires    string   `name:"expires" placeholder:"DATE" help:"Stop delivering the new record after DATE."`
	AuthorName string   `name:"author-name" help:"Who corrects it (default: git config user.name)."`
}

// Help is the long help of correct.
func (CorrectCmd) Help() string {
	return `Replaces an annotation record with a corrected copy: a new record on the
same commit that supersedes the old one (records are never edited in
place). Fields you do not give keep their old values.

  git gloss correct 01JD3Q8M2V --intent "retries are the caller's job now" \
      --constraint "never retry inside the handler"`
}

// Run corrects.
func (c *CorrectCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	corr := annotate.Correction{Intent: c.Intent, Reasoning: c.Reasoning, Constraints: c.Constraint, Risks: c.Risk, Expires: c.Expires,
		Author: annotate.Author{Kind: "human", Name: userName(g, repo, c.AuthorName)}}
	res, err := annotate.CorrectRecord(g.ctx, repo, c.ID, corr)
	if err != nil {
		return err
	}
	return g.emit(res, func(s *styler) {
		s.printf("wrote %s on %s, superseding %s\n", strings.Join(res.Written, ""), gitops.ShortID(res.Commit), strings.Join(res.Superseded, ", "))
	})
}

// userName is the given name, else git's user.name.
func userName(g *Globals, repo *gitops.Repo, given string) string {
	if given != "" {
		return given
	}
	out, err := repo.Git(g.ctx, "config", "user.name")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// StatsCmd is `git gloss stats`.
type StatsCmd struct {
	Range string   `arg:"" optional:"" placeholder:"RANGE" help:"A..B, or one commit; default the whole history up to HEAD."`
	Paths []string `arg:"" optional:"" placeholder:"PATH" help:"Limit to these files or directories."`
	Since string   `name:"since" placeholder:"DATE" help:"Count the commits since DATE instead of a range (anything git log --since takes)."`
}

// Help is the long help of stats.
func (StatsCmd) Help() string {
	return `Counts the lines a range inserted by who wrote them: contributor type
(human, ai, mixed, unknown), agent and model, commit author, and directory.
Insertions and deletions are git diff --stat's for the same range, and every
inserted line is counted once in each breakdown, so the numbers add up.

  git gloss stats main..feature
  git gloss stats --since "2 weeks ago" src/
  git gloss stats HEAD --json          # one commit; see: git gloss schema stats`
}

// Run counts.
func (c *StatsCmd) Run(g *Globals) error {
	q := attribution.StatsQuery{Range: c.Range, Since: c.Since}
	// With --since, the first positional argument is a path.
	if c.Since != "" && c.Range != "" {
		q.Range = ""
		q.Paths = append(q.Paths, g.path(c.Range))
	}
	for _, p := range c.Paths {
		q.Paths = append(q.Paths, g.path(p))
	}
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	res, err := attribution.Stats(g.ctx, repo, q)
	if err != nil {
		return err
	}
	return g.emit(res, func(s *styler) { printStats(s, res) })
}

func printStats(s *styler, res *attribution.StatsResult) {
	from := "(empty tree)"
	if res.From != "" {
		from = gitops.ShortID(res.From)
	}
	s.printf("%s..%s  %d file(s) changed, %d insertion(s)(+), %d deletion(s)(-)\n\n", from, gitops.ShortID(res.To), res.Files, res.Insertions, res.Deletions)
	total := max(res.Insertions, 1)
	bar := func(n int) string {
		w := n * 30 / total
		return strings.Repeat("█", w) + strings.Repeat("·", 30-w)
	}
	t := res.Totals
	for _, row := range []struct {
		name string
		n    int
	}{{"human", t.Human}, {"ai", t.AI}, {"mixed", t.Mixed}, {"unknown", t.Unknown}} {
		s.printf("  %-8s %s %6d  %5.1f%%\n", paintType(s, row.name, row.name), bar(row.n), row.n, 100*float64(row.n)/float64(total))
	}
	if len(res.Agents) > 0 {
		s.println("\nby agent and model")
		for _, a := range res.Agents {
			name := a.Agent
			if a.Model != "" {
				name += " / " + a.Model
			}
			s.printf("  %-40s %6d\n", name, a.Lines)
		}
	}
	if len(res.Authors) > 0 {
		s.println("\nby author")
		for _, a := range res.Authors {
			s.printf("  %-30s %6d  %s\n", a.Author, a.Lines, s.dim(fmt.Sprintf("human %d · ai %d · mixed %d · unknown %d", a.Human, a.AI, a.Mixed, a.Unknown)))
		}
	}
	if len(res.Directories) > 0 {
		s.println("\nby directory")
		for _, d := range res.Directories {
			s.printf("  %-30s +%-6d -%-6d %s\n", d.Dir, d.Insertions, d.Deletions, s.dim(fmt.Sprintf("human %d · ai %d · mixed %d · unknown %d", d.Human, d.AI, d.Mixed, d.Unknown)))
		}
	}
}
