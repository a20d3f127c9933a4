package cli

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// TestDocumentedCommandsExist keeps the README and docs/ true: every
// `git gloss …` they show, in a code block or inline, names commands and
// flags that exist.
func TestDocumentedCommandsExist(t *testing.T) {
	t.Parallel()
	parser, err := newParser(&CLI{}, io.Discard, io.Discard, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../docs/*.md")
	files = append([]string{"../README.md"}, files...)
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, use := range glossUses(line) {
				checked++
				if msg := checkUse(parser.Model, use); msg != "" {
					t.Errorf("%s:%d: %s\n\t%s", filepath.Base(f), i+1, msg, strings.TrimSpace(line))
				}
			}
		}
	}
	if checked < 50 {
		t.Fatalf("found only %d uses of git gloss in the README and docs/; the extraction is broken", checked)
	}
}

var (
	// A use starts at "git gloss " and runs to the end of the code span,
	// a shell separator, a comment or the end of the line.
	reUse     = regexp.MustCompile("git gloss ([^`|;&#)]*)")
	reTokens  = regexp.MustCompile(`"[^"]*"|'[^']*'|\S+`)
	reFlagTok = regexp.MustCompile(`^--?[A-Za-z][\w-]*`)
)

// glossUses returns the argument lists of the git gloss commands on a
// line of Markdown.
func glossUses(line string) [][]string {
	var uses [][]string
	for _, m := range reUse.FindAllStringSubmatch(line, -1) {
		uses = append(uses, reTokens.FindAllString(m[1], -1))
	}
	return uses
}

// checkUse walks the command words of a use through the model and checks
// every flag against the selected command and its parents; it returns
// what is wrong, or "".
func checkUse(app *kong.Application, args []string) string {
	node := app.Node
	positional := false
	for _, a := range args {
		a = strings.Trim(a, "[]…,.:")
		switch {
		case a == "" || a == "--":
			continue
		case strings.HasPrefix(a, "-"):
			name := reFlagTok.FindString(a)
			if name == "" || name == "-" {
				continue
			}
			if !hasFlag(node, name) {
				return "no flag " + name + " on git gloss " + strings.Join(commandPath(node), " ")
			}
		case positional || !hasCommands(node) || strings.ContainsAny(a, "<>{}=/\"'$.*") || a != strings.ToLower(a):
			positional = true
		default:
			child := findChild(node, a)
			if child == nil {
				return "no command " + strings.Join(append(commandPath(node), a), " ")
			}
			node = child
			if node.Passthrough {
				return "" // its arguments are another program's (git gloss log: git log's)
			}
		}
	}
	return ""
}

func hasFlag(node *kong.Node, name string) bool {
	for n := node; n != nil; n = n.Parent {
		for _, f := range n.Flags {
			if "--"+f.Name == name || (f.Short != 0 && name == "-"+string(f.Short)) || name == "--help" || name == "-h" {
				return true
			}
			for _, a := range f.Aliases {
				if "--"+a == name {
					return true
				}
			}
			if f.Negated && name == "--no-"+f.Name {
				return true
			}
		}
	}
	return false
}

// TestCheckUse: the checker itself finds a missing command or flag.
func TestCheckUse(t *testing.T) {
	t.Parallel()
	parser, err := newParser(&CLI{}, io.Discard, io.Discard, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		line string
		ok   bool
	}{
		{"`git gloss read server.go --anchor Server.Handle`", true},
		{"$ git gloss task ready --json", true},
		{"git gloss -C DIR status", true},
		{"`git gloss frobnicate`", false},
		{"`git gloss task redy`", false},
		{"git gloss read f.go --no-such-flag", false},
		{"$ git gloss log --oneline -3", true},
		{"git gloss sync --purge-everything", false},
	} {
		uses := glossUses(c.line)
		if len(uses) != 1 {
			t.Fatalf("%q: %d uses", c.line, len(uses))
		}
		if msg := checkUse(parser.Model, uses[0]); (msg == "") != c.ok {
			t.Errorf("%q: checkUse = %q, want ok=%v", c.line, msg, c.ok)
		}
	}
}
