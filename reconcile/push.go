package reconcile

import (
	"context"
	"fmt"
	"strings"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/spec"
)

// PushUpdate is one ref being pushed (a line of pre-push's input).
type PushUpdate struct {
	LocalRef, LocalSHA, RemoteRef, RemoteSHA string
}

// PushSpec is one affected spec in a pushed range.
type PushSpec struct {
	Ref      string   `json:"ref"`
	SpecPath string   `json:"spec_path"`
	Policy   string   `json:"policy"`
	Problems []string `json:"problems"`
	// Issues are Problems with their positions, for callers that point at
	// lines (CI annotations).
	Issues      []spec.Problem `json:"-"`
	Drifted     []string       `json:"drifted"` // changed governed files not matching the last reconciliation
	SpecChanged bool           `json:"spec_changed"`
	Never       bool           `json:"never_reconciled"`
	Base        string         `json:"base"`
}

// PushReport is the pre-push verdict.
type PushReport struct {
	Specs   []PushSpec `json:"specs"`
	Block   bool       `json:"block"`
	Message string     `json:"message"`
}

func isZero(sha string) bool { return strings.Trim(sha, "0") == "" }

// CheckPush checks every pushed range: the specs its changes affect are
// validated, and those whose changed governed files (or own text) differ
// from their last reconciliation are reported. mode is git config
// gloss.prepush ("warn", "strict", "off" or "" to follow each spec's
// coverage.policy, then the system spec's, then warn). Block is set when
// a spec under a strict policy is invalid or drifted.
func CheckPush(ctx context.Context, repo *gitops.Repo, remote string, updates []PushUpdate, mode string) (*PushReport, error) {
	rep := &PushReport{Specs: []PushSpec{}}
	if mode == "off" {
		return rep, nil
	}
	for _, u := range updates {
		if isZero(u.LocalSHA) {
			continue // a deletion pushes no content
		}
		local, err := repo.ResolveCommit(u.LocalSHA)
		if err != nil {
			continue // a tag of a non-commit, say
		}
		base := ""
		if !isZero(u.RemoteSHA) {
			if id, err := repo.ResolveCommit(u.RemoteSHA); err == nil {
				if ok, _ := repo.IsAncestor(id, local); ok {
					base = id
				} else if mb, _ := repo.MergeBase(id, local); mb != "" {
					base = mb
				}
			}
		}
		if base == "" {
			if def := defaultBranchTip(repo, remote); def != "" {
				base, _ = repo.MergeBase(def, local)
			}
		}
		specs, err := checkRange(ctx, repo, u.LocalRef, base, local, mode)
		if err != nil {
			return nil, err
		}
		rep.Specs = append(rep.Specs, specs...)
	}
	rep.Message, rep.Block = pushMessage(rep.Specs, remote, func() string { return defaultBaseName(ctx, repo, remote) })
	return rep, nil
}

// defaultBranchTip finds the remote's default branch as known locally.
func defaultBranchTip(repo *gitops.Repo, remote string) string {
	if remote == "" {
		remote = "origin"
	}
	for _, r := range []string{"refs/remotes/" + remote + "/HEAD", "refs/remotes/" + remote + "/main", "refs/remotes/" + remote + "/master"} {
		if id, err := repo.ResolveCommit(r); err == nil {
			return id
		}
	}
	return ""
}

// defaultBaseName names the branch a hint should compare with: the
// remote's default branch as this clone knows it (its HEAD, else its main
// or master), else the local main or master, else the current branch. A
// repository whose branch is master is never told origin/main.
func defaultBaseName(ctx context.Context, repo *gitops.Repo, remote string) string {
	if remote == "" {
		remote = "origin"
	}
	if out, err := repo.Git(ctx, "symbolic-ref", "--quiet", "--short", "refs/remotes/"+remote+"/HEAD"); err == nil {
		if name := strings.TrimSpace(string(out)); name != "" {
			return name
		}
	}
	for _, b := range []string{"main", "master"} {
		if _, err := repo.ResolveCommit("refs/remotes/" + remote + "/" + b); err == nil {
			return remote + "/" + b
		}
	}
	for _, b := range []string{"main", "master"} {
		if repo.BranchExists(b) {
			return b
		}
	}
	if b, err := repo.HeadBranch(); err == nil && b != "" {
		return b
	}
	return "<branch>"
}

