package forge

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/lazyregexp"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/schemas"
)

// CarryOptions says what to carry where.
type CarryOptions struct {
	// From is the pull request's commits: a range "A..B", or a ref (its
	// commits not on To), or "" to find them from the annotations notes
	// themselves (a merged branch that was deleted).
	From string
	// To is the commit the forge made (a squash), or a range of the
	// commits it made (a rebase merge); "" is HEAD.
	To string
	// Remote is fetched from before and pushed to after, when Push is set.
	Remote string
	Push   bool
	// MaxCandidates bounds the annotated commits considered when From is
	// empty (newest first); 0 is 500.
	MaxCandidates int
}

// CarryPair is one target commit and the commits whose records it took.
type CarryPair struct {
	Target  string   `json:"target"`
	Sources []string `json:"sources"`
	// Provenance is the records' source: squash, or rebase for a
	// commit-by-commit copy.
	Provenance string `json:"provenance" jsonschema:"squash or rebase"`
	// Match says how the sources were found: range (given), patch-id (same
	// change as one source), squash-patch-id (same change as a branch
	// tip's whole diff), message (the commit message names them).
	Match   string `json:"match" jsonschema:"range, patch-id, squash-patch-id or message"`
	Records int    `json:"records"`
}

// CarryResult is `git gloss carry`'s answer.
type CarryResult struct {
	Schema   string            `json:"$schema"`
	Targets  []string          `json:"targets"`
	Pairs    []CarryPair       `json:"pairs"`
	Carried  int               `json:"carried"`
	Merged   []string          `json:"already_merged" jsonschema:"sources already in the target history: nothing to carry"`
	Sync     *notes.SyncResult `json:"sync,omitempty"`
	Warnings []string          `json:"warnings"`
}

// Carry carries the annotation records of a pull request's commits onto
// the commits a forge made when it merged them, then (with Push) pushes
// the notes without force. Each target takes the records of the sources
// with the same patch id (a rebase merge); the rest go onto the last
// target (a squash), their lines mapped through the diff from each
// source's version of a file to the target's.
func Carry(ctx context.Context, repo *gitops.Repo, opts CarryOptions) (*CarryResult, error) {
	if opts.Remote == "" {
		opts.Remote = "origin"
	}
	if opts.MaxCandidates <= 0 {
		opts.MaxCandidates = 500
	}
	res := &CarryResult{Schema: "gloss-carry/v1", Pairs: []CarryPair{}, Merged: []string{}, Warnings: []string{}}
	c := &carry{ctx: ctx, repo: repo, opts: opts, pids: map[string]string{}}
	pushing := opts.Push && hasRemote(ctx, repo, opts.Remote)
	if opts.Push && !pushing {
		res.Warnings = append(res.Warnings, fmt.Sprintf("no remote %q: records carried locally, not pushed", opts.Remote))
	}
	if pushing {
		if err := fetchNotes(ctx, repo, opts.Remote); err != nil {
			return nil, err
		}
	}
	targets, err := c.targets()
	if err != nil {
		return nil, err
	}
	res.Targets = targets
	var pairs []CarryPair
	if opts.From != "" {
		pairs, res.Merged, err = c.pairGiven(targets)
	} else {
		pairs, err = c.pairFound(targets)
	}
	if err != nil {
		return nil, err
	}
	for _, p := range pairs {
		n, err := annotate.CarryOnto(ctx, repo, p.Sources, p.Target, p.Provenance)
		if err != nil {
			return nil, err
		}
		// Line attribution travels with the annotations, from the same
		// sources onto the same target.
		if _, err := attribution.CarryOnto(ctx, repo, p.Sources, p.Target, p.Provenance); err != nil {
			res.Warnings = append(res.Warnings, "attribution: "+err.Error())
		}
		p.Records = n
		res.Carried += n
		res.Pairs = append(res.Pairs, p)
	}
	if len(pairs) == 0 && len(res.Merged) == 0 {
		res.Warnings = append(res.Warnings, "no pull request commits with annotations found for these targets")
	}
	if pushing {
		sr, err := notes.Sync(ctx, repo, notes.SyncOptions{Remote: opts.Remote})
		if err != nil {
			return res, err
		}
		res.Sync = sr
	}
	return res, nil
}

