package cli

import (
	"bytes"
	"os"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/forge"
)

// CiCmd is `git gloss ci`.
type CiCmd struct {
	Check CiCheckCmd `cmd:"" help:"Run the pre-push checks over a commit range (specs, task lint, .noma validation)."`
}

// CiCheckCmd is `git gloss ci check`.
type CiCheckCmd struct {
	Base    string `name:"base" placeholder:"REV" help:"Compare from the merge base with REV (default: the pull request's target branch from the CI environment, else the remote's default branch)."`
	Head    string `name:"head" placeholder:"REV" default:"HEAD" help:"The last commit to check (default HEAD)."`
	Remote  string `name:"remote" default:"origin" help:"Remote whose gloss notes are fetched first."`
	NoFetch bool   `name:"no-fetch" help:"Do not fetch gloss notes from the remote."`
	Policy  string `name:"policy" enum:",warn,strict" default:"" help:"warn: never fail; strict: every affected spec's drift fails. Default: each spec's coverage.policy, and errors in tasks and documents fail."`
	Format  string `name:"format" enum:"auto,github,text" default:"auto" help:"Output: auto (GitHub Actions workflow commands when GITHUB_ACTIONS=true, else text), github or text."`
	SARIF   string `name:"sarif" placeholder:"FILE" help:"Also write the findings as SARIF 2.1.0 to FILE."`
}

// Help is the long help of ci check.
func (CiCheckCmd) Help() string {
	return `Hooks run on a developer's machine and git push --no-verify skips them; this
runs the same checks in CI, where they cannot be skipped:

  - specs the range's changes affect: validated, and drifted since their last
    reconciliation (as the pre-push hook);
  - task lint of the task files the range changed;
  - Noma validation of the .noma documents the range changed.

It fetches gloss's notes refs from the remote first (CI checkouts do not) and
exits 1 when a finding blocks: a spec under a strict policy, or an error in a
task or a document (--policy warn never fails, --policy strict makes every
spec finding block). Under GitHub Actions it prints workflow commands
(::error file=…,line=…::), which show on the pull request's lines.`
}

// Run checks.
func (c *CiCheckCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	rep, err := forge.Check(g.ctx, repo, forge.CheckOptions{Base: c.Base, Head: c.Head, Remote: c.Remote, NoFetch: c.NoFetch, Policy: c.Policy})
	if err != nil {
		return err
	}
	if c.SARIF != "" {
		if err := writeSARIF(c.SARIF, rep); err != nil {
			return err
		}
	}
	switch {
	case g.JSON:
		err = g.printJSON(rep)
	case c.Format == forge.FormatGitHub || (c.Format == "auto" && forge.DetectFormat(os.Getenv) == forge.FormatGitHub):
		err = forge.WriteGitHub(g.stdout, rep)
	default:
		err = forge.WriteText(g.stdout, rep)
	}
	if err != nil {
		return err
	}
	if rep.Failed {
		return fault.As(fault.Check, errSilent)
	}
	return nil
}

// writeSARIF writes the SARIF log atomically: a reader (an upload step)
// never sees half a file.
func writeSARIF(file string, rep *forge.CheckReport) error {
	var b bytes.Buffer
	if err := forge.WriteSARIF(&b, rep); err != nil {
		return err
	}
	return atomicfile.Write(file, b.Bytes(), 0o644)
}
