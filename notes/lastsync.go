package notes

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/gitops"
)

// LastSync is what the last successful sync of this clone did, kept under
// the git dir so that status and the web view can say when notes were
// last exchanged and with which remote.
type LastSync struct {
	Remote string `json:"remote"`
	At     string `json:"at"` // RFC 3339, UTC
	Merged int    `json:"merged"`
	Pushed int    `json:"pushed"`
}

func lastSyncPath(repo *gitops.Repo) string {
	return filepath.Join(repo.CommonDir(), "gloss", "last-sync.json")
}

// recordSync remembers a successful sync. Losing it loses only the date
// status shows, so a failure to write is not the sync's failure.
func recordSync(repo *gitops.Repo, res *SyncResult, now time.Time) {
	data, err := json.Marshal(LastSync{Remote: res.Remote, At: now.UTC().Format(time.RFC3339), Merged: len(res.Merged), Pushed: len(res.Pushed)})
	if err != nil {
		return
	}
	_ = atomicfile.Write(lastSyncPath(repo), data, 0o644)
}

// ReadLastSync returns the last successful sync, or nil when this clone
// never synced (or the record is unreadable).
func ReadLastSync(repo *gitops.Repo) *LastSync {
	data, err := os.ReadFile(lastSyncPath(repo))
	if err != nil {
		return nil
	}
	var ls LastSync
	if json.Unmarshal(data, &ls) != nil || ls.At == "" {
		return nil
	}
	return &ls
}
