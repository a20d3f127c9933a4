package cli

import (
	"io"
	"strings"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/schemas"
)

// AnnotateCmd is `git gloss annotate`.
type AnnotateCmd struct {
	Commit     string   `name:"commit" placeholder:"REV" help:"Write on this commit now instead of staging for the next commit."`
	File       string   `name:"file" short:"f" placeholder:"PATH" help:"The file the context is about (omit for the whole commit); without --anchor or --lines, a decision about the whole file."`
	Path       string   `name:"path" placeholder:"DIR" help:"A directory (or file) the context is about: a decision in force for every file under it."`
	Anchor     string   `name:"anchor" short:"a" placeholder:"NAME" help:"The function, method or type in that file."`
	Lines      string   `name:"lines" short:"L" placeholder:"A:B" help:"Line range in that file, when there is no anchor."`
	Intent     string   `name:"intent" short:"i" help:"Why the code is the way it is."`
	Reasoning  string   `name:"reasoning" short:"r" help:"How it works, or why this way."`
	Constraint []string `name:"constraint" sep:"none" short:"c" help:"Something the code must keep doing (repeatable)."`
	Rejected   []string `name:"rejected" sep:"none" placeholder:"ALT|REASON" help:"An alternative not taken, and why (repeatable)."`
	Dep        []string `name:"dep" sep:"none" placeholder:"PATH[#ANCHOR][|NATURE]" help:"Code this relies on (repeatable)."`
	Risk       []string `name:"risk" sep:"none" help:"What could go wrong (repeatable)."`
	Tag        []string `name:"tag" sep:"none" help:"A tag (repeatable)."`
	Supersedes []string `name:"supersedes" sep:"none" placeholder:"ID" help:"A record id this replaces, on any commit (repeatable): the old record is retired."`
	AuthorKind string   `name:"author-kind" enum:"agent,human,tool," default:"" placeholder:"KIND" help:"Who is speaking: agent, human or tool (default human; agent with --model, or when the agent task work launched, Claude Code or Gemini CLI runs the command)."`
	AuthorName string   `name:"author-name" help:"Name of the author."`
	Model      string   `name:"model" help:"Model of an agent author."`
	Stdin      bool     `name:"stdin" help:"Read contexts as JSON (an object, an array, or JSON Lines) from standard input."`
	Pending    bool     `name:"pending" help:"Show the contexts staged for the next commit and exit."`
	Expires    string   `name:"expires" placeholder:"DATE" help:"Stop delivering the record after DATE (2026-12-31 or RFC 3339)."`
}

// Help is the long help of annotate.
func (AnnotateCmd) Help() string {
	return `Records why code is the way it is.

Before committing, an agent (or a person) stages context; the post-commit
hook folds it into the new commit's annotation records:

  git gloss annotate --file server/server.go --anchor Server.Handle \
      --intent "answer health checks without touching the database" \
      --constraint "must answer in under 10 ms" \
      --rejected "reuse /status | it queries the database"

What a record covers is what it names: an anchor (a function, method or
type) wherever that code is today, through later edits, moves and renames;
a whole file (--file alone) or directory (--path); or, with --lines, those
lines. A decision (constraint, rejected alternative, risk) stays in force
until it is retired: superseded, flagged, corrected, expired, or its
function deleted.

  git gloss annotate --path server/api --constraint "handlers never block on the database"

With --commit, records are written on an existing commit at once, and
--supersedes replaces earlier records, on any commit (records are never
edited in place):

  git gloss annotate --commit HEAD~2 --file lib.rs --anchor Client::connect \
      --intent "retry with backoff" --supersedes 01J...

With --stdin, contexts come as JSON (one object, an array, or JSON Lines)
with these fields: ` + strings.Join(annotate.ContextFields, ", ") + `
('git gloss schema annotate-context' has their types):

  echo '{"file":"lib.rs","anchor":"Client::connect","constraints":["dial once"]}' \
      | git gloss annotate --stdin

A decision that only holds for a while takes --expires DATE; after it, read
leaves the record out (read --all shows it, marked). git gloss flag and
git gloss correct retire or replace a record.

The hook also reads these trailers from commit messages: ` + annotate.TrailerKeys + `.`
}

