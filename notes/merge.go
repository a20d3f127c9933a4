package notes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/gitops"
)

// MergeLines returns the line-wise union of two notes: every line of ours
// in order, then the lines of theirs that ours lacks. Blank lines are
// dropped. Because records are append-only lines, the union loses nothing
// and never produces invalid JSON.
func MergeLines(ours, theirs []byte) []byte {
	have := map[string]bool{}
	var out bytes.Buffer
	add := func(note []byte) {
		for _, line := range bytes.Split(note, []byte{'\n'}) {
			line = bytes.TrimSpace(line)
			if len(line) == 0 || have[string(line)] {
				continue
			}
			have[string(line)] = true
			out.Write(line)
			out.WriteByte('\n')
		}
	}
	add(ours)
	add(theirs)
	return out.Bytes()
}

// MergeResult says what MergeRef did.
type MergeResult struct {
	Ref    string `json:"ref"`
	From   string `json:"from"`
	Action string `json:"action"` // "none", "created", "fast-forward", "merged"
	Tip    string `json:"tip"`
	Notes  int    `json:"notes_changed,omitempty"`
}

// MergeRef merges the notes ref src into dst line-wise. When one side
// already contains the other it only moves dst forward; otherwise it writes
// a merge commit whose parents are both tips, so that pushing dst to the
// remote that src tracks is a fast-forward. The update of dst is
// compare-and-swap and retried, like every notes write.
func MergeRef(ctx context.Context, repo *gitops.Repo, dst, src string) (MergeResult, error) {
	res := MergeResult{Ref: dst, From: src, Action: "none"}
	deadline := time.Now().Add(appendTimeout)
	for {
		err := mergeOnce(repo, dst, src, &res)
		if !errors.Is(err, gitops.ErrRefChanged) {
			return res, err
		}
		if time.Now().After(deadline) {
			return res, fmt.Errorf("%s: %w", dst, ErrContended)
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func mergeOnce(repo *gitops.Repo, dst, src string, res *MergeResult) error {
	srcTip, err := repo.RefTarget(src)
	if err != nil || srcTip == "" {
		return err
	}
	ours, err := repo.ReadNotes(dst)
	if err != nil {
		return err
	}
	defer ours.Close()
	res.Tip = ours.Tip
	switch {
	case ours.Tip == "":
		res.Action, res.Tip = "created", srcTip
		return repo.UpdateRef(dst, srcTip, "", "gloss: notes from "+src)
	case ours.Tip == srcTip:
		return nil
	}
	if in, err := repo.IsAncestor(srcTip, ours.Tip); err != nil || in {
		return err
	}
	if ff, err := repo.IsAncestor(ours.Tip, srcTip); err != nil {
		return err
	} else if ff {
		res.Action, res.Tip = "fast-forward", srcTip
		return repo.UpdateRef(dst, srcTip, ours.Tip, "gloss: fast-forward notes from "+src)
	}
	theirs, err := repo.ReadNotes(src)
	if err != nil {
		return err
	}
	defer theirs.Close()
	entries, err := changedSince(repo, ours.Tip, srcTip, theirs)
	if err != nil {
		return err
	}
	var changes []gitops.NoteChange
	for _, e := range entries {
		theirData, err := repo.ReadBlob(e.Blob)
		if err != nil {
			return err
		}
		ourData, _, err := ours.Get(e.Object)
		if err != nil {
			return err
		}
		merged := MergeLines(ourData, theirData)
		if !bytes.Equal(merged, ourData) {
			changes = append(changes, gitops.NoteChange{Object: e.Object, Data: merged})
		}
	}
	tip, err := repo.CommitNotes(ours, changes, []string{srcTip}, "gloss: merge notes from "+src)
	if err != nil {
		return err
	}
	res.Action, res.Tip, res.Notes = "merged", tip, len(changes)
	return nil
}

// changedSince lists the notes theirs added or changed since the merge
// base of the two tips: only those can bring ours anything new, and a tree
// diff skips every unchanged fan-out subtree, so a merge costs what
// changed, not the number of notes. (A note ours removed since the base
// and theirs left alone stays removed, as in a three-way merge.) Without a
// common history every note of theirs is merged.
func changedSince(repo *gitops.Repo, oursTip, theirTip string, theirs *gitops.Notes) ([]gitops.NoteEntry, error) {
	base, err := repo.MergeBase(oursTip, theirTip)
	if err != nil || base == "" {
		return theirs.List()
	}
	changes, err := repo.DiffTrees(base, theirTip, gitops.DiffOptions{NoRenames: true})
	if err != nil {
		return nil, err
	}
	var out []gitops.NoteEntry
	for _, c := range changes {
		if c.Status == gitops.Deleted {
			continue
		}
		if obj := strings.ReplaceAll(c.Path, "/", ""); isNoteName(obj) {
			out = append(out, gitops.NoteEntry{Object: obj, Blob: c.NewBlob})
		}
	}
	return out, nil
}

// isNoteName reports whether a notes tree path, fan-out removed, names an
// object (40 or 64 hex digits).
func isNoteName(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}
