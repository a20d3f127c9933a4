package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/entire"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/safepath"
)

// ExportCmd is `git gloss export`.
type ExportCmd struct {
	Ref    []string `name:"ref" sep:"none" placeholder:"REF" help:"A gloss notes ref to export (repeatable; annotations is refs/notes/gloss/annotations). Default: every refs/notes/gloss/* ref."`
	Output string   `name:"output" short:"o" placeholder:"FILE" help:"Write to FILE instead of standard output."`
	Format string   `name:"format" enum:"gloss,agent-trace" default:"gloss" help:"gloss (every gloss record, for git gloss import) or agent-trace (line attribution as Agent Trace 0.1.0 records)."`
	Range  string   `arg:"" optional:"" placeholder:"RANGE" help:"With --format agent-trace: the commits to export (A..B, or a revision and its history); default the current branch (HEAD and its history)."`
}

// Help is the long help of export.
func (ExportCmd) Help() string {
	return `Writes gloss's notes records as JSON Lines, one record a line with its ref
and the commit it is attached to. The output is sorted, so two exports of
the same notes are the same bytes; git gloss import reads it back.

  git gloss export -o gloss-notes.jsonl
  git gloss export --ref annotations | gzip > annotations.jsonl.gz

--format agent-trace writes the line attribution instead, as Agent Trace
0.1.0 records of the commits reachable from RANGE (default HEAD: the
current branch; commits an amend or a rebase rewrote away are left out,
and the count of those says so). Per commit: the records imported from
other tools, byte for byte as they came (their tool, conversation URLs,
related resources, content hashes and metadata), then one record of
gloss's own attribution (vcs.revision the commit, each file's ranges
grouped by contributor: human, ai, mixed or unknown, with the model in
model_id; gloss's records ride along under metadata["dev.gloss"], so git
gloss import agent-trace gives back exactly what was exported):

  git gloss export --format agent-trace main~20..main > trace.jsonl`
}

// Run exports.
func (c *ExportCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	refs := make([]string, 0, len(c.Ref))
	for _, r := range c.Ref {
		if !strings.HasPrefix(r, "refs/") {
			r = notes.RefPrefix + r
		}
		if !strings.HasPrefix(r, notes.RefPrefix) {
			return fault.Usagef("--ref %s: only gloss notes refs (%s*) are exported", r, notes.RefPrefix)
		}
		refs = append(refs, r)
	}
	if c.Format == "agent-trace" {
		return c.runTrace(g, repo)
	}
	if c.Range != "" {
		return fault.Usagef("a range is for --format agent-trace; the gloss format exports whole refs")
	}
	if len(refs) == 0 {
		if refs, err = notes.ExportRefs(repo); err != nil {
			return err
		}
	}
	var w io.Writer = g.rawStdout
	var f *os.File
	if c.Output != "" {
		if f, err = os.Create(g.path(c.Output)); err != nil {
			return fault.Usagef("--output: %v", err)
		}
		w = f
	}
	res, err := notes.Export(repo, refs, w)
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return err
	}
	if c.Output == "" {
		// The records are the output; say what was written on stderr.
		fmt.Fprintf(g.stderr, "exported %d record(s) on %d object(s) from %s\n", res.Records, res.Objects, strings.Join(res.Refs, ", "))
		return nil
	}
	return g.emit(res, func(s *styler) {
		s.printf("exported %d record(s) on %d object(s) to %s\n", res.Records, res.Objects, c.Output)
	})
}

// runTrace exports line attribution as Agent Trace records.
func (c *ExportCmd) runTrace(g *Globals, repo *gitops.Repo) error {
	var w io.Writer = g.rawStdout
	var f *os.File
	var err error
	if c.Output != "" {
		if f, err = os.Create(g.path(c.Output)); err != nil {
			return fault.Usagef("--output: %v", err)
		}
		w = f
	}
	res, err := attribution.ExportTrace(g.ctx, repo, c.Range, w)
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return err
	}
	say := fmt.Sprintf("exported %d Agent Trace record(s) of %d commit(s) reachable from %s", res.Records, res.Commits, res.Range)
	if res.Unreachable > 0 {
		say += fmt.Sprintf("; %d attributed commit(s) it does not reach (rewritten away by an amend or a rebase, or on another branch) left out", res.Unreachable)
	}
	if c.Output != "" && !g.JSON {
		fmt.Fprintf(g.stdout, "%s, to %s\n", say, c.Output)
	} else if c.Output == "" {
		fmt.Fprintln(g.stderr, say)
	}
	return nil
}

