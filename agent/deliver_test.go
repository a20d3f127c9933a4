package agent_test

import (
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// TestPromptNotesAndGoverningSpecs: a prompt brings the notebook notes
// that match it above the threshold, once per session; an edit brings the
// specs that govern the file; the session brief names drifted specs.
func TestPromptNotesAndGoverningSpecs(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	// --notebook: the scaffold's index note is part of the corpus this
	// test's scores were set against (BM25 needs more than two notes for
	// a term in one of them to reach the threshold).
	fx.MustGloss("init", "--notebook")
	fx.Write(".gloss/config.toml", slowMachine) // what is delivered, not how fast: TestHookNeverFailsTheAgent holds the budget
	fx.MustGloss("note", "create", "parsing-rules", "-t", "note", "--title", "Parsing rules", "-m", "Parsers never allocate on the hot path. Blank input returns the empty string.")
	fx.MustGloss("note", "create", "deploy", "-t", "note", "--title", "Deploying", "-m", "Deploy with make release; tokens live in the vault.")
	fx.Commit("base", map[string]string{
		"lib/parse.go":                     baseFile,
		".gloss/specs/parse.spec.yaml":     "schema_version: '0.7'\nintent: Parsing of user input\ntier: registered\nconstraints:\n  - Parsing never allocates\nartifacts:\n  code:\n    - path: 'lib/**'\n",
		".gloss/specs/unrelated.spec.yaml": "schema_version: '0.7'\nintent: Docs\ntier: registered\nartifacts:\n  code:\n    - path: 'docs/**'\n",
	})
	vars := map[string]string{"SESSION": "s1", "TRANSCRIPT": "", "ROOT": fx.Dir, "FILE": "lib/parse.go", "OLD": oldText, "NEW": newText,
		"PROMPT": "Make Parse handle blank input"}
	run := func(event string, vars map[string]string) string {
		return contextOf(t, "claude", event, hook(t, fx, nil, "claude", event, payload(t, "claude", event, vars)))
	}
	got := run("UserPromptSubmit", vars)
	if !strings.Contains(got, "notes/parsing-rules.md") || strings.Contains(got, "deploy.md") {
		t.Errorf("prompt notes = %q", got)
	}
	if again := run("UserPromptSubmit", vars); again != "" {
		t.Errorf("the same notes again in one session: %q", again)
	}
	other := map[string]string{}
	for k, v := range vars {
		other[k] = v
	}
	other["PROMPT"], other["SESSION"] = "what time is it in Lisbon", "s2"
	if got := run("UserPromptSubmit", other); got != "" {
		t.Errorf("an unrelated prompt brought %q", got)
	}
	got = run("PreToolUse", vars)
	if !strings.Contains(got, "spec .gloss/specs/parse.spec.yaml governs lib/parse.go") || !strings.Contains(got, "Parsing never allocates") || strings.Contains(got, "unrelated") {
		t.Errorf("pre-edit specs = %q", got)
	}

	fx.MustGloss("task", "add", "Handle blank input everywhere")
	fx.MustGloss("spec", "mark", "lib/parse.go")
	fx.Commit("reconciled", nil)
	fx.Write("lib/parse.go", baseFile+"// drift\n")
	other["SESSION"] = "s3"
	if got := run("SessionStart", other); !strings.Contains(got, "drifted on this branch: .gloss/specs/parse.spec.yaml") || !strings.Contains(got, "Ready tasks (1):") || !strings.Contains(got, "Handle blank input everywhere") {
		t.Errorf("brief = %q", got)
	}
}

// TestPromptNotesInANewNotebook is the quickstart's notebook: one note.
// A prompt that names what it is about brings it; a prompt that shares
// only common words with it does not.
func TestPromptNotesInANewNotebook(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.MustGloss("init")
	fx.Write(".gloss/config.toml", slowMachine)
	fx.MustGloss("note", "create", "deploy", "--type", "kit", "--title", "Deploy the service",
		"-m", "The health endpoint must answer in under 10 ms or the rollout stops.")
	fx.Commit("base", map[string]string{"lib/parse.go": baseFile})
	run := func(session, prompt string) string {
		vars := map[string]string{"SESSION": session, "TRANSCRIPT": "", "ROOT": fx.Dir, "PROMPT": prompt}
		return contextOf(t, "claude", "UserPromptSubmit", hook(t, fx, nil, "claude", "UserPromptSubmit", payload(t, "claude", "UserPromptSubmit", vars)))
	}
	if got := run("s1", "Why does the rollout stop when I deploy?"); !strings.Contains(got, "kits/deploy.md") {
		t.Errorf("a prompt about the rollout did not bring the note: %q", got)
	}
	if got := run("s3", "how do I make this work with the other one"); got != "" {
		t.Errorf("a prompt of common words only brought %q", got)
	}
}
