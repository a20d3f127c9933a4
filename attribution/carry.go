package attribution

import (
	"context"
	"slices"
	"sort"

	"github.com/gloss-dev/gloss/capture"
	"github.com/gloss-dev/gloss/gitops"
)

// carry writes target's attribution from its sources' (an amended or
// rebased commit, a cherry-picked one, the commits of a squash, oldest
// first). Each file's per-line attribution is passed forward through the
// sources in order — every source's diff moves the lines it kept, its own
// record names the lines it introduced — and then through the diff to the
// target, the way blame passes lines from commit to commit. Lines of the
// target that none of this reaches (a conflict resolution, what an amend
// added) are matched by content against the sources' attributed lines,
// then decided afresh as at commit time. With fresh unset, a target whose
// sources have no attribution gets none either.
func carry(ctx context.Context, repo *gitops.Repo, sources []string, in *input, kind string, comp computation, fresh bool) (*Record, error) {
	sources = oldestFirst(repo, sources)
	target := in.id
	all := append(append([]string{}, sources...), target)
	attrs, err := readAttribution(repo, all)
	if err != nil {
		return nil, err
	}
	var supersedes []string
	any := false
	for _, s := range all {
		if ca := attrs[s]; ca != nil {
			supersedes = append(supersedes, ca.ids...)
			if s != target {
				any = true
			}
		}
	}
	if ca := attrs[target]; ca != nil && !fresh {
		// Carried before (carry run twice, a rewrite reported twice):
		// nothing new to write.
		for _, r := range ca.recs {
			if r.Source == kind && slices.Equal(r.DerivedFrom, sources) {
				return nil, nil
			}
		}
	}
	if !any && !fresh {
		// Nothing to carry: the sources were never attributed (made before
		// gloss, or without its hooks). Their copies stay unknown.
		return nil, nil
	}
	if err := in.gather(ctx, repo); err != nil {
		return nil, err
	}
	comp.carried = map[string]lineMap{}
	comp.byHash = map[string]map[string]*Contributor{}
	for _, f := range in.files {
		vs, err := readVersions(repo, sources, target, f.path)
		if err != nil {
			return nil, err
		}
		comp.carried[f.path], comp.byHash[f.path] = passForward(attrs, vs, f.path)
	}
	comp.source = kind
	comp.derived = sources
	comp.supersedes = supersedes
	return attribute(ctx, repo, in, comp)
}

// version is one file at one commit of a carry (a source, then the
// target): its content, and the diff from the version before it when
// that one had the file.
type version struct {
	commit string
	data   []byte // nil: the commit has no such file
	hunks  []gitops.Hunk
}

// readVersions reads path at each source, then at target, from git:
// all that passForward needs of the repository. The target's is left
// unread when no source before it has the file.
func readVersions(repo *gitops.Repo, sources []string, target, path string) ([]version, error) {
	out := make([]version, 0, len(sources)+1)
	prevBlob := ""
	for i, c := range append(append([]string{}, sources...), target) {
		v := version{commit: c}
		if i == len(sources) && prevBlob == "" {
			return append(out, v), nil
		}
		blob, err := repo.BlobAt(c, path)
		if err != nil {
			return nil, err
		}
		if blob != "" {
			if v.data, err = repo.ReadBlob(blob); err != nil {
				return nil, err
			}
			if prevBlob != "" {
				if v.hunks, err = repo.DiffBlobs(prevBlob, blob); err != nil {
					return nil, err
				}
			}
		}
		out, prevBlob = append(out, v), blob
	}
	return out, nil
}

// passForward builds the per-line attribution of path at the target (the
// last of vs) from the sources' records, and the content hashes of the
// sources' attributed lines.
func passForward(attrs map[string]*commitAttribution, vs []version, path string) (lineMap, map[string]*Contributor) {
	var cur lineMap
	hashes := map[string]*Contributor{}
	sources, last := vs[:len(vs)-1], vs[len(vs)-1]
	for _, v := range sources {
		if v.data == nil {
			cur = nil
			continue
		}
		texts := capture.SplitLines(string(v.data))
		if cur != nil { // the version before had the file: hunks is the diff from it
			cur = mapThrough(cur, v.hunks, len(texts))
		} else {
			cur = make(lineMap, len(texts))
		}
		for i, c := range attrs[v.commit].lines(path, len(texts)) {
			if c != nil {
				cur[i] = c
				hashes[capture.HashLine(texts[i])] = c
			}
		}
	}
	if cur == nil || last.data == nil {
		return nil, hashes
	}
	return mapThrough(cur, last.hunks, len(capture.SplitLines(string(last.data)))), hashes
}

// mapThrough moves per-line attribution across a diff: unchanged lines
// keep theirs at their new place; lines the diff removed lose theirs; n is
// the new side's line count.
func mapThrough(m lineMap, hunks []gitops.Hunk, n int) lineMap {
	out := make(lineMap, n)
	hunks = append([]gitops.Hunk(nil), hunks...)
	sort.Slice(hunks, func(i, j int) bool { return hunks[i].OldStart < hunks[j].OldStart })
	delta, hi := 0, 0
	oldEnd := func(h gitops.Hunk) int {
		if h.OldLines == 0 {
			return h.OldStart // an insertion after OldStart
		}
		return h.OldStart + h.OldLines - 1
	}
	for o := 1; o <= len(m); o++ {
		for hi < len(hunks) && oldEnd(hunks[hi]) < o {
			delta += hunks[hi].NewLines - hunks[hi].OldLines
			hi++
		}
		if hi < len(hunks) && hunks[hi].OldLines > 0 && o >= hunks[hi].OldStart {
			continue // removed or rewritten
		}
		if nl := o + delta; nl >= 1 && nl <= n && m[o-1] != nil {
			out[nl-1] = m[o-1]
		}
	}
	return out
}

// oldestFirst orders commits so that each comes after its ancestors among
// them (a squash's sources arrive in any order).
func oldestFirst(repo *gitops.Repo, ids []string) []string {
	out := make([]string, 0, len(ids))
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		// Insert before the first commit that descends from id.
		at := len(out)
		for i, o := range out {
			if yes, err := repo.IsAncestor(id, o); err == nil && yes {
				at = i
				break
			}
		}
		out = append(out, "")
		copy(out[at+1:], out[at:])
		out[at] = id
	}
	return out
}
