package gitops

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	git "github.com/libgit2/git2go/v34"
)

// The hunk cache keeps the line hunks of a file's change between two
// committed versions, so that a diff of many files (a review of a
// 200-commit range of git.git diffs 900 of them) does not read and diff
// every pair of blobs again on the next run, nor on the next range that
// changes the same files the same way. An entry is content-addressed: its
// key is everything libgit2's answer for one file depends on —
//
//   - the delta itself: status, both modes, both blob ids, both paths;
//   - the diff options gloss passes (context and interhunk lines, flags,
//     the size past which a file counts as binary);
//   - each path's `diff` attribute as git resolves it now (binary, -diff,
//     diff=<driver>) and, for a named driver, diff.<driver>.binary, which
//     are what decide whether libgit2 treats the file as binary.
//
// Rename detection (diff.renameLimit and the similarity threshold) decides
// which deltas there are, not their hunks: the deltas come from a fresh
// tree diff every time, and only their hunks from the cache. libgit2 reads
// no other configuration for a tree-to-tree diff (it has no diff.algorithm,
// no textconv, no whitespace options unless passed), and gloss passes
// none. Entries live in the repository's keyed cache under the git dir
// (LoadCached, storeCachedUnsynced), replaced atomically and bounded with
// the blames; an entry that does not decode whole is ignored and
// rewritten.

const (
	hunkCacheKind    = "hunks"
	hunkCacheVersion = "gloss-hunks v1"
)

// hunkEntry is a cached file change: binary or not, and its hunks.
type hunkEntry struct {
	binary bool
	hunks  []Hunk
}

// diffCached is the Hunks part of a tree-to-tree diff served from the
// hunk cache: d is the diff, rename detection done, made with do. The
// files the cache does not hold are diffed again alone (their own diff,
// limited to their paths), or, when they are many or that diff does not
// give the same deltas, the whole diff walks as without the cache.
func (r *Repo) diffCached(ctx context.Context, d *git.Diff, do git.DiffOptions, oldTree, newTree *git.Tree, renames bool) ([]Change, error) {
	deltas, err := allDeltas(d)
	if err != nil {
		return nil, err
	}
	attrs, err := r.diffAttributes(ctx, deltas)
	if err != nil {
		// No answer about attributes, no safe key: diff as without the cache.
		return walkHunks(d)
	}
	out := make([]Change, len(deltas))
	keys := make([]string, len(deltas))
	var missing []int
	for i, delta := range deltas {
		out[i] = changeFrom(delta)
		keys[i] = hunkKey(do, delta, attrs)
		if e := decodeHunks(r.LoadCached(hunkCacheKind, keys[i])); e != nil {
			out[i].Binary, out[i].Hunks = e.binary, e.hunks
			continue
		}
		missing = append(missing, i)
	}
	if len(missing) == 0 {
		return out, nil
	}
	fresh, err := r.diffSome(d, do, oldTree, newTree, renames, deltas, missing)
	if err != nil {
		return nil, err
	}
	for _, i := range missing {
		out[i].Binary, out[i].Hunks = fresh[i].Binary, fresh[i].Hunks
		r.storeCachedUnsynced(hunkCacheKind, keys[i], encodeHunks(hunkEntry{binary: fresh[i].Binary, hunks: fresh[i].Hunks}))
	}
	return out, nil
}

// diffSome computes the hunks of the deltas at missing, indexed as deltas
// are. A few are diffed on their own (a diff limited to their paths, with
// the same rename detection); when they are most of the diff, or the
// limited diff pairs renames otherwise, the whole diff walks.
func (r *Repo) diffSome(d *git.Diff, do git.DiffOptions, oldTree, newTree *git.Tree, renames bool, deltas []git.DiffDelta, missing []int) ([]Change, error) {
	whole := func() ([]Change, error) {
		all, err := walkHunks(d)
		if err == nil && len(all) != len(deltas) {
			err = fmt.Errorf("read diff: %d files, then %d", len(deltas), len(all))
		}
		return all, err
	}
	if len(missing)*2 > len(deltas) {
		return whole()
	}
	var paths []string
	for _, i := range missing {
		paths = append(paths, deltas[i].OldFile.Path)
		if deltas[i].NewFile.Path != deltas[i].OldFile.Path {
			paths = append(paths, deltas[i].NewFile.Path)
		}
	}
	do.Pathspec = paths
	do.Flags |= git.DiffDisablePathspecMatch
	sub, err := r.r.DiffTreeToTree(oldTree, newTree, &do)
	if err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	defer sub.Free()
	if renames {
		if err := findRenames(sub); err != nil {
			return nil, err
		}
	}
	some, err := walkHunks(sub)
	if err != nil {
		return nil, err
	}
	byDelta := make(map[string]Change, len(some))
	for _, c := range some {
		byDelta[deltaIdentity(c)] = c
	}
	out := make([]Change, len(deltas))
	for _, i := range missing {
		c, ok := byDelta[deltaIdentity(changeFrom(deltas[i]))]
		if !ok {
			return whole()
		}
		out[i] = c
	}
	return out, nil
}

