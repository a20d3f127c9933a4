package capture

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/safepath"
)

// EditSchema tags every line of the captured edits.
const EditSchema = "gloss/agent-edit/v1"

// LineRange is an inclusive, 1-based range of lines in a file as an edit
// left it.
type LineRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Edit is one captured agent edit: which lines of which file an agent
// wrote, in which session, with which model and tool. Hashes holds the
// HashLine of each line's text, one per line of Lines in order; at commit
// time a committed line whose hash is among them is the agent's, any
// other line is not (a person changed it).
type Edit struct {
	Schema  string      `json:"$schema"`
	Time    string      `json:"time"`
	Session string      `json:"session"`
	Agent   string      `json:"agent"`
	Model   string      `json:"model,omitempty"`
	Tool    string      `json:"tool"`
	File    string      `json:"file" jsonschema:"repository-relative path"`
	Lines   []LineRange `json:"lines"`
	Hashes  []string    `json:"hashes"`
}

// HashLine is the content hash kept for one line: hex SHA-256 of its text
// without the end of line (a trailing CR is dropped too, so CRLF files
// hash as their LF twins). Capture, annotations and attribution all match
// lines by it.
func HashLine(text string) string {
	text = strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// LineHashes returns the set of line hashes of a file's content.
func LineHashes(data []byte) map[string]bool {
	out := map[string]bool{}
	for _, l := range SplitLines(string(data)) {
		out[HashLine(l)] = true
	}
	return out
}

// SplitLines splits text into lines without their ends; a final newline
// does not start another line.
func SplitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// The edits: <worktree git dir>/gloss/agent/pending.jsonl, one Edit a
// line, private to the worktree (each checkout commits its own edits).

// maxEditBytes bounds the store: past it the oldest half is dropped (a
// worktree where nobody commits must not grow without end).
const maxEditBytes = 8 << 20

// maxFileBytes bounds the working-tree files read to consume edits.
const maxFileBytes = 16 << 20

func editsPath(repo *gitops.Repo) (string, error) {
	dir, err := repo.WorktreeGlossDir()
	if err != nil {
		return "", err
	}
	d := filepath.Join(dir, "agent")
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", err
	}
	return filepath.Join(d, "pending.jsonl"), nil
}

var edits = spool{path: editsPath, mode: 0o600, maxBytes: maxEditBytes}

// hasEdits reports whether the store exists, without creating anything:
// every commit asks, and most repositories never see an agent.
func hasEdits(repo *gitops.Repo) bool {
	_, err := os.Stat(filepath.Join(repo.GitDir(), "gloss", "agent", "pending.jsonl"))
	return err == nil
}

func isEdit(e *Edit) bool { return e.Schema == EditSchema }

func readEdits(p string) ([]Edit, error) { return readLines(p, maxEditBytes, isEdit) }

// writeEdits replaces the store with es (none: removes it), synced to
// stable storage when durable (gitops.Repo.Durable).
func writeEdits(p string, es []Edit, durable bool) error {
	if len(es) == 0 {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	data, err := encodeLines(es)
	if err != nil {
		return err
	}
	return replaceFile(p, data, 0o600, durable)
}

// AppendEdits adds captured edits to the store (their Schema set, and
// their Time where empty).
func AppendEdits(repo *gitops.Repo, es ...Edit) error {
	now := time.Now().UTC().Format(time.RFC3339)
	for i := range es {
		es[i].Schema = EditSchema
		if es[i].Time == "" {
			es[i].Time = now
		}
	}
	data, err := encodeLines(es)
	if err != nil {
		return err
	}
	return edits.with(repo, func(p string) error {
		if st, err := os.Stat(p); err == nil && st.Size()+int64(len(data)) > maxEditBytes {
			old, err := readEdits(p)
			if err != nil {
				return err
			}
			if err := writeEdits(p, old[len(old)/2:], repo.Durable()); err != nil {
				return err
			}
		}
		return edits.appendLines(p, data)
	})
}

// PendingEdits returns the captured edits no commit has taken yet,
// oldest first.
func PendingEdits(repo *gitops.Repo) ([]Edit, error) {
	if !hasEdits(repo) {
		return nil, nil
	}
	var out []Edit
	err := edits.with(repo, func(p string) error {
		var err error
		out, err = readEdits(p)
		return err
	})
	return out, err
}

// Taken is what a commit took from the store.
type Taken struct {
	// Edits are the edits pending when the commit was made, oldest first,
	// all of them: a reader matches their hashes with the commit's lines.
	Edits []Edit
	// Committed holds, per file of Edits that the commit changed, the
	// hashes of its lines in the commit.
	Committed map[string]map[string]bool
}

// TakeEdits reads the store for commit and removes what the commit used,
// in one step under the lock: for every file the commit changed, the
// hashes of the lines it committed, and those of lines no longer in the
// working tree (a person rewrote them). An edit none of whose lines are
// left is dropped; one whose file the commit did not touch, or that kept
// uncommitted lines (a partial `git add -p`), stays for the next commit.
func TakeEdits(repo *gitops.Repo, commit *gitops.Commit) (*Taken, error) {
	t := &Taken{Committed: map[string]map[string]bool{}}
	if !hasEdits(repo) {
		return t, nil
	}
	err := edits.with(repo, func(p string) error {
		var err error
		if t.Edits, err = readEdits(p); err != nil || len(t.Edits) == 0 {
			return err
		}
		// Read first what the repository says (how its writes are
		// synced, what the commit holds of the edits' files) and what
		// the working tree holds of them, then hash it.
		committed := committedFiles(repo, commit, t.Edits)
		durable := repo.Durable()
		worktree := worktreeFiles(repo, committed)
		inWorktree := map[string]map[string]bool{} // file -> line hashes in the working tree
		for f, data := range committed {
			t.Committed[f], inWorktree[f] = LineHashes(data), LineHashes(worktree[f])
		}
		var kept []Edit
		for _, e := range t.Edits {
			hs := t.Committed[e.File]
			if hs == nil {
				kept = append(kept, e) // the commit did not change the file
				continue
			}
			var left []string
			for _, h := range e.Hashes {
				if !hs[h] && inWorktree[e.File][h] {
					left = append(left, h)
				}
			}
			if len(left) > 0 {
				e.Hashes = left
				kept = append(kept, e)
			}
		}
		return writeEdits(p, kept, durable)
	})
	return t, err
}

// committedFiles returns the content at commit of each file of es that
// the commit changed.
func committedFiles(repo *gitops.Repo, c *gitops.Commit, es []Edit) map[string][]byte {
	out := map[string][]byte{}
	seen := map[string]bool{}
	for _, e := range es {
		if seen[e.File] {
			continue
		}
		seen[e.File] = true
		newBlob, err := repo.BlobAt(c.ID, e.File)
		if err != nil || newBlob == "" {
			continue
		}
		if len(c.Parents) > 0 {
			if oldBlob, err := repo.BlobAt(c.Parents[0], e.File); err == nil && oldBlob == newBlob {
				continue
			}
		}
		if data, err := repo.ReadBlob(newBlob); err == nil {
			out[e.File] = data
		}
	}
	return out
}

// worktreeFiles reads the files of committed in the working tree (none
// of a file that cannot be read).
func worktreeFiles(repo *gitops.Repo, committed map[string][]byte) map[string][]byte {
	tree, err := safepath.ForReading(repo)
	if err != nil {
		return nil
	}
	defer tree.Close()
	out := map[string][]byte{}
	for f := range committed {
		if data, err := tree.ReadFile(f, maxFileBytes); err == nil {
			out[f] = data
		}
	}
	return out
}