// ImportCmd is `git gloss import`.
type ImportCmd struct {
	Records    ImportRecordsCmd    `cmd:"" default:"withargs" help:"Read records that git gloss export wrote (the default)."`
	Chronicle  ImportChronicleCmd  `cmd:"" help:"Read Chronicle's (Ultragit's) annotations into gloss records."`
	AgentTrace ImportAgentTraceCmd `cmd:"" name:"agent-trace" help:"Read Agent Trace records (files or a notes ref) into line attribution."`
	GitAI      ImportGitAICmd      `cmd:"" name:"git-ai" help:"Read git-ai's authorship logs (refs/notes/ai) into line attribution."`
	Entire     ImportEntireCmd     `cmd:"" help:"Read Entire's checkpoints (entire/checkpoints/v1) into session records and line attribution."`
}

// ImportAgentTraceCmd is `git gloss import agent-trace`.
type ImportAgentTraceCmd struct {
	Files []string `arg:"" optional:"" placeholder:"FILE" help:"Files of Agent Trace records (JSON Lines, a JSON object or an array); - reads standard input."`
	Ref   string   `name:"ref" placeholder:"REF" help:"A notes ref holding trace records per commit, e.g. refs/notes/agent-trace."`
}

// Help is the long help of import agent-trace.
func (ImportAgentTraceCmd) Help() string {
	return `Reads Agent Trace 0.1.0 records into gloss's line attribution
(refs/notes/gloss/attribution) on the commits they name (vcs.revision, or
the commit a note is attached to). What git gloss export --format
agent-trace wrote comes back exactly; other tools' records are converted:
each range's contributor type and model, the agent guessed from the model or
the tool, the conversation URL kept as the session. Running it again writes
nothing new.

  git gloss import agent-trace trace.jsonl
  git fetch origin refs/notes/agent-trace:refs/notes/agent-trace
  git gloss import agent-trace --ref refs/notes/agent-trace`
}

// Run imports Agent Trace records.
func (c *ImportAgentTraceCmd) Run(g *Globals) error {
	if len(c.Files) == 0 && c.Ref == "" {
		return fault.Usagef("give files of trace records, - for standard input, or --ref REF")
	}
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	opts := attribution.ImportOptions{Ref: c.Ref}
	for _, p := range c.Files {
		in, closeIn, err := g.inputFile(repo, p)
		if err != nil {
			return err
		}
		defer closeIn()
		opts.Inputs = append(opts.Inputs, in)
	}
	res, err := attribution.ImportTrace(g.ctx, repo, opts)
	if err != nil {
		return err
	}
	return g.emitImport(res)
}

// ImportGitAICmd is `git gloss import git-ai`.
type ImportGitAICmd struct {
	Ref string `name:"ref" placeholder:"REF" help:"git-ai's notes ref (default refs/notes/ai)."`
}

// Help is the long help of import git-ai.
func (ImportGitAICmd) Help() string {
	return `Reads git-ai's authorship logs (the Git AI Standard, authorship/3.x) from
refs/notes/ai into gloss's line attribution: lines attested to an AI session
become ai with its tool, model and conversation id; lines attested to a
known human become human; lines git-ai did not track stay unknown.

  git fetch origin refs/notes/ai:refs/notes/ai
  git gloss import git-ai`
}

// Run imports git-ai's notes.
func (c *ImportGitAICmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	res, err := attribution.ImportGitAI(g.ctx, repo, c.Ref)
	if err != nil {
		return err
	}
	return g.emitImport(res)
}

// ImportEntireCmd is `git gloss import entire`.
type ImportEntireCmd struct {
	Ref    string `name:"ref" placeholder:"REF" help:"Entire's checkpoints branch (default entire/checkpoints/v1, else origin's copy)."`
	DryRun bool   `name:"dry-run" short:"n" help:"Count what would be imported; write nothing."`
}

// Help is the long help of import entire.
func (ImportEntireCmd) Help() string {
	return `Reads the committed checkpoints Entire (entireio/cli) keeps on its
entire/checkpoints/v1 branch and attaches them to the commits whose
message carries their "Entire-Checkpoint: <id>" trailer:

  - each session of a checkpoint becomes a session record on that commit
    (refs/notes/gloss/sessions): session id, agent, model (from the
    transcript), the files it touched and its last prompt, redacted with
    gloss's rules as a captured prompt is. The transcript is not kept.
  - the lines the commit introduced get line attribution as far as
    Entire's counts tell: Entire counted lines per commit (agent, human)
    and listed the files its agent touched, never which line is whose. So
    lines in files the agent did not touch are human; lines in files it
    touched are ai when Entire counted no human line, or when the counts
    match the files exactly (auto-commit checkpoints: always), else
    mixed. Checkpoints without counts (older Entire) or naming no touched
    file name no line.

A checkpoint no commit names (its trailer was removed) has nothing to
attach to: it is counted, not imported. Uncommitted work on Entire's
shadow branches (entire/<commit>-<worktree>) is not read. Malformed
metadata is skipped with a warning. Running it again writes nothing new;
--dry-run counts only. What cannot be recovered: docs/migrating.md.

  git fetch origin entire/checkpoints/v1:entire/checkpoints/v1
  git gloss import entire --dry-run
  git gloss import entire
  git gloss blame src/main.go`
}

