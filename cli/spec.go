package cli

import (
	"strings"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/reconcile"
	"github.com/gloss-dev/gloss/schemas"
	"github.com/gloss-dev/gloss/spec"
)

// SpecCmd groups the spec and reconciliation commands.
type SpecCmd struct {
	New      SpecNewCmd      `cmd:"" help:"Start a new spec from a valid template: git gloss spec new api --govern 'src/api/**'."`
	Validate SpecValidateCmd `cmd:"" help:"Check spec files against the spec schema (PASS/FAIL per file)."`
	Status   SpecStatusCmd   `cmd:"" help:"Per spec: reconciled, drifted or never reconciled."`
	Affected SpecAffectedCmd `cmd:"" help:"Specs touched by the changes since a base (list_affected_specs)."`
	Diff     SpecDiffCmd     `cmd:"" help:"A spec's governed changes since its last reconciliation (get_spec_diff)."`
	Changed  SpecChangedCmd  `cmd:"" help:"A spec's artifacts that changed since its last reconciliation (get_changed_artifacts)."`
	Mark     SpecMarkCmd     `cmd:"" help:"Record files as reconciled with the specs that govern them (mark_reconciled)."`
	Clear    SpecClearCmd    `cmd:"" help:"Write a tombstone: earlier reconciliations stop counting (clear_cache)."`
	Snapshot SpecSnapshotCmd `cmd:"" help:"Write .gloss/reconciliation_state.json to commit (snapshot_state)."`
}

// Help is the long help of spec.
func (SpecCmd) Help() string {
	return `Specs in .gloss/specs/**/*.spec.yaml (NotarAI's spec schema) say what a part
of the system must do and which files they govern (artifacts: globs where *
stays within a path segment and dir/** is every file below dir).

After reviewing a spec against the changes to its files, mark them
reconciled: the record (spec and file BLAKE3 hashes, base, head, actor, time)
goes to refs/notes/gloss/reconcile and travels with git gloss sync. Later
diffs show only what changed since. The pre-push hook reports (or, under a
strict coverage.policy or git config gloss.prepush strict, blocks) pushes
whose governed files drifted.

  git gloss spec validate
  git gloss spec affected --base main
  git gloss spec diff api --base main
  git gloss spec mark internal/api/handlers.go
  git gloss spec status`
}

// withSpecs opens the reconciliation workspace for a command.
func (g *Globals) withSpecs(fn func(w *reconcile.Workspace) error) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	w, err := reconcile.Open(g.ctx, repo)
	if err != nil {
		return err
	}
	return fn(w)
}

func printWarnings(s *styler, warnings []string) {
	for _, w := range warnings {
		s.printf("%s %s\n", s.yellow("warning:"), w)
	}
}

// SpecNewCmd is `git gloss spec new NAME [--govern GLOB...]`.
type SpecNewCmd struct {
	Name   string   `arg:"" help:"The spec's name: api writes api.spec.yaml in the specs folder."`
	Govern []string `name:"govern" sep:"none" placeholder:"GLOB" help:"Files it governs, as a glob (repeatable), e.g. 'src/api/**'."`
}

// Run writes the template.
func (c *SpecNewCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	rel, err := spec.Create(repo, c.Name, c.Govern)
	if err != nil {
		return err
	}
	out := createdOutput{Schema: "gloss-created/v1", Path: rel}
	return g.emit(out, func(s *styler) {
		s.printf("wrote %s\n", rel)
		s.printf("next: write its intent and behaviors, check it with 'git gloss spec validate %s', and commit it\n", rel)
	})
}

// createdOutput is what spec new and doc new print with --json.
type createdOutput struct {
	Schema string `json:"$schema"`
	Path   string `json:"path"`
}

func init() {
	schemas.Register(schemas.Entry{Name: "created", Tag: "gloss-created/v1", Description: "The file git gloss spec new or doc new wrote.", Type: schemas.TypeOf[createdOutput]()})
}

// SpecValidateCmd is `git gloss spec validate [PATH]`.
type SpecValidateCmd struct {
	Path string `arg:"" optional:"" help:"A spec file, or a directory searched recursively (default .gloss/specs)."`
}

