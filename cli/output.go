package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/schemas"
	"github.com/gloss-dev/gloss/termtext"
)

// openRepo opens the repository gloss runs in: -C DIR, or the current
// directory (honouring GIT_DIR, as hooks need).
func (g *Globals) openRepo() (*gitops.Repo, error) {
	return gitops.Open(g.Dir)
}

// printJSON writes v in the shared encoding, one line.
func (g *Globals) printJSON(v any) error {
	data, err := schemas.Encode(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(g.rawStdout, "%s\n", data)
	return err
}

// emit prints v as JSON with --json, and otherwise calls human.
func (g *Globals) emit(v any, human func(w *styler)) error {
	if g.JSON {
		return g.printJSON(v)
	}
	human(g.styler())
	return nil
}

// progress tells a person at a terminal what a long step is doing. It
// prints nothing for machines (--json) or when stderr is not a terminal, so
// scripts and agents never see it.
func (g *Globals) progress(format string, args ...any) {
	if g.JSON || !isTerminal(g.stderr) {
		return
	}
	fmt.Fprintf(g.stderr, termtext.Mark("\r\x1b[2K")+format, args...)
}

// progressDone clears the progress line.
func (g *Globals) progressDone() {
	if g.JSON || !isTerminal(g.stderr) {
		return
	}
	fmt.Fprint(g.stderr, termtext.Mark("\r\x1b[2K"))
}

// styler writes human output, coloured when the destination is a terminal
// (or --color=always) and NO_COLOR is not set.
type styler struct {
	w     io.Writer
	color bool
}

func (g *Globals) styler() *styler {
	return &styler{w: g.stdout, color: g.useColor(g.stdout)}
}

func (g *Globals) useColor(w io.Writer) bool {
	switch g.Color {
	case "always":
		return true
	case "never":
		return false
	}
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(w)
}

func isTerminal(w io.Writer) bool {
	if tw, ok := w.(*termtext.Writer); ok {
		w = tw.Unwrap()
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (s *styler) paint(code, text string) string {
	if !s.color || text == "" {
		return text
	}
	return termtext.Style(code, text)
}

// Styles used across commands.
func (s *styler) bold(t string) string   { return s.paint("1", t) }
func (s *styler) dim(t string) string    { return s.paint("2", t) }
func (s *styler) green(t string) string  { return s.paint("32", t) }
func (s *styler) yellow(t string) string { return s.paint("33", t) }
func (s *styler) red(t string) string    { return s.paint("31", t) }
func (s *styler) cyan(t string) string   { return s.paint("36", t) }

func (s *styler) printf(format string, args ...any) { fmt.Fprintf(s.w, format, args...) }
func (s *styler) println(args ...any)               { fmt.Fprintln(s.w, args...) }

// mark renders a yes/no as a coloured check or cross.
func (s *styler) mark(ok bool) string {
	if ok {
		return s.green("✓")
	}
	return s.red("✗")
}
