package entire_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/agent"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/entire"
	"github.com/gloss-dev/gloss/fixtures"
)

// The fixtures write Entire's committed-checkpoint store with real git
// objects, as entireio/cli at f446dcfc defines it:
//   - cmd/entire/cli/checkpoint/committed.go (writeStandardCheckpointEntries,
//     writeSessionToSubdirectory, writeCheckpointSummary, buildCommitMessage):
//     the entire/checkpoints/v1 branch, <id[:2]>/<id[2:]>/metadata.json
//     (CheckpointSummary) and <id[:2]>/<id[2:]>/<n>/{metadata.json,
//     full.jsonl, prompt.txt, context.md, content_hash.txt}, prompts joined
//     by "\n\n---\n\n", the "Checkpoint: <id>" commit with Entire-Session,
//     Entire-Strategy and Entire-Agent trailers;
//   - cmd/entire/cli/checkpoint/checkpoint.go: CommittedMetadata,
//     CheckpointSummary, SessionFilePaths, InitialAttribution (JSON names);
//   - cmd/entire/cli/checkpoint/id/id.go: 12 lowercase hex ids, the path
//     <id[:2]>/<id[2:]>;
//   - cmd/entire/cli/trailers/trailers.go: "Entire-Checkpoint: <id>" on the
//     user's commit;
//   - cmd/entire/cli/agent/registry.go: agent types "Claude Code",
//     "Gemini CLI";
//   - docs/architecture/attribution.md: initial_attribution's counts.

// fxSession is one session directory of a checkpoint.
type fxSession struct {
	id, agent  string
	files      []string
	attr       map[string]any // initial_attribution, nil for none
	prompts    []string
	transcript string
}

// checkpointFiles lays out one checkpoint as committed.go does.
func checkpointFiles(id, strategy string, sessions []fxSession) map[string][]byte {
	base := id[:2] + "/" + id[2:] + "/"
	out := map[string][]byte{}
	var paths []map[string]string
	touched := map[string]bool{}
	for n, s := range sessions {
		dir := fmt.Sprintf("%s%d/", base, n)
		meta := map[string]any{
			"cli_version": "0.4.2", "checkpoint_id": id, "session_id": s.id, "strategy": strategy,
			"created_at": "2026-01-20T10:0" + fmt.Sprint(n) + ":00Z", "branch": "main", "checkpoints_count": 2,
			"files_touched": s.files, "agent": s.agent,
			"token_usage": map[string]int{"input_tokens": 1500, "cache_creation_tokens": 200, "cache_read_tokens": 800, "output_tokens": 500, "api_call_count": 3},
		}
		if s.attr != nil {
			meta["initial_attribution"] = s.attr
		}
		out[dir+"metadata.json"] = indent(meta)
		out[dir+"full.jsonl"] = []byte(s.transcript)
		out[dir+"prompt.txt"] = []byte(strings.Join(s.prompts, "\n\n---\n\n"))
		out[dir+"context.md"] = []byte("# Session Context\n")
		out[dir+"content_hash.txt"] = []byte("sha256:0000\n")
		paths = append(paths, map[string]string{
			"metadata": "/" + dir + "metadata.json", "transcript": "/" + dir + "full.jsonl", "context": "/" + dir + "context.md",
			"content_hash": "/" + dir + "content_hash.txt", "prompt": "/" + dir + "prompt.txt",
		})
		for _, f := range s.files {
			touched[f] = true
		}
	}
	var files []string
	for f := range touched {
		files = append(files, f)
	}
	sort.Strings(files)
	out[base+"metadata.json"] = indent(map[string]any{
		"cli_version": "0.4.2", "checkpoint_id": id, "strategy": strategy, "branch": "main",
		"checkpoints_count": 2, "files_touched": files, "sessions": paths,
	})
	return out
}

