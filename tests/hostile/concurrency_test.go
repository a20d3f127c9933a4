package hostile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
)

// Eight writers, ten writes each, on the same file: half of them through
// the CLI (one process per write), half through their own MCP server. Task
// updates are a commit each, serialized by the task lock: five each (40
// contended commits) prove what ten do, in half the time.
const (
	writers    = 8
	writes     = 10
	taskWrites = 5
)

// race runs writers concurrently; write(w, i) performs write i of writer
// w and reports whether gloss said it succeeded. It returns the names of
// the writes reported OK.
func race(t *testing.T, writes int, write func(w, i int) (string, bool)) []string {
	t.Helper()
	var mu sync.Mutex
	var ok []string
	var wg sync.WaitGroup
	start := make(chan struct{})
	for w := range writers {
		wg.Go(func() {
			<-start
			for i := range writes {
				if name, done := write(w, i); done {
					mu.Lock()
					ok = append(ok, name)
					mu.Unlock()
				}
			}
		})
	}
	close(start)
	wg.Wait()
	if len(ok) < writers*writes/2 {
		t.Fatalf("only %d of %d writes reported OK: the race did not exercise the writers", len(ok), writers*writes)
	}
	t.Logf("%d writers x %d writes: %d reported OK", writers, writes, len(ok))
	return ok
}

// sessions starts one MCP server per MCP writer (writers 4..7).
func sessions(r *fixtures.Repo) []*fixtures.MCPSession {
	s := make([]*fixtures.MCPSession, writers)
	for w := writers / 2; w < writers; w++ {
		s[w] = r.StartMCP("--toolsets", "all")
	}
	return s
}

func okResult(res fixtures.ToolResult, err error) bool {
	return err == nil && !res.IsError
}

const raceDoc = "# Log\n\n::claim{id=\"c1\"}\nThe log below grows.\n::\n"

func addBlockOp(name string) string {
	return `{"op":"add_block","parent":"log","content":"::note{id=\"` + name + `\"}\nentry ` + name + `\n::"}`
}

func TestConcurrentDocumentPatchesLoseNothing(t *testing.T) {
	t.Parallel()
	r := fixtures.NewRepo(t)
	r.Commit("doc", map[string]string{"doc.noma": raceDoc})
	r.MustGloss("init")
	mcp := sessions(r)
	ok := race(t, writes, func(w, i int) (string, bool) {
		name := fmt.Sprintf("w%d-%d", w, i)
		if mcp[w] == nil {
			out, err := r.Gloss("doc", "patch", "doc.noma", "--op", addBlockOp(name))
			return name, err == nil && strings.Contains(out, "applied")
		}
		var m map[string]any
		_ = json.Unmarshal([]byte(addBlockOp(name)), &m)
		res, err := mcp[w].CallErr("patch_block", map[string]any{"file": "doc.noma", "op": m})
		return name, okResult(res, err) && strings.Contains(res.Text, `"ok":true`)
	})
	doc := r.Read("doc.noma")
	for _, name := range ok {
		if !strings.Contains(doc, `id="`+name+`"`) {
			t.Errorf("write %s was reported OK but is not in the document", name)
		}
	}
	checkTranscript(t, r, len(ok))
}

// checkTranscript verifies the chain, that replay reproduces the file, and
// (when applied >= 0) the number of applied records.
func checkTranscript(t *testing.T, r *fixtures.Repo, applied int) {
	t.Helper()
	var log struct {
		Records []struct {
			PatchResult string `json:"patch_result"`
			Post        string `json:"post_sha256"`
		} `json:"records"`
		ChainOK bool `json:"chain_ok"`
	}
	if err := json.Unmarshal([]byte(r.MustGloss("doc", "log", "doc.noma", "--json")), &log); err != nil {
		t.Fatal(err)
	}
	if !log.ChainOK {
		t.Errorf("the transcript chain is broken")
	}
	n, last := 0, ""
	for _, rec := range log.Records {
		if rec.PatchResult == "applied" {
			n++
			last = rec.Post
		}
	}
	if applied >= 0 && n != applied {
		t.Errorf("%d applied records in the transcript, %d writes reported OK", n, applied)
	}
	if n > 0 {
		sum := sha256.Sum256([]byte(r.Read("doc.noma")))
		if hex.EncodeToString(sum[:]) != last {
			t.Errorf("the document is not the last applied record's result")
		}
	}
	out, err := r.Gloss("doc", "replay", "doc.noma", "--json")
	if err != nil || !strings.Contains(out, `"ok":true`) {
		t.Errorf("doc replay failed: %v %s", err, out)
	}
}

