package agente2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// OpenCode, offline: its anthropic provider pointed at fake-anthropic.mjs
// through opencode.json (provider.anthropic.options.baseURL), the models
// catalogue not fetched (OPENCODE_DISABLE_MODELS_FETCH) and nothing
// updated. OpenCode has no hook configuration: `git gloss init
// --agents=opencode` writes gloss's plugin (.opencode/plugins/gloss.js),
// which OpenCode loads at start and which hands its events to git gloss
// agent hook. The package is the platform binary itself
// (opencode-linux-x64): the opencode-ai wrapper only picks it in a
// postinstall script, which npm no longer runs by default.
func TestOpenCodeRunsGlossPluginOffline(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the pinned OpenCode package is its linux-x64 binary")
	}
	agentBinary(t, "claude") // npm ci, once
	opencode := filepath.Join(moduleDir(), "node_modules", "opencode-linux-x64", "bin", "opencode")
	if _, err := os.Stat(opencode); err != nil {
		t.Fatalf("opencode is not installed (npm ci in tests/agent-e2e): %v", err)
	}
	fx := annotatedRepo(t, "opencode")
	if !strings.Contains(fx.Read(".opencode/plugins/gloss.js"), "gloss-owned-file: opencode") {
		t.Fatalf("init --agents=opencode wrote no plugin")
	}
	env, dump := agentEnv(t, fx)
	mainGo, note := fx.Path("main.go"), fx.Path("notes/hello.txt")
	baseURL, apiLog := fakeAPI(t, "fake-anthropic.mjs", map[string]any{
		"mainTool": "write",
		"steps": []map[string]any{
			{"name": "read", "input": map[string]any{"filePath": mainGo}},
			{"name": "edit", "input": map[string]any{"filePath": mainGo, "oldString": "\tprintln(\"hello\")\n", "newString": "\tprintln(\"hello, world\")\n"}},
			{"name": "write", "input": map[string]any{"filePath": note, "content": "written by the agent\n"}},
		},
		"final": "Done.",
	})
	config, _ := json.Marshal(map[string]any{
		"$schema": "https://opencode.ai/config.json", "model": "anthropic/claude-sonnet-4-5",
		"provider":   map[string]any{"anthropic": map[string]any{"options": map[string]any{"baseURL": baseURL + "/v1", "apiKey": "sk-ant-test-not-a-key"}}},
		"permission": map[string]any{"edit": "allow", "bash": "allow"}, "autoupdate": false, "share": "disabled",
	})
	// The configuration goes in through the environment: a file in the
	// repository would show up in the agent's commit.
	home := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	// OpenCode installs @opencode-ai/plugin with npm into every .opencode
	// folder it loads: the registry is pointed at a closed port on
	// loopback, without retries, so the install fails at once (gloss's
	// plugin imports nothing but node:child_process) and the run stays
	// offline. Its start takes most of a minute on a loaded machine.
	runAgentCLIFor(t, 3*time.Minute, "opencode run", fx.Dir, append(env, "OPENCODE_CONFIG_CONTENT="+string(config),
		"npm_config_registry=http://127.0.0.1:9/", "npm_config_fetch_retries=0",
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "OPENCODE_DISABLE_SHARE=1",
	), opencode, "run", "Make greet say hello, world and leave a note")
	if got := fx.Read("main.go"); !strings.Contains(got, "hello, world") {
		api, _ := os.ReadFile(apiLog)
		t.Fatalf("the agent's edit did not land:\n%s\nrequests:\n%s", got, api)
	}

	ex := exchanges(t, dump)
	if len(ex) == 0 {
		t.Fatal("the plugin called git gloss agent hook for nothing")
	}
	session, _ := ex[0].payload["session_id"].(string)
	seen := checkExchanges(t, ex, session, fx.Dir)
	for ev, n := range map[string]int{"session.created": 1, "chat.message": 1, "tool.execute.after": 3} {
		if seen[ev] != n {
			t.Errorf("%s ran %d times, want %d (all: %v)", ev, seen[ev], n, seen)
		}
	}
	var read *exchange
	for i, e := range ex {
		if e.event == "tool.execute.after" && e.payload["tool"] == "read" {
			read = &ex[i]
		}
	}
	if read == nil {
		t.Fatalf("no tool.execute.after for the read of main.go: %v", seen)
	}
	api, err := os.ReadFile(apiLog)
	if err != nil {
		t.Fatal(err)
	}
	// How many commits are annotated depends on whether the background
	// worker has annotated the setup's last commit yet: the brief is what
	// is checked, not the count.
	if !regexp.MustCompile(`Holds: [0-9]+ annotated commits`).Match(api) {
		t.Errorf("the session brief never reached the model's system prompt (requests in %s)", apiLog)
	}
	checkLoop(t, fx, "opencode", session, "tool.execute.after", read.answer, apiLog)
}
