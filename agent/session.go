package agent

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tidwall/gjson"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// Session is what gloss keeps about one agent session, in
// <worktree git dir>/gloss/agent/sessions/<hash of the id>.json: never
// committed, never pushed. Prompts holds redacted summaries only.
type Session struct {
	ID        string          `json:"id"`
	Agent     string          `json:"agent"`
	Model     string          `json:"model,omitempty"`
	Started   string          `json:"started"`
	Updated   string          `json:"updated"`
	Prompts   []Prompt        `json:"prompts,omitempty"`
	Delivered map[string]bool `json:"delivered,omitempty" jsonschema:"keys of the items already given to this session"`
}

// Prompt is one prompt of a session, as gloss keeps it: when, and its
// redacted summary.
type Prompt struct {
	Time    string `json:"time"`
	Summary string `json:"summary"`
}

// PromptBefore returns the summary of the last prompt at or before t (an
// RFC 3339 time: the prompt an edit answered), else the latest one.
func (s *Session) PromptBefore(t string) string {
	for i := len(s.Prompts) - 1; i >= 0; i-- {
		if s.Prompts[i].Time <= t {
			return s.Prompts[i].Summary
		}
	}
	if n := len(s.Prompts); n > 0 {
		return s.Prompts[n-1].Summary
	}
	return ""
}

// maxPrompts bounds the summaries a session keeps (the latest win).
const maxPrompts = 20

// sessionTTL is how long an untouched session file is kept.
const sessionTTL = 14 * 24 * time.Hour

func sessionsDir(repo *gitops.Repo) (string, error) {
	d, err := agentDir(repo)
	if err != nil {
		return "", err
	}
	d = filepath.Join(d, "sessions")
	return d, os.MkdirAll(d, 0o755)
}

func sessionFile(dir, id string) string {
	sum := sha256.Sum256([]byte(id))
	return filepath.Join(dir, hex.EncodeToString(sum[:12])+".json")
}

// UpdateSession reads the session's state, lets fn change it and writes
// it back, under a lock: an agent may run several hooks at once.
func UpdateSession(repo *gitops.Repo, id, agentName string, fn func(s *Session) error) (*Session, error) {
	dir, err := sessionsDir(repo)
	if err != nil {
		return nil, err
	}
	p := sessionFile(dir, id)
	unlock, err := atomicfile.Lock(p + ".lock")
	if err != nil {
		return nil, err
	}
	defer unlock()
	s, err := readSession(p)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC().Format(time.RFC3339)
	var before []byte
	if s == nil {
		s = &Session{ID: id, Agent: agentName, Started: now}
	} else {
		before, _ = json.Marshal(s)
	}
	if s.Delivered == nil {
		s.Delivered = map[string]bool{}
	}
	if err := fn(s); err != nil {
		return nil, err
	}
	if len(s.Prompts) > maxPrompts {
		s.Prompts = s.Prompts[len(s.Prompts)-maxPrompts:]
	}
	if after, _ := json.Marshal(s); before != nil && bytes.Equal(before, after) {
		return s, nil // nothing new: spare the write
	}
	s.Updated = now
	data, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	// Session state is a convenience (a lost one only means an item is
	// delivered twice): replaced atomically, without paying for fsync on
	// the agent's time.
	root, err := os.OpenRoot(filepath.Dir(p))
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return s, atomicfile.Replace(root, filepath.Base(p), data, 0o600)
}

// LoadSession returns a session's state, or nil when gloss has none.
func LoadSession(repo *gitops.Repo, id string) (*Session, error) {
	dir, err := sessionsDir(repo)
	if err != nil {
		return nil, err
	}
	return readSession(sessionFile(dir, id))
}

func readSession(p string) (*Session, error) {
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s Session
	if json.Unmarshal(data, &s) != nil {
		return nil, nil // damaged: start over rather than fail the agent
	}
	return &s, nil
}

// PruneSessions removes session files untouched for sessionTTL.
func PruneSessions(repo *gitops.Repo) {
	dir, err := sessionsDir(repo)
	if err != nil {
		return
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > sessionTTL {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// transcriptTail is how much of a transcript's end is read for the model.
const transcriptTail = 1 << 20

// ModelFromTranscript returns the model of the last assistant message in a
// JSON Lines transcript (Claude Code's transcript_path: each assistant
// line has message.model), or "". Only the model name is read; nothing
// else of the transcript is kept.
func ModelFromTranscript(path string) string {
	if path == "" {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > transcriptTail {
		_, _ = f.Seek(st.Size()-transcriptTail, io.SeekStart)
	}
	data, err := io.ReadAll(io.LimitReader(f, transcriptTail))
	if err != nil {
		return ""
	}
	model := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), transcriptTail)
	for sc.Scan() {
		line := sc.Bytes()
		if !gjson.ValidBytes(line) {
			continue // the first line after a seek is partial
		}
		if m := gjson.GetBytes(line, "message.model"); m.Type == gjson.String && gjson.GetBytes(line, "type").String() == "assistant" {
			if v := m.String(); v != "" && v != "<synthetic>" {
				model = v
			}
		}
	}
	return model
}

// ForgetPrompts drops from the session state of every worktree the
// prompts whose summary a forgotten record held (git gloss forget, or
// tombstones a sync or an import brought): the state is what the next
// commit of an edit made in the session takes its intent from, so a
// summary left there would be written again under new ids. It returns how
// many prompts it dropped. The file is replaced whole (atomicfile), so the
// old bytes are not left in it.
func ForgetPrompts(repo *gitops.Repo, ts *notes.Tombstones) (int, error) {
	if ts == nil || ts.Len() == 0 {
		return 0, nil
	}
	dirs := []string{filepath.Join(repo.CommonDir(), "gloss", "agent", "sessions")}
	linked, _ := filepath.Glob(filepath.Join(repo.CommonDir(), "worktrees", "*", "gloss", "agent", "sessions"))
	dirs = append(dirs, linked...)
	dropped := 0
	for _, dir := range dirs {
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue // no sessions in this worktree
		}
		for _, e := range ents {
			if !e.Type().IsRegular() || filepath.Ext(e.Name()) != ".json" {
				continue
			}
			n, err := forgetPromptsIn(filepath.Join(dir, e.Name()), ts)
			if err != nil {
				return dropped, err
			}
			dropped += n
		}
	}
	return dropped, nil
}

// forgetPromptsIn drops the forgotten prompts of one session file, under
// its lock.
func forgetPromptsIn(p string, ts *notes.Tombstones) (int, error) {
	unlock, err := atomicfile.Lock(p + ".lock")
	if err != nil {
		return 0, err
	}
	defer unlock()
	s, err := readSession(p)
	if err != nil || s == nil {
		return 0, err
	}
	kept := s.Prompts[:0]
	for _, pr := range s.Prompts {
		if !promptForgotten(ts, pr.Summary) {
			kept = append(kept, pr)
		}
	}
	n := len(s.Prompts) - len(kept)
	if n == 0 {
		return 0, nil
	}
	s.Prompts = kept
	data, err := json.Marshal(s)
	if err != nil {
		return 0, err
	}
	root, err := os.OpenRoot(filepath.Dir(p))
	if err != nil {
		return 0, err
	}
	defer root.Close()
	return n, atomicfile.Replace(root, filepath.Base(p), data, 0o600)
}

// promptForgotten reports whether a prompt summary is the text of a
// forgotten record (the intent or the session summary it became).
func promptForgotten(ts *notes.Tombstones, summary string) bool {
	return ts != nil && summary != "" && ts.TextForgotten(notes.TextPrint(summary))
}
