package hooks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/capture"
	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/runenv"
)

// workerPID finds the hook worker started in dir, waiting for it to appear.
func workerPID(t *testing.T, dir string) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			args := strings.Split(string(bytes.TrimRight(cmd, "\x00")), "\x00")
			if len(args) == 4 && args[1] == "-C" && samePath(args[2], dir) && args[3] == "hook-worker" {
				return pid
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("no hook worker started")
	return 0
}

func samePath(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// waitQueueDrained waits until the queue is empty and no worker holds it.
func waitQueueDrained(t *testing.T, repo *gitops.Repo) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := capture.WaitIdle(ctx, repo); err != nil {
		t.Fatal(err)
	}
}

// summaries returns the summary records of commit by source, and the
// agent-authored regions' intents.
func summaries(t *testing.T, repo *gitops.Repo, commit string) (bySource map[string]int, agent []string) {
	t.Helper()
	recs, err := notes.Open(repo, notes.Annotations).Read([]string{commit})
	if err != nil {
		t.Fatal(err)
	}
	bySource = map[string]int{}
	for _, d := range annotate.Decode(recs[commit]) {
		if d.Summary != nil {
			bySource[d.Summary.Source]++
		}
		if d.Region != nil && d.Region.Author.Kind == "agent" {
			agent = append(agent, d.Region.Intent)
		}
	}
	return bySource, agent
}

// deferringRepo is a repository whose post-commit always defers, opened,
// with the path of its worker's lock.
func deferringRepo(t *testing.T) (fx *fixtures.Repo, repo *gitops.Repo, lock string) {
	t.Helper()
	fx = setupRepo(t)
	fx.Git("config", "gloss.deferHooks", "true")
	repo, err := gitops.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(repo.Close)
	return fx, repo, filepath.Join(repo.CommonDir(), "gloss", "queue", "worker.lock")
}