func indent(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// claudeTranscript is a Claude Code transcript as Entire stores it
// (full.jsonl): the agent's own JSON Lines, the model on assistant lines.
func claudeTranscript(model, userText string) string {
	return `{"type":"user","uuid":"u1","message":{"role":"user","content":` + quote(userText) + `}}
{"type":"assistant","uuid":"a1","message":{"role":"assistant","model":"` + model + `","content":[{"type":"text","text":"Done."}]}}
`
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// commitCheckpoints commits files onto Entire's branch with plumbing (its
// own index), one "Checkpoint: <id>" commit as buildCommitMessage writes.
func commitCheckpoints(t *testing.T, fx *fixtures.Repo, ref, id string, files map[string][]byte) {
	t.Helper()
	index := filepath.Join(t.TempDir(), "index")
	git := func(stdin []byte, args ...string) string {
		t.Helper()
		cmd := fx.Command("git", args...)
		cmd.Env = append(cmd.Env, "GIT_INDEX_FILE="+index)
		if stdin != nil {
			cmd.Stdin = bytes.NewReader(stdin)
		}
		out, err := cmd.Output()
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, ee.Stderr)
			}
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	parent, _ := fx.GitErr("rev-parse", "-q", "--verify", ref)
	if parent != "" {
		git(nil, "read-tree", parent)
	}
	for p, data := range files {
		blob := git(data, "hash-object", "-w", "--stdin")
		git(nil, "update-index", "--add", "--cacheinfo", "100644,"+blob+","+p)
	}
	tree := git(nil, "write-tree")
	args := []string{"commit-tree", tree, "-m", "Checkpoint: " + id + "\n\nEntire-Session: 2026-01-20-s\nEntire-Strategy: manual-commit\nEntire-Agent: Claude Code\n"}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	git(nil, "update-ref", ref, git(nil, args...))
}

func numbered(prefix string, from, n int) string {
	var b strings.Builder
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&b, "%s line %d\n", prefix, i)
	}
	return b.String()
}

const (
	cpLogin    = "a3b2c4d5e6f7"
	cpRetry    = "b1c2d3e4f5a6"
	cpAuto     = "c4d5e6f7a8b9"
	cpLost     = "d0d0d0d0d0d0"
	cpZero     = "f0f0f0f0f0f0"
	cpAutoBare = "f2f2f2f2f2f2"
	cpPerson   = "f1f1f1f1f1f1"
	sonnet     = "claude-sonnet-4-5-20250929"
	sessionA   = "8f76b0e8-b8f1-4a87-9186-848bdd83d62e"
	sessionB   = "2f0c1d7e-5b1a-4c3e-9d2b-7a6e5f4d3c2b"
	sessionG   = "gemini-7c1d"
)

