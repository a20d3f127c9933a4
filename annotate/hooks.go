package annotate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/lazyregexp"
	"github.com/gloss-dev/gloss/notes"
)

// carryAndCapture carries the sources' records over onto to, then captures
// what they do not cover. carried says an earlier run wrote the carried
// records already.
func carryAndCapture(ctx context.Context, repo *gitops.Repo, sources []string, to, source string, opts Options, carried bool) error {
	store := notes.Open(repo, notes.Annotations)
	recs, err := store.Read(sources)
	if err != nil {
		return err
	}
	var out []any
	var covered []Region
	for _, s := range sources {
		carried, regions, err := carryRecords(ctx, repo, recs[s], s, to, source)
		if err != nil {
			return err
		}
		out = append(out, carried...)
		covered = append(covered, regions...)
	}
	if !carried {
		if err := store.Append(ctx, to, out...); err != nil {
			return err
		}
	}
	opts.Skip = covered
	opts.NoSummary = len(out) > 0
	_, err = Capture(ctx, repo, to, opts)
	return err
}

// PostRewrite carries records across an amend or a rebase. git has
// already copied the old notes onto the new commits (notes.rewriteRef);
// gloss writes corrected copies — lines remapped to the new content,
// provenance amend or rebase — that supersede git's verbatim ones, and
// copies itself when git did not. Commits squashed or fixed up into one
// all carry over onto it. After an amend it also captures what the amend
// changed beyond the carried regions.
func PostRewrite(ctx context.Context, repo *gitops.Repo, kind string, pairs [][2]string, annotator string, work []AgentWork) error {
	// A reword inside a rebase is reported as an amend first.
	source := SourceRebase
	if kind == "amend" && !repo.RebaseInProgress() {
		source = SourceAmend
	}
	var order []string
	olds := map[string][]string{}
	var all []string
	for _, p := range pairs {
		if _, seen := olds[p[1]]; !seen {
			order = append(order, p[1])
		}
		olds[p[1]] = append(olds[p[1]], p[0])
		all = append(all, p[0])
	}
	store := notes.Open(repo, notes.Annotations)
	recs, err := store.Read(all)
	if err != nil {
		return err
	}
	var problems []error
	for _, to := range order {
		var out []any
		var covered []Region
		for _, from := range olds[to] {
			carried, regions, err := carryRecords(ctx, repo, recs[from], from, to, source)
			if err != nil {
				problems = append(problems, err)
				continue
			}
			out = append(out, carried...)
			covered = append(covered, regions...)
		}
		if err := store.Append(ctx, to, out...); err != nil {
			return err
		}
		// An amend inside a rebase (a reword) is followed by the rebase's own
		// post-rewrite; capturing here would annotate an intermediate commit.
		if kind == "amend" && !repo.RebaseInProgress() {
			opts := Options{Annotator: annotator, ConsumePending: true, Skip: covered, NoSummary: len(out) > 0, Agent: work}
			if _, err := Capture(ctx, repo, to, opts); err != nil {
				problems = append(problems, err)
			}
		}
	}
	return errors.Join(problems...)
}

var squashLine = lazyregexp.New(`(?m)^commit ([0-9a-f]{40})$`)

// squashState is what prepare-commit-msg leaves for post-commit when a
// `git merge --squash` is being committed.
type squashState struct {
	Parent  string   `json:"parent"`
	Sources []string `json:"sources"`
}

func squashPath(repo *gitops.Repo) (string, error) {
	dir, err := repo.WorktreeGlossDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "squash.json"), nil
}

// PrepareCommitMsg notes the commits of a `git merge --squash` (listed in
// SQUASH_MSG, which git removes before post-commit runs) so that the
// commit that concludes it can carry their records.
func PrepareCommitMsg(ctx context.Context, repo *gitops.Repo) error {
	msg := repo.SquashMessage()
	if msg == "" {
		return nil
	}
	st := squashState{}
	st.Parent, _ = repo.Head()
	for _, m := range squashLine.FindAllStringSubmatch(msg, -1) {
		st.Sources = append(st.Sources, m[1])
	}
	if len(st.Sources) == 0 {
		return nil
	}
	p, err := squashPath(repo)
	if err != nil {
		return err
	}
	data, _ := json.Marshal(st)
	return os.WriteFile(p, data, 0o644)
}

// takeSquashSources returns the squashed commits if commit concludes the
// squash merge prepare-commit-msg saw, and forgets them either way.
func takeSquashSources(repo *gitops.Repo, commit *gitops.Commit) []string {
	p, err := squashPath(repo)
	if err != nil {
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	_ = os.Remove(p)
	var st squashState
	if json.Unmarshal(data, &st) != nil || len(commit.Parents) == 0 || st.Parent != commit.Parents[0] {
		return nil
	}
	return st.Sources
}

// maxPickCandidates bounds the patch-id comparisons for a cherry-pick made
// without -x.
const maxPickCandidates = 20

// cherryPickSource finds the commit a cherry-pick copied: the -x trailer
// names it; otherwise, when the reflog says cherry-pick, the commit with the
// same subject and the same patch id.
func cherryPickSource(ctx context.Context, repo *gitops.Repo, commit *gitops.Commit, reflog string) string {
	for _, id := range parseMessage(commit.Message).picked {
		if full, err := repo.ResolveCommit(id); err == nil {
			return full
		}
	}
	// "cherry-pick: …", or "commit (cherry-pick): …" after a conflict.
	if !strings.Contains(reflog, "cherry-pick") {
		return ""
	}
	// cherry-pick keeps the subject, the author and the author date.
	// Among commits that share them, the one with the same patch id wins;
	// after a conflict the patch differs, and a single candidate is taken.
	subject := parseMessage(commit.Message).subject
	out, err := repo.Git(ctx, "log", "--all", "-n", "5000", "--format=%H%x00%ae%x00%at%x00%s")
	if err != nil {
		return ""
	}
	me := fmt.Sprintf("%s\x00%d", commit.AuthorEmail, commit.AuthorTime.Unix())
	var candidates []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.SplitN(line, "\x00", 4)
		if len(f) != 4 || f[0] == commit.ID || f[1]+"\x00"+f[2] != me || strings.Join(strings.Fields(f[3]), " ") != subject {
			continue
		}
		if candidates = append(candidates, f[0]); len(candidates) >= maxPickCandidates {
			break
		}
	}
	if len(candidates) == 1 {
		return candidates[0]
	}
	mine, err := repo.PatchID(ctx, commit.ID)
	if err != nil || mine == "" {
		return ""
	}
	for _, id := range candidates {
		if pid, err := repo.PatchID(ctx, id); err == nil && pid == mine {
			return id
		}
	}
	return ""
}