type carry struct {
	ctx  context.Context
	repo *gitops.Repo
	opts CarryOptions
	pids map[string]string // commit (or "a..b") -> patch id
}

// revList lists commits oldest first.
func (c *carry) revList(args ...string) ([]string, error) {
	out, err := c.repo.Git(c.ctx, append([]string{"rev-list", "--reverse"}, args...)...)
	if err != nil {
		return nil, fault.NotFoundf("list commits %s: %v", strings.Join(args, " "), err)
	}
	return strings.Fields(string(out)), nil
}

// rangeArgs turns "A..B" into rev-list arguments [B ^A]; a single rev
// stays as it is.
func rangeArgs(spec string) (args []string, isRange bool) {
	if a, b, ok := strings.Cut(spec, ".."); ok && !strings.HasPrefix(b, ".") {
		if b == "" {
			b = "HEAD"
		}
		return []string{b, "^" + a}, true
	}
	return []string{spec}, false
}

// targets resolves To: one commit, or the commits of a range.
func (c *carry) targets() ([]string, error) {
	to := c.opts.To
	if to == "" {
		to = "HEAD"
	}
	if args, isRange := rangeArgs(to); isRange {
		ids, err := c.revList(append([]string{"--no-merges"}, args...)...)
		if err != nil {
			return nil, err
		}
		if len(ids) == 0 {
			return nil, fault.NotFoundf("--to %s: the range has no commits", to)
		}
		return ids, nil
	}
	id, err := c.repo.ResolveCommit(to)
	if err != nil {
		return nil, fault.NotFoundf("--to %s: %v", to, err)
	}
	return []string{id}, nil
}

// pairGiven pairs the commits of From with the targets. It returns the
// sources that are already in the target history (a true merge or a
// fast-forward: their records are valid as they are).
func (c *carry) pairGiven(targets []string) ([]CarryPair, []string, error) {
	tip := targets[len(targets)-1]
	args, isRange := rangeArgs(c.opts.From)
	sources, err := c.revList(append(append([]string{"--no-merges"}, args...), "^"+tip)...)
	if err != nil {
		return nil, nil, err
	}
	merged := []string{}
	if isRange {
		// Commits of the range already in the target history (a true
		// merge, a fast-forward) keep valid records where they are.
		all, err := c.revList(append([]string{"--no-merges"}, args...)...)
		if err != nil {
			return nil, nil, err
		}
		for _, id := range all {
			if !slices.Contains(sources, id) {
				merged = append(merged, id)
			}
		}
	}
	if len(sources) == 0 {
		return nil, merged, nil
	}
	candidates := targets
	if len(targets) == 1 {
		// A single --to may be the last of several rebased commits: look
		// down its first-parent line as far as the fork point.
		candidates, err = c.firstParents(tip, sources[0], len(sources))
		if err != nil {
			return nil, nil, err
		}
	}
	pairs, rest, err := c.byPatchID(candidates, sources)
	if err != nil {
		return nil, nil, err
	}
	if len(rest) > 0 {
		pairs = append(pairs, CarryPair{Target: tip, Sources: rest, Provenance: annotate.SourceSquash, Match: "range"})
	}
	return finish(pairs), merged, nil
}

// firstParents lists up to n commits down tip's first-parent line, newest
// first, stopping at the fork point with source.
func (c *carry) firstParents(tip, source string, n int) ([]string, error) {
	fork, _ := c.repo.MergeBase(tip, source)
	out := []string{}
	id := tip
	for len(out) < n && id != "" && id != fork {
		out = append(out, id)
		cm, err := c.repo.LookupCommit(id)
		if err != nil {
			return nil, err
		}
		if len(cm.Parents) == 0 {
			break
		}
		id = cm.Parents[0]
	}
	return out, nil
}