// Run imports Entire's checkpoints.
func (c *ImportEntireCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	res, err := entire.Import(g.ctx, repo, entire.Options{Ref: c.Ref, DryRun: c.DryRun, Progress: g.progress})
	g.progressDone()
	if err != nil {
		return err
	}
	return g.emit(res, func(s *styler) {
		verb := "imported"
		if res.DryRun {
			verb = "would import"
		}
		s.printf("%s: %d checkpoint(s), %d named by no commit here\n", res.Branch, res.Checkpoints, res.Unlinked)
		s.printf("%s %d session record(s) and %d attribution record(s) (%d ai, %d mixed, %d human line(s))\n", verb,
			res.Sessions.Written, res.Attribution.Written, res.Lines["ai"], res.Lines["mixed"], res.Lines["human"])
		for _, skip := range []struct {
			n   int
			why string
		}{
			{res.Sessions.Present + res.Attribution.Present, "already present"},
			{res.Sessions.Missing + res.Attribution.Missing, "on commits this repository lacks"},
			{res.Sessions.Forgotten + res.Attribution.Forgotten, "forgotten (git gloss forget)"},
			{res.Attribution.Outranked, "attribution records that would change no line: the commit's own records name those lines on firmer ground"},
		} {
			if skip.n > 0 {
				s.printf("  skipped %d: %s\n", skip.n, skip.why)
			}
		}
		for _, w := range res.Warnings {
			s.printf("warning: %s\n", w)
		}
	})
}

// ImportRecordsCmd is `git gloss import [FILE]`.
type ImportRecordsCmd struct {
	File string `arg:"" optional:"" placeholder:"FILE" help:"The export to read; - or nothing reads standard input."`
}

// Run imports.
func (c *ImportRecordsCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	in, closeIn, err := g.inputFile(repo, c.File)
	if err != nil {
		return err
	}
	defer closeIn()
	res, err := notes.Import(g.ctx, repo, in)
	if err != nil {
		return err
	}
	if res.SessionPrompts, err = forgetPrompts(repo); err != nil {
		return err
	}
	return g.emitImport(res)
}

// ImportChronicleCmd is `git gloss import chronicle`.
type ImportChronicleCmd struct {
	Ref  string `name:"ref" placeholder:"REF" help:"Chronicle's notes ref (default refs/notes/chronicle)."`
	File string `name:"file" placeholder:"FILE" help:"Read a 'git chronicle export' file instead of the notes ref."`
}

// Help is the long help of import chronicle.
func (ImportChronicleCmd) Help() string {
	return `Reads Chronicle's annotations (schemas chronicle/v1, v2 and v3, and
Ultragit's v1) from refs/notes/chronicle, or from a 'git chronicle export'
file, and writes them as gloss records on the same commits: a summary per
note and a region per file-level entry, keeping the author, Chronicle's
provenance (origin) and source "import". Wisdom maps as: dead_end ->
rejected alternative, gotcha -> risk, insight -> reasoning,
unfinished_thread -> risk ("unfinished: ..."); each region is tagged
chronicle:<category>. Running it again writes only what changed.

  git fetch origin refs/notes/chronicle:refs/notes/chronicle
  git gloss import chronicle`
}

// Run imports from Chronicle.
func (c *ImportChronicleCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	opts := annotate.ChronicleOptions{Ref: c.Ref}
	if c.File != "" {
		in, closeIn, err := g.inputFile(repo, c.File)
		if err != nil {
			return err
		}
		defer closeIn()
		opts.Export = in
	}
	res, err := annotate.ImportChronicle(g.ctx, repo, opts)
	if err != nil {
		return err
	}
	return g.emitImport(res)
}

// inputFile opens a file argument, or standard input for "" and "-". A
// file goes through safepath.OpenInput: inside the working tree, the one
// resolver decides.
func (g *Globals) inputFile(repo *gitops.Repo, p string) (io.Reader, func(), error) {
	if p == "" || p == "-" {
		return g.stdin, func() {}, nil
	}
	f, err := safepath.OpenInput(repo, g.path(p))
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

func (g *Globals) emitImport(res *notes.ImportResult) error {
	return g.emit(res, func(s *styler) {
		s.printf("imported %d record(s)\n", res.Written)
		// Every record read is written or skipped for a reason said here.
		for _, skip := range []struct {
			n   int
			why string
		}{
			{res.Present, "already present"},
			{res.Missing, "on commits this repository lacks"},
			{res.Forgotten, "forgotten (git gloss forget), or copies of a forgotten record"},
			{res.Outranked, "attribution records that would change no line: the commit's own records name those lines on firmer ground (the agent's captured edit)"},
			{res.Invalid, "not records or not gloss's (see the warnings)"},
		} {
			if skip.n > 0 {
				s.printf("  skipped %d: %s\n", skip.n, skip.why)
			}
		}
		for _, w := range res.Warnings {
			s.printf("warning: %s\n", w)
		}
	})
}