func TestConcurrentNoteWritesLoseNothing(t *testing.T) {
	t.Parallel()
	r := fixtures.NewRepo(t)
	r.Commit("base", map[string]string{"README.md": "x\n"})
	r.MustGloss("init")
	r.MustGloss("note", "create", "shared", "-m", "start")
	mcp := sessions(r)
	for w := range writers / 2 {
		mcp[w] = r.StartMCP("--toolsets", "all")
	}
	appended := race(t, writes, func(w, i int) (string, bool) {
		line := fmt.Sprintf("line-w%d-%d", w, i)
		res, err := mcp[w].CallErr("update_note", map[string]any{"path": "notes/shared.md", "content": line, "mode": "append"})
		return line, okResult(res, err)
	})
	lines := strings.Split(r.Read(".gloss/notebook/notes/shared.md"), "\n")
	for _, line := range appended {
		if !slices.Contains(lines, line) {
			t.Errorf("append %s was reported OK but is not in the note", line)
		}
	}
}

func TestConcurrentTagWritesLoseNothing(t *testing.T) {
	t.Parallel()
	r := fixtures.NewRepo(t)
	r.Commit("base", map[string]string{"README.md": "x\n"})
	r.MustGloss("init")
	r.MustGloss("note", "create", "tagged", "-m", "body")
	mcp := sessions(r)
	added := race(t, writes, func(w, i int) (string, bool) {
		tag := fmt.Sprintf("t%d-%d", w, i)
		if mcp[w] == nil {
			_, err := r.Gloss("note", "tag", "notes/tagged.md", "add", tag)
			return tag, err == nil
		}
		res, err := mcp[w].CallErr("manage_tags", map[string]any{"path": "notes/tagged.md", "operation": "add", "tags": []string{tag}})
		return tag, okResult(res, err)
	})
	var tags struct {
		Tags []string `json:"tags"`
	}
	if err := json.Unmarshal([]byte(r.MustGloss("note", "tag", "notes/tagged.md", "list", "--json")), &tags); err != nil {
		t.Fatal(err)
	}
	for _, tag := range added {
		if !slices.Contains(tags.Tags, tag) {
			t.Errorf("tag %s was reported added but is missing", tag)
		}
	}
}

func TestConcurrentTaskUpdatesLoseNothing(t *testing.T) {
	t.Parallel()
	r := fixtures.NewRepo(t)
	r.Commit("base", map[string]string{"README.md": "x\n"})
	r.MustGloss("init")
	r.Git("add", "-A")
	r.Git("commit", "-qm", "init")
	var added struct {
		ID string `json:"spec_id"`
	}
	if err := json.Unmarshal([]byte(r.MustGloss("task", "add", "Shared task", "--json")), &added); err != nil || added.ID == "" {
		t.Fatalf("task add: %v", err)
	}
	mcp := sessions(r)
	updated := race(t, taskWrites, func(w, i int) (string, bool) {
		text := fmt.Sprintf("output-w%d-%d", w, i)
		if mcp[w] == nil {
			_, err := r.Gloss("task", "update", added.ID, "--output", text)
			return text, err == nil
		}
		res, err := mcp[w].CallErr("task_update", map[string]any{"id": added.ID, "output": text})
		return text, okResult(res, err)
	})
	file := r.Git("ls-files", ".gloss/tasks")
	body := r.Read(file)
	for _, text := range updated {
		if !strings.Contains(body, text) {
			t.Errorf("update %s was reported OK but is not in the task", text)
		}
	}
	if st := r.Git("status", "--porcelain", "--", ".gloss/tasks"); st != "" {
		t.Errorf("task changes left uncommitted:\n%s", st)
	}
	if n := len(fixtures.Lines(r.Git("log", "--format=%H", "--grep", "Task-Id: "+added.ID))); n != len(updated)+1 {
		t.Errorf("%d commits for the task, want %d (one per reported update, plus its creation)", n, len(updated)+1)
	}
}

// A SIGKILL at any moment of `doc patch` leaves the document and its
// transcript in step: the log's chain holds, the last applied record is
// the document's sha256, and replay reproduces the file. Each mode is
// killed at the three steps of the write (journal set, transcript
// appended, document written: fault.Point), which puts kills between the
// transcript and the document every time, and at random moments.
func TestKilledDocPatchLeavesDocumentAndTranscriptInStep(t *testing.T) {
	t.Parallel()
	for _, fsync := range []string{"false", "true"} {
		t.Run("fsync="+fsync, func(t *testing.T) {
			t.Parallel()
			killLoop(t, fsync)
		})
	}
}

// randomKills is how many random-moment kills each mode gets; the exact
// points already cover the steps of the write.
const randomKills = 16

