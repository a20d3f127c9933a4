package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/safepath"
)

// EditSchema tags every line of the capture store.
const EditSchema = "gloss/agent-edit/v1"

// LineRange is an inclusive, 1-based range of lines in a file as an edit
// left it.
type LineRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Edit is one captured agent edit: which lines of which file an agent
// wrote, in which session, with which model and tool. Hashes holds the
// SHA-256 of each line's text (without its end of line), one per line of
// Lines in order; at commit time a committed line whose hash is among
// them is the agent's, any other line is not (a person changed it).
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

// HashLine is the content hash the capture store keeps for one line: hex
// SHA-256 of its text without the end of line (a trailing CR is dropped
// too, so CRLF files hash as their LF twins).
func HashLine(text string) string { return annotate.LineHash(text) }

// The store: <worktree git dir>/gloss/agent/pending.jsonl, one Edit per
// line, private to the worktree (each checkout commits its own edits),
// never committed or pushed. Appends and the post-commit consumer hold an
// exclusive lock on a side file, so an edit captured while a commit is
// being annotated is kept whole for the next commit.

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

func pendingPath(repo *gitops.Repo) (string, error) {
	d, err := agentDir(repo)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "pending.jsonl"), nil
}

func withPending(repo *gitops.Repo, fn func(path string) error) error {
	p, err := pendingPath(repo)
	if err != nil {
		return err
	}
	unlock, err := atomicfile.Lock(p + ".lock")
	if err != nil {
		return fmt.Errorf("lock agent capture store: %w", err)
	}
	defer unlock()
	return fn(p)
}

// hasPending reports whether the store exists, without creating
// anything: every commit asks, and most repositories never see an agent.
func hasPending(repo *gitops.Repo) bool {
	_, err := os.Stat(filepath.Join(repo.GitDir(), "gloss", "agent", "pending.jsonl"))
	return err == nil
}

// maxPendingBytes bounds the store: past it the oldest half is dropped (a
// worktree where nobody commits must not grow without end).
const maxPendingBytes = 8 << 20

// AppendEdit adds captured edits to the store.
func AppendEdit(repo *gitops.Repo, edits ...Edit) error {
	var buf bytes.Buffer
	for _, e := range edits {
		e.Schema = EditSchema
		if e.Time == "" {
			e.Time = time.Now().UTC().Format(time.RFC3339)
		}
		line, err := json.Marshal(e)
		if err != nil {
			return err
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return withPending(repo, func(p string) error {
		if st, err := os.Stat(p); err == nil && st.Size()+int64(buf.Len()) > maxPendingBytes {
			old, err := readEdits(p)
			if err != nil {
				return err
			}
			if err := writeEdits(p, old[len(old)/2:]); err != nil {
				return err
			}
		}
		f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		if _, err := f.Write(buf.Bytes()); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
}

// PendingEdits returns the captured edits not yet consumed by a commit,
// oldest first. Damaged lines are skipped.
func PendingEdits(repo *gitops.Repo) ([]Edit, error) {
	if !hasPending(repo) {
		return nil, nil
	}
	var out []Edit
	err := withPending(repo, func(p string) error {
		var err error
		out, err = readEdits(p)
		return err
	})
	return out, err
}

// ConsumePending removes what commit used from the store: for every file
// the commit changed, the hashes of the lines it committed, and those of
// lines no longer in the working tree (a person rewrote them). An edit
// none of whose lines are left is dropped; one whose file the commit did
// not touch, or that kept uncommitted lines (a partial `git add -p`),
// stays for the next commit. The post-commit hook calls it after every
// reader of the store (annotations, attribution) has run.
func ConsumePending(repo *gitops.Repo, commit string) error {
	if !hasPending(repo) {
		return nil
	}
	return withPending(repo, func(p string) error {
		edits, err := readEdits(p)
		if err != nil || len(edits) == 0 {
			return err
		}
		committed := map[string]map[string]bool{} // file -> line hashes in the commit
		worktree := map[string]map[string]bool{}  // file -> line hashes in the working tree
		var kept []Edit
		for _, e := range edits {
			hs, ok := committed[e.File]
			if !ok {
				hs = committedHashes(repo, commit, e.File)
				committed[e.File] = hs
				worktree[e.File] = worktreeHashes(repo, e.File)
			}
			if hs == nil {
				kept = append(kept, e) // the commit did not change the file
				continue
			}
			var left []string
			for _, h := range e.Hashes {
				if !hs[h] && worktree[e.File][h] {
					left = append(left, h)
				}
			}
			if len(left) == 0 {
				continue
			}
			e.Hashes = left
			kept = append(kept, e)
		}
		return writeEdits(p, kept)
	})
}

// committedHashes returns the line hashes of file as changed by commit, or
// nil when the commit did not change it.
func committedHashes(repo *gitops.Repo, commit, file string) map[string]bool {
	c, err := repo.LookupCommit(commit)
	if err != nil {
		return nil
	}
	parent := ""
	if len(c.Parents) > 0 {
		parent = c.Parents[0]
	}
	newBlob, err := repo.BlobAt(c.ID, file)
	if err != nil || newBlob == "" {
		return nil
	}
	if parent != "" {
		if oldBlob, err := repo.BlobAt(parent, file); err == nil && oldBlob == newBlob {
			return nil
		}
	}
	data, err := repo.ReadBlob(newBlob)
	if err != nil {
		return nil
	}
	return LineHashes(data)
}

// worktreeHashes returns the line hashes of a working-tree file (none
// when it cannot be read).
func worktreeHashes(repo *gitops.Repo, file string) map[string]bool {
	tree, err := safepath.ForRepo(repo)
	if err != nil {
		return nil
	}
	defer tree.Close()
	data, err := tree.ReadFile(file, maxFileBytes)
	if err != nil {
		return nil
	}
	return LineHashes(data)
}

// LineHashes returns the set of line hashes of a file's content.
func LineHashes(data []byte) map[string]bool {
	out := map[string]bool{}
	for _, l := range splitLines(string(data)) {
		out[HashLine(l)] = true
	}
	return out
}

// splitLines splits text into lines without their ends; a final newline
// does not start another line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}

func readEdits(p string) ([]Edit, error) {
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Edit
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxPendingBytes)
	for sc.Scan() {
		var e Edit
		if len(bytes.TrimSpace(sc.Bytes())) == 0 || json.Unmarshal(sc.Bytes(), &e) != nil || e.Schema != EditSchema {
			continue // a damaged line must not lose the others
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

func writeEdits(p string, edits []Edit) error {
	if len(edits) == 0 {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	var buf bytes.Buffer
	for _, e := range edits {
		line, err := json.Marshal(e)
		if err != nil {
			return err
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return atomicfile.Write(p, buf.Bytes(), 0o600)
}