// byPatchID pairs each source with a target that makes the same change,
// one to one; rest are the sources no target matched.
func (c *carry) byPatchID(targets, sources []string) (pairs []CarryPair, rest []string, err error) {
	byPID := map[string]string{}
	for _, t := range targets {
		pid, err := c.patchID(t)
		if err != nil {
			return nil, nil, err
		}
		if pid != "" {
			if _, dup := byPID[pid]; !dup {
				byPID[pid] = t
			}
		}
	}
	for _, s := range sources {
		pid, err := c.patchID(s)
		if err != nil {
			return nil, nil, err
		}
		if t, ok := byPID[pid]; ok && pid != "" {
			delete(byPID, pid)
			pairs = append(pairs, CarryPair{Target: t, Sources: []string{s}, Provenance: annotate.SourceRebase, Match: "patch-id"})
			continue
		}
		rest = append(rest, s)
	}
	return pairs, rest, nil
}

// finish orders pairs by target and names a lone one-to-one copy onto a
// single target for what it is: a squash of a one-commit branch.
func finish(pairs []CarryPair) []CarryPair {
	targets := map[string]bool{}
	for _, p := range pairs {
		targets[p.Target] = true
	}
	if len(targets) == 1 {
		for i := range pairs {
			pairs[i].Provenance = annotate.SourceSquash
		}
	}
	return pairs
}

func (c *carry) patchID(commit string) (string, error) {
	if pid, ok := c.pids[commit]; ok {
		return pid, nil
	}
	pid, err := c.repo.PatchID(c.ctx, commit)
	if err != nil {
		return "", err
	}
	c.pids[commit] = pid
	return pid, nil
}

// rangePatchID is the patch id of the whole change from base to tip: what
// a squash of the commits between them makes.
func (c *carry) rangePatchID(base, tip string) (string, error) {
	key := base + ".." + tip
	if pid, ok := c.pids[key]; ok {
		return pid, nil
	}
	diff, err := c.repo.Git(c.ctx, "diff-tree", "-p", "--no-color", "--no-ext-diff", base, tip)
	if err != nil {
		return "", err
	}
	out, err := c.repo.GitInput(c.ctx, bytes.NewReader(diff), "patch-id", "--stable")
	if err != nil {
		return "", err
	}
	pid, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	c.pids[key] = pid
	return pid, nil
}

// squashedLine and pickedLine are how git names the commits a squash or a
// cherry-pick copied, in the commit message it proposes.
var (
	squashedLine = lazyregexp.New(`(?m)^commit ([0-9a-f]{40})$`)
	pickedLine   = lazyregexp.New(`\(cherry picked from commit ([0-9a-f]{7,40})\)`)
)

// pairFound finds each target's sources among the annotated commits that
// are not in the target history: those its message names, else one with
// the same patch id (a rebase merge), else a branch whose whole diff has
// the target's patch id (a squash).
func (c *carry) pairFound(targets []string) ([]CarryPair, error) {
	tip := targets[len(targets)-1]
	cands, err := c.candidates(tip)
	if err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		return nil, nil
	}
	isCand := map[string]bool{}
	for _, id := range cands {
		isCand[id] = true
	}
	var pairs []CarryPair
	take := func(p CarryPair) {
		for _, s := range p.Sources {
			delete(isCand, s)
		}
		pairs = append(pairs, p)
	}
	for _, t := range targets {
		if p, ok, err := c.byMessage(t, isCand); err != nil {
			return nil, err
		} else if ok {
			take(p)
			continue
		}
		left := live(cands, isCand)
		ps, _, err := c.byPatchID([]string{t}, left)
		if err != nil {
			return nil, err
		}
		if len(ps) > 0 {
			take(ps[0])
			continue
		}
		if p, ok, err := c.bySquash(t, left); err != nil {
			return nil, err
		} else if ok {
			take(p)
		}
	}
	return finish(pairs), nil
}

func live(ids []string, keep map[string]bool) []string {
	var out []string
	for _, id := range ids {
		if keep[id] {
			out = append(out, id)
		}
	}
	return out
}

