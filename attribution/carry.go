package attribution

import (
	"context"
	"slices"
	"sort"

	"github.com/gloss-dev/gloss/capture"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
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
func carry(ctx context.Context, repo *gitops.Repo, sources []string, target, kind string, comp computation, fresh bool) (*Record, error) {
	sources = oldestFirst(repo, sources)
	recs, err := notes.Open(repo, Ref).Read(append(append([]string{}, sources...), target))
	if err != nil {
		return nil, err
	}
	attrs := map[string]*commitAttribution{}
	var supersedes []string
	any := false
	for _, s := range append(append([]string{}, sources...), target) {
		ca := resolve(recs[s])
		attrs[s] = ca
		if ca != nil {
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
	tc, err := repo.LookupCommit(target)
	if err != nil {
		return nil, err
	}
	files, err := changedLines(ctx, repo, tc)
	if err != nil {
		return nil, err
	}
	comp.carried = map[string]lineMap{}
	comp.byHash = map[string]map[string]*Contributor{}
	for _, f := range files {
		m, hashes, err := passForward(repo, attrs, sources, target, f.path)
		if err != nil {
			return nil, err
		}
		comp.carried[f.path] = m
		comp.byHash[f.path] = hashes
	}
	comp.source = kind
	comp.derived = sources
	comp.supersedes = supersedes
	return attribute(ctx, repo, target, comp)
}

// passForward builds the per-line attribution of path at target from the
// sources' records, and the content hashes of the sources' attributed
// lines.
func passForward(repo *gitops.Repo, attrs map[string]*commitAttribution, sources []string, target, path string) (lineMap, map[string]*Contributor, error) {
	var cur lineMap
	prevBlob := ""
	hashes := map[string]*Contributor{}
	for _, s := range sources {
		blob, err := repo.BlobAt(s, path)
		if err != nil {
			return nil, nil, err
		}
		if blob == "" {
			cur, prevBlob = nil, ""
			continue
		}
		data, err := repo.ReadBlob(blob)
		if err != nil {
			return nil, nil, err
		}
		texts := splitLines(data)
		if cur != nil {
			hunks, err := repo.DiffBlobs(prevBlob, blob)
			if err != nil {
				return nil, nil, err
			}
			cur = mapThrough(cur, hunks, len(texts))
		} else {
			cur = make(lineMap, len(texts))
		}
		for i, c := range attrs[s].lines(path, len(texts)) {
			if c != nil {
				cur[i] = c
				hashes[capture.HashLine(texts[i])] = c
			}
		}
		prevBlob = blob
	}
	if cur == nil {
		return nil, hashes, nil
	}
	blob, err := repo.BlobAt(target, path)
	if err != nil || blob == "" {
		return nil, hashes, err
	}
	hunks, err := repo.DiffBlobs(prevBlob, blob)
	if err != nil {
		return nil, nil, err
	}
	data, err := repo.ReadBlob(blob)
	if err != nil {
		return nil, nil, err
	}
	return mapThrough(cur, hunks, len(splitLines(data))), hashes, nil
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
