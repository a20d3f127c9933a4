package cli_test

import (
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/cli"
	"github.com/gloss-dev/gloss/fixtures"
)

// TestHelpCommandAndTypos: `git gloss help [command]` answers (it was an
// error), and an unknown command is one line naming the closest command
// (it was about 40 lines of help).
func TestHelpCommandAndTypos(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)

	out, err := fx.Gloss("help")
	if err != nil || !strings.Contains(out, "git gloss init") {
		t.Fatalf("help: %v\n%s", err, out)
	}
	out, err = fx.Gloss("help", "task", "ready")
	if err != nil || !strings.Contains(out, "Usage: git gloss task ready") {
		t.Fatalf("help task ready: %v\n%s", err, out)
	}
	out, err = fx.Gloss("help", "tsak")
	if fixtures.ExitCode(err) != cli.ExitUsage || !strings.Contains(out, `did you mean "task"`) {
		t.Fatalf("help tsak: exit %d\n%s", fixtures.ExitCode(err), out)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"redd"}, `"redd" is not a git gloss command; did you mean "read"?`},
		{[]string{"task", "redy"}, `"redy" is not a git gloss task command; did you mean "ready"?`},
		{[]string{"-C", ".", "stauts", "--json"}, `did you mean "status"?`},
		{[]string{"frobnicate"}, `"frobnicate" is not a git gloss command (see 'git gloss help')`},
	} {
		out, err := fx.Gloss(c.args...)
		if fixtures.ExitCode(err) != cli.ExitUsage {
			t.Errorf("%v: exit %d, want %d", c.args, fixtures.ExitCode(err), cli.ExitUsage)
		}
		if lines := fixtures.Lines(out); len(lines) != 1 || !strings.Contains(out, c.want) {
			t.Errorf("%v: want one line containing %q, got:\n%s", c.args, c.want, out)
		}
	}
	// Any other usage error says where to read more, in two lines at most.
	out, err = fx.Gloss("read")
	if fixtures.ExitCode(err) != cli.ExitUsage || len(fixtures.Lines(out)) > 2 || !strings.Contains(out, "git gloss help read") {
		t.Errorf("read without a path: exit %d\n%s", fixtures.ExitCode(err), out)
	}
}

// TestManPage: the man page comes from the same command model as --help.
func TestManPage(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	out, err := fx.Gloss("man")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`.TH "GIT\-GLOSS" "1"`, ".SH \"COMMANDS\"", `\fBgit gloss task ready`, `\fB\-\-json\fR`, ".SH \"EXIT STATUS\""} {
		if !strings.Contains(out, want) {
			t.Errorf("man page lacks %q", want)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, ".") && !strings.HasPrefix(line, ".TH") && !strings.HasPrefix(line, ".SH") &&
			!strings.HasPrefix(line, ".PP") && !strings.HasPrefix(line, ".TP") && !strings.HasPrefix(line, ".RS") &&
			!strings.HasPrefix(line, ".RE") && !strings.HasPrefix(line, ".nf") && !strings.HasPrefix(line, ".fi") {
			t.Errorf("text line read as a roff request: %q", line)
		}
	}
}
