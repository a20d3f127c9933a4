package forge

import (
	"context"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/noma"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/reconcile"
	"github.com/gloss-dev/gloss/schemas"
	"github.com/gloss-dev/gloss/tasks"
)

// Finding levels, as SARIF names them.
const (
	LevelError   = "error"
	LevelWarning = "warning"
	LevelNote    = "note"
)

// Checks a finding comes from.
const (
	CheckSpec = "spec"
	CheckTask = "task"
	CheckNoma = "noma"
)

// Policies: Policy "" follows each spec's coverage.policy (as pre-push
// does) and fails on task and document errors.
const (
	PolicyWarn   = "warn"
	PolicyStrict = "strict"
)

// CheckOptions says which range to check and how strictly.
type CheckOptions struct {
	// Base and Head bound the range; the check covers base's merge base
	// with head up to head. Base "" is found from the CI's environment
	// (the pull request's target branch), else the remote's default
	// branch. Head "" is HEAD.
	Base, Head string
	// MergeBase says Base is the merge base already (a caller that
	// computed it): the walk to find it is skipped.
	MergeBase bool
	Remote    string
	// NoFetch skips fetching the remote's gloss notes.
	NoFetch bool
	// Policy is "", warn or strict (see the constants).
	Policy string
	// Env reads the environment; nil is os.Getenv.
	Env func(string) string
}