func killLoop(t *testing.T, fsync string) {
	r := fixtures.NewRepo(t)
	r.Commit("doc", map[string]string{"doc.noma": raceDoc})
	r.MustGloss("init")
	r.Git("config", "gloss.fsync", fsync)
	midWrite := 0
	for _, point := range []string{"noma:journaled", "noma:appended", "noma:written"} {
		cmd := r.Command(fixtures.TestSwitches(t), "doc", "patch", "doc.noma", "--op", addBlockOp("at-"+strings.ReplaceAll(point, ":", "-")))
		cmd.Env = append(append([]string{}, r.Env...), "GLOSS_TEST_KILL_AT="+point)
		err := cmd.Run()
		var ee *exec.ExitError
		if !asExit(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() {
			t.Fatalf("%s: the patch was not killed there: %v", point, err)
		}
		if !journalLeft(t, r) {
			t.Fatalf("%s: killed mid-write but no journal left", point)
		}
		midWrite++
		checkTranscript(t, r, -1)
		if t.Failed() {
			t.Fatalf("inconsistent after a kill at %s", point)
		}
	}
	// How long one patch takes here, so the kills spread over its run.
	begin := time.Now()
	r.MustGloss("doc", "patch", "doc.noma", "--op", addBlockOp("warmup"))
	span := time.Since(begin)
	kills := 0
	for i := 0; kills < randomKills && i < 200; i++ {
		cmd := r.Command(fixtures.Binary(t), "doc", "patch", "doc.noma", "--op", addBlockOp(fmt.Sprintf("k%d", i)))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(span/3 + time.Duration(rand.Int64N(int64(span)+1)))
		_ = cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		var ee *exec.ExitError
		if asExit(err, &ee) && ee.Sys().(syscall.WaitStatus).Signaled() {
			kills++
			if journalLeft(t, r) {
				midWrite++
			}
		} else {
			// It finished first: the warmup was slower than the runs
			// now (a loaded machine), so aim earlier.
			span = span * 2 / 3
		}
		checkTranscript(t, r, -1)
		if t.Failed() {
			t.Fatalf("inconsistent after run %d (%d kills so far)", i, kills)
		}
	}
	t.Logf("3 kills at the write's steps and %d at random moments, %d of all with a journal set (between the transcript and the document); consistent after every one", kills, midWrite)
	if kills < randomKills {
		t.Fatalf("only %d processes were killed mid-run", kills)
	}
}

// journalLeft reports whether a killed writer left its journal in a lock
// file: it died between its first and last write.
func journalLeft(t *testing.T, r *fixtures.Repo) bool {
	t.Helper()
	locks, _ := filepath.Glob(r.Path(".git/gloss/locks/*.lock"))
	for _, l := range locks {
		if st, err := os.Stat(l); err == nil && st.Size() > 0 {
			return true
		}
	}
	return false
}

func asExit(err error, ee **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	if ok {
		*ee = e
	}
	return ok
}

// Pipelined patch_block calls on one MCP server (the client does not wait
// for an answer before sending the next) lose nothing either.
func TestPipelinedPatchBlocksLoseNothing(t *testing.T) {
	t.Parallel()
	r := fixtures.NewRepo(t)
	r.Commit("doc", map[string]string{"doc.noma": raceDoc})
	r.MustGloss("init")
	const calls = 40
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipeline","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for i := 1; i <= calls; i++ {
		var m map[string]any
		_ = json.Unmarshal([]byte(addBlockOp(fmt.Sprintf("p%d", i))), &m)
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i, "method": "tools/call",
			"params": map[string]any{"name": "patch_block", "arguments": map[string]any{"file": "doc.noma", "op": m}}})
		in.Write(append(req, '\n'))
	}
	cmd := r.Command(fixtures.Binary(t), "mcp", "--toolsets", "all")
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("mcp: %v", err)
	}
	ok := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var resp struct {
			ID     int `json:"id"`
			Result struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(line), &resp) != nil || resp.ID == 0 || len(resp.Result.Content) == 0 {
			continue
		}
		if strings.Contains(resp.Result.Content[0].Text, `"ok":true`) {
			ok++
			if name := fmt.Sprintf("p%d", resp.ID); !strings.Contains(r.Read("doc.noma"), `id="`+name+`"`) {
				t.Errorf("call %d was reported OK but its block is missing", resp.ID)
			}
		}
	}
	t.Logf("%d pipelined calls, %d reported OK", calls, ok)
	if ok != calls {
		t.Errorf("%d of %d pipelined patches reported OK", ok, calls)
	}
	checkTranscript(t, r, ok)
}
