package agente2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Gemini CLI, offline: GOOGLE_GEMINI_BASE_URL points it at fake-gemini.mjs.
// The user's own settings choose API-key auth and trust the repository
// (Gemini runs a project's hooks only in a trusted folder, the step
// docs/agents.md tells users about).
func TestGeminiCLIRunsGlossHooksOffline(t *testing.T) {
	t.Parallel()
	gemini := agentBinary(t, "gemini")
	// The CLI is a node program that declares node >= 20; an older node
	// (Debian bookworm's is 18) cannot run it, which is not gloss's fault.
	if v, err := exec.Command("node", "--version").Output(); err == nil {
		var major int
		if _, err := fmt.Sscanf(string(v), "v%d", &major); err == nil && major < 20 {
			t.Skipf("node %s is older than Gemini CLI's minimum (20): install node >= 20 to run this test", strings.TrimSpace(string(v)))
		}
	}
	fx := annotatedRepo(t, "gemini")
	env, dump := agentEnv(t, fx)

	home := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	userSettings := `{"security": {"auth": {"selectedType": "gemini-api-key"}}, "general": {"disableAutoUpdate": true},
	  "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false}}`
	trusted, _ := json.Marshal(map[string]string{fx.Dir: "TRUST_FOLDER"})
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"settings.json": userSettings, "trustedFolders.json": string(trusted)} {
		if err := os.WriteFile(filepath.Join(home, ".gemini", name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	mainGo, note := fx.Path("main.go"), fx.Path("notes/hello.txt")
	baseURL, apiLog := fakeAPI(t, "fake-gemini.mjs", map[string]any{
		"steps": []map[string]any{
			{"name": "read_file", "args": map[string]any{"file_path": mainGo}},
			{"name": "replace", "args": map[string]any{"file_path": mainGo, "old_string": "\tprintln(\"hello\")\n", "new_string": "\tprintln(\"hello, world\")\n", "instruction": "greet the world"}},
			{"name": "write_file", "args": map[string]any{"file_path": note, "content": "written by the agent\n"}},
		},
		"final": "Done.",
	})

	out := runAgentCLI(t, "gemini -p", fx.Dir,
		append(env, "GOOGLE_GEMINI_BASE_URL="+baseURL, "GEMINI_API_KEY=test-not-a-key", "GEMINI_CLI_NO_RELAUNCH=1"),
		gemini, "-p", "Make greet say hello, world and leave a note", "--output-format", "json", "--yolo")
	var result struct {
		Session  string `json:"session_id"`
		Response string `json:"response"`
		Error    any    `json:"error"`
	}
	if err := json.Unmarshal(out, &result); err != nil || result.Error != nil || result.Response != "Done." {
		t.Fatalf("gemini -p result: %v\n%s", err, out)
	}
	if got := fx.Read("main.go"); !strings.Contains(got, "hello, world") {
		t.Fatalf("the agent's edit did not land:\n%s", got)
	}

	ex := exchanges(t, dump)
	seen := checkExchanges(t, ex, result.Session, fx.Dir)
	if seen["SessionStart"] != 1 || seen["BeforeAgent"] != 1 || seen["AfterTool"] != 3 || seen["BeforeModel"] < 3 {
		t.Errorf("hooks that ran: %v (want SessionStart, BeforeAgent once, AfterTool for each of the 3 tools, BeforeModel per model request)", seen)
	}
	var afterRead *exchange
	for i, e := range ex {
		if e.event == "AfterTool" && e.payload["tool_name"] == "read_file" {
			afterRead = &ex[i]
		}
	}
	if afterRead == nil {
		t.Fatalf("no AfterTool for read_file: %v", seen)
	}

	// Gemini takes context only after a tool: the constraint on greet comes
	// with the read of main.go, before the agent replaces in it.
	checkLoop(t, fx, "gemini", result.Session, "AfterTool(read_file)", afterRead.answer, apiLog)
}
