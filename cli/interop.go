package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/safepath"
)

// ExportCmd is `git gloss export`.
type ExportCmd struct {
	Ref    []string `name:"ref" sep:"none" placeholder:"REF" help:"A gloss notes ref to export (repeatable; annotations is refs/notes/gloss/annotations). Default: every refs/notes/gloss/* ref."`
	Output string   `name:"output" short:"o" placeholder:"FILE" help:"Write to FILE instead of standard output."`
}

// Help is the long help of export.
func (ExportCmd) Help() string {
	return `Writes gloss's notes records as JSON Lines, one record a line with its ref
and the commit it is attached to. The output is sorted, so two exports of
the same notes are the same bytes; git gloss import reads it back.

  git gloss export -o gloss-notes.jsonl
  git gloss export --ref annotations | gzip > annotations.jsonl.gz`
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
	if len(refs) == 0 {
		if refs, err = notes.ExportRefs(repo); err != nil {
			return err
		}
	}
	var w io.Writer = g.stdout
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

// ImportCmd is `git gloss import`.
type ImportCmd struct {
	Records   ImportRecordsCmd   `cmd:"" default:"withargs" help:"Read records that git gloss export wrote (the default)."`
	Chronicle ImportChronicleCmd `cmd:"" help:"Read Chronicle's (Ultragit's) annotations into gloss records."`
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
		s.printf("imported %d record(s); %d already present, %d on commits this repository lacks\n", res.Written, res.Present, res.Missing)
		for _, w := range res.Warnings {
			s.printf("warning: %s\n", w)
		}
	})
}
