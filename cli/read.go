package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/why"
)

// ReadCmd is `git gloss read`.
type ReadCmd struct {
	Path      string `arg:"" help:"File to read (relative to the current directory, like git)."`
	Anchor    string `name:"anchor" short:"a" placeholder:"NAME" help:"Function, method or type, e.g. Server.Handle or Client::connect."`
	Lines     string `name:"lines" short:"L" placeholder:"A:B" help:"Line range in today's file."`
	MaxTokens int    `name:"max-tokens" placeholder:"N" help:"Keep the answer under about N tokens (lowest-scored regions go first)."`
	Rev       string `name:"rev" placeholder:"REV" help:"Read the file as of REV instead of the working tree."`
	All       bool   `name:"all" help:"Also show superseded, flagged and expired records, marked."`
	Contents  string `name:"contents" placeholder:"FILE" help:"Read FILE (- for standard input) as the file's content instead of the working tree's, as git blame --contents does: an editor's unsaved buffer."`
}

// Help is the long help of read.
func (ReadCmd) Help() string {
	return `Answers "why is this code the way it is?" from the annotations recorded when
it was written: intent, reasoning, constraints, rejected alternatives,
dependencies and risks.

gloss finds the lines (an anchor is resolved with tree-sitter in today's
file), blames them, reads the notes of the blamed commits in one pass, and
keeps the records whose lines at that commit are today's lines (following
renames) or whose anchor matches. Each region is scored by overlap, anchor
match, recency and how much changed since ("stale").

  git gloss read server/server.go --anchor Server.Handle
  git gloss read src/lib.rs --anchor MqttClient::connect --max-tokens 800
  git gloss read main.py --lines 40:80 --json
  editor-buffer | git gloss read main.py --lines 52:52 --contents -`
}

// Run reads.
func (c *ReadCmd) Run(g *Globals) error {
	q := why.Query{Path: g.path(c.Path), Anchor: c.Anchor, MaxTokens: c.MaxTokens, Rev: c.Rev, All: c.All}
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
	if c.Contents != "" {
		if q.Content, err = g.readContents(repo, c.Contents); err != nil {
			return err
		}
	}
	res, err := why.Read(g.ctx, repo, q)
	if err != nil {
		return err
	}
	return g.emit(res, func(s *styler) { printRead(s, res) })
}

// maxContents bounds a --contents buffer: the largest file a read takes.
const maxContents = 64 << 20

