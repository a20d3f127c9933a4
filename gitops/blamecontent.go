package gitops

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// BlameContent blames content, a version of path that is not on disk (an
// editor's unsaved buffer): the blame of HEAD passed through a line diff
// from HEAD's version to content, the lines that differ uncommitted — what
// `git blame --contents` prints, from the blame cache instead of a walk of
// the history. start..end are lines of content (0,0 for all of it).
//
// The diff is computed in process (gopls's line LCS, through go-udiff):
// libgit2 diffs two blobs, and content is not one, and writing it into the
// object store for every keystroke of an editor is not an option.
func (r *Repo) BlameContent(ctx context.Context, path string, content []byte, start, end int) (*Blame, error) {
	uncommitted := BlameCommit{Author: "Not Committed Yet", AuthorTime: time.Now().UTC(), Summary: "Version of " + path + " from the editor"}
	head, err := r.Head()
	if err != nil {
		return nil, err
	}
	var base *blameEntry
	var old []byte
	if head != "" {
		key, err := r.blamePosition(head, path)
		switch {
		case IsNotFound(err): // not in HEAD: every line is new
		case err != nil:
			return nil, err
		default:
			if base = r.loadBlame(key, path); base == nil {
				if base, err = r.fillAt(ctx, key, path); err != nil {
					return nil, err
				}
			}
			// Most buffers a hook or an editor asks about are HEAD's
			// version: hashing one as git would is far cheaper than
			// inflating HEAD's blob and diffing the two.
			if id, err := r.BlobAt(head, path); err == nil && id != "" && id == hashBlob(content) {
				return base.slice(start, end)
			}
			if old, err = r.ReadFile(head, path); err != nil {
				return nil, err
			}
		}
	}
	if base == nil {
		e := newFileEntry(Uncommitted, path, CountLines(content), uncommitted)
		return e.slice(start, end)
	}
	if bytes.Equal(old, content) {
		return base.slice(start, end)
	}
	return base.pass(LineHunks(old, content), Uncommitted, path, uncommitted).slice(start, end)
}

// hashBlob is the id git gives content as a blob (`git hash-object`).
func hashBlob(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// LineHunks is the line diff from old to new as hunks without context, in
// git's numbering (a pure insertion's OldStart is the line after which it
// goes, a pure deletion's NewStart the line after which it was).
func LineHunks(old, new []byte) []Hunk {
	diffs := lcs.DiffLines(splitLines(old), splitLines(new))
	hunks := make([]Hunk, 0, len(diffs))
	for _, d := range diffs {
		h := Hunk{OldLines: d.End - d.Start, NewLines: d.ReplEnd - d.ReplStart, OldStart: d.Start, NewStart: d.ReplStart}
		if h.OldLines > 0 {
			h.OldStart++
		}
		if h.NewLines > 0 {
			h.NewStart++
		}
		hunks = append(hunks, h)
	}
	return hunks
}

// splitLines splits text into lines, each with its newline, as the LCS
// compares them: a last line without one differs from the same line with
// one, as it does for git.
func splitLines(text []byte) []string {
	var out []string
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			out = append(out, string(text))
			break
		}
		out = append(out, string(text[:i+1]))
		text = text[i+1:]
	}
	return out
}
