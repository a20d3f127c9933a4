package attribution

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// git-ai's authorship logs (the Git AI Standard, authorship/3.0.0, in
// git-ai-project/git-ai): a note on each commit in refs/notes/ai, an
// attestation section — file paths, then "  <key> <ranges>" lines — a
// line holding "---", and a JSON metadata section that resolves the keys:
// "s_<id>::t_<id>" to metadata.sessions, "h_<id>" to metadata.humans, and
// legacy bare hex keys to metadata.prompts. Lines no key covers are
// untracked: gloss leaves them unnamed, so they read as unknown.

// GitAIRef is where git-ai keeps its authorship logs.
const GitAIRef = "refs/notes/ai"

type gitAIAgent struct {
	Tool  string `json:"tool"`
	ID    string `json:"id"`
	Model string `json:"model"`
}

type gitAIMeta struct {
	Schema  string `json:"schema_version"`
	Prompts map[string]struct {
		AgentID gitAIAgent `json:"agent_id"`
	} `json:"prompts"`
	Sessions map[string]struct {
		AgentID gitAIAgent `json:"agent_id"`
	} `json:"sessions"`
	Humans map[string]struct {
		Author string `json:"author"`
	} `json:"humans"`
}

// ImportGitAI reads git-ai's authorship logs from ref (default
// refs/notes/ai) into gloss attribution records on the same commits.
func ImportGitAI(ctx context.Context, repo *gitops.Repo, ref string) (*notes.ImportResult, error) {
	if ref == "" {
		ref = GitAIRef
	}
	res := &notes.ImportResult{Schema: "gloss-import/v1", Refs: []string{Ref}, Warnings: []string{}}
	snap, err := repo.ReadNotes(ref)
	if err != nil {
		return nil, err
	}
	entries, err := snap.List()
	snap.Close()
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		res.Warnings = append(res.Warnings, ref+": no notes")
	}
	adm, err := newAdmitter(repo, res)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		res.Read++
		c, err := repo.LookupCommit(e.Object)
		if err != nil {
			res.Missing++
			continue
		}
		data, err := repo.ReadBlob(e.Blob)
		if err != nil {
			return nil, err
		}
		rec, err := parseGitAI(c, e.Blob, data)
		if err != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s note on %s: %v", ref, gitops.ShortID(c.ID), err))
			continue
		}
		if err := adm.add(c.ID, rec); err != nil {
			return nil, err
		}
	}
	if err := adm.write(ctx); err != nil {
		return nil, err
	}
	return res, nil
}

// parseGitAI converts one authorship log.
func parseGitAI(c *gitops.Commit, blob string, data []byte) (Record, error) {
	attest, metaText, found := bytes.Cut(data, []byte("\n---\n"))
	if !found {
		if bytes.HasPrefix(data, []byte("---\n")) {
			attest, metaText, found = nil, data[4:], true
		} else {
			return Record{}, fmt.Errorf("no --- divider: not an authorship log")
		}
	}
	var meta gitAIMeta
	if err := json.Unmarshal(metaText, &meta); err != nil {
		return Record{}, fmt.Errorf("metadata: %w", err)
	}
	if !strings.HasPrefix(meta.Schema, "authorship/") {
		return Record{}, fmt.Errorf("schema_version %q is not authorship/*", meta.Schema)
	}
	contributor := func(key string) Contributor {
		agent := func(a gitAIAgent) Contributor {
			name := agentIn(a.Tool)
			if name == "" {
				name = a.Tool
			}
			return Contributor{Type: AI, Agent: name, Model: a.Model, Session: a.ID, Basis: BasisImport}
		}
		switch {
		case strings.HasPrefix(key, "h_"):
			return Contributor{Type: Human, Basis: BasisImport}
		case strings.HasPrefix(key, "s_"):
			sid, _, _ := strings.Cut(key, "::")
			if s, ok := meta.Sessions[sid]; ok {
				return agent(s.AgentID)
			}
		default:
			if p, ok := meta.Prompts[key]; ok {
				return agent(p.AgentID)
			}
		}
		return Contributor{Type: AI, Basis: BasisImport} // an attested key git-ai did not resolve: still an agent's
	}
	b := newBuilder(c.ID, SourceImport)
	b.rec.ID = notes.DerivedID(c.CommitTime, "git-ai\x00"+c.ID+"\x00"+blob)
	b.rec.Time = c.CommitTime.UTC().Format(time.RFC3339)
	files := map[string]map[int]Contributor{}
	var order []string
	path := ""
	sc := bufio.NewScanner(bytes.NewReader(attest))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		if !strings.HasPrefix(line, "  ") {
			path = line
			if uq, err := strconv.Unquote(line); err == nil {
				path = uq
			}
			if files[path] == nil {
				files[path] = map[int]Contributor{}
				order = append(order, path)
			}
			continue
		}
		key, spec, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok || path == "" {
			return Record{}, fmt.Errorf("bad attestation line %q", line)
		}
		who := contributor(key)
		for _, part := range strings.Split(spec, ",") {
			a, z, isRange := strings.Cut(part, "-")
			start, err1 := strconv.Atoi(a)
			end := start
			var err2 error
			if isRange {
				end, err2 = strconv.Atoi(z)
			}
			if err1 != nil || err2 != nil || start < 1 || end < start || end-start > 1_000_000 {
				return Record{}, fmt.Errorf("bad line range %q", part)
			}
			for l := start; l <= end; l++ {
				files[path][l] = who
			}
		}
	}
	for _, p := range order {
		var lines []int
		for l := range files[p] {
			lines = append(lines, l)
		}
		sort.Ints(lines)
		cs := make([]Contributor, len(lines))
		for i, l := range lines {
			cs[i] = files[p][l]
		}
		b.add(p, lines, cs)
	}
	return b.record(), nil
}
