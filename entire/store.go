// Package entire reads what Entire (entireio/cli) kept of agent sessions —
// the committed checkpoints on its entire/checkpoints/v1 branch — into
// gloss's session records and, as far as Entire's counts allow, line
// attribution. It only reads: nothing from Entire's data is executed, no
// path in it is opened, and its transcripts are not stored.
//
// The format, as entireio/cli defines it at f446dcfc
// (cmd/entire/cli/checkpoint/committed.go, checkpoint.go, id/id.go,
// trailers/trailers.go, paths/paths.go): the branch's tree holds one
// directory per checkpoint, sharded by its 12-hex id as <id[:2]>/<id[2:]>/,
// with a summary metadata.json and one numbered directory per session
// (0/, 1/, …) holding the session's metadata.json, the transcript
// full.jsonl (chunks full.jsonl.001, …), prompt.txt (the prompts joined
// by a "---" line) and context.md. The user's commit names its checkpoint
// in an "Entire-Checkpoint: <id>" trailer.
package entire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/lazyregexp"
)

// Branch is where Entire keeps committed checkpoints; a clone that has
// not fetched it may hold origin's copy (RemoteBranch), which Entire
// itself falls back to.
const (
	Branch       = "refs/heads/entire/checkpoints/v1"
	RemoteBranch = "refs/remotes/origin/entire/checkpoints/v1"
)

// maxMetadata bounds a metadata.json (Entire's are a few kilobytes),
// maxTranscriptScan how much of a transcript is read for the model name,
// maxPrompt how much of the last prompt is redacted into the summary.
const (
	maxMetadata       = 1 << 20
	maxTranscriptScan = 4 << 20
	maxPrompt         = 64 << 10
)

// attributionCounts is Entire's initial_attribution: line counts of one
// commit, agent against human (not which line is whose).
type attributionCounts struct {
	AgentLines     int     `json:"agent_lines"`
	HumanAdded     int     `json:"human_added"`
	HumanModified  int     `json:"human_modified"`
	HumanRemoved   int     `json:"human_removed"`
	TotalCommitted int     `json:"total_committed"`
	AgentPercent   float64 `json:"agent_percentage"`
}

// sessionMeta is the part of a session's metadata.json gloss uses.
type sessionMeta struct {
	CheckpointID string             `json:"checkpoint_id"`
	SessionID    string             `json:"session_id"`
	Strategy     string             `json:"strategy"`
	CreatedAt    time.Time          `json:"created_at"`
	FilesTouched []string           `json:"files_touched"`
	Agent        string             `json:"agent"`
	IsTask       bool               `json:"is_task"`
	Attribution  *attributionCounts `json:"initial_attribution"`
	Summary      *struct {
		Intent string `json:"intent"`
	} `json:"summary"`
}

// summaryMeta is the part of a checkpoint's root metadata.json gloss checks.
type summaryMeta struct {
	CheckpointID string `json:"checkpoint_id"`
	Strategy     string `json:"strategy"`
}

// session is one session's part in a checkpoint.
type session struct {
	index  int // its numbered directory
	meta   sessionMeta
	files  []string // files_touched that are safe repository paths
	dirs   []string // files_touched that name a directory ("dir/"): every file under it
	prompt string   // the last prompt, as Entire stored it (Entire redacts too)
	model  string   // from the transcript, when it names one
}

// checkpoint is one committed checkpoint.
type checkpoint struct {
	id       string
	strategy string
	sessions []session
}

var idRE = lazyregexp.New(`^[0-9a-f]{12}$`)

// resolveBranch finds the checkpoints branch: ref when given, else
// Entire's local branch, else origin's.
func resolveBranch(repo *gitops.Repo, ref string) (string, string, error) {
	cands := []string{Branch, RemoteBranch}
	switch {
	case strings.HasPrefix(ref, "refs/"):
		cands = []string{ref}
	case ref != "":
		cands = []string{"refs/heads/" + ref, "refs/remotes/" + ref} // a branch, or a remote's (origin/entire/checkpoints/v1)
	}
	for _, r := range cands {
		if tip, err := repo.RefTarget(r); err == nil && tip != "" {
			return r, tip, nil
		}
	}
	if ref != "" {
		return "", "", fault.NotFoundf("--ref %s: no such ref in this repository", ref)
	}
	return "", "", fault.NotFoundf("no Entire data here: neither %s nor %s exists (fetch it first: git fetch origin entire/checkpoints/v1:entire/checkpoints/v1)", Branch, RemoteBranch)
}