// entireRepo is a repository where Entire recorded three commits: one
// whose counts name every line, one where agent and person wrote in the
// same file, one Entire auto-committed, plus a checkpoint whose commit
// trailer was dropped and three malformed checkpoints.
func entireRepo(t *testing.T) (fx *fixtures.Repo, login, retry, auto string, secret string) {
	fx = fixtures.NewRepo(t)
	fx.Commit("base", map[string]string{"README.md": "hello\n"})
	cred := fixtures.Credentials()[0]
	// manual-commit: the agent wrote auth.go (10 lines), the person
	// notes.txt (3): agent_lines 10, human_added 3, total 13.
	login = fx.Commit("Add login\n\nEntire-Checkpoint: "+cpLogin+"\n", map[string]string{
		"src/auth.go": numbered("auth", 1, 10), "notes.txt": numbered("note", 1, 3),
	})
	// two sessions touched auth.go; the person added 2 of its 4 new lines.
	retry = fx.Commit("Retry login\n\nEntire-Checkpoint: "+cpRetry+"\n", map[string]string{
		"src/auth.go": numbered("auth", 1, 14),
	})
	// auto-commit: Entire made the commit of the agent's changes.
	auto = fx.Commit("Add util\n\nEntire-Checkpoint: "+cpAuto+"\n", map[string]string{"src/util.go": numbered("util", 1, 5)})
	// counts of nothing (agent 0, human 0) decide nothing; agent 0 and
	// human 2 make the touched file the person's.
	fx.Commit("Zero\n\nEntire-Checkpoint: "+cpZero+"\n", map[string]string{"zero.txt": "z1\nz2\n"})
	fx.Commit("Person\n\nEntire-Checkpoint: "+cpPerson+"\n", map[string]string{"person.txt": "p1\np2\n"})
	// auto-commit, but no files_touched (older Entire): nothing to go by.
	fx.Commit("Auto, files unnamed\n\nEntire-Checkpoint: "+cpAutoBare+"\n", map[string]string{"bare.txt": "b1\n"})
	fx.Commit("Human only", map[string]string{"CHANGES": "one\n"})

	commitCheckpoints(t, fx, entire.Branch, cpLogin, checkpointFiles(cpLogin, "manual-commit", []fxSession{{
		id: sessionA, agent: "Claude Code", files: []string{"src/auth.go", "../../etc/passwd"},
		attr:       map[string]any{"calculated_at": "2026-01-20T10:05:00Z", "agent_lines": 10, "human_added": 3, "human_modified": 0, "human_removed": 0, "total_committed": 13, "agent_percentage": 76.9},
		prompts:    []string{"look at the login page", "add a login handler; " + cred.Prompt},
		transcript: claudeTranscript(sonnet, cred.Prompt),
	}}))
	commitCheckpoints(t, fx, entire.Branch, cpRetry, checkpointFiles(cpRetry, "manual-commit", []fxSession{
		{id: sessionA, agent: "Claude Code", files: []string{"src/auth.go"}, prompts: []string{"retry on timeout"}, transcript: claudeTranscript(sonnet, "retry"),
			attr: map[string]any{"calculated_at": "2026-01-20T11:00:00Z", "agent_lines": 2, "human_added": 2, "human_modified": 0, "human_removed": 0, "total_committed": 4, "agent_percentage": 50.0}},
		{id: sessionG, agent: "Gemini CLI", files: []string{"src/auth.go"}, prompts: []string{"log the retries"}, transcript: `{"type":"gemini","model":"gemini-2.5-pro"}` + "\n",
			attr: map[string]any{"calculated_at": "2026-01-20T11:00:00Z", "agent_lines": 2, "human_added": 2, "human_modified": 0, "human_removed": 0, "total_committed": 4, "agent_percentage": 50.0}},
	}))
	commitCheckpoints(t, fx, entire.Branch, cpAuto, checkpointFiles(cpAuto, "auto-commit", []fxSession{
		{id: sessionB, agent: "Claude Code", files: []string{"src/"}, prompts: []string{"add a util"}, transcript: claudeTranscript(sonnet, "util")},
	}))
	for id, counts := range map[string][2]int{cpZero: {0, 0}, cpPerson: {0, 2}} {
		file := map[string]string{cpZero: "zero.txt", cpPerson: "person.txt"}[id]
		commitCheckpoints(t, fx, entire.Branch, id, checkpointFiles(id, "manual-commit", []fxSession{{
			id: "s-" + id, agent: "Claude Code", files: []string{file}, prompts: []string{"p"},
			attr: map[string]any{"calculated_at": "2026-01-20T12:00:00Z", "agent_lines": counts[0], "human_added": counts[1], "human_modified": 0, "human_removed": 0, "total_committed": counts[0] + counts[1], "agent_percentage": 0.0},
		}}))
	}
	commitCheckpoints(t, fx, entire.Branch, cpAutoBare, checkpointFiles(cpAutoBare, "auto-commit", []fxSession{
		{id: "s-bare", agent: "Claude Code", prompts: []string{"bare"}},
	}))
	commitCheckpoints(t, fx, entire.Branch, cpLost, checkpointFiles(cpLost, "manual-commit", []fxSession{
		{id: "lost", agent: "Claude Code", files: []string{"x.go"}, prompts: []string{"lost"}},
	}))
	// Malformed: bad JSON, invalid UTF-8, a session without its
	// checkpoint's metadata.json, a session id with a control character.
	commitCheckpoints(t, fx, entire.Branch, "e1e1e1e1e1e1", map[string][]byte{"e1/e1e1e1e1e1/metadata.json": []byte(`{"checkpoint_id": "e1e1e1e1e1e1", "sessions": [`)})
	commitCheckpoints(t, fx, entire.Branch, "e2e2e2e2e2e2", map[string][]byte{"e2/e2e2e2e2e2/metadata.json": []byte("{\"checkpoint_id\": \"e2e2e2e2e2e2\", \"branch\": \"m\xffain\"}")})
	orphan := checkpointFiles("e4e4e4e4e4e4", "manual-commit", []fxSession{{id: "orphan", agent: "Claude Code"}})
	delete(orphan, "e4/e4e4e4e4e4/metadata.json")
	commitCheckpoints(t, fx, entire.Branch, "e4e4e4e4e4e4", orphan)
	bad := checkpointFiles("e3e3e3e3e3e3", "manual-commit", []fxSession{{id: "evil\x1b[2Jid", agent: "Claude Code", files: []string{"src/auth.go"}}})
	commitCheckpoints(t, fx, entire.Branch, "e3e3e3e3e3e3", bad)
	return fx, login, retry, auto, cred.Secret
}

type blameOut struct {
	Lines []struct {
		Contributor attribution.Contributor `json:"contributor"`
	} `json:"lines"`
}