// Run validates.
func (c *SpecValidateCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	res, err := spec.Validate(g.ctx, repo, g.path(c.Path))
	if err != nil {
		return err
	}
	err = g.emit(res, func(s *styler) {
		for _, f := range res.Files {
			if f.OK {
				s.printf("%s %s\n", s.green("PASS"), f.Path)
				continue
			}
			s.printf("%s %s\n", s.red("FAIL"), f.Path)
			for _, p := range f.Problems {
				s.printf("  %s\n", p)
			}
		}
		for _, w := range res.Warnings {
			s.printf("%s %s\n", s.yellow("warning:"), w)
		}
	})
	if err != nil {
		return err
	}
	if res.Failed > 0 {
		return fault.As(fault.Check, errSilent)
	}
	return nil
}

// SpecStatusCmd is `git gloss spec status`.
type SpecStatusCmd struct{}

// Run prints the table.
func (c *SpecStatusCmd) Run(g *Globals) error {
	return g.withSpecs(func(w *reconcile.Workspace) error {
		res, err := w.Status()
		if err != nil {
			return err
		}
		return g.emit(res, func(s *styler) {
			if len(res.Specs) == 0 {
				s.println("No specs in " + w.Specs.Layout.Dir + ".")
				return
			}
			s.printf("%-40s %-17s %8s %8s  %s\n", "SPEC", "STATE", "GOVERNED", "CHANGED", "LAST RECONCILED")
			for _, r := range res.Specs {
				state := r.State
				switch r.State {
				case reconcile.StateReconciled:
					state = s.green(pad(state, 17))
				case reconcile.StateDrifted:
					state = s.yellow(pad(state, 17))
				case reconcile.StateInvalid:
					state = s.red(pad(state, 17))
				default:
					state = s.dim(pad(state, 17))
				}
				changed := len(r.Changed) + len(r.Deleted)
				if r.SpecChanged {
					changed++
				}
				last := r.ReconciledAt
				if last == "" && r.Source == "snapshot" {
					last = "(snapshot)"
				}
				s.printf("%-40s %s %8d %8d  %s\n", r.SpecPath, state, r.Governed, changed, last)
			}
			printWarnings(s, res.Warnings)
		})
	})
}

func pad(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return s + strings.Repeat(" ", n-len(s))
}

// SpecAffectedCmd is `git gloss spec affected --base REV`.
type SpecAffectedCmd struct {
	Base      string `name:"base" placeholder:"REV" help:"Branch or commit to compare the working tree with (required)."`
	PlainBase bool   `name:"plain-base" help:"Compare with the base itself, not its merge-base with HEAD."`
}

func requireBase(base string) error {
	if strings.TrimSpace(base) == "" {
		return fault.Usagef("--base is required: the branch or commit to compare with (for example --base main); gloss never assumes one")
	}
	return nil
}

// Run lists affected specs.
func (c *SpecAffectedCmd) Run(g *Globals) error {
	if err := requireBase(c.Base); err != nil {
		return err
	}
	return g.withSpecs(func(w *reconcile.Workspace) error {
		res, err := w.ListAffected(reconcile.AffectedInput{BaseBranch: c.Base, PlainBase: c.PlainBase})
		if err != nil {
			return err
		}
		return g.emit(res, func(s *styler) {
			s.printf("%d changed file(s) since %s (%s %s)\n", len(res.ChangedFiles), res.Base, res.BaseMode, gitops.ShortID(res.BaseCommit))
			for _, a := range res.AffectedSpecs {
				why := []string{}
				if a.SpecChanged {
					why = append(why, "spec changed")
				}
				if n := len(a.MatchedFiles); n > 0 {
					why = append(why, strings.Join(first(a.MatchedFiles, 4), ", "))
				}
				if len(a.AppliesChanged) > 0 {
					why = append(why, "applies "+strings.Join(a.AppliesChanged, ", "))
				}
				s.printf("  %s  %s\n", s.bold(a.SpecPath), s.dim(strings.Join(why, "; ")))
			}
			if len(res.AffectedSpecs) == 0 {
				s.println("  no spec affected")
			}
			printWarnings(s, res.Warnings)
		})
	})
}

