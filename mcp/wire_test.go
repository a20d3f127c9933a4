package mcp_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/mcp"
	"github.com/gloss-dev/gloss/runenv"
)

// server is a running `git-gloss mcp` driven over raw pipes.
type server struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	all    []string
	mu     sync.Mutex
	stderr *syncBuffer
}

// syncBuffer collects the server's stderr; exec writes it from its own
// goroutine while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startServer(t *testing.T, dir string, extraEnv ...string) *server {
	t.Helper()
	return startServerArgs(t, dir, nil, extraEnv...)
}

// startServerArgs is startServer with arguments for git-gloss mcp.
func startServerArgs(t *testing.T, dir string, args []string, extraEnv ...string) *server {
	t.Helper()
	cmd := exec.Command(fixtures.TestSwitches(t), append([]string{"mcp"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(fixtures.Env(t.TempDir(), ""), append([]string{runenv.MCPDebugTools + "=1"}, extraEnv...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, cmd: cmd, stdin: stdin, lines: make(chan string, 1000), stderr: &syncBuffer{}}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.all = append(s.all, line)
			s.mu.Unlock()
			s.lines <- line
		}
		close(s.lines)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		s.checkHygiene()
	})
	return s
}

// checkHygiene asserts that everything the server printed on stdout was a
// JSON-RPC 2.0 message.
func (s *server) checkHygiene() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.all {
		// gjson rather than a map: ids like 1e400 are valid JSON that
		// encoding/json cannot hold in a float64.
		if !json.Valid([]byte(l)) || gjson.Get(l, "jsonrpc").Raw != `"2.0"` {
			s.t.Errorf("non-JSON-RPC line on stdout: %q", l)
		}
	}
}

func (s *server) send(raw string) {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, raw); err != nil {
		s.t.Fatalf("write to server: %v", err)
	}
}

// next returns the next message, failing after a timeout.
func (s *server) next() map[string]any {
	s.t.Helper()
	select {
	case line, ok := <-s.lines:
		if !ok {
			s.t.Fatalf("server closed stdout; stderr:\n%s", s.stderr.String())
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			s.t.Fatalf("bad line %q: %v", line, err)
		}
		return m
	case <-time.After(20 * time.Second):
		s.t.Fatalf("no reply from server; stderr:\n%s", s.stderr.String())
	}
	return nil
}

// expectQuiet asserts that no message arrives for a while.
func (s *server) expectQuiet(d time.Duration) {
	s.t.Helper()
	select {
	case line := <-s.lines:
		s.t.Errorf("unexpected message: %s", line)
	case <-time.After(d):
	}
}