// who is each line's contributor: type[/agent/model/session].
func who(t *testing.T, fx *fixtures.Repo, file string) []string {
	t.Helper()
	var res blameOut
	out := fx.MustGloss("blame", "--json", file)
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("blame --json: %v\n%s", err, out)
	}
	var w []string
	for _, l := range res.Lines {
		c := l.Contributor
		s := c.Type
		if c.Agent != "" || c.Session != "" {
			s += "/" + c.Agent + "/" + c.Model + "/" + c.Session
		}
		w = append(w, s)
	}
	return w
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func expectLines(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func sessionsOn(t *testing.T, fx *fixtures.Repo, commit string) []agent.SessionRecord {
	t.Helper()
	out, err := fx.GitErr("notes", "--ref", agent.Sessions, "show", commit)
	if err != nil {
		return nil
	}
	var recs []agent.SessionRecord
	for _, line := range strings.Split(out, "\n") {
		var r agent.SessionRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("session note on %s: %v\n%s", commit, err, line)
		}
		recs = append(recs, r)
	}
	return recs
}

func TestImportEntireCheckpoints(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	fx, login, retry, auto, secret := entireRepo(t)

	// A dry run counts and writes nothing.
	var dry entire.Result
	if err := json.Unmarshal([]byte(fx.MustGloss("import", "entire", "--dry-run", "--json")), &dry); err != nil {
		t.Fatal(err)
	}
	if dry.Sessions.Written != 7 || dry.Attribution.Written != 4 || !dry.DryRun {
		t.Errorf("dry run: %d session and %d attribution records, want 7 and 4", dry.Sessions.Written, dry.Attribution.Written)
	}
	if out, err := fx.GitErr("show-ref", agent.Sessions, attribution.Ref); err == nil {
		t.Fatalf("the dry run wrote notes:\n%s", out)
	}

	var res entire.Result
	out := fx.MustGloss("import", "entire", "--json")
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if res.Checkpoints != 8 || res.Unlinked != 2 {
		t.Errorf("%d checkpoints read, %d unlinked; want 8 (6 linked, the lost one, e3 whose session is skipped) and 2 (the lost one, e3)", res.Checkpoints, res.Unlinked)
	}
	if res.Sessions.Written != 7 || res.Attribution.Written != 4 {
		t.Errorf("%d session and %d attribution records written, want 7 and 4", res.Sessions.Written, res.Attribution.Written)
	}
	if res.Lines["ai"] != 15 || res.Lines["mixed"] != 4 || res.Lines["human"] != 5 {
		t.Errorf("lines %v, want ai 15 (10 login + 5 util), mixed 4, human 5 (3 notes + 2 person)", res.Lines)
	}
	warned := strings.Join(res.Warnings, "\n")
	for _, w := range []string{"e1e1e1e1e1e1", "not valid JSON", "e2e2e2e2e2e2", "not UTF-8", "e3e3e3e3e3e3 session 0: session_id", "checkpoint e4e4e4e4e4e4: no e4/e4e4e4e4e4/metadata.json", `files_touched "../../etc/passwd"`} {
		if !strings.Contains(warned, w) {
			t.Errorf("no warning says %q:\n%s", w, warned)
		}
	}
	if strings.Contains(warned, "\x1b") {
		t.Errorf("a warning carries an escape sequence from the data:\n%q", warned)
	}

	// Line attribution, read back through blame: auth.go's first 10 lines
	// are the Claude session's, the 4 the retry added mixed (two sessions of
	// two agents: no single agent); notes.txt the person's; util.go the
	// auto-commit's agent; the commit Entire never saw stays unknown.
	claude := "ai/claude/" + sonnet + "/" + sessionA
	expectLines(t, "src/auth.go", who(t, fx, "src/auth.go"), append(repeat(claude, 10), repeat("mixed", 4)...)...)
	expectLines(t, "notes.txt", who(t, fx, "notes.txt"), repeat("human", 3)...)
	expectLines(t, "src/util.go", who(t, fx, "src/util.go"), repeat("ai/claude/"+sonnet+"/"+sessionB, 5)...)
	expectLines(t, "CHANGES", who(t, fx, "CHANGES"), "unknown")
	expectLines(t, "zero.txt", who(t, fx, "zero.txt"), "unknown", "unknown")
	expectLines(t, "person.txt", who(t, fx, "person.txt"), "human", "human")
	expectLines(t, "bare.txt", who(t, fx, "bare.txt"), "unknown")

	// Session records on the commits that name the checkpoints.
	got := sessionsOn(t, fx, login)
	if len(got) != 1 {
		t.Fatalf("%d session records on the login commit, want 1", len(got))
	}
	s := got[0]
	if s.Session != sessionA || s.Agent != "claude" || s.Model != sonnet || strings.Join(s.Files, ",") != "src/auth.go" {
		t.Errorf("login session record %+v", s)
	}
	if !strings.HasPrefix(s.Summary, "add a login handler; ") || strings.Contains(s.Summary, secret) || !strings.Contains(s.Summary, "[REDACTED") {
		t.Errorf("summary %q: want the last prompt with its credential redacted", s.Summary)
	}
	if rs := sessionsOn(t, fx, retry); len(rs) != 2 || rs[0].Agent+","+rs[1].Agent != "claude,gemini" || rs[1].Model != "gemini-2.5-pro" {
		t.Errorf("retry session records %+v, want claude's and gemini's", rs)
	}
	// files_touched may name a directory ("src/"): the commit's files under it.
	if rs := sessionsOn(t, fx, auto); len(rs) != 1 || rs[0].Session != sessionB || strings.Join(rs[0].Files, ",") != "src/util.go" {
		t.Errorf("auto-commit session records %+v", rs)
	}
	// Nothing of the transcript is kept: the credential is nowhere in the notes.
	for _, ref := range []string{agent.Sessions, attribution.Ref} {
		if dump, _ := fx.GitErr("log", "-p", ref); strings.Contains(dump, secret) || strings.Contains(dump, "Done.") {
			t.Errorf("%s holds transcript text or the credential", ref)
		}
	}

	// Importing again imports nothing.
	var again entire.Result
	if err := json.Unmarshal([]byte(fx.MustGloss("import", "entire", "--json")), &again); err != nil {
		t.Fatal(err)
	}
	if again.Sessions.Written != 0 || again.Attribution.Written != 0 || again.Sessions.Present != 7 || again.Attribution.Present != 4 || len(again.Lines) != 0 {
		t.Errorf("second import wrote %d+%d, found %d+%d present; want 0+0 and 7+4", again.Sessions.Written, again.Attribution.Written, again.Sessions.Present, again.Attribution.Present)
	}
	if human := fx.MustGloss("import", "entire"); !strings.Contains(human, "skipped 11: already present") {
		t.Errorf("human output of a rerun:\n%s", human)
	}

	// A forgotten record stays forgotten: the ids derive from the
	// checkpoint, so a re-import would bring it back without the tombstones.
	var att struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(fx.Git("notes", "--ref", attribution.Ref, "show", login)), &att); err != nil {
		t.Fatal(err)
	}
	fx.MustGloss("forget", s.ID, att.ID, "--reason", "test")
	var after entire.Result
	if err := json.Unmarshal([]byte(fx.MustGloss("import", "entire", "--json")), &after); err != nil {
		t.Fatal(err)
	}
	if after.Sessions.Forgotten != 1 || after.Attribution.Forgotten != 1 || after.Sessions.Written+after.Attribution.Written != 0 {
		t.Errorf("import after forget: sessions %+v, attribution %+v; want 1 forgotten each, nothing written", after.Sessions, after.Attribution)
	}
	if got := sessionsOn(t, fx, login); len(got) != 0 {
		t.Errorf("the forgotten session record came back: %+v", got)
	}
}