// readCheckpoints reads every committed checkpoint at tip. What is
// malformed is skipped with a warning; reading goes on.
func readCheckpoints(repo *gitops.Repo, tip string, warn func(string, ...any)) ([]checkpoint, error) {
	entries, err := repo.ListFiles(tip, "")
	if err != nil {
		return nil, err
	}
	// checkpoint id -> session index -> file name -> blob
	tree := map[string]map[int]map[string]string{}
	roots := map[string]string{}
	for _, e := range entries {
		parts := strings.Split(e.Path, "/")
		if len(parts) < 3 || len(parts[0]) != 2 || !idRE.MatchString(parts[0]+parts[1]) {
			continue // not a checkpoint (Entire keeps nothing else at the top)
		}
		id := parts[0] + parts[1]
		if len(parts) == 3 {
			if parts[2] == "metadata.json" {
				roots[id] = e.ID
			}
			continue
		}
		n, err := strconv.Atoi(parts[2])
		if err != nil || n < 0 || len(parts) != 4 || strconv.Itoa(n) != parts[2] {
			continue // task checkpoints (tasks/<tool-use-id>/) and files gloss does not read
		}
		if tree[id] == nil {
			tree[id] = map[int]map[string]string{}
		}
		if tree[id][n] == nil {
			tree[id][n] = map[string]string{}
		}
		tree[id][n][parts[3]] = e.ID
	}
	ids := make([]string, 0, len(roots))
	for id := range roots {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var orphans []string
	for id := range tree {
		if roots[id] == "" {
			orphans = append(orphans, id)
		}
	}
	sort.Strings(orphans)
	for _, id := range orphans {
		warn("checkpoint %s: no %s/%s/metadata.json; skipped", id, id[:2], id[2:])
	}
	var out []checkpoint
	for _, id := range ids {
		cp, ok, err := readCheckpoint(repo, id, roots[id], tree[id], warn)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, cp)
		}
	}
	return out, nil
}

func readCheckpoint(repo *gitops.Repo, id, root string, dirs map[int]map[string]string, warn func(string, ...any)) (checkpoint, bool, error) {
	where := id[:2] + "/" + id[2:] + "/metadata.json"
	var sum summaryMeta
	if err := readJSON(repo, root, &sum); err != nil {
		warn("checkpoint %s: %s: %v; skipped", id, where, err)
		return checkpoint{}, false, nil
	}
	if sum.CheckpointID != id {
		warn("checkpoint %s: %s names checkpoint %q; skipped", id, where, clip(sum.CheckpointID))
		return checkpoint{}, false, nil
	}
	cp := checkpoint{id: id, strategy: sum.Strategy}
	idx := make([]int, 0, len(dirs))
	for n := range dirs {
		idx = append(idx, n)
	}
	sort.Ints(idx)
	for _, n := range idx {
		s, ok, err := readSession(repo, id, n, dirs[n], warn)
		if err != nil {
			return checkpoint{}, false, err
		}
		if ok {
			cp.sessions = append(cp.sessions, s)
		}
	}
	return cp, true, nil
}