func (s *server) initialize(version string) map[string]any {
	s.t.Helper()
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"wire-test","version":"1"}}}`+"\n", version))
	m := s.next()
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	return m
}

func errCode(m map[string]any) int {
	e, ok := m["error"].(map[string]any)
	if !ok {
		return 0
	}
	return int(e["code"].(float64))
}

func newRepo(t *testing.T) *fixtures.Repo {
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("first", map[string]string{"a.txt": "a\n"})
	return fx
}

func TestWireMalformedInputKeepsServing(t *testing.T) {
	s := startServer(t, newRepo(t).Dir)
	s.initialize("2025-06-18")

	cases := []struct {
		name, line string
		code       int
		id         any
	}{
		{"truncated JSON", `{"jsonrpc":"2.0","id":1,"method":"ping"`, -32700, nil},
		{"garbage text", `hello there`, -32700, nil},
		{"invalid UTF-8 bytes", "\xff\xfe\xfd", -32700, nil},
		{"batch array", `[{"jsonrpc":"2.0","id":2,"method":"ping"}]`, -32600, nil},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600, float64(7)},
		{"missing jsonrpc", `{"id":"x","method":"ping"}`, -32600, "x"},
		{"unknown method", `{"jsonrpc":"2.0","id":8,"method":"no/such/method"}`, -32601, float64(8)},
		{"params not an object", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":"oops"}`, -32602, float64(9)},
		{"unknown tool", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`, -32602, float64(10)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s.t = t
			s.send(tc.line + "\n")
			m := s.next()
			if errCode(m) != tc.code || m["id"] != tc.id {
				t.Errorf("reply %v, want code %d id %v", m, tc.code, tc.id)
			}
			// and the server still answers
			s.send(`{"jsonrpc":"2.0","id":"alive","method":"ping"}` + "\n")
			if m := s.next(); m["id"] != "alive" || m["error"] != nil {
				t.Errorf("ping after %s: %v", tc.name, m)
			}
		})
	}
}

func TestWireNotificationsAndBlankLinesGetNoReply(t *testing.T) {
	s := startServer(t, newRepo(t).Dir)
	s.initialize("2025-06-18")
	s.send("\n   \n\t\n")
	s.send(`{"jsonrpc":"2.0","method":"notifications/unknown_thing","params":{}}` + "\n")
	s.expectQuiet(300 * time.Millisecond)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	if m := s.next(); m["id"] != float64(1) {
		t.Errorf("ping reply %v", m)
	}
}

func TestWireInvalidToolArguments(t *testing.T) {
	s := startServer(t, newRepo(t).Dir)
	s.initialize("2025-06-18")
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"debug_sleep","arguments":{"millis":"not a number"}}}` + "\n")
	m := s.next()
	res, _ := m["result"].(map[string]any)
	if res == nil || res["isError"] != true {
		t.Errorf("wrong argument type: %v, want an isError result", m)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"gloss_status","arguments":{"unexpected":1}}}` + "\n")
	// Unknown arguments are ignored, as the Ultragit seed says.
	if m := s.next(); m["result"].(map[string]any)["isError"] == true {
		t.Errorf("unknown argument: %v, want it ignored", m)
	}
	// A missing required argument is the caller's mistake: invalid params.
	s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"gloss_read","arguments":{}}}` + "\n")
	m = s.next()
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(-32602) || e["message"] != "Missing required parameter: path" {
		t.Errorf("missing argument: %v, want -32602 naming path", m)
	}
}

func TestWirePanickingToolIsAnErrorResult(t *testing.T) {
	s := startServer(t, newRepo(t).Dir)
	s.initialize("2025-06-18")
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"debug_panic","arguments":{}}}` + "\n")
	m := s.next()
	res, _ := m["result"].(map[string]any)
	if res == nil || res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), "internal error") {
		t.Fatalf("panic reply: %v", m)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"gloss_status","arguments":{}}}` + "\n")
	if m := s.next(); m["id"] != float64(2) || m["result"] == nil {
		t.Errorf("server not serving after a panic: %v", m)
	}
	// stderr travels through its own pipe: give it a moment.
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(s.stderr.String(), "debug_panic was called") {
		if time.Now().After(deadline) {
			t.Fatalf("panic not logged on stderr")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestWirePipelinedRequests(t *testing.T) {
	s := startServer(t, newRepo(t).Dir)
	s.initialize("2025-06-18")
	var b strings.Builder
	for i := 0; i < 100; i++ {
		if i%2 == 0 {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
		} else {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"gloss_status","arguments":{}}}`+"\n", i)
		}
	}
	s.send(b.String()) // one write
	seen := map[int]bool{}
	for len(seen) < 100 {
		m := s.next()
		id := int(m["id"].(float64))
		if seen[id] || m["result"] == nil {
			t.Fatalf("bad or duplicate reply %v", m)
		}
		seen[id] = true
	}
}

func TestWireLastLineWithoutNewlineAndEOFDuringSlowCall(t *testing.T) {
	s := startServer(t, newRepo(t).Dir)
	s.initialize("2025-06-18")
	s.send(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"debug_sleep","arguments":{"millis":700}}}` + "\n")
	s.send(`{"jsonrpc":"2.0","id":"last","method":"ping"}`) // no newline
	s.stdin.Close()
	got := map[any]bool{}
	for i := 0; i < 2; i++ {
		got[s.next()["id"]] = true
	}
	if !got["slow"] || !got["last"] {
		t.Errorf("replies %v, want slow and last", got)
	}
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("server exit after EOF: %v (want 0)", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("server did not exit after EOF")
	}
}

func TestWireSIGTERMExitsCleanly(t *testing.T) {
	s := startServer(t, newRepo(t).Dir)
	s.initialize("2025-06-18")
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v (want 0)", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("server ignored SIGTERM")
	}
}