func TestImportEntireWithoutEntireData(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("base", map[string]string{"a.txt": "a\n"})
	out, err := fx.Gloss("import", "entire")
	if err == nil || !strings.Contains(out, "no Entire data here") || !strings.Contains(out, "git fetch origin entire/checkpoints/v1") {
		t.Fatalf("import entire without Entire's branch: err %v\n%s", err, out)
	}
	// origin's copy is read when the local branch is missing.
	commitCheckpoints(t, fx, entire.RemoteBranch, cpLogin, checkpointFiles(cpLogin, "manual-commit", []fxSession{{id: sessionA, agent: "Claude Code", files: []string{"a.txt"}, prompts: []string{"p"}}}))
	for _, args := range [][]string{{"import", "entire"}, {"import", "entire", "--ref", "origin/entire/checkpoints/v1"}} {
		out = fx.MustGloss(args...)
		if !strings.Contains(out, entire.RemoteBranch+": 1 checkpoint(s), 1 named by no commit here") {
			t.Errorf("%s, from origin's branch:\n%s", strings.Join(args, " "), out)
		}
	}
	out, err = fx.Gloss("import", "entire", "--ref", "nope")
	if code := fixtures.ExitCode(err); code != 3 || !strings.Contains(out, "--ref nope: no such ref") {
		t.Errorf("--ref nope: exit %d\n%s", code, out)
	}
}