// readContents reads a --contents argument: a file, or standard input for
// "-".
func (g *Globals) readContents(repo *gitops.Repo, p string) ([]byte, error) {
	in, done, err := g.inputFile(repo, p)
	if err != nil {
		return nil, err
	}
	defer done()
	data, err := io.ReadAll(io.LimitReader(in, maxContents+1))
	if err != nil {
		return nil, fmt.Errorf("read --contents %s: %w", p, err)
	}
	if len(data) > maxContents {
		return nil, fault.Usagef("--contents %s: larger than %d MiB", p, maxContents>>20)
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}

func printRead(s *styler, res *why.ReadResult) {
	target := res.Query.Path
	for _, a := range res.Resolved.Anchors {
		target += " " + s.bold(a.Name)
	}
	s.printf("%s  %s\n", target, s.dim(fmt.Sprintf("lines %d-%d", res.Resolved.Lines.Start, res.Resolved.Lines.End)))
	for _, n := range res.Notes {
		s.println(s.yellow("note: ") + n)
	}
	for _, r := range res.Regions {
		s.println()
		printRegion(s, r)
	}
	printSkipped(s, res.Skipped)
	s.printf("\n%s\n", s.dim(readCounts(res.Stats)))
	if len(res.Regions) > 0 {
		s.println(s.dim(readLegend))
	}
}

// readLegend explains, in one line, the two notations of a region header
// and its score.
const readLegend = "legend: a function's record is in force wherever the function is (\"lines A-B now, recorded at C\"); " +
	"a record of lines: \"lines A-B at C, now D-E\" = where they were in commit C, and where those lines are today · " +
	"score = relevance to your query, 0-1 (overlap, anchor match, recency, less what changed since)"

// readCounts says what each number of a read counts: the regions shown,
// the commits blame names for the lines, and the commits whose notes held
// annotations among those read (the blamed ones, plus the file's recent
// commits when an anchor was asked for).
func readCounts(st why.ReadStats) string {
	return fmt.Sprintf("%d region(s) shown · lines last changed by %d commit(s) · %d annotated commit(s) read",
		st.RegionsReturned, st.BlamedCommits, st.AnnotatedCommits)
}

// printSkipped says, when there were any, how many note lines a command
// could not use.
func printSkipped(s *styler, n int) {
	if n > 0 {
		s.println(s.yellow("note: ") + fmt.Sprintf("skipped %d note line(s) that are not valid JSON or not a known annotation record", n))
	}
}

func printRegion(s *styler, r why.RegionView) {
	name := "lines"
	if r.Anchor != nil {
		name = r.Anchor.Name
	}
	var where string
	switch {
	case r.Span != nil && r.Anchor != nil:
		// A decision about the function, wherever it is: where it is now,
		// then the commit it was recorded at.
		name += " " + r.Anchor.Kind
		if r.Renamed != "" {
			name = r.Renamed + " " + r.Anchor.Kind + " (was " + r.Anchor.Name + ")"
		}
		where = fmt.Sprintf("lines %d-%d now, recorded at %s", r.Span.Start, r.Span.End, gitops.ShortID(r.Commit))
	case r.Scope == annotate.ScopeFile:
		name = "the whole file"
		where = "recorded at " + gitops.ShortID(r.Commit)
	case r.Scope == annotate.ScopeDir:
		name = "everything under " + r.File + "/"
		where = "recorded at " + gitops.ShortID(r.Commit)
	default:
		where = fmt.Sprintf("lines %d-%d at %s", r.Lines.Start, r.Lines.End, gitops.ShortID(r.Commit))
		if r.Current != nil {
			where += fmt.Sprintf(", now %d-%d", r.Current.Start, r.Current.End)
		}
	}
	stale := ""
	if r.Stale {
		stale = s.yellow(fmt.Sprintf("  stale: %d later commit(s)", r.LaterCommits))
		if r.Decides() {
			stale = s.yellow(fmt.Sprintf("  changed by %d later commit(s); its decisions stay in force", r.LaterCommits))
		}
	}
	if r.Status != nil {
		stale += s.red("  " + r.Status.State)
		if len(r.Status.Reason) > 0 {
			stale += s.red(": " + strings.Join(r.Status.Reason, "; "))
		}
	}
	if r.Trust != "" {
		stale += s.cyan("  " + r.Trust)
	}
	s.printf("%s %s  %s%s\n", s.bold(name), s.dim("("+r.File+")"), s.dim(where), stale)
	s.printf("  %-12s %s\n", "id", s.dim(r.ID))
	if a := r.Attribution; a != nil {
		s.printf("  %-12s %s\n", "written by", attributionLine(a))
	}
	field := func(label, v string) {
		if v != "" {
			s.printf("  %-12s %s\n", label, v)
		}
	}
	list := func(label string, items []string) {
		for i, it := range items {
			if i == 0 {
				s.printf("  %-12s • %s\n", label, it)
			} else {
				s.printf("  %-12s • %s\n", "", it)
			}
		}
	}
	intent := s.green(r.Intent)
	if r.IntentFrom == "commit" && r.Intent != "" {
		intent += s.dim(" (the commit's)")
	}
	field("intent", intent)
	var cs []string
	for _, c := range r.Constraints {
		cs = append(cs, s.red(c.Text)+s.dim(" ("+c.Source+")"))
	}
	list("constraints", cs)
	var rej []string
	for _, x := range r.RejectedAlternatives {
		if x.Reason != "" {
			rej = append(rej, x.Text+s.dim(" — "+x.Reason))
		} else {
			rej = append(rej, x.Text)
		}
	}
	list("rejected", rej)
	var deps []string
	for _, d := range r.Deps {
		t := d.File
		if d.Anchor != "" {
			t += "#" + d.Anchor
		}
		if d.Nature != "" {
			t += s.dim(" (" + d.Nature + ")")
		}
		deps = append(deps, t)
	}
	list("depends on", deps)
	list("risks", r.Risks)
	field("reasoning", r.Reasoning)
	if len(r.Tags) > 0 {
		field("tags", strings.Join(r.Tags, ", "))
	}
	who := r.Author.Name
	if who == "" {
		who = r.Author.Kind
	} else {
		who += " (" + r.Author.Kind + ")"
	}
	if r.Author.Model != "" {
		who += " " + r.Author.Model
	}
	when := r.Time
	if len(when) >= 10 {
		when = when[:10]
	}
	s.printf("  %s\n", s.dim(fmt.Sprintf("by %s · %s · via %s · score %.2f", who, when, r.Source, r.Score)))
}

// DepsCmd is `git gloss deps`.
type DepsCmd struct {
	Path   string `arg:"" help:"File others may depend on."`
	Anchor string `name:"anchor" short:"a" placeholder:"NAME" help:"Narrow to one function, method or type."`
}

// Help is the long help of deps.
func (DepsCmd) Help() string {
	return `Lists the annotated regions that declared a dependency on this file (or
anchor) — with a Depends-On: trailer, or through git gloss annotate --dep —
so that you know what else to check before changing it.`
}

// Run lists dependents.
func (c *DepsCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	res, err := why.Deps(g.ctx, repo, why.DepsQuery{Path: g.path(c.Path), Anchor: c.Anchor})
	if err != nil {
		return err
	}
	return g.emit(res, func(s *styler) {
		printSkipped(s, res.Skipped)
		if len(res.Dependents) == 0 {
			s.println("nothing declared a dependency on " + res.Query.Path)
			return
		}
		for _, d := range res.Dependents {
			name := fmt.Sprintf("lines %d-%d", d.Lines.Start, d.Lines.End)
			if d.Anchor != nil {
				name = d.Anchor.Name
			}
			on := d.On.File
			if d.On.Anchor != "" {
				on += "#" + d.On.Anchor
			}
			s.printf("%s %s  %s %s\n", s.bold(d.File), name, s.dim("→ "+on), s.dim(d.On.Nature))
			s.printf("  %s\n", d.Intent)
		}
	})
}

// HistoryCmd is `git gloss history`.
type HistoryCmd struct {
	Path   string `arg:"" help:"File whose annotated history to show."`
	Anchor string `name:"anchor" short:"a" placeholder:"NAME" help:"Narrow to one function, method or type."`
	Limit  int    `name:"limit" short:"n" default:"10" help:"Most recent entries to show."`
}

// Help is the long help of history.
func (HistoryCmd) Help() string {
	return `Shows the annotated changes of a file (or one anchor in it), oldest first:
who changed it, when, and why.`
}

// Run prints the timeline.
func (c *HistoryCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	res, err := why.History(g.ctx, repo, why.HistoryQuery{Path: g.path(c.Path), Anchor: c.Anchor, Limit: c.Limit})
	if err != nil {
		return err
	}
	return g.emit(res, func(s *styler) {
		printSkipped(s, res.Skipped)
		if len(res.Events) == 0 {
			s.println("no annotated changes of " + res.Query.Path)
			return
		}
		for _, e := range res.Events {
			name := fmt.Sprintf("lines %d-%d", e.Lines.Start, e.Lines.End)
			if e.Anchor != nil {
				name = e.Anchor.Name
			}
			s.printf("%s %s  %s  %s\n", s.dim(e.Time[:10]), s.dim(gitops.ShortID(e.Commit)), s.bold(name), recordAuthor(e))
			s.printf("    %s\n", e.Intent)
			for _, ct := range e.Constraints {
				s.printf("    %s %s\n", s.red("must:"), ct.Text)
			}
		}
	})
}

// recordAuthor names who wrote a history event's record: an agent and its
// model where the record says so, else the commit's author.
func recordAuthor(e why.Event) string {
	if e.By == nil || e.By.Kind == "human" && e.By.Name == "" {
		return e.Author
	}
	who := e.By.Name
	if who == "" {
		who = e.By.Kind
	}
	if e.By.Kind == "agent" && e.By.Name != "" {
		who += " (agent)"
	}
	if e.By.Model != "" {
		who += " " + e.By.Model
	}
	if e.By.Kind == "agent" && e.Author != "" {
		who += ", committed by " + e.Author
	}
	return who
}

// SummaryCmd is `git gloss summary`.
type SummaryCmd struct {
	Path   string `arg:"" help:"File or directory (. for the whole repository)."`
	Anchor string `name:"anchor" short:"a" placeholder:"NAME" help:"Only this function, method or type."`
}

// Help is the long help of summary.
func (SummaryCmd) Help() string {
	return `Condenses what the annotations say about a file or a directory: for each
function, method or type that still exists, the latest intent and every
constraint recorded for it.`
}

// Run prints the summary.
func (c *SummaryCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	res, err := why.Summary(g.ctx, repo, why.SummaryQuery{Path: g.path(c.Path), Anchor: c.Anchor})
	if err != nil {
		return err
	}
	return g.emit(res, func(s *styler) {
		printSkipped(s, res.Skipped)
		if len(res.Files) == 0 {
			s.println("no annotations under " + res.Query.Path)
			return
		}
		for _, f := range res.Files {
			s.println(s.bold(f.File))
			for _, a := range f.Anchors {
				s.printf("  %-28s %s\n", a.Anchor, a.Intent)
				for _, ct := range a.Constraints {
					s.printf("  %-28s %s %s\n", "", s.red("must:"), ct.Text)
				}
			}
		}
	})
}

// linesFlag reads an optional --lines value (START:END): nil when it is
// not given.
func linesFlag(v string) (*annotate.Lines, error) {
	if v == "" {
		return nil, nil
	}
	l, err := annotate.ParseLines(v)
	if err != nil {
		return nil, err
	}
	return &l, nil
}