func first(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(append([]string{}, s[:n]...), "…")
}

// SpecDiffCmd is `git gloss spec diff SPEC --base REV`.
type SpecDiffCmd struct {
	Spec        string   `arg:"" help:"The spec: its path or short name (api for .gloss/specs/api.spec.yaml)."`
	Base        string   `name:"base" placeholder:"REV" help:"Branch or commit to diff against (required)."`
	PlainBase   bool     `name:"plain-base" help:"Diff against the base itself, not its merge-base with HEAD."`
	Exclude     []string `name:"exclude" sep:"none" placeholder:"GLOB" help:"Leave matching files out (repeatable)."`
	BypassCache bool     `name:"bypass-cache" help:"Ignore reconciliation records: every governed file counts as changed."`
}

// Run prints the diff.
func (c *SpecDiffCmd) Run(g *Globals) error {
	if err := requireBase(c.Base); err != nil {
		return err
	}
	return g.withSpecs(func(w *reconcile.Workspace) error {
		res, err := w.SpecDiff(g.ctx, reconcile.DiffInput{SpecPath: g.specArg(c.Spec), BaseBranch: c.Base, PlainBase: c.PlainBase,
			ExcludePatterns: c.Exclude, BypassCache: c.BypassCache})
		if err != nil {
			return err
		}
		return g.emit(res, func(s *styler) {
			s.printf("%s against %s (%s %s), cache %s\n", s.bold(res.SpecPath), res.Base, res.BaseMode, gitops.ShortID(res.BaseCommit), res.Cache.State)
			list := func(label string, items []string) {
				if len(items) > 0 {
					s.printf("%s %s\n", s.dim(label), strings.Join(items, ", "))
				}
			}
			list("changed:", res.Files)
			list("skipped (reconciled):", res.Skipped)
			list("spec invalidated (recheck):", res.SpecInvalidated)
			list("deleted:", res.DeletedFiles)
			for _, r := range res.RenamedFiles {
				s.printf("%s %s → %s\n", s.dim("renamed:"), r.From, r.To)
			}
			list("untracked:", res.UntrackedFiles)
			list("binary:", res.BinaryChanges)
			list("excluded:", res.Excluded)
			for _, sc := range res.SpecChanges {
				s.printf("%s %s\n", s.dim("spec changed:"), sc.Path)
			}
			printWarnings(s, res.Warnings)
			if res.Diff != "" {
				s.println()
				s.printf("%s", res.Diff)
			}
		})
	})
}

// SpecChangedCmd is `git gloss spec changed SPEC [--type CATEGORY]`.
type SpecChangedCmd struct {
	Spec string `arg:"" help:"The spec: its path or short name."`
	Type string `name:"type" placeholder:"CATEGORY" help:"Only this artifact category (code, docs, tests, ...)."`
}

// Run lists changed artifacts.
func (c *SpecChangedCmd) Run(g *Globals) error {
	return g.withSpecs(func(w *reconcile.Workspace) error {
		res, err := w.ChangedArtifacts(reconcile.ArtifactsInput{SpecPath: g.specArg(c.Spec), ArtifactType: c.Type})
		if err != nil {
			return err
		}
		return g.emit(res, func(s *styler) {
			for _, p := range res.ChangedArtifacts {
				s.println(p)
			}
			for _, p := range res.DeletedArtifacts {
				s.printf("%s %s\n", s.dim("deleted:"), p)
			}
			for _, p := range res.SpecInvalidated {
				s.printf("%s %s\n", s.dim("spec changed, recheck:"), p)
			}
			printWarnings(s, res.Warnings)
		})
	})
}

// SpecMarkCmd is `git gloss spec mark FILE...`.
type SpecMarkCmd struct {
	Files []string `arg:"" optional:"" help:"Files (and spec files) you reconciled."`
	Spec  string   `name:"spec" help:"Record for this spec only."`
	Base  string   `name:"base" placeholder:"REV" help:"The base you compared with, kept in the record."`
}

