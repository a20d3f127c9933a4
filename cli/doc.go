package cli

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/noma"
	"github.com/gloss-dev/gloss/safepath"
)

// DocCmd groups the structured-document commands.
type DocCmd struct {
	New    DocNewCmd    `cmd:"" help:"Start a new .noma document from a valid template."`
	Read   DocReadCmd   `cmd:"" help:"List a document's blocks: type, lines, id, hash (read_doc)."`
	Ids    DocIdsCmd    `cmd:"" help:"List a document's ids and aliases (list_ids)."`
	Check  DocCheckCmd  `cmd:"" help:"Validate a document (validate_doc)."`
	Patch  DocPatchCmd  `cmd:"" help:"Apply a patch op, or an atomic list of ops (patch_block)."`
	Log    DocLogCmd    `cmd:"" help:"Show a document's patch transcript."`
	Replay DocReplayCmd `cmd:"" help:"Re-apply the transcript from its base and check the final sha256."`
	Verify DocVerifyCmd `cmd:"" help:"Run the Noma conformance harness (Annex C) on a fixture directory."`
}

// Help is the long help of doc.
func (DocCmd) Help() string {
	return `Structured documents: .noma files edited through block-addressed, atomic,
validated patches (the Noma Agent Protocol v1.0). Every attempted patch is
recorded in <file>.patches beside the document (commit it with the
document); replay re-applies it from the base found in git history.

Agents use the same operations through the MCP documents toolset: read_doc,
list_ids, validate_doc, patch_block, patch_block_list, transcript_read.
Paths are confined to the repository: "..", absolute paths outside it,
symlinks out and .git are refused.`
}

// withStore opens the repository's document store.
func (g *Globals) withStore(fn func(st *noma.Store) error) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	tree, err := safepath.ForRepo(repo)
	if err != nil {
		return err
	}
	defer tree.Close()
	return fn(noma.NewStore(tree))
}

// DocNewCmd is `git gloss doc new FILE`.
type DocNewCmd struct {
	File  string `arg:"" help:"The document to create, e.g. docs/release-plan.noma."`
	Title string `name:"title" help:"Its title (default: from the file name)."`
}

// Run writes the template.
func (c *DocNewCmd) Run(g *Globals) error {
	return g.withStore(func(st *noma.Store) error {
		rel, err := st.Create(g.path(c.File), c.Title)
		if err != nil {
			return err
		}
		out := createdOutput{Schema: "gloss-created/v1", Path: rel}
		return g.emit(out, func(s *styler) {
			s.printf("wrote %s: a title and two sections (purpose, decisions), each with a block to replace\n", rel)
			s.printf("next: edit it by hand or patch it, check it with 'git gloss doc check %s', and commit it:\n", rel)
			s.printf("  git gloss doc patch %s --op '{\"op\":\"replace_body\",\"id\":\"purpose-text\",\"content\":\"…\"}'\n", rel)
			s.printf("  git gloss doc patch %s --op '{\"op\":\"add_block\",\"parent\":\"decisions\",\"content\":\"::decision{id=\\\"…\\\" status=\\\"accepted\\\"}\\n…\\n::\"}'\n", rel)
		})
	})
}

// DocReadCmd is `git gloss doc read`.
type DocReadCmd struct {
	File string `arg:"" help:"The .noma document."`
}

// Run lists the blocks.
func (c *DocReadCmd) Run(g *Globals) error {
	return g.withStore(func(st *noma.Store) error {
		res, err := st.Read(g.path(c.File))
		if err != nil {
			return err
		}
		return g.emit(res, func(s *styler) {
			for _, b := range res.Blocks {
				id := ""
				if b.ID != nil {
					id = *b.ID
				}
				label := b.Type
				switch {
				case b.Name != "":
					label += " " + b.Name
				case b.Title != "":
					label += fmt.Sprintf(" h%d %q", b.Level, b.Title)
				}
				hash := ""
				if b.Hash != "" {
					hash = b.Hash[:12]
				}
				s.printf("%4d-%-4d %-28s %-20s %s\n", b.Lines[0], b.Lines[1], label, s.cyan(id), s.dim(hash))
			}
		})
	})
}

// DocIdsCmd is `git gloss doc ids`.
type DocIdsCmd struct {
	File string `arg:"" help:"The .noma document."`
}

// Run lists the ids.
func (c *DocIdsCmd) Run(g *Globals) error {
	return g.withStore(func(st *noma.Store) error {
		res, err := st.IDs(g.path(c.File))
		if err != nil {
			return err
		}
		return g.emit(res, func(s *styler) {
			for _, id := range res.IDs {
				s.println(id)
			}
			for _, a := range slices.Sorted(maps.Keys(res.Aliases)) {
				s.printf("%s → %s\n", s.dim(a), res.Aliases[a])
			}
		})
	})
}

// DocCheckCmd is `git gloss doc check`.
type DocCheckCmd struct {
	File       string   `arg:"" help:"The .noma document, or a book manifest (.yml) whose chapters are checked as one document."`
	IgnoreRule []string `name:"ignore-rule" sep:"," help:"Drop diagnostics with this code (repeatable)."`
	Profile    []string `name:"profile" sep:"," help:"Also apply this profile."`
	NoEvidence bool     `name:"no-require-evidence" help:"Do not require evidence for claims."`
}