func readSession(repo *gitops.Repo, id string, n int, files map[string]string, warn func(string, ...any)) (session, bool, error) {
	where := fmt.Sprintf("checkpoint %s session %d", id, n)
	blob, ok := files["metadata.json"]
	if !ok {
		warn("%s: no metadata.json; skipped", where)
		return session{}, false, nil
	}
	s := session{index: n}
	if err := readJSON(repo, blob, &s.meta); err != nil {
		warn("%s: metadata.json: %v; skipped", where, err)
		return session{}, false, nil
	}
	if s.meta.CheckpointID != id {
		warn("%s: metadata.json names checkpoint %q; skipped", where, clip(s.meta.CheckpointID))
		return session{}, false, nil
	}
	if !safeText(s.meta.SessionID, 200) {
		warn("%s: session_id %q is empty, too long or holds control characters; skipped", where, clip(s.meta.SessionID))
		return session{}, false, nil
	}
	for _, p := range s.meta.FilesTouched {
		if d, isDir := strings.CutSuffix(p, "/"); isDir && safePath(d) {
			s.dirs = append(s.dirs, d+"/")
			continue
		}
		if !safePath(p) {
			warn("%s: files_touched %q is not a path inside the repository; left out", where, clip(p))
			continue
		}
		s.files = append(s.files, p)
	}
	if !safeText(s.meta.Agent, 100) {
		s.meta.Agent = ""
	}
	if b, ok := files["prompt.txt"]; ok {
		data, err := readBlob(repo, b, where+": prompt.txt", warn)
		if err != nil {
			return session{}, false, err
		}
		if data != nil && !utf8.Valid(data) {
			warn("%s: prompt.txt is not UTF-8; no prompt kept", where)
		} else {
			s.prompt = lastPrompt(string(data))
		}
	}
	if s.prompt == "" && s.meta.Summary != nil {
		s.prompt = s.meta.Summary.Intent
	}
	if len(s.prompt) > maxPrompt {
		// The summary kept is its first words; redacting megabytes to get
		// them would only cost time.
		s.prompt = strings.ToValidUTF8(s.prompt[:maxPrompt], "")
	}
	if b, ok := files["full.jsonl"]; ok {
		data, err := readBlob(repo, b, where+": full.jsonl", warn)
		if err != nil {
			return session{}, false, err
		}
		s.model = transcriptModel(data)
	}
	return s, true, nil
}

// touches reports whether the session's files_touched names path p.
func (s *session) touches(p string) bool {
	for _, f := range s.files {
		if f == p {
			return true
		}
	}
	for _, d := range s.dirs {
		if strings.HasPrefix(p, d) {
			return true
		}
	}
	return false
}

// readBlob reads a blob; one the repository lacks (a partial clone, a
// damaged copy) is nil and a warning.
func readBlob(repo *gitops.Repo, blob, what string, warn func(string, ...any)) ([]byte, error) {
	data, err := repo.ReadBlob(blob)
	if gitops.IsNotFound(err) {
		warn("%s: blob %s is missing from this repository; read without it", what, gitops.ShortID(blob))
		return nil, nil
	}
	return data, err
}

// readJSON decodes a metadata blob: UTF-8, bounded, one JSON object.
func readJSON(repo *gitops.Repo, blob string, v any) error {
	data, err := repo.ReadBlob(blob)
	if gitops.IsNotFound(err) {
		return fmt.Errorf("blob %s is missing from this repository", gitops.ShortID(blob))
	}
	if err != nil {
		return err
	}
	if len(data) > maxMetadata {
		return fmt.Errorf("%d bytes, more than any metadata Entire writes", len(data))
	}
	if !utf8.Valid(data) {
		return fmt.Errorf("not UTF-8")
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("not valid JSON: %v", err)
	}
	return nil
}

// lastPrompt is the last of the prompts Entire joined with a "---" line.
func lastPrompt(s string) string {
	parts := strings.Split(s, "\n\n---\n\n")
	return strings.TrimSpace(parts[len(parts)-1])
}

// transcriptModel finds the model an agent's transcript names: Claude
// Code's JSON Lines carry it in each assistant message ("message":
// {"model": …}); other transcripts at the top of a line.
func transcriptModel(data []byte) string {
	if len(data) > maxTranscriptScan {
		data = data[:maxTranscriptScan]
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxTranscriptScan)
	for sc.Scan() {
		var line struct {
			Model   string `json:"model"`
			Message struct {
				Model string `json:"model"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		for _, m := range []string{line.Message.Model, line.Model} {
			if m != "" && m != "<synthetic>" && safeText(m, 100) {
				return m
			}
		}
	}
	return ""
}

// safePath reports whether p is a clean, relative path inside a
// repository: gloss only compares it with the commit's paths, but a path
// that could not be one is a sign of tampering, said in a warning.
func safePath(p string) bool {
	if p == "" || len(p) > 4096 || !utf8.ValidString(p) || strings.ContainsAny(p, "\\\x00") {
		return false
	}
	if path.IsAbs(p) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") {
		return false
	}
	for _, r := range p {
		if unicode.IsControl(r) {
			return false
		}
	}
	return p != ".git" && !strings.HasPrefix(p, ".git/")
}

// safeText reports whether s is non-empty, at most limit bytes of UTF-8,
// with no control characters (it ends up in notes and on terminals).
func safeText(s string, limit int) bool {
	if s == "" || len(s) > limit || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// clip shortens a value quoted in a warning.
func clip(s string) string {
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return strings.ToValidUTF8(s, "�")
}