// Run stages or writes.
func (c *AnnotateCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	if c.Pending {
		staged, err := annotate.Pending(repo)
		if err != nil {
			return err
		}
		out := pendingOutput{"gloss-pending/v1", staged}
		if out.Pending == nil {
			out.Pending = []annotate.Context{}
		}
		return g.emit(out, func(s *styler) {
			s.printf("%d context(s) staged for the next commit\n", len(staged))
			for _, st := range staged {
				target := st.File
				if st.Anchor != "" {
					target += "#" + st.Anchor
				}
				if target == "" {
					target = "(whole commit)"
				}
				s.printf("  %s %s\n", s.bold(target), st.Intent)
			}
		})
	}
	ctxs, err := c.contexts(g)
	if err != nil {
		return err
	}
	var res *annotate.Result
	if c.Commit != "" {
		res, err = annotate.AddToCommit(g.ctx, repo, c.Commit, ctxs)
	} else {
		res, err = annotate.StageResult(repo, ctxs)
	}
	if err != nil {
		return err
	}
	return g.emit(res, func(s *styler) {
		if res.Commit != "" {
			s.printf("wrote %d record(s) on %s\n", len(res.Written), gitops.ShortID(res.Commit))
			if len(res.Superseded) > 0 {
				s.printf("superseding %s\n", strings.Join(res.Superseded, ", "))
			}
			return
		}
		s.printf("staged; %d context(s) wait for the next commit in this worktree\n", res.Staged)
	})
}

// contexts builds the contexts from flags or standard input.
func (c *AnnotateCmd) contexts(g *Globals) ([]annotate.Context, error) {
	author := annotate.Author{Kind: c.AuthorKind, Name: c.AuthorName, Model: c.Model}
	switch {
	case author.Kind == "" && author.Model != "":
		author.Kind = "agent" // only an agent has a model
	case author.Kind == "":
		def := annotate.CommandAuthor()
		author.Kind = def.Kind
		if author.Name == "" {
			author.Name, author.Model = def.Name, def.Model
		}
	}
	if c.Stdin {
		data, err := io.ReadAll(io.LimitReader(g.stdin, 16<<20))
		if err != nil {
			return nil, err
		}
		ctxs, err := annotate.ParseContexts(data, author)
		if err != nil {
			return nil, fault.Usagef("%v", err)
		}
		if len(ctxs) == 0 {
			return nil, fault.Usagef("no context on standard input")
		}
		return ctxs, nil
	}
	file := c.File
	switch {
	case c.Path != "" && c.File != "":
		return nil, fault.Usagef("give --file or --path, not both")
	case c.Path != "" && (c.Anchor != "" || c.Lines != ""):
		return nil, fault.Usagef("--path names a whole directory or file: use --file with --anchor or --lines")
	case c.Path != "":
		file = c.Path
	}
	ctx := annotate.Context{File: file, Anchor: c.Anchor, Intent: c.Intent, Reasoning: c.Reasoning,
		Constraints: c.Constraint, Risks: c.Risk, Tags: c.Tag, Supersedes: c.Supersedes, Author: &author, Expires: c.Expires}
	lines, err := linesFlag(c.Lines)
	if err != nil {
		return nil, err
	}
	ctx.Lines = lines
	for _, r := range c.Rejected {
		alt, reason, _ := strings.Cut(r, "|")
		ctx.RejectedAlternatives = append(ctx.RejectedAlternatives, annotate.Rejected{Text: strings.TrimSpace(alt), Reason: strings.TrimSpace(reason)})
	}
	for _, d := range c.Dep {
		ctx.Deps = append(ctx.Deps, annotate.ParseDep(d))
	}
	if err := ctx.Validate(); err != nil {
		return nil, err
	}
	return []annotate.Context{ctx}, nil
}

// pendingOutput is `git gloss annotate --pending --json`.
type pendingOutput struct {
	Schema  string             `json:"$schema"`
	Pending []annotate.Context `json:"pending"`
}

func init() {
	schemas.Register(schemas.Entry{Name: "pending", Tag: "gloss-pending/v1",
		Description: "The contexts staged for the next commit (git gloss annotate --pending).", Type: schemas.TypeOf[pendingOutput]()})
}