// Run validates.
func (c *DocCheckCmd) Run(k *kong.Context, g *Globals) error {
	return g.withStore(func(st *noma.Store) error {
		file := g.path(c.File)
		opts := noma.ValidateOptions{IgnoreRules: c.IgnoreRule, Profiles: c.Profile, SkipEvidenceForClaims: c.NoEvidence}
		check := st.Check
		if noma.IsBookManifest(file) {
			// The reference CLI checks a whole book; only the MCP tools
			// refuse manifests (Annex B).
			check = st.CheckBook
		}
		res, err := check(file, opts)
		if err != nil {
			return err
		}
		rel, _ := st.Rel(file)
		if err := g.emit(res, func(s *styler) {
			if len(res.Diagnostics) == 0 {
				s.println(s.green("✓") + " No issues found.")
				return
			}
			for _, d := range res.Diagnostics {
				sev := strings.ToUpper(d.Severity)
				switch d.Severity {
				case noma.SevError:
					sev = s.red(sev)
				case noma.SevWarning:
					sev = s.yellow(sev)
				}
				loc := rel
				if d.Pos != nil {
					loc += fmt.Sprintf(":%d:%d", d.Pos.Line, d.Pos.Column)
					if d.EndLine > d.Pos.Line {
						loc += fmt.Sprintf("-%d", d.EndLine)
					}
				}
				s.printf("%s [%s] %s: %s\n", sev, d.Code, loc, d.Message)
			}
		}); err != nil {
			return err
		}
		if !res.OK {
			return checkFailed(k)
		}
		return nil
	})
}

// DocPatchCmd is `git gloss doc patch`.
type DocPatchCmd struct {
	File        string `arg:"" help:"The .noma document."`
	Op          string `name:"op" help:"One op as JSON, e.g. '{\"op\":\"update_attribute\",\"id\":\"c1\",\"key\":\"confidence\",\"value\":0.9}'."`
	Ops         string `name:"ops" placeholder:"FILE" help:"A JSON file in the repository (- for standard input) with an op, an array of ops or {ops:[…]}: applied atomically."`
	Reason      string `name:"reason" help:"Why (recorded in the transcript)."`
	ExpectedSHA string `name:"expected-sha" help:"Refuse unless the document's sha256 starts with these 8 hex digits."`
	BaseSHA256  string `name:"base-sha256" help:"The document sha256 the change was based on (a drift warning if it differs)."`
	BaseHash    string `name:"base-hash" help:"The block hash (prefix, 8-64 hex) the op was based on."`
	ActorKind   string `name:"actor-kind" enum:"human,agent,tool" default:"human" help:"human, agent or tool."`
	ActorName   string `name:"actor-name" help:"Who (default: git config user.name, else $USER)."`
	Strict      bool   `name:"strict" help:"Refuse a result that has validation errors."`
}

// Help is the long help of doc patch: what an op looks like, and every
// op with its fields, from the table the patcher checks them against.
func (DocPatchCmd) Help() string {
	var b strings.Builder
	b.WriteString(`Applies one op (--op JSON) or a list of ops (--ops FILE, applied all or
none) to a .noma document, validates the result and records the attempt in
<file>.patches. An op is a JSON object naming the op and its fields; blocks
are addressed by id (git gloss doc ids FILE lists them). For example:

  git gloss doc patch plan.noma --op '{"op":"replace_body","id":"purpose-text","content":"Tracks the 2.0 release."}'
  git gloss doc patch plan.noma --op '{"op":"add_block","parent":"decisions","content":"::decision{id=\"go\" status=\"accepted\"}\nWe build in Go.\n::"}'

The `)
	names := noma.OpNames()
	fmt.Fprintf(&b, "%d operations (fields in brackets are optional):\n\n", len(names))
	for _, n := range names {
		fmt.Fprintf(&b, "  %-25s %s\n", n, noma.OpFields(n))
	}
	b.WriteString(`
Every op also takes baseHash (the block's hash from doc read, 8-64 hex
digits): it is refused when the block changed since.`)
	return b.String()
}

