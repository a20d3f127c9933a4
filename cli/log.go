package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/termtext"
	"github.com/gloss-dev/gloss/why"
)

// LogCmd is `git gloss log [git log arguments]`.
type LogCmd struct {
	Args []string `arg:"" optional:"" passthrough:"" help:"Arguments for git log (revisions, paths, -n, --oneline, --format=...)."`
}

// Help is the long help of log.
func (LogCmd) Help() string {
	return `Prints git log, and under each commit one readable line per gloss record
attached to it (annotated regions with their intent, commit summaries,
reconciliations), instead of the raw JSON records git log would show if
notes.displayRef pointed at gloss's refs (git gloss init no longer sets it).
Every argument goes to git log.

  git gloss log -n 5
  git gloss log --oneline main..HEAD -- server/`
}

// marker separates commits in git log's output (markerFormat asks git to
// print it); the full id follows it.
const (
	marker       = "\x1egloss-commit\x1e"
	markerFormat = "%x1egloss-commit%x1e"
)

// Run prints the log.
func (c *LogCmd) Run(g *Globals) error {
	// Every argument goes to git log, but for help, and --json, which
	// git log does not have.
	for _, a := range c.Args {
		if a == "--" {
			break
		}
		switch a {
		case "-h", "--help":
			fmt.Fprintf(g.stdout, "Usage: git gloss log [git log arguments]\n\n%s\n", c.Help())
			return nil
		case "--json":
			return fault.Usagef("git gloss log is for people; for the records as JSON use git gloss export, or git gloss read/history --json")
		}
	}
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	color := g.useColor(g.stdout)
	args, format := logFormat(c.Args)
	gitArgs := append([]string{"log", "--no-notes", "--format=" + markerFormat + "%H%n" + format}, args...)
	if color {
		gitArgs = append([]string{"-c", "color.ui=always"}, gitArgs...)
	}
	cmd := repo.Command(g.ctx, gitArgs...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return fault.Usagef("git log: %s", strings.TrimSpace(stderr.String()))
		}
		return err
	}
	chunks := strings.Split(string(out), marker)
	var ids []string
	for _, ch := range chunks[1:] {
		id, _, _ := strings.Cut(ch, "\n")
		ids = append(ids, id)
	}
	lines, err := why.LogLines(repo, ids)
	if err != nil {
		return err
	}
	s := g.styler()
	// git's output holds the commits' own text: the writer strips its
	// control sequences, and keeps git's colours when they were asked for.
	gitText := func(t string) string { return t }
	if color {
		gitText = termtext.KeepColour
	}
	s.printf("%s", gitText(chunks[0]))
	for _, ch := range chunks[1:] {
		id, rest, _ := strings.Cut(ch, "\n")
		body := strings.TrimRight(rest, "\n")
		s.printf("%s\n", gitText(body))
		for _, l := range lines[id] {
			s.printf("    %s\n", s.cyan(l))
		}
		if strings.HasSuffix(rest, "\n\n") || strings.Contains(format, "%n%n") {
			s.println()
		}
	}
	return nil
}

// logFormat takes the user's --oneline / --pretty / --format out of args
// and returns the format to use: theirs, or git's medium layout.
func logFormat(args []string) ([]string, string) {
	format := ""
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i:]...)
			i = len(args)
		case a == "--oneline":
			format = "%C(auto)%h%d %s"
		case strings.HasPrefix(a, "--format="):
			format = strings.TrimPrefix(a, "--format=")
		case strings.HasPrefix(a, "--pretty=") || strings.HasPrefix(a, "--format") || a == "--pretty":
			v := strings.TrimPrefix(strings.TrimPrefix(a, "--pretty"), "=")
			switch {
			case v == "oneline":
				format = "%C(auto)%h%d %s"
			case strings.HasPrefix(v, "format:"), strings.HasPrefix(v, "tformat:"):
				_, format, _ = strings.Cut(v, ":")
			case v == "short":
				format = "%C(yellow)commit %H%C(auto)%d%C(reset)%nAuthor: %an <%ae>%n%n%w(0,4,4)%s%w(0,0,0)%n"
			default:
				format = ""
			}
		default:
			rest = append(rest, a)
		}
	}
	if format == "" {
		format = "%C(yellow)commit %H%C(auto)%d%C(reset)%nAuthor: %an <%ae>%nDate:   %ad%n%n%w(0,4,4)%B%w(0,0,0)"
	}
	return rest, format
}