// deltaIdentity names a file change by what it is, to find it again in
// another diff of the same trees.
func deltaIdentity(c Change) string {
	return strings.Join([]string{c.Status, c.OldPath, c.Path, c.OldBlob, c.NewBlob}, "\x00")
}

// allDeltas lists the deltas of a diff without computing any hunk.
func allDeltas(d *git.Diff) ([]git.DiffDelta, error) {
	n, err := d.NumDeltas()
	if err != nil {
		return nil, fmt.Errorf("read diff: %w", err)
	}
	out := make([]git.DiffDelta, n)
	for i := range out {
		if out[i], err = d.Delta(i); err != nil {
			return nil, fmt.Errorf("read diff: %w", err)
		}
	}
	return out, nil
}

// hunkKey is the cache key of one delta's hunks (see the top of the file).
func hunkKey(do git.DiffOptions, delta git.DiffDelta, attrs map[string]string) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s\x00%d %d %d %d\x00", hunkCacheVersion, do.Flags, do.ContextLines, do.InterhunkLines, do.MaxSize)
	fmt.Fprintf(h, "%d\x00%o\x00%o\x00%s\x00%s\x00", delta.Status, delta.OldFile.Mode, delta.NewFile.Mode, blobID(delta.OldFile), blobID(delta.NewFile))
	for _, p := range []string{delta.OldFile.Path, delta.NewFile.Path} {
		fmt.Fprintf(h, "%s\x00%s\x00", p, attrs[p])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// diffAttributes resolves the `diff` attribute of every path of deltas as
// git does (one git check-attr), with diff.<driver>.binary for a named
// driver: path → what decides whether libgit2 treats the file as binary.
func (r *Repo) diffAttributes(ctx context.Context, deltas []git.DiffDelta) (map[string]string, error) {
	var in bytes.Buffer
	seen := map[string]bool{}
	for _, d := range deltas {
		for _, p := range []string{d.OldFile.Path, d.NewFile.Path} {
			if p != "" && !seen[p] {
				seen[p] = true
				in.WriteString(p)
				in.WriteByte(0)
			}
		}
	}
	out, err := r.GitInput(ctx, &in, "check-attr", "-z", "--stdin", "diff")
	if err != nil {
		return nil, err
	}
	// -z: path, attribute, value, each ended by NUL.
	f := strings.Split(string(out), "\x00")
	attrs := make(map[string]string, len(seen))
	drivers := map[string]string{}
	for i := 0; i+2 < len(f); i += 3 {
		v := f[i+2]
		switch v {
		case "set", "unset", "unspecified":
		default:
			b, ok := drivers[v]
			if !ok {
				b = r.configString("diff." + v + ".binary")
				drivers[v] = b
			}
			v += "\x00binary=" + b
		}
		attrs[f[i]] = v
	}
	if len(attrs) != len(seen) {
		return nil, fmt.Errorf("git check-attr answered for %d paths of %d", len(attrs), len(seen))
	}
	return attrs, nil
}

// configString is a configuration value, "" when unset or unreadable.
func (r *Repo) configString(key string) string {
	cfg, err := r.r.Config()
	if err != nil {
		return ""
	}
	defer cfg.Free()
	v, _ := cfg.LookupString(key)
	return v
}

// encodeHunks writes an entry: a version line, the binary flag, the count
// of hunks, one line per hunk, and an end line, so that a cut entry does
// not decode.
func encodeHunks(e hunkEntry) []byte {
	var b bytes.Buffer
	bin := 0
	if e.binary {
		bin = 1
	}
	fmt.Fprintf(&b, "%s\nb %d\nn %d\n", hunkCacheVersion, bin, len(e.hunks))
	for _, h := range e.hunks {
		fmt.Fprintf(&b, "%d %d %d %d\n", h.OldStart, h.OldLines, h.NewStart, h.NewLines)
	}
	b.WriteString("end\n")
	return b.Bytes()
}

// decodeHunks reads an entry; nil when there is none or it is not whole
// and well formed.
func decodeHunks(data []byte) *hunkEntry {
	if data == nil {
		return nil
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) < 5 || lines[0] != hunkCacheVersion || lines[len(lines)-1] != "" || lines[len(lines)-2] != "end" {
		return nil
	}
	e := &hunkEntry{}
	switch lines[1] {
	case "b 0":
	case "b 1":
		e.binary = true
	default:
		return nil
	}
	n, err := strconv.Atoi(strings.TrimPrefix(lines[2], "n "))
	if err != nil || !strings.HasPrefix(lines[2], "n ") || n != len(lines)-5 {
		return nil
	}
	if n > 0 {
		e.hunks = make([]Hunk, 0, n)
	}
	for _, l := range lines[3 : 3+n] {
		var v [4]int
		f := strings.Split(l, " ")
		if len(f) != 4 {
			return nil
		}
		for i := range v {
			if v[i], err = strconv.Atoi(f[i]); err != nil || v[i] < 0 {
				return nil
			}
		}
		e.hunks = append(e.hunks, Hunk{OldStart: v[0], OldLines: v[1], NewStart: v[2], NewLines: v[3]})
	}
	return e
}
