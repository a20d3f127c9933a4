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
	if !strings.Contains(out, `"lines A-B at C, now D-E"`) || !strings.Contains(out, `"lines A-B now, recorded at C"`) || !strings.Contains(out, "score = relevance") {
		t.Errorf("read has no legend:\n%s", out)
	}
	out = fx.MustGloss("read", "src/a.go", "--anchor", "Helo")
	if !strings.Contains(out, `anchor "Helo" not found in src/a.go; did you mean "Hello"?`) {
		t.Errorf("read of a mistyped anchor:\n%s", out)
	}
	out, err := fx.Gloss("history", "src")
	if fixtures.ExitCode(err) != cli.ExitUsage || !strings.Contains(out, "src is a directory") || !strings.Contains(out, "git gloss summary src") {
		t.Errorf("history of a directory: exit %d\n%s", fixtures.ExitCode(err), out)
	}

	cmd := fx.Command("git", "gloss", "annotate", "--stdin")
	cmd.Stdin = strings.NewReader(`{"file":"src/a.go","constraint":"x"}`)
	stdin, err := cmd.CombinedOutput()
	if fixtures.ExitCode(err) != cli.ExitUsage || !strings.Contains(string(stdin), `unknown field "constraint"; did you mean "constraints"?`) ||
		!strings.Contains(string(stdin), "git gloss schema annotate-context") {
		t.Errorf("annotate --stdin with a wrong field name: exit %d\n%s", fixtures.ExitCode(err), stdin)
	}

	bare := fixtures.NewBare(t)
	fx.Git("remote", "add", "origin", bare)
	fx.Git("push", "-q", "origin", "HEAD:refs/heads/main", "refs/notes/gloss/annotations")
	if st := fx.MustGloss("status", "--json"); strings.Contains(st, `"last_sync"`) {
		t.Errorf("status reports a sync before any: %s", st)
	}
	fx.MustGloss("sync")
	if st := fx.MustGloss("status"); !strings.Contains(st, "last sync") || !strings.Contains(st, "with origin") {
		t.Errorf("status does not say when notes were last synced:\n%s", st)
	}
	clone := fixtures.Clone(t, bare)
	out = clone.MustGloss("read", "src/a.go")
	if !strings.Contains(out, "this clone has no gloss notes yet") || !strings.Contains(out, "git gloss sync") {
		t.Errorf("read in a fresh clone does not say how to fetch the notes:\n%s", out)
	}
}

// TestTemplatesAndMarkExplained: spec new and doc new write valid starting
// points (a first spec took four tries against the schema), never over a
// file, and spec mark says why marking one file can make a spec drifted.
func TestTemplatesAndMarkExplained(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.MustGloss("init", "--no-mcp")
	fx.Commit("code", map[string]string{"src/api/a.go": "package api\n", "src/api/b.go": "package api\n"})

	out := fx.MustGloss("spec", "new", "api", "--govern", "src/api/**")
	if !strings.Contains(out, "wrote .gloss/specs/api.spec.yaml") {
		t.Errorf("spec new: %s", out)
	}
	if out := fx.MustGloss("spec", "validate"); !strings.Contains(out, "PASS .gloss/specs/api.spec.yaml") {
		t.Errorf("the new spec does not validate:\n%s", out)
	}
	if out, err := fx.Gloss("spec", "new", "api"); fixtures.ExitCode(err) != cli.ExitConflict || !strings.Contains(out, "already exists") {
		t.Errorf("spec new over an existing spec: exit %d\n%s", fixtures.ExitCode(err), out)
	}
	if _, err := fx.Gloss("spec", "new", "../escape"); fixtures.ExitCode(err) != cli.ExitUsage {
		t.Errorf("spec new ../escape: exit %d", fixtures.ExitCode(err))
	}
	out = fx.MustGloss("doc", "new", "docs/release-plan.noma", "--json")
	if !strings.Contains(out, `"path":"docs/release-plan.noma"`) {
		t.Errorf("doc new --json: %s", out)
	}
	if out := fx.MustGloss("doc", "check", "docs/release-plan.noma"); !strings.Contains(out, "No issues found") {
		t.Errorf("the new document does not check clean:\n%s", out)
	}
	if out, err := fx.Gloss("doc", "new", "notes.txt"); fixtures.ExitCode(err) != cli.ExitUsage || !strings.Contains(out, "notes.txt: a Noma document's name ends in .noma") {
		t.Errorf("doc new notes.txt: exit %d\n%s", fixtures.ExitCode(err), out)
	}

	fx.Git("add", "-A")
	fx.Git("commit", "-qm", "spec and doc")
	out = fx.MustGloss("spec", "mark", "src/api/a.go")
	for _, want := range []string{"api.spec.yaml is now drifted: 1 of 2 governed file(s) differ", "src/api/b.go", "git gloss spec mark --spec"} {
		if !strings.Contains(out, want) {
			t.Errorf("spec mark of one file does not explain the drift (%q):\n%s", want, out)
		}
	}
}

// TestInitSaysWhatNextInRepositoryPaths: init ends with the next steps,
// committing what it wrote among them, and prints no absolute path of the
// repository (status neither).
func TestInitSaysWhatNextInRepositoryPaths(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("first", map[string]string{"a.txt": "a\n"})
	out := fx.MustGloss("init")
	for _, want := range []string{"Next:", "git gloss agent install", "git add .mcp.json", "git commit -m 'Set up gloss'"} {
		if !strings.Contains(out, want) {
			t.Errorf("init does not end with %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, fx.Dir) {
		t.Errorf("init prints absolute paths:\n%s", out)
	}
	st := fx.MustGloss("status")
	if strings.Count(st, fx.Dir) > 1 || !strings.Contains(st, "claude .mcp.json") {
		t.Errorf("status prints absolute paths beyond the repository line:\n%s", st)
	}
}