// byMessage takes the sources a target's message names (git merge
// --squash's "commit <id>" lines, cherry-pick -x trailers).
func (c *carry) byMessage(target string, isCand map[string]bool) (CarryPair, bool, error) {
	cm, err := c.repo.LookupCommit(target)
	if err != nil {
		return CarryPair{}, false, err
	}
	var srcs []string
	for _, m := range squashedLine.FindAllStringSubmatch(cm.Message, -1) {
		if isCand[m[1]] {
			srcs = append(srcs, m[1])
		}
	}
	for _, m := range pickedLine.FindAllStringSubmatch(cm.Message, -1) {
		if id, err := c.repo.ResolveCommit(m[1]); err == nil && isCand[id] {
			srcs = append(srcs, id)
		}
	}
	if len(srcs) == 0 {
		return CarryPair{}, false, nil
	}
	slices.Reverse(srcs) // git lists the squashed commits newest first
	return CarryPair{Target: target, Sources: srcs, Provenance: annotate.SourceSquash, Match: "message"}, true, nil
}

// bySquash finds the branch a squash target came from: an annotated
// commit whose diff from the fork point with the target's parent has the
// target's patch id. Its annotated commits past the fork are the sources.
func (c *carry) bySquash(target string, cands []string) (CarryPair, bool, error) {
	cm, err := c.repo.LookupCommit(target)
	if err != nil || len(cm.Parents) != 1 {
		return CarryPair{}, false, err
	}
	want, err := c.patchID(target)
	if err != nil || want == "" {
		return CarryPair{}, false, err
	}
	parent := cm.Parents[0]
	// Newest first: the branch tip is the last annotated commit of it.
	for i := len(cands) - 1; i >= 0; i-- {
		tipc := cands[i]
		fork, err := c.repo.MergeBase(tipc, parent)
		if err != nil || fork == "" {
			continue
		}
		pid, err := c.rangePatchID(fork, tipc)
		if err != nil {
			return CarryPair{}, false, err
		}
		if pid != want {
			continue
		}
		branch, err := c.revList("--no-merges", tipc, "^"+fork)
		if err != nil {
			return CarryPair{}, false, err
		}
		in := map[string]bool{}
		for _, id := range cands {
			in[id] = true
		}
		return CarryPair{Target: target, Sources: live(branch, in), Provenance: annotate.SourceSquash, Match: "squash-patch-id"}, true, nil
	}
	return CarryPair{}, false, nil
}

// candidates lists the annotated commits present here that are not in
// tip's history, oldest first, at most MaxCandidates (the newest). Its
// cost grows with the number of annotated commits (one pass over the notes
// tree and one rev-list): carry runs once per merge, in CI.
func (c *carry) candidates(tip string) ([]string, error) {
	n, err := c.repo.ReadNotes(notes.Annotations)
	if err != nil {
		return nil, err
	}
	entries, err := n.List()
	n.Close()
	if err != nil || len(entries) == 0 {
		return nil, err
	}
	var in bytes.Buffer
	for _, e := range entries {
		in.WriteString(e.Object + "\n")
	}
	// Which of them are commits that exist here (a clone has none of a
	// deleted branch's commits unless it fetched them)?
	out, err := c.repo.GitInput(c.ctx, bytes.NewReader(in.Bytes()), "cat-file", "--batch-check=%(objectname) %(objecttype)")
	if err != nil {
		return nil, err
	}
	var present bytes.Buffer
	annotated := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if id, kind, ok := strings.Cut(line, " "); ok && kind == "commit" {
			present.WriteString(id + "\n")
			annotated[id] = true
		}
	}
	if present.Len() == 0 {
		return nil, nil
	}
	present.WriteString("^" + tip + "\n")
	out, err = c.repo.GitInput(c.ctx, bytes.NewReader(present.Bytes()), "rev-list", "--reverse", "--topo-order", "--stdin")
	if err != nil {
		return nil, err
	}
	var cands []string
	for _, id := range strings.Fields(string(out)) {
		if annotated[id] {
			cands = append(cands, id)
		}
	}
	if len(cands) > c.opts.MaxCandidates {
		cands = cands[len(cands)-c.opts.MaxCandidates:]
	}
	return cands, nil
}

func init() {
	schemas.Register(schemas.Entry{Name: "carry", Tag: "gloss-carry/v1", Description: "Records carried onto the commits a forge's squash or rebase merge made (git gloss carry).", Type: schemas.TypeOf[CarryResult]()})
}
