package review

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/config"
	"github.com/gloss-dev/gloss/gitops"
)

// TrailerKey is the commit-message trailer of the agents' share.
const TrailerKey = "AI-Share"

// TrailerSetting is the team setting that turns the trailer on:
//
//	[review]
//	ai_share_trailer = true
const TrailerSetting = "ai_share_trailer"

// TrailerOn reads [review] ai_share_trailer from .gloss/config.toml.
func TrailerOn(repo *gitops.Repo) (bool, error) {
	cfg, err := config.LoadTeam(repo)
	if err != nil {
		return false, err
	}
	var sec struct {
		Trailer bool `toml:"ai_share_trailer"`
	}
	if err := cfg.Section("review", &sec); err != nil {
		return false, err
	}
	return sec.Trailer, nil
}

// ShareTrailer is the trailer's value for the commit being made: the
// share of the lines it adds that agents wrote (ai and mixed lines, as
// post-commit will record them from the agent capture), per agent and
// model, largest first: "62% claude/claude-opus-4". "" when no agent wrote
// any of them.
//
// The staged tree (GIT_INDEX_FILE is honoured, as git commit -a sets it)
// is written as a commit object on HEAD that no ref points to, and
// attribution.Preview attributes it.
func ShareTrailer(ctx context.Context, repo *gitops.Repo) (string, error) {
	tree, err := repo.Git(ctx, "write-tree")
	if err != nil {
		return "", fmt.Errorf("write the staged tree: %w", err)
	}
	args := []string{"commit-tree", strings.TrimSpace(string(tree)), "-m", "gloss: AI-Share preview"}
	if head, err := repo.Head(); err == nil && head != "" {
		args = append(args, "-p", head)
	}
	out, err := repo.Git(ctx, args...)
	if err != nil {
		return "", fmt.Errorf("make the preview commit: %w", err)
	}
	rec, err := attribution.Preview(ctx, repo, strings.TrimSpace(string(out)))
	if err != nil || rec == nil {
		return "", err
	}
	return shareOf(rec), nil
}

// shareOf renders a record's agent share.
func shareOf(rec *attribution.Record) string {
	total := 0
	byAgent := map[string]int{}
	for _, f := range rec.Files {
		for _, r := range f.Ranges {
			n := r.End - r.Start + 1
			total += n
			if r.C < 0 || r.C >= len(rec.Contributors) {
				continue
			}
			c := rec.Contributors[r.C]
			if (c.Type == attribution.AI || c.Type == attribution.Mixed) && c.Agent != "" {
				byAgent[agentName(c.Agent, c.Model)] += n
			}
		}
	}
	if total == 0 || len(byAgent) == 0 {
		return ""
	}
	names := make([]string, 0, len(byAgent))
	for k := range byAgent {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if byAgent[names[i]] != byAgent[names[j]] {
			return byAgent[names[i]] > byAgent[names[j]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%d%% %s", pct(byAgent[n], total), n)
	}
	return strings.Join(parts, ", ")
}

// AddTrailer puts the trailer into the commit message file (replacing one
// already there), with git interpret-trailers, which knows where trailers
// go and leaves comment lines alone. source is prepare-commit-msg's second
// argument: a merge, a squash or an amend (commit) gets none, nor does a
// commit a rebase, a cherry-pick or a revert makes: their lines come from
// commits already attributed, whose messages say so already.
func AddTrailer(ctx context.Context, repo *gitops.Repo, msgFile, source string) error {
	if source == "merge" || source == "squash" || source == "commit" || repo.RebaseInProgress() {
		return nil
	}
	for _, pseudo := range []string{"CHERRY_PICK_HEAD", "REVERT_HEAD"} {
		if _, err := repo.ResolveCommit(pseudo); err == nil {
			return nil
		}
	}
	if on, err := TrailerOn(repo); err != nil || !on {
		return err
	}
	share, err := ShareTrailer(ctx, repo)
	if err != nil || share == "" {
		return err
	}
	_, err = repo.Git(ctx, "interpret-trailers", "--in-place", "--if-exists", "replace", "--trailer", TrailerKey+": "+share, msgFile)
	return err
}