// Run writes records.
func (c *SpecMarkCmd) Run(g *Globals) error {
	if len(c.Files) == 0 {
		return fault.Usagef("name the files you reconciled: git gloss spec mark FILE... (see git gloss spec diff for the list)")
	}
	files := make([]string, len(c.Files))
	for i, f := range c.Files {
		files[i] = g.path(f)
	}
	return g.withSpecs(func(w *reconcile.Workspace) error {
		in := reconcile.MarkInput{Files: files, Base: c.Base, Via: "cli"}
		if c.Spec != "" {
			in.SpecPath = g.specArg(c.Spec)
		}
		res, err := w.Mark(g.ctx, in)
		if err != nil {
			return err
		}
		return g.emit(res, func(s *styler) {
			s.printf("%d file(s) marked reconciled on %s\n", res.Updated, gitops.ShortID(res.Commit))
			for _, r := range res.Records {
				s.printf("  %s  %d file(s)  %s\n", r.SpecPath, r.Files, s.dim(r.ID))
			}
			for _, sk := range res.Skipped {
				s.printf("%s %s: %s\n", s.yellow("skipped"), sk.Path, sk.Reason)
			}
			g.explainMark(s, res)
		})
	})
}

// explainMark says what a mark did to each spec's state. Marking some of
// a never-reconciled spec's files gives it a reconciliation point, and
// from then on every governed file not marked with it counts as changed:
// a spec goes from "never reconciled, 0 changed" to "drifted, 13 changed"
// and the person who marked one file deserves to know why.
func (g *Globals) explainMark(s *styler, res *reconcile.MarkResult) {
	marked := map[string]bool{}
	for _, r := range res.Records {
		marked[r.SpecPath] = true
	}
	_ = g.withSpecs(func(w *reconcile.Workspace) error {
		st, err := w.Status()
		if err != nil {
			return err
		}
		for _, sp := range st.Specs {
			if !marked[sp.SpecPath] {
				continue
			}
			if len(sp.Changed) == 0 && !sp.SpecChanged {
				s.printf("%s is now %s: all %d governed file(s) match this reconciliation\n", sp.SpecPath, sp.State, sp.Governed)
				continue
			}
			s.printf("%s is now %s: %d of %d governed file(s) differ from what was marked, or were never marked with this spec\n",
				sp.SpecPath, sp.State, len(sp.Changed), sp.Governed)
			for i, f := range sp.Changed {
				if i == 5 {
					s.printf("  … and %d more (git gloss spec changed %s)\n", len(sp.Changed)-5, sp.SpecPath)
					break
				}
				s.printf("  %s\n", f)
			}
			s.printf("  once checked against the spec: git gloss spec mark --spec %s FILE...\n", sp.SpecPath)
		}
		return nil
	})
}

// SpecClearCmd is `git gloss spec clear [SPEC]`.
type SpecClearCmd struct {
	Spec string `arg:"" optional:"" help:"Clear one spec; omit for all."`
}

// Run writes the tombstone.
func (c *SpecClearCmd) Run(g *Globals) error {
	return g.withSpecs(func(w *reconcile.Workspace) error {
		res, err := w.Clear(g.ctx, reconcile.ClearInput{SpecPath: g.specArg(c.Spec), Via: "cli"})
		if err != nil {
			return err
		}
		return g.emit(res, func(s *styler) {
			s.printf("Cleared reconciliations of %s (tombstone %s; history kept).\n", res.Scope, res.ID)
		})
	})
}

// SpecSnapshotCmd is `git gloss spec snapshot`.
type SpecSnapshotCmd struct{}

// Run writes the snapshot.
func (c *SpecSnapshotCmd) Run(g *Globals) error {
	return g.withSpecs(func(w *reconcile.Workspace) error {
		res, err := w.Snapshot(g.ctx)
		if err != nil {
			return err
		}
		return g.emit(res, func(s *styler) {
			s.printf("Snapshot saved to %s: %d file(s), %d spec(s) at %s. Commit it to share a warm start.\n", res.StatePath, res.Files, res.Specs, gitops.ShortID(res.GitHash))
		})
	})
}