// Finding is one problem the check found.
type Finding struct {
	Check   string `json:"check" jsonschema:"spec, task or noma"`
	Rule    string `json:"rule"`
	Level   string `json:"level" jsonschema:"error, warning or note"`
	File    string `json:"file,omitempty"`
	Spec    string `json:"spec,omitempty" jsonschema:"the spec a spec finding is about"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Message string `json:"message"`
	// Blocking findings fail the check (exit 1).
	Blocking bool `json:"blocking"`
}

// CheckReport is `git gloss ci check`'s answer.
type CheckReport struct {
	Schema   string    `json:"$schema"`
	Base     string    `json:"base"`
	Head     string    `json:"head"`
	Policy   string    `json:"policy" jsonschema:"spec (each spec's coverage.policy; task and document errors fail), warn or strict"`
	Failed   bool      `json:"failed"`
	Findings []Finding `json:"findings"`
	Checked  struct {
		Specs     int `json:"specs"`
		Tasks     int `json:"tasks"`
		Documents int `json:"documents"`
	} `json:"checked" jsonschema:"affected specs found out of step, changed task files and changed .noma documents looked at"`
	Notes []string `json:"notes"`
}

// Check runs the pre-push checks over base..head: the specs the range's
// changes affect (validated, and drifted since their last reconciliation),
// the lint of changed task files, and the validation of changed .noma
// documents. Failed is set when a finding blocks: a spec under a strict
// policy, or an error in a task or a document (unless Policy is warn).
func Check(ctx context.Context, repo *gitops.Repo, opts CheckOptions) (*CheckReport, error) {
	if opts.Remote == "" {
		opts.Remote = "origin"
	}
	if opts.Env == nil {
		opts.Env = os.Getenv
	}
	if opts.Policy != "" && opts.Policy != PolicyWarn && opts.Policy != PolicyStrict {
		return nil, fault.Usagef("policy %q: want warn or strict", opts.Policy)
	}
	rep := &CheckReport{Schema: "gloss-ci-check/v1", Policy: opts.Policy, Findings: []Finding{}, Notes: []string{}}
	if rep.Policy == "" {
		rep.Policy = "spec"
	}
	if !opts.NoFetch && hasRemote(ctx, repo, opts.Remote) {
		if err := fetchNotes(ctx, repo, opts.Remote); err != nil {
			return nil, err
		}
	}
	head, base, err := resolveRange(ctx, repo, opts)
	if err != nil {
		return nil, err
	}
	rep.Head, rep.Base = head, base
	changes, err := repo.DiffTrees(base, head, gitops.DiffOptions{})
	if err != nil {
		return nil, err
	}
	steps := []func(context.Context, *gitops.Repo, CheckOptions, []gitops.Change, *CheckReport) error{checkSpecs, checkTasks, checkDocuments, checkAnnotated}
	for _, step := range steps {
		if err := step(ctx, repo, opts, changes, rep); err != nil {
			return nil, err
		}
	}
	for _, f := range rep.Findings {
		rep.Failed = rep.Failed || f.Blocking
	}
	return rep, nil
}

// resolveRange finds head and the base the range starts from.
func resolveRange(ctx context.Context, repo *gitops.Repo, opts CheckOptions) (head, base string, err error) {
	h := opts.Head
	if h == "" {
		h = "HEAD"
	}
	if head, err = repo.ResolveCommit(h); err != nil {
		return "", "", fault.NotFoundf("head %s: %s", fault.Quote(h), fault.Line(err.Error()))
	}
	b := opts.Base
	if b == "" {
		b = DefaultBase(ctx, repo, opts.Remote, opts.Env)
	}
	if b == "" {
		return "", "", fault.Usagef("no base to compare with: pass --base (CI clones need the target branch: fetch-depth: 0, or git fetch %s <branch>)", fault.Quote(opts.Remote))
	}
	id, err := repo.ResolveCommit(b)
	if err != nil {
		return "", "", fault.NotFoundf("base %s is not in this clone (a shallow CI checkout? fetch the target branch, or use fetch-depth: 0): %s", fault.Quote(b), fault.Line(err.Error()))
	}
	if opts.MergeBase {
		return head, id, nil
	}
	mb, err := repo.MergeBase(id, head)
	if err != nil || mb == "" {
		return "", "", fault.NotFoundf("base %s and head %s share no history (a shallow clone? deepen it)", fault.Quote(b), fault.Quote(h))
	}
	return head, mb, nil
}

// DefaultBase is the base a check compares with when none is given: the
// pull request's target branch from the CI's environment (GitHub Actions'
// GITHUB_BASE_REF, GitLab's CI_MERGE_REQUEST_DIFF_BASE_SHA), else the
// remote's default branch as this clone knows it.
func DefaultBase(ctx context.Context, repo *gitops.Repo, remote string, env func(string) string) string {
	if sha := env("CI_MERGE_REQUEST_DIFF_BASE_SHA"); sha != "" {
		return sha
	}
	if ref := env("GITHUB_BASE_REF"); ref != "" {
		return "refs/remotes/" + remote + "/" + ref
	}
	if ref := env("CI_MERGE_REQUEST_TARGET_BRANCH_NAME"); ref != "" {
		return "refs/remotes/" + remote + "/" + ref
	}
	for _, r := range []string{"refs/remotes/" + remote + "/HEAD", "refs/remotes/" + remote + "/main", "refs/remotes/" + remote + "/master"} {
		if _, err := repo.ResolveCommit(r); err == nil {
			return r
		}
	}
	return ""
}

// checkSpecs is the pre-push reconciliation check, over the range.
func checkSpecs(ctx context.Context, repo *gitops.Repo, opts CheckOptions, _ []gitops.Change, rep *CheckReport) error {
	mode := opts.Policy
	up := reconcile.PushUpdate{LocalRef: "HEAD", LocalSHA: rep.Head, RemoteRef: "HEAD", RemoteSHA: rep.Base}
	push, err := reconcile.CheckPush(ctx, repo, opts.Remote, []reconcile.PushUpdate{up}, mode)
	if err != nil {
		return err
	}
	for _, s := range push.Specs {
		rep.Checked.Specs++
		level, blocking := LevelWarning, s.Policy == PolicyStrict && opts.Policy != PolicyWarn
		if blocking {
			level = LevelError
		}
		add := func(rule, file string, line, col int, msg string) {
			rep.Findings = append(rep.Findings, Finding{Check: CheckSpec, Rule: rule, Level: level, File: file, Spec: s.SpecPath, Line: line, Column: col, Message: msg, Blocking: blocking})
		}
		for _, p := range s.Issues {
			where := p.Path
			if where == "" {
				where = "/"
			}
			add("spec-invalid", s.SpecPath, p.Line, p.Column, fmt.Sprintf("invalid spec [%s]: %s: %s", s.Policy, where, p.Message))
		}
		if s.SpecChanged {
			add("spec-changed", s.SpecPath, 0, 0, fmt.Sprintf("spec text changed since its last reconciliation [%s]; reconcile, then git gloss spec mark", s.Policy))
		}
		for _, f := range s.Drifted {
			what := "changed since the last reconciliation of " + s.SpecPath
			if s.Never {
				what = "changed; " + s.SpecPath + " was never reconciled"
			}
			add("spec-drift", f, 0, 0, fmt.Sprintf("%s [%s]; reconcile, then git gloss spec mark %s", what, s.Policy, f))
		}
	}
	return nil
}

// changedFiles lists the paths the range added or modified (renames
// included) that keep satisfies.
func changedFiles(changes []gitops.Change, keep func(string) bool) []string {
	var out []string
	for _, c := range changes {
		if c.Status != gitops.Deleted && keep(c.Path) {
			out = append(out, c.Path)
		}
	}
	return out
}

func isTaskFile(p string) bool {
	return path.Dir(p) == tasks.Dir && strings.HasSuffix(p, ".md") && tasks.ValidID(strings.TrimSuffix(path.Base(p), ".md"))
}

// checkTasks lints the changed task files. Lint reads the working tree,
// so it runs only when head is what is checked out (as in CI).
func checkTasks(ctx context.Context, repo *gitops.Repo, opts CheckOptions, changes []gitops.Change, rep *CheckReport) error {
	files := changedFiles(changes, isTaskFile)
	if len(files) == 0 {
		return nil
	}
	if cur, _ := repo.Head(); cur != rep.Head || repo.IsBare() {
		rep.Notes = append(rep.Notes, fmt.Sprintf("task lint skipped: %d changed task file(s), but head is not checked out here", len(files)))
		return nil
	}
	store, err := tasks.Open(ctx, repo)
	if err != nil {
		return err
	}
	defer store.Close()
	for _, f := range files {
		lr, err := store.Lint(strings.TrimSuffix(path.Base(f), ".md"))
		if err != nil {
			return fmt.Errorf("lint %s: %w", f, err)
		}
		rep.Checked.Tasks++
		for _, r := range lr.Results {
			for _, d := range r.Diagnostics {
				level, blocking := LevelWarning, false
				if d.Severity == "error" {
					level, blocking = LevelError, opts.Policy != PolicyWarn
				}
				rep.Findings = append(rep.Findings, Finding{Check: CheckTask, Rule: "task-" + d.Rule, Level: level, File: f, Message: d.Message, Blocking: blocking})
			}
			if r.TrafficLight == "red" {
				msg := "task needs refining (lint grades it red)"
				if len(r.Suggestions) > 0 {
					msg += ": " + strings.Join(r.Suggestions, "; ")
				}
				rep.Findings = append(rep.Findings, Finding{Check: CheckTask, Rule: "task-red", Level: LevelWarning, File: f, Message: msg})
			}
		}
	}
	return nil
}

// checkDocuments validates the changed .noma documents as of head.
func checkDocuments(_ context.Context, repo *gitops.Repo, opts CheckOptions, changes []gitops.Change, rep *CheckReport) error {
	files := changedFiles(changes, func(p string) bool { return strings.HasSuffix(p, ".noma") })
	for _, f := range files {
		src, err := repo.ReadFile(rep.Head, f)
		if err != nil {
			return fmt.Errorf("read %s at %s: %w", f, rep.Head, err)
		}
		rep.Checked.Documents++
		doc, err := noma.Parse(string(src))
		if err != nil {
			rep.Findings = append(rep.Findings, Finding{Check: CheckNoma, Rule: "noma-parse", Level: LevelError, File: f, Message: err.Error(), Blocking: opts.Policy != PolicyWarn})
			continue
		}
		for _, d := range noma.Check(doc, noma.ValidateOptions{}).Diagnostics {
			fd := Finding{Check: CheckNoma, Rule: "noma-" + d.Code, Level: LevelNote, File: f, Message: d.Message}
			switch d.Severity {
			case noma.SevError:
				fd.Level, fd.Blocking = LevelError, opts.Policy != PolicyWarn
			case noma.SevWarning:
				fd.Level = LevelWarning
			}
			if d.Pos != nil {
				fd.Line, fd.Column = d.Pos.Line, d.Pos.Column
			}
			rep.Findings = append(rep.Findings, fd)
		}
	}
	return nil
}

// checkAnnotated notes the range's commits that have no annotations here:
// after a squash merge, carry can only bring over what was shared, so a
// developer who pushed a branch without `git gloss sync` learns it now,
// not after the merge.
func checkAnnotated(ctx context.Context, repo *gitops.Repo, _ CheckOptions, _ []gitops.Change, rep *CheckReport) error {
	// Over the blame graph's commit-graph when there is one: without it
	// git parses every commit of the range (0.25 s of CPU for 800 of
	// git/git's).
	out, err := repo.GitWalk(ctx, "rev-list", "--no-merges", rep.Head, "^"+rep.Base)
	if err != nil {
		return err
	}
	commits := strings.Fields(string(out))
	if len(commits) == 0 {
		return nil
	}
	recs, err := notes.Open(repo, notes.Annotations).Read(commits)
	if err != nil {
		return err
	}
	if missing := len(commits) - len(recs); missing > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d of %d commit(s) in the range have no annotations here: "+
			"if they were annotated, run git gloss sync after pushing, so that a squash merge can carry them", missing, len(commits)))
	}
	return nil
}

func init() {
	schemas.Register(schemas.Entry{Name: "ci-check", Tag: "gloss-ci-check/v1", Description: "The pre-push checks over a commit range, for CI (git gloss ci check).", Type: schemas.TypeOf[CheckReport]()})
}
