package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/gloss-dev/gloss/editdist"
	"github.com/gloss-dev/gloss/fault"
)

// HelpCmd is `git gloss help [command]`. git turns `git gloss --help`
// into `man git-gloss`, so the page installed from ManCmd answers that,
// and this command answers where no man page is installed.
type HelpCmd struct {
	Command []string `arg:"" optional:"" help:"The command to explain, e.g. 'task ready'."`
}

// Run prints the help of the named command, or of gloss.
func (h *HelpCmd) Run(g *Globals, k *kong.Kong) error {
	node := k.Model.Node
	for _, name := range h.Command {
		child := findChild(node, name)
		if child == nil {
			return unknownCommand(node, name)
		}
		node = child
	}
	// Parsing the command path with --help prints its help and calls the
	// exit hook, which Run turns into the exit code.
	args := append(append([]string{}, commandPath(node)...), "--help")
	_, err := k.Parse(args)
	return err
}

// ManCmd prints gloss's man page, generated from the same command model
// as --help, so the two cannot disagree. `make install` and
// scripts/install.sh install it as git-gloss(1), which is what git shows
// for `git gloss --help`.
type ManCmd struct{}

// Run writes the man page in roff to stdout.
func (ManCmd) Run(g *Globals, k *kong.Kong) error {
	fmt.Fprint(g.stdout, manPage(k.Model, time.Now()))
	return nil
}

// manPage renders the command model as a git-style man page in roff.
// The format needs only a handful of macros, written here directly.
func manPage(app *kong.Application, date time.Time) string {
	var m man
	m.macro(".TH", "GIT-GLOSS", "1", date.Format("2006-01-02"), "git-gloss", "Git Manual")
	m.macro(".SH", "NAME")
	m.text(`git-gloss \- git-native memory and coordination for AI coding agents`)
	m.macro(".SH", "SYNOPSIS")
	m.text(`\fBgit gloss\fR <command> [flags]`)
	m.macro(".SH", "DESCRIPTION")
	m.prose(strings.SplitN(app.Help, "\n", 2)[1])
	m.macro(".SH", "GLOBAL OPTIONS")
	m.flags(app.Node.Flags)
	m.macro(".SH", "COMMANDS")
	var visit func(n *kong.Node)
	visit = func(n *kong.Node) {
		for _, c := range n.Children {
			if c.Type != kong.CommandNode || c.Hidden {
				continue
			}
			if hasCommands(c) {
				visit(c)
				continue
			}
			m.macro(".TP")
			m.text(`\fBgit gloss ` + escapeRoff(c.Summary()) + `\fR`)
			m.text(escapeRoff(c.Help))
			if c.Detail != "" {
				m.prose(c.Detail)
			}
			m.macro(".RS")
			m.flags(c.Flags)
			m.macro(".RE")
		}
	}
	visit(app.Node)
	m.macro(".SH", "EXIT STATUS")
	m.text("0 success; 1 the command ran and found a problem (validation failed, drift, a blocked push); " +
		"2 bad command line or input; 3 something named does not exist; 4 a concurrent change or an ambiguous name; 5 anything else.")
	m.macro(".SH", "CONFIGURATION")
	m.text("Team settings live in .gloss/config.toml (committed); personal ones in git config under gloss.*, " +
		"e.g. git config gloss.hookTimeout 10s. Commands to run come only from personal git config or flags, never from a committed file.")
	m.macro(".SH", "SEE ALSO")
	m.text(`\fBgit\fR(1), \fBgit-notes\fR(1), \fBgit-blame\fR(1). \fBgit gloss help\fR COMMAND explains one command; ` +
		`\fBgit gloss schema\fR lists the JSON Schemas of --json output.`)
	return m.String()
}

// man builds a roff document.
type man struct{ strings.Builder }

func (m *man) macro(name string, args ...string) {
	m.WriteString(name)
	for _, a := range args {
		m.WriteString(` "` + strings.ReplaceAll(escapeRoff(a), `"`, `\(dq`) + `"`)
	}
	m.WriteByte('\n')
}