// TestDeferredWorkerKilledLosesNoRecord kills the post-commit worker with
// SIGKILL while it holds a commit's job, and checks that the next commit's
// worker annotates both, each with the agent context staged for it, once,
// and attributes both.
func TestDeferredWorkerKilledLosesNoRecord(t *testing.T) {
	t.Parallel()
	fx, repo, lock := deferringRepo(t)
	stage := func(intent string) {
		t.Helper()
		if _, err := annotate.Stage(repo, []annotate.Context{{File: "a.go", Anchor: "A", Intent: intent}}); err != nil {
			t.Fatal(err)
		}
	}

	stage("first: why A")
	fx.Write("a.go", "package a\n\nfunc A() int {\n\treturn 1\n}\n")
	fx.Git("add", "a.go")
	stalled := withEnv(fx, runenv.HookFault+"=worker-stall")
	stalled.Git("commit", "-q", "-m", "first change")
	first := fx.Git("rev-parse", "HEAD")
	pid := workerPID(t, fx.Dir)
	if l := lastHookLog(t, repo); !strings.Contains(l, "deferred to the worker: gloss.deferHooks") {
		t.Errorf("hooks.log does not say the commit's work was deferred: %q", l)
	}
	if q := capture.Queued(repo); len(q) != 1 || q[0] != first {
		t.Fatalf("queued %v, want the first commit", q)
	}
	job, err := os.ReadFile(filepath.Join(repo.CommonDir(), "gloss", "queue", first+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 500; i++ { // the flock goes with the process
		if unlock, ok, _ := atomicfile.TryLock(lock); ok {
			unlock()
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if by, _ := summaries(t, repo, first); len(by) != 0 {
		t.Fatalf("the stalled worker wrote records: %v", by)
	}

	stage("second: why A now")
	fx.Write("a.go", "package a\n\nfunc A() int {\n\treturn 2\n}\n")
	fx.Git("commit", "-q", "-am", "second change")
	second := fx.Git("rev-parse", "HEAD")
	waitQueueDrained(t, repo)
	for commit, want := range map[string]string{first: "first: why A", second: "second: why A now"} {
		by, agent := summaries(t, repo, commit)
		if by[annotate.SourceHook] != 1 {
			t.Errorf("%.8s: summaries by source %v, want one from the hook", commit, by)
		}
		if len(agent) != 1 || agent[0] != want {
			t.Errorf("%.8s: agent regions %q, want %q", commit, agent, want)
		}
		wantAttributionFrom(t, repo, commit, attribution.SourceHook, "commit")
	}

	// A job run again (a worker killed after the notes write, before the
	// job's removal) writes nothing twice.
	if err := atomicfile.Write(filepath.Join(repo.CommonDir(), "gloss", "queue", first+".json"), job, 0o644); err != nil {
		t.Fatal(err)
	}
	fx.MustGloss("hook-worker")
	if by, agent := summaries(t, repo, first); by[annotate.SourceHook] != 1 || len(agent) != 1 {
		t.Errorf("after a second run: summaries %v, agent regions %q", by, agent)
	}
	if got := attributionRecords(t, repo, first); len(got) != 1 {
		t.Errorf("after a second run: attribution records from %v, want one", got)
	}
	if q := capture.Queued(repo); len(q) != 0 {
		t.Errorf("still queued: %v", q)
	}
}

// A small repository annotates in the hook itself: the records are there
// when git commit returns; and init built the blame graph.
func TestSmallRepositoryAnnotatesAtOnce(t *testing.T) {
	t.Parallel()
	fx := setupRepo(t)
	fx.Commit("change", map[string]string{"a.txt": "b\n"})
	repo, err := gitops.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	if by, _ := summaries(t, repo, fx.Git("rev-parse", "HEAD")); by[annotate.SourceHook] != 1 {
		t.Fatalf("summaries %v right after the commit", by)
	}
	if _, err := os.Stat(filepath.Join(repo.CommonDir(), "gloss", "queue")); err == nil {
		t.Error("a small repository queued its commit")
	}
	// init built the blame graph, in the foreground on a small repository.
	if _, err := os.Stat(filepath.Join(repo.CommonDir(), "gloss", "graph", "info", "commit-graph")); err != nil {
		t.Errorf("no blame graph after init: %v", err)
	}
}

// codexWrites is a scripted agent: Codex adds file with content through
// apply_patch and tells gloss through its agent hook.
func codexWrites(t *testing.T, fx *fixtures.Repo, session, file, content string) {
	t.Helper()
	fx.Write(file, content)
	patch := "*** Begin Patch\n*** Add File: " + file + "\n"
	for _, l := range strings.Split(strings.TrimSuffix(content, "\n"), "\n") {
		patch += "+" + l + "\n"
	}
	patch += "*** End Patch\n"
	data, _ := json.Marshal(map[string]any{"session_id": session, "cwd": fx.Dir, "hook_event_name": "PostToolUse",
		"model": "gpt-5-codex", "tool_name": "apply_patch", "tool_input": map[string]any{"command": patch}, "tool_response": "Success."})
	cmd := fx.Command(fixtures.Binary(t), "agent", "hook", "--agent", "codex", "PostToolUse")
	cmd.Stdin = bytes.NewReader(data)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("agent hook: %v\n%s", err, out)
	}
}

// attributionRecords returns the sources of commit's live attribution
// records (those no other supersedes).
func attributionRecords(t *testing.T, repo *gitops.Repo, commit string) []string {
	t.Helper()
	recs, err := notes.Open(repo, attribution.Ref).Read([]string{commit})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range notes.Resolve(recs[commit]) {
		var r attribution.Record
		if err := line.Decode(&r); err != nil {
			t.Fatalf("attribution record of %.8s: %v", commit, err)
		}
		out = append(out, r.Source)
	}
	return out
}

// contributors blames file at rev with gloss: each line's contributor in
// one word, type[/agent/model/session].
func contributors(t *testing.T, fx *fixtures.Repo, file, rev string) []string {
	t.Helper()
	var res attribution.BlameResult
	if err := json.Unmarshal([]byte(fx.MustGloss("blame", "--json", "--rev", rev, file)), &res); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range res.Lines {
		w := l.Contributor.Type
		if l.Contributor.Agent != "" {
			w += "/" + l.Contributor.Agent + "/" + l.Contributor.Model + "/" + l.Contributor.Session
		}
		out = append(out, w)
	}
	return out
}

// TestDeferredAttributionSurvivesAKilledWorker kills the post-commit
// worker with SIGKILL after it wrote a commit's annotations and before
// its attribution. The capture store the attribution reads is consumed
// when the hook ends, so what the worker needs must be in the queued job:
// the next commit's worker attributes both commits, the agent's lines of
// the first still to the agent. An amend, deferred too, carries it.
func TestDeferredAttributionSurvivesAKilledWorker(t *testing.T) {
	t.Parallel()
	fx, repo, lock := deferringRepo(t)

	agentCode := "package p\n\nfunc P() int {\n\treturn 42\n}\n"
	codexWrites(t, fx, "s2", "p.go", agentCode)
	fx.Write("b.txt", "written by hand\n")
	fx.Git("add", "-A")
	withEnv(fx, runenv.HookFault+"=worker-stall-attribution").Git("commit", "-q", "-m", "agent and person")
	first := fx.Git("rev-parse", "HEAD")
	pid := workerPID(t, fx.Dir)
	deadline := time.Now().Add(30 * time.Second)
	for by, _ := summaries(t, repo, first); by[annotate.SourceHook] == 0; by, _ = summaries(t, repo, first) {
		if time.Now().After(deadline) {
			t.Fatal("the worker did not annotate the first commit")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 500; i++ { // the flock goes with the process
		if unlock, ok, _ := atomicfile.TryLock(lock); ok {
			unlock()
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := attributionRecords(t, repo, first); len(got) != 0 {
		t.Fatalf("the stalled worker attributed the commit: %v\n%s", got, fx.Read(".git/gloss/hooks.log"))
	}
	if q := capture.Queued(repo); len(q) != 1 || q[0] != first {
		t.Fatalf("queued %v, want the first commit", q)
	}
	store := filepath.Join(repo.CommonDir(), "gloss", "agent", "pending.jsonl")
	if data, _ := os.ReadFile(store); strings.Contains(string(data), "s2") {
		t.Fatalf("the commit did not consume the capture; the test proves nothing: %s", data)
	}

	fx.Write("c.txt", "second, by hand\n")
	fx.Git("add", "c.txt")
	fx.Git("commit", "-q", "-m", "person alone")
	second := fx.Git("rev-parse", "HEAD")
	waitQueueDrained(t, repo)
	for _, c := range []string{first, second} {
		wantAttributionFrom(t, repo, c, attribution.SourceHook, "commit")
		if by, _ := summaries(t, repo, c); by[annotate.SourceHook] != 1 {
			t.Errorf("%.8s: summaries by source %v, want one from the hook", c, by)
		}
	}
	wantCodexLines(t, fx, first, "at the first commit")
	if got := contributors(t, fx, "b.txt", first); len(got) != 1 || got[0] != "human" {
		t.Errorf("b.txt at the first commit: %q, want human", got)
	}

	// An amend's attribution is carried from the commit it replaced, in the
	// worker too: the old commit is decided at commit time (HEAD@{1}).
	fx.Write("c.txt", "second, by hand, amended\n")
	fx.Git("commit", "-q", "-a", "--amend", "-m", "person alone, amended")
	amended := fx.Git("rev-parse", "HEAD")
	waitQueueDrained(t, repo)
	wantAttributionFrom(t, repo, amended, attribution.SourceAmend, "amended")
	if got := contributors(t, fx, "c.txt", amended); len(got) != 1 || got[0] != "human" {
		t.Errorf("c.txt after the amend: %q, want human", got)
	}
}

// wantCodexLines checks that the five lines of p.go at rev are the
// scripted Codex session's.
func wantCodexLines(t *testing.T, fx *fixtures.Repo, rev, when string) {
	t.Helper()
	codex := "ai/codex/gpt-5-codex/s2"
	want := []string{codex, codex, codex, codex, codex}
	if got := contributors(t, fx, "p.go", rev); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("p.go %s: %q, want %q", when, got, want)
	}
}

// wantAttributionFrom checks that commit has one attribution record,
// written by source.
func wantAttributionFrom(t *testing.T, repo *gitops.Repo, commit, source, what string) {
	t.Helper()
	if got := attributionRecords(t, repo, commit); len(got) != 1 || got[0] != source {
		t.Errorf("%s %.8s: attribution records from %v, want one from %s", what, commit, got, source)
	}
}

// killStalledWorker kills the worker started in fx with SIGKILL and waits
// for its lock on the queue to go.
func killStalledWorker(t *testing.T, fx *fixtures.Repo, lock string) {
	t.Helper()
	if err := syscall.Kill(workerPID(t, fx.Dir), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 500; i++ { // the flock goes with the process
		if unlock, ok, _ := atomicfile.TryLock(lock); ok {
			unlock()
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the killed worker's lock stayed")
}

// TestDeferredRewriteWaitsForTheQueue rebases a commit whose deferred job
// a killed worker left queued: post-rewrite runs the job before it
// carries the commit's records, so the rebased commit has its
// annotations and its attribution (the agent's lines still the agent's)
// when git rebase returns.
func TestDeferredRewriteWaitsForTheQueue(t *testing.T) {
	t.Parallel()
	fx, repo, lock := deferringRepo(t)
	branch := fx.Git("branch", "--show-current")

	fx.Git("checkout", "-q", "-b", "side")
	fx.Write("z.txt", "on the side\n")
	fx.Git("add", "z.txt")
	fx.Git("-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "side")
	fx.Git("checkout", "-q", branch)

	codexWrites(t, fx, "s2", "p.go", "package p\n\nfunc P() int {\n\treturn 42\n}\n")
	fx.Git("add", "-A")
	withEnv(fx, runenv.HookFault+"=worker-stall").Git("commit", "-q", "-m", "agent")
	old := fx.Git("rev-parse", "HEAD")
	killStalledWorker(t, fx, lock)
	if q := capture.Queued(repo); len(q) != 1 || q[0] != old {
		t.Fatalf("queued %v, want the agent's commit", q)
	}

	fx.Git("rebase", "-q", "side")
	rebased := fx.Git("rev-parse", "HEAD")
	if rebased == old {
		t.Fatal("nothing was rebased")
	}
	wantAttributionFrom(t, repo, rebased, attribution.SourceRebase, "rebased")
	if by, _ := summaries(t, repo, rebased); by[annotate.SourceRebase] != 1 {
		t.Errorf("rebased %.8s: summaries by source %v, want one carried by the rebase", rebased, by)
	}
	wantCodexLines(t, fx, rebased, "after the rebase")
	waitQueueDrained(t, repo)
}

// TestDeferredCherryPickCarriesAttribution cherry-picks an agent's commit
// in a repository that defers its hooks: the worker writes the annotations
// carried from the picked commit before the attribution, which reads
// from them where the commit came from, so the agent's lines stay the
// agent's though the capture was consumed long before.
func TestDeferredCherryPickCarriesAttribution(t *testing.T) {
	t.Parallel()
	fx, repo, _ := deferringRepo(t)
	branch := fx.Git("branch", "--show-current")

	fx.Git("checkout", "-q", "-b", "side")
	codexWrites(t, fx, "s2", "p.go", "package p\n\nfunc P() int {\n\treturn 42\n}\n")
	fx.Git("add", "-A")
	fx.Git("commit", "-q", "-m", "agent")
	waitQueueDrained(t, repo)
	fx.Git("checkout", "-q", branch)
	fx.Commit("meanwhile", map[string]string{"m.txt": "by hand\n"})
	fx.Git("cherry-pick", "side")
	picked := fx.Git("rev-parse", "HEAD")
	waitQueueDrained(t, repo)

	wantAttributionFrom(t, repo, picked, attribution.SourceCherryPick, "picked")
	wantCodexLines(t, fx, picked, "after the cherry-pick")
}

// TestWorkerRunsAJobQueuedByTheOldShape: a job queued by gloss 0.1 (the
// annotation at the top, the attribution inside it) and left by a worker
// that died before an upgrade is run by the next worker: the commit gets
// its annotations and its attribution.
func TestWorkerRunsAJobQueuedByTheOldShape(t *testing.T) {
	t.Parallel()
	fx, repo, _ := deferringRepo(t)
	fx.Write("a.go", "package a\n\nfunc A() int {\n\treturn 1\n}\n")
	fx.Git("add", "a.go")
	fx.Git("-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "made without the hooks")
	head := fx.Git("rev-parse", "HEAD")
	old := `{"commit":"` + head + `","reflog":"commit: made without the hooks","staged":[{"file":"a.go","anchor":"A","intent":"why A, staged in 0.1"}],` +
		`"attribution":{"commit":"` + head + `","env":{"GLOSS_AGENT":"codex","GLOSS_MODEL":"gpt-5-codex"}}}`
	queue := filepath.Join(repo.CommonDir(), "gloss", "queue")
	if err := os.MkdirAll(queue, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(queue, head+".json"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	fx.MustGloss("hook-worker")
	waitQueueDrained(t, repo)
	by, agent := summaries(t, repo, head)
	if by[annotate.SourceHook] != 1 || strings.Join(agent, "|") != "why A, staged in 0.1" {
		t.Errorf("the old job's commit: summaries %v, agent intents %q", by, agent)
	}
	wantAttributionFrom(t, repo, head, attribution.SourceHook, "old job's")
	if got := contributors(t, fx, "a.go", "HEAD"); len(got) == 0 || got[0] != "ai/codex/gpt-5-codex/" {
		t.Errorf("a.go's lines: %q, want the environment's agent", got)
	}
}
