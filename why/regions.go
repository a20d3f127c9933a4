// Helpers shared by deps, history and summary: the live regions of the
// annotations ref, and path and anchor matching.

package why

import (
	"strings"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/safepath"
)

// liveRegions reads every annotation region on the ref, superseded ones
// left out, and counts the note lines it skipped.
func liveRegions(repo *gitops.Repo) (regions []*annotate.Region, st ScanStats, skipped int, err error) {
	all, ns, err := notes.Open(repo, notes.Annotations).ReadAll()
	if err != nil {
		return nil, ScanStats{}, 0, err
	}
	skipped = ns.Bad
	for _, recs := range all {
		decoded, unknown := decode(recs)
		skipped += unknown
		fillCommitIntent(decoded)
		for _, d := range decoded {
			if d.Region != nil {
				regions = append(regions, d.Region)
			}
		}
	}
	return regions, ScanStats{AnnotatedCommits: ns.Notes, Records: ns.Records}, skipped, nil
}

// cleanRel makes a query's path repository-relative with the one lexical
// cleaner every front door uses (safepath.Clean): relative to the root,
// or absolute inside it. The file may exist only in history, so it is not
// resolved on disk; "." is the whole repository.
func cleanRel(repo *gitops.Repo, p string) (string, error) {
	if p == "" {
		return "", fault.Usagef("a path is required")
	}
	base := repo.Root()
	if base == "" {
		base = repo.GitDir()
	}
	return safepath.Clean(base, p)
}

// anchorIs reports whether a stored anchor name answers a queried one.
func anchorIs(stored, asked string) bool {
	if asked == "" {
		return true
	}
	s, a := strings.ReplaceAll(stored, "::", "."), strings.ReplaceAll(asked, "::", ".")
	return s == a || strings.HasSuffix(s, "."+a) || strings.HasSuffix(a, "."+s)
}

// fillCommitIntent gives the regions of one commit that record no intent
// of their own the commit's (its summary record's), and reports which it
// filled. Since the post-commit hook no longer stamps the commit subject
// on every changed file, this is where readers find it.
func fillCommitIntent(decoded []annotate.Decoded) map[*annotate.Region]bool {
	commitIntent := ""
	for _, d := range decoded {
		if d.Summary != nil && d.Summary.Intent != "" {
			commitIntent = d.Summary.Intent
		}
	}
	filled := map[*annotate.Region]bool{}
	if commitIntent == "" {
		return filled
	}
	for _, d := range decoded {
		if d.Region != nil && d.Region.Intent == "" {
			d.Region.Intent = commitIntent
			filled[d.Region] = true
		}
	}
	return filled
}
