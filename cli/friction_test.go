package cli_test

import (
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/cli"
	"github.com/gloss-dev/gloss/fixtures"
)

// TestReadExplainsItself: a read's human output has a legend for its
// notations, an unknown anchor gets the closest name, a fresh clone that
// has no gloss notes yet is told how to fetch them, and history of a
// directory says what to use instead of "no such file".
func TestReadExplainsItself(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.MustGloss("init", "--no-mcp")
	fx.Commit("add hello", map[string]string{"src/a.go": "package main\n\nfunc Hello() int {\n\treturn 1\n}\n"})

	out := fx.MustGloss("read", "src/a.go")
	if !strings.Contains(out, `legend: "lines A-B at C, now D-E"`) || !strings.Contains(out, "score = relevance") {
		t.Errorf("read has no legend:\n%s", out)
	}
	out = fx.MustGloss("read", "src/a.go", "--anchor", "Helo")
	if !strings.Contains(out, `anchor "Helo" not found in src/a.go; did you mean "Hello"?`) {
		t.Errorf("read of a mistyped anchor:\n%s", out)
	}
	out, err := fx.Gloss("history", "src")
	if exitCode(err) != cli.ExitUsage || !strings.Contains(out, "src is a directory") || !strings.Contains(out, "git gloss summary src") {
		t.Errorf("history of a directory: exit %d\n%s", exitCode(err), out)
	}

	cmd := fx.Command("git", "gloss", "annotate", "--stdin")
	cmd.Stdin = strings.NewReader(`{"file":"src/a.go","constraint":"x"}`)
	stdin, err := cmd.CombinedOutput()
	if exitCode(err) != cli.ExitUsage || !strings.Contains(string(stdin), `unknown field "constraint"; did you mean "constraints"?`) ||
		!strings.Contains(string(stdin), "git gloss schema annotate-context") {
		t.Errorf("annotate --stdin with a wrong field name: exit %d\n%s", exitCode(err), stdin)
	}

	bare := fixtures.NewBare(t)
	fx.Git("remote", "add", "origin", bare)
	fx.Git("push", "-q", "origin", "HEAD:refs/heads/main", "refs/notes/gloss/annotations")
	clone := fixtures.Clone(t, bare)
	out = clone.MustGloss("read", "src/a.go")
	if !strings.Contains(out, "this clone has no gloss notes yet") || !strings.Contains(out, "git gloss sync") {
		t.Errorf("read in a fresh clone does not say how to fetch the notes:\n%s", out)
	}
}