func checkRange(ctx context.Context, repo *gitops.Repo, ref, base, local, mode string) ([]PushSpec, error) {
	if base == local {
		return nil, nil
	}
	changes, err := repo.DiffTrees(base, local, gitops.DiffOptions{})
	if err != nil {
		return nil, err
	}
	cs := newChangeSet(changes)
	tree, err := spec.CommitTree(repo, local)
	if err != nil {
		return nil, err
	}
	set, err := spec.LoadSet(tree)
	if err != nil {
		return nil, err
	}
	st, err := loadState(ctx, repo, local, tree)
	if err != nil {
		return nil, err
	}
	w := &Workspace{Repo: repo, Tree: tree, Specs: set, State: st, Head: local}
	baseName := base
	if baseName == "" {
		baseName = "(root)"
	}
	var out []PushSpec
	policyOf := func(sp *spec.Spec) string {
		switch {
		case mode == "warn" || mode == "strict":
			return mode
		case sp.Policy() != "":
			return sp.Policy()
		case set.System != nil && set.System.Policy() != "":
			return set.System.Policy()
		}
		return "warn"
	}
	// A changed spec file that does not even parse is reported too.
	for _, sp := range set.Specs {
		if !sp.Parsed && cs.present[sp.Path] {
			ps := PushSpec{Ref: ref, SpecPath: sp.Path, Policy: policyOf(sp), Drifted: []string{}, Base: baseName}
			for _, p := range sp.Problems {
				ps.Problems = append(ps.Problems, p.String())
			}
			ps.Issues = sp.Problems
			if ps.Policy != "off" {
				out = append(out, ps)
			}
		}
	}
	for _, a := range affectedSpecs(set, cs.changed, cs.present) {
		sp := set.Get(a.SpecPath)
		ps := PushSpec{Ref: ref, SpecPath: sp.Path, Policy: policyOf(sp), Problems: []string{}, Drifted: []string{}, Base: baseName}
		if ps.Policy == "off" {
			continue
		}
		for _, p := range sp.Problems {
			ps.Problems = append(ps.Problems, p.String())
		}
		ps.Issues = sp.Problems
		v := st.view(sp.Path)
		ps.Never = !v.warm
		var files []string
		for _, p := range a.MatchedFiles {
			if tree.Has(p) && !set.IsSpecPath(p) {
				files = append(files, p)
			}
		}
		changed, _, _ := w.classify(v, files, false)
		ps.Drifted = nonNil(changed)
		if a.SpecChanged {
			ps.SpecChanged, _ = w.specChanged(v, sp.Path)
		}
		if len(ps.Problems) > 0 || len(ps.Drifted) > 0 || ps.SpecChanged {
			out = append(out, ps)
		}
	}
	return out, nil
}

func pushMessage(specs []PushSpec, remote string, fallbackBase func() string) (string, bool) {
	if len(specs) == 0 {
		return "", false
	}
	var b strings.Builder
	block := false
	for _, s := range specs {
		if s.Policy == "strict" {
			block = true
		}
	}
	if block {
		b.WriteString("gloss: push blocked: specs under a strict policy are out of step with the files they govern\n")
	} else {
		b.WriteString("gloss: warning: specs are out of step with the files they govern (pushing anyway)\n")
	}
	base := ""
	for _, s := range specs {
		fmt.Fprintf(&b, "  %s [%s] in %s\n", s.SpecPath, s.Policy, s.Ref)
		for _, p := range s.Problems {
			fmt.Fprintf(&b, "    invalid: %s\n", p)
		}
		if s.SpecChanged {
			b.WriteString("    spec text changed since its last reconciliation\n")
		}
		if len(s.Drifted) > 0 {
			what := "changed since its last reconciliation"
			if s.Never {
				what = "changed; the spec was never reconciled"
			}
			fmt.Fprintf(&b, "    %d governed file(s) %s: %s\n", len(s.Drifted), what, strings.Join(first(s.Drifted, 5), ", "))
		}
		if base == "" && s.Base != "(root)" {
			base = s.Base
		}
	}
	for _, s := range specs {
		if s.Never {
			fmt.Fprintf(&b, "Some specs have no reconciliation record here; if others reconciled them, git gloss sync %s fetches their records.\n", remote)
			break
		}
	}
	if base == "" {
		base = fallbackBase()
	} else {
		base = gitops.ShortID(base)
	}
	fmt.Fprintf(&b, "Next: git gloss spec validate; git gloss spec diff <spec> --base %s; reconcile; then git gloss spec mark <files> (records travel with git gloss sync).\n", base)
	if block {
		b.WriteString("Bypass once with git push --no-verify, or set git config gloss.prepush warn.")
	} else {
		b.WriteString("Set git config gloss.prepush off to silence this check.")
	}
	return b.String(), block
}

func first(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(append([]string{}, s[:n]...), fmt.Sprintf("… %d more", len(s)-n))
}