// text writes a line that is already escaped (it may hold font escapes).
func (m *man) text(line string) { m.WriteString(line + "\n") }

// prose writes help text: paragraphs split at blank lines, and lines
// indented by two spaces (examples) kept as they are, unfilled.
func (m *man) prose(text string) {
	for _, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		m.macro(".PP")
		filled := true
		for _, l := range strings.Split(para, "\n") {
			example := strings.HasPrefix(l, "  ")
			if example && filled {
				m.macro(".nf")
			} else if !example && !filled {
				m.macro(".fi")
			}
			filled = !example
			m.text(escapeRoff(strings.TrimSpace(l)))
		}
		if !filled {
			m.macro(".fi")
		}
	}
}

// flags lists flags as tagged paragraphs.
func (m *man) flags(flags []*kong.Flag) {
	for _, f := range flags {
		if f.Hidden || f.Name == "help" {
			continue
		}
		name := "--" + f.Name
		if f.Short != 0 {
			name = fmt.Sprintf("-%c, %s", f.Short, name)
		}
		if !f.IsBool() {
			name += "=" + f.FormatPlaceHolder()
		}
		m.macro(".TP")
		m.text(`\fB` + escapeRoff(name) + `\fR`)
		m.text(escapeRoff(f.Help))
	}
}

// escapeRoff makes s literal text: backslashes doubled, and a leading dot
// or quote (which roff reads as a macro) and hyphens escaped.
func escapeRoff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// findChild returns the visible command of node named name (or aliased).
func findChild(node *kong.Node, name string) *kong.Node {
	for _, c := range node.Children {
		if c.Type != kong.CommandNode {
			continue
		}
		if c.Name == name {
			return c
		}
		for _, a := range c.Aliases {
			if a == name {
				return c
			}
		}
	}
	return nil
}

// commandPath is the words that select node, from the root.
func commandPath(node *kong.Node) []string {
	var path []string
	for n := node; n != nil && n.Parent != nil; n = n.Parent {
		path = append([]string{n.Name}, path...)
	}
	return path
}

// unknownCommand is the one-line answer to a command name gloss does not
// have, with the closest one when it looks like a typo.
func unknownCommand(parent *kong.Node, name string) error {
	var names []string
	for _, c := range parent.Children {
		if c.Type == kong.CommandNode && !c.Hidden {
			names = append(names, c.Name)
		}
	}
	where := strings.Join(append([]string{"git gloss"}, commandPath(parent)...), " ")
	help := strings.Join(append([]string{"git gloss help"}, commandPath(parent)...), " ")
	if near := editdist.Nearest(name, names, 2); near != "" {
		return fault.Usagef("%q is not a %s command; did you mean %q? (see '%s')", name, where, near, help)
	}
	return fault.Usagef("%q is not a %s command (see '%s')", name, where, help)
}

// unknownCommandIn reports, for a parse error, whether args name a command
// that does not exist under the deepest command they did select; it returns
// the one-line error for it, or nil when the problem is something else.
func unknownCommandIn(model *kong.Application, args []string) error {
	node := model.Node
	expectValue := false
	for _, a := range args {
		switch {
		case expectValue:
			expectValue = false
		case a == "--":
			return nil
		case a == "-C" || a == "--directory":
			expectValue = true
		case strings.HasPrefix(a, "-"):
			// A flag; with a separate value only for -C, which is the one
			// global flag that takes one. Subcommand flags stop the walk.
			if node != model.Node {
				return nil
			}
		default:
			if !hasCommands(node) {
				return nil
			}
			child := findChild(node, a)
			if child == nil {
				return unknownCommand(node, a)
			}
			node = child
		}
	}
	return nil
}

func hasCommands(node *kong.Node) bool {
	for _, c := range node.Children {
		if c.Type == kong.CommandNode {
			return true
		}
	}
	return false
}
