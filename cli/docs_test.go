package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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

// TestDocLinks keeps the README and docs/ connected: every relative
// Markdown link in them names a file that exists and, for a link into a
// Markdown file, a heading that exists there.
func TestDocLinks(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("../docs/*.md")
	files = append([]string{"../README.md"}, files...)
	links := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n, broken := brokenLinks(f, string(data))
		links += n
		for _, b := range broken {
			t.Errorf("%s: %s", filepath.Base(f), b)
		}
	}
	if links < 30 {
		t.Fatalf("found only %d relative links in the README and docs/; the extraction is broken", links)
	}
}

// TestBrokenLinks: the link checker finds a missing file and a missing
// heading, and passes what exists.
func TestBrokenLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "b.md"), []byte("# B\n\n## What `init` does\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		text          string
		links, broken int
	}{
		{"see [b](b.md) and [init](b.md#what-init-does) and [web](https://example.com)", 2, 0},
		{"see [top](#a) \n# A\n", 1, 0},
		{"see [c](c.md)", 1, 1},
		{"see [b](b.md#no-such-heading)", 1, 1},
		{"see [self](#nowhere)", 1, 1},
		{"`[c](c.md)` is code, and so is\n```\n[c](c.md)\n```\n", 0, 0},
		{"![picture](img/none.png)", 1, 1},
	} {
		n, broken := brokenLinks(filepath.Join(dir, "a.md"), c.text)
		if n != c.links || len(broken) != c.broken {
			t.Errorf("%q: %d link(s), broken %q; want %d link(s), %d broken", c.text, n, broken, c.links, c.broken)
		}
	}
}

var (
	reLink     = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)
	reCodeSpan = regexp.MustCompile("`[^`]*`")
	reHeading  = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	reSlugDrop = regexp.MustCompile(`[^\p{L}\p{N}\- _]`)
)

// brokenLinks returns how many relative links the Markdown text of file
// holds, and those that point at no file or at no heading.
func brokenLinks(file, text string) (int, []string) {
	var broken []string
	n := 0
	inFence := false
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		for _, m := range reLink.FindAllStringSubmatch(reCodeSpan.ReplaceAllString(line, ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			n++
			path, frag, _ := strings.Cut(target, "#")
			resolved := file
			if path != "" {
				resolved = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
				if _, err := os.Stat(resolved); err != nil {
					broken = append(broken, fmt.Sprintf("line %d: %s: no such file", i+1, target))
					continue
				}
			}
			if frag == "" || !strings.HasSuffix(resolved, ".md") {
				continue
			}
			var body string
			if path == "" {
				body = text
			} else if data, err := os.ReadFile(resolved); err == nil {
				body = string(data)
			}
			if !slices.Contains(headingSlugs(body), frag) {
				broken = append(broken, fmt.Sprintf("line %d: %s: no such heading", i+1, target))
			}
		}
	}
	return n, broken
}

// headingSlugs returns the anchors GitHub gives the headings of a
// Markdown text: lower case, punctuation dropped, spaces as hyphens, and
// -1, -2 … for repeats.
func headingSlugs(text string) []string {
	var slugs []string
	seen := map[string]int{}
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		m := reHeading.FindStringSubmatch(line)
		if inFence || m == nil {
			continue
		}
		slug := strings.ReplaceAll(reSlugDrop.ReplaceAllString(strings.ToLower(m[1]), ""), " ", "-")
		if k := seen[slug]; k > 0 {
			slugs = append(slugs, fmt.Sprintf("%s-%d", slug, k))
		} else {
			slugs = append(slugs, slug)
		}
		seen[slug]++
	}
	return slugs
}

// TestReadmeBudget keeps the README a page for users: at most 300 lines,
// the rest in docs/, and the two contributor commands still named.
func TestReadmeBudget(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if n := strings.Count(text, "\n"); n > 300 {
		t.Errorf("README.md has %d lines; the budget is 300 (move the rest to docs/)", n)
	}
	for _, must := range []string{"make demo", "make test"} {
		if !strings.Contains(text, must) {
			t.Errorf("README.md no longer names %q", must)
		}
	}
}