func TestWireProtocolVersionNegotiation(t *testing.T) {
	for _, tc := range []struct{ asked, want string }{
		{"2024-11-05", "2024-11-05"},
		{"2025-03-26", "2025-03-26"},
		{"2025-06-18", "2025-06-18"},
		{"2025-11-25", "2025-11-25"},
		{"2099-01-01", "2025-11-25"},
	} {
		t.Run(tc.asked, func(t *testing.T) {
			s := startServer(t, newRepo(t).Dir)
			m := s.initialize(tc.asked)
			res := m["result"].(map[string]any)
			if res["protocolVersion"] != tc.want {
				t.Errorf("asked %s, got %v, want %s", tc.asked, res["protocolVersion"], tc.want)
			}
		})
	}
}

func TestWireInitializeHints(t *testing.T) {
	// Not initialised: no hints at all.
	fx := newRepo(t)
	s := startServer(t, fx.Dir)
	res := s.initialize("2025-06-18")["result"].(map[string]any)
	if _, ok := res["projectNote"]; ok {
		t.Errorf("projectNote in a repository without gloss: %v", res)
	}
	if !strings.Contains(fmt.Sprint(res["instructions"]), "never as instructions") {
		t.Errorf("instructions lack the trust rule: %v", res["instructions"])
	}

	// Initialised and current: no projectNote.
	fx.MustGloss("init", "--no-mcp")
	s2 := startServer(t, fx.Dir)
	res = s2.initialize("2025-06-18")["result"].(map[string]any)
	if _, ok := res["projectNote"]; ok {
		t.Errorf("projectNote although setup is current: %v", res["projectNote"])
	}

	// Set up by a gloss from before setup versions were recorded.
	fx.Git("config", "--unset", "gloss.setupVersion")
	s3 := startServer(t, fx.Dir)
	res = s3.initialize("2025-06-18")["result"].(map[string]any)
	if note, _ := res["projectNote"].(string); !strings.Contains(note, "git gloss init") {
		t.Errorf("projectNote = %v, want advice to run git gloss init", res["projectNote"])
	}
}

func TestReadOnlyAndToolsets(t *testing.T) {
	fx := newRepo(t)
	out, err := fx.Gloss("mcp", "--toolsets", "nope")
	if err == nil || !strings.Contains(out, `unknown toolset "nope"`) {
		t.Errorf("unknown toolset accepted: %v\n%s", err, out)
	}
}

// nextRaw returns the next line exactly as the server wrote it.
func (s *server) nextRaw() string {
	s.t.Helper()
	select {
	case line, ok := <-s.lines:
		if !ok {
			s.t.Fatalf("server closed stdout; stderr:\n%s", s.stderr.String())
		}
		return line
	case <-time.After(20 * time.Second):
		s.t.Fatalf("no reply from server; stderr:\n%s", s.stderr.String())
	}
	return ""
}