// Run patches.
func (c *DocPatchCmd) Run(k *kong.Context, g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	var data []byte
	switch {
	case c.Op != "" && c.Ops != "":
		return fault.Usagef("give --op or --ops, not both")
	case c.Op != "":
		data = []byte(c.Op)
	case c.Ops == "-":
		if data, err = io.ReadAll(io.LimitReader(g.stdin, 8<<20)); err != nil {
			return err
		}
	case c.Ops != "":
		// like every path gloss takes, --ops goes through the one resolver
		tree, err := safepath.ForRepo(repo)
		if err != nil {
			return err
		}
		data, err = tree.ReadFile(g.path(c.Ops), 8<<20)
		tree.Close()
		if err != nil {
			return fmt.Errorf("--ops: %w", err)
		}
	default:
		return fault.Usagef("give the op with --op JSON or --ops FILE")
	}
	ops, opErrs, err := noma.DecodeOps(data)
	if err != nil {
		return fault.Usagef("%v", err)
	}
	actor := noma.LocalActor(g.ctx, repo, c.ActorKind, c.ActorName)
	return g.withStore(func(st *noma.Store) error {
		res, err := st.Patch(noma.PatchRequest{File: g.path(c.File), Ops: ops, OpErrs: opErrs, Reason: c.Reason,
			ExpectedSHA: c.ExpectedSHA, BaseSHA256: c.BaseSHA256, BaseHash: c.BaseHash,
			Actor: actor, Strict: c.Strict})
		if err != nil {
			return err
		}
		if err := g.emit(res, func(s *styler) {
			if !res.OK {
				s.printf("%s %s: %s\n", s.red("✗ rejected"), res.Code, res.Error)
				return
			}
			rec, _ := res.Transcript.(*noma.Record)
			what := "applied"
			if rec != nil && rec.PatchResult == "noop" {
				what = "no change"
			}
			s.printf("%s %s (%d op(s)); validation: %s\n", s.green("✓"), what, len(ops), res.PostValidation)
			if rec != nil {
				s.printf("  %s → %s, recorded in %s\n", rec.PreSHA, rec.PostSHA, filepath.Base(c.File)+".patches")
			}
			if res.Diagnostics != nil {
				for _, d := range *res.Diagnostics {
					s.printf("  %s [%s] %s\n", d.Severity, d.Code, d.Message)
				}
			}
		}); err != nil {
			return err
		}
		if !res.OK {
			return checkFailed(k)
		}
		return nil
	})
}

// DocLogCmd is `git gloss doc log`.
type DocLogCmd struct {
	File string `arg:"" help:"The .noma document."`
}

// Run shows the transcript.
func (c *DocLogCmd) Run(g *Globals) error {
	return g.withStore(func(st *noma.Store) error {
		res, lines, err := st.TranscriptLines(g.path(c.File))
		if err != nil {
			return err
		}
		return g.emit(res, func(s *styler) {
			if len(lines) == 0 {
				s.println("No patches recorded for " + res.File + ".")
				return
			}
			for _, l := range lines {
				s.println(l)
			}
			if !res.ChainOK {
				s.println(s.red("✗") + " the prev_entry_sha256 chain is broken: a record was edited or removed")
			}
		})
	})
}

// DocReplayCmd is `git gloss doc replay`.
type DocReplayCmd struct {
	File string `arg:"" help:"The .noma document."`
}

// Run replays.
func (c *DocReplayCmd) Run(k *kong.Context, g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	tree, err := safepath.ForRepo(repo)
	if err != nil {
		return err
	}
	defer tree.Close()
	st := noma.NewStore(tree)
	file := g.path(c.File)
	rel, err := st.Rel(file)
	if err != nil {
		return err
	}
	res, err := st.Replay(file, noma.GitBaseFinder(repo, rel))
	if err != nil {
		return err
	}
	if err := g.emit(res, func(s *styler) {
		if res.OK {
			s.printf("%s replayed %d applied op(s) from %s (%s): sha256 %s matches the transcript", s.green("✓"), res.Applied, gitops.ShortID(res.Base), res.BaseFrom, gitops.ShortID(res.FinalSHA256))
			if !res.Current {
				s.printf("; the file has changed since")
			}
			s.println()
			return
		}
		s.printf("%s replay failed: %s\n", s.red("✗"), res.Error)
	}); err != nil {
		return err
	}
	if !res.OK {
		return checkFailed(k)
	}
	return nil
}

// DocVerifyCmd is `git gloss doc verify`.
type DocVerifyCmd struct {
	Dir string `arg:"" optional:"" help:"The fixture directory (Annex C layout)."`
}

// Run runs the harness: PASS/FAIL/SKIP per fixture, sorted by path, then
// the summary; exit 0 when all pass, 1 on a failure, 2 for a missing or
// absent directory.
func (c *DocVerifyCmd) Run(k *kong.Context, g *Globals) error {
	if c.Dir == "" {
		fmt.Fprintln(g.stderr, "noma verify: <fixture-dir> required")
		return &fault.Error{Kind: fault.Usage, Err: errSilent}
	}
	base, _ := filepath.Abs(g.workDir())
	rep, err := noma.Verify(g.path(c.Dir), base)
	if errors.Is(err, noma.ErrNoFixtureDir) {
		fmt.Fprintf(g.stderr, "noma verify: %s does not exist\n", c.Dir)
		return &fault.Error{Kind: fault.Usage, Err: errSilent}
	}
	if err != nil {
		return err
	}
	if err := g.emit(rep, func(s *styler) {
		for _, l := range rep.Lines() {
			fmt.Fprintln(s.w, l)
		}
	}); err != nil {
		return err
	}
	if rep.Failed > 0 {
		return checkFailed(k)
	}
	return nil
}

// checkFailed ends a command whose answer (already printed, JSON or
// human) is negative: exit 1, with nothing more on stdout, so that --json
// prints exactly the answer the MCP tool returns.
func checkFailed(k *kong.Context) error {
	k.Kong.Exit(ExitCheck)
	return nil
}
