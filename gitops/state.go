package gitops

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
)

// LastReflogMessage returns the message of the newest entry of HEAD's
// reflog in this worktree ("commit (amend): …", "cherry-pick: …",
// "rebase (pick): …"), or "" when there is none. Hooks use it to tell what
// made the commit they run for.
func (r *Repo) LastReflogMessage() string {
	data, err := os.ReadFile(filepath.Join(r.gitDir, "logs", "HEAD"))
	if err != nil {
		return ""
	}
	data = bytes.TrimRight(data, "\n")
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		data = data[i+1:]
	}
	if _, msg, ok := bytes.Cut(data, []byte{'\t'}); ok {
		return string(msg)
	}
	return ""
}

// RebaseInProgress reports whether this worktree is in the middle of a
// rebase.
func (r *Repo) RebaseInProgress() bool {
	for _, d := range []string{"rebase-merge", "rebase-apply"} {
		if st, err := os.Stat(filepath.Join(r.gitDir, d)); err == nil && st.IsDir() {
			return true
		}
	}
	return false
}

// SquashMessage returns the content of SQUASH_MSG, which `git merge
// --squash` leaves for the next commit, or "" when there is none.
func (r *Repo) SquashMessage() string {
	data, err := os.ReadFile(filepath.Join(r.gitDir, "SQUASH_MSG"))
	if err != nil {
		return ""
	}
	return string(data)
}

// PatchID returns git's stable patch id of a commit's change (see
// git-patch-id), or "" for a commit without a diff. Two commits with the
// same patch id make the same change: how gloss recognises a cherry-pick
// made without -x.
func (r *Repo) PatchID(ctx context.Context, commit string) (string, error) {
	diff, err := r.Git(ctx, "diff-tree", "-p", "--no-color", "--no-ext-diff", "--root", commit)
	if err != nil {
		return "", err
	}
	out, err := r.GitInput(ctx, bytes.NewReader(diff), "patch-id", "--stable")
	if err != nil {
		return "", err
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	return id, nil
}
