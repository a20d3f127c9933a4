package agent

import (
	"os"
	"path/filepath"

	"github.com/gloss-dev/gloss/gitops"
)

// agentDir is <worktree git dir>/gloss/agent: the session state, beside
// the captured edits (package capture), private to the worktree.
func agentDir(repo *gitops.Repo) (string, error) {
	dir, err := repo.WorktreeGlossDir()
	if err != nil {
		return "", err
	}
	d := filepath.Join(dir, "agent")
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", err
	}
	return d, nil
}
