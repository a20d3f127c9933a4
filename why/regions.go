// Helpers shared by deps, history and summary: the live regions of the
// annotations ref, and path and anchor matching.

package why

import (
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
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
		for _, d := range decoded {
			if d.Region != nil {
				regions = append(regions, d.Region)
			}
		}
	}
	return regions, ScanStats{AnnotatedCommits: ns.Notes, Records: ns.Records}, skipped, nil
}

func cleanRel(repo *gitops.Repo, p string) (string, error) {
	if p == "" {
		return "", fault.Usagef("a path is required")
	}
	p = strings.TrimPrefix(strings.ReplaceAll(p, "\\", "/"), "./")
	if strings.HasPrefix(p, "/") || strings.Contains(p, "\x00") || slices.Contains(strings.Split(p, "/"), "..") {
		if root := repo.Root(); root != "" && strings.HasPrefix(p, root+"/") {
			return strings.TrimPrefix(p, root+"/"), nil
		}
		return "", fault.Usagef("%q: path must be inside the repository, relative to its root", p)
	}
	return strings.TrimSuffix(p, "/"), nil
}

// anchorIs reports whether a stored anchor name answers a queried one.
func anchorIs(stored, asked string) bool {
	if asked == "" {
		return true
	}
	s, a := strings.ReplaceAll(stored, "::", "."), strings.ReplaceAll(asked, "::", ".")
	return s == a || strings.HasSuffix(s, "."+a) || strings.HasSuffix(a, "."+s)
}