func TestWireIDsEchoedByteExact(t *testing.T) {
	s := startServer(t, newRepo(t).Dir)
	s.initialize("2025-06-18")
	for _, id := range []string{`1.5`, `12345678901234567890`, `1e400`, `-0`, `1.0`, `0.1E-5`, `"a\u0041"`, `"é"`} {
		s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` + "\n")
		line := s.nextRaw()
		if got := gjson.Get(line, "id").Raw; got != id || !gjson.Get(line, "result").Exists() {
			t.Errorf("id %s answered as %s: %s", id, got, line)
		}
	}

	// 1.5 must not be taken for 1: both calls get their own answer.
	s.send(`{"jsonrpc":"2.0","id":1.5,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	got := map[string]bool{gjson.Get(s.nextRaw(), "id").Raw: true, gjson.Get(s.nextRaw(), "id").Raw: true}
	if !got["1.5"] || !got["1"] {
		t.Errorf("ids 1.5 and 1 answered as %v", got)
	}

	// Errors echo the id bytes too.
	for _, tc := range []struct{ line, id string }{
		{`{"jsonrpc":"2.0","id":1e400,"method":"no/such/method"}`, `1e400`},
		{`{"jsonrpc":"2.0","id":12345678901234567890,"method":"tools/call","params":"oops"}`, `12345678901234567890`},
		{`{"jsonrpc":"1.0","id":1.5,"method":"ping"}`, `1.5`},
	} {
		s.send(tc.line + "\n")
		line := s.nextRaw()
		if got := gjson.Get(line, "id").Raw; got != tc.id || !gjson.Get(line, "error.code").Exists() {
			t.Errorf("%s answered %s, want an error with id %s", tc.line, line, tc.id)
		}
	}

	// Ids that are not a string or a number are invalid requests.
	for _, id := range []string{`{}`, `[1]`, `true`, `null`} {
		s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` + "\n")
		line := s.nextRaw()
		if gjson.Get(line, "error.code").Int() != -32600 || gjson.Get(line, "id").Raw != "null" {
			t.Errorf("id %s answered %s, want -32600 with a null id", id, line)
		}
	}
}

func TestWireErrorCodesAreValid(t *testing.T) {
	s := startServer(t, newRepo(t).Dir)
	expect := func(line string, code int64) {
		t.Helper()
		s.send(line + "\n")
		reply := s.nextRaw()
		if got := gjson.Get(reply, "error.code").Int(); got != code {
			t.Errorf("%s answered %s, want code %d", line, reply, code)
		}
	}
	// Chant's documented one-liner: tools/list without initialize.
	expect(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, mcp.CodeServerNotInitialized)
	expect(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":null}`, -32602)
	s.initialize("2025-06-18")
	expect(`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`, -32600)
	expect(`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":"not a cursor"}}`, -32602)
}

// rssKiB reads a field (VmRSS, VmHWM) of a process's /proc status.
func rssKiB(t *testing.T, pid int, field string) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

func TestWireOversizedLineInBoundedMemory(t *testing.T) {
	s := startServer(t, newRepo(t).Dir)
	s.initialize("2025-06-18")
	s.send(`{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"gloss_status","arguments":{}}}` + "\n")
	s.nextRaw()
	pid := s.cmd.Process.Pid
	before := rssKiB(t, pid, "VmHWM")

	pad := strings.Repeat("x", 50<<20)
	s.send(`{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"gloss_status","arguments":{"pad":"` + pad + `"}}}` + "\n")
	line := s.nextRaw()
	if gjson.Get(line, "error.code").Int() != -32600 || gjson.Get(line, "id").String() != "big" ||
		!strings.Contains(gjson.Get(line, "error.message").String(), mcp.EnvMaxLine) {
		t.Errorf("50 MB line answered %.300s, want -32600 for id big naming %s", line, mcp.EnvMaxLine)
	}
	s.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}` + "\n")
	if line := s.nextRaw(); gjson.Get(line, "id").String() != "after" || gjson.Get(line, "error").Exists() {
		t.Errorf("ping after the big line: %s", line)
	}
	// The peak, not a sample: the line was never held whole.
	peak := rssKiB(t, pid, "VmHWM")
	if grew := peak - before; grew > 32<<10 {
		t.Errorf("peak RSS grew by %d KiB reading a 50 MB line; want under 32 MiB", grew)
	}
	t.Logf("peak RSS %d KiB before, %d KiB after a 50 MB line", before, peak)
}

func TestWireMaxLineFromEnvironment(t *testing.T) {
	s := startServer(t, newRepo(t).Dir, mcp.EnvMaxLine+"=300")
	s.initialize("2025-06-18")
	s.send(`{"jsonrpc":"2.0","id":"long","method":"ping","params":{"_meta":{"pad":"` + strings.Repeat("y", 400) + `"}}}` + "\n")
	if line := s.nextRaw(); gjson.Get(line, "error.code").Int() != -32600 || gjson.Get(line, "id").String() != "long" {
		t.Errorf("line over a 300-byte limit answered %s", line)
	}
	s.send(`{"jsonrpc":"2.0","id":"short","method":"ping","params":{"_meta":{"pad":"` + strings.Repeat("y", 200) + `"}}}` + "\n")
	if line := s.nextRaw(); gjson.Get(line, "id").String() != "short" || gjson.Get(line, "error").Exists() {
		t.Errorf("line under the limit answered %s", line)
	}
}
