package agente2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Codex CLI, offline: a custom model provider whose base_url is
// fake-openai.mjs. --trust (the project, so that .codex/hooks.json loads)
// and --dangerously-bypass-hook-trust stand in for the user trusting the
// project and gloss's hooks in Codex's /hooks screen (the steps
// docs/agents.md tells users about); the config overrides keep Codex off
// the network (update check, analytics, the plugin catalogue).
func TestCodexRunsGlossHooksOffline(t *testing.T) {
	t.Parallel()
	codex := agentBinary(t, "codex")
	fx := annotatedRepo(t, "codex")
	env, dump := agentEnv(t, fx)
	home := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	codexHome := filepath.Join(home, ".codex")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}

	patch := "*** Begin Patch\n*** Update File: main.go\n@@\n func greet() {\n-\tprintln(\"hello\")\n+\tprintln(\"hello, world\")\n }\n*** Add File: notes/hello.txt\n+written by the agent\n*** End Patch\n"
	baseURL, apiLog := fakeAPI(t, "fake-openai.mjs", map[string]any{
		"steps": []map[string]any{{"name": "apply_patch", "input": patch}},
		"final": "Done.",
	})

	out := runAgentCLI(t, "codex exec", fx.Dir, append(env, "CODEX_HOME="+codexHome, "STANDIN_API_KEY=test-not-a-key"),
		codex, "exec", "--json", "--trust", "--dangerously-bypass-hook-trust", "--dangerously-bypass-approvals-and-sandbox",
		"-c", "check_for_update_on_startup=false", "-c", "analytics.enabled=false", "-c", "features.plugins=false",
		"-c", "model_provider=standin",
		"-c", `model_providers.standin={name="stand-in", base_url="`+baseURL+`/v1", env_key="STANDIN_API_KEY", wire_api="responses", supports_websockets=false}`,
		"-c", "model=gpt-5.5",
		"Make greet say hello, world and leave a note")
	// codex exec --json prints JSON Lines events.
	thread, final := "", ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
			Item     struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"item"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch {
		case ev.Type == "thread.started":
			thread = ev.ThreadID
		case ev.Type == "item.completed" && ev.Item.Type == "agent_message":
			final = ev.Item.Text
		}
	}
	if thread == "" || final != "Done." {
		t.Fatalf("codex exec events (thread %q, final %q):\n%s", thread, final, out)
	}
	if got := fx.Read("main.go"); !strings.Contains(got, "hello, world") {
		t.Fatalf("the agent's patch did not land:\n%s", got)
	}

	ex := exchanges(t, dump)
	seen := checkExchanges(t, ex, thread, fx.Dir)
	for ev, n := range map[string]int{"SessionStart": 1, "UserPromptSubmit": 1, "PreToolUse": 1, "PostToolUse": 1} {
		if seen[ev] != n {
			t.Errorf("%s ran %d times, want %d (all: %v)", ev, seen[ev], n, seen)
		}
	}
	var pre *exchange
	for i, e := range ex {
		if e.event == "PreToolUse" {
			pre = &ex[i]
		}
	}
	if pre == nil {
		t.Fatal("no PreToolUse")
	}
	if pre.payload["tool_name"] != "apply_patch" {
		t.Errorf("PreToolUse tool_name = %v, want apply_patch", pre.payload["tool_name"])
	}

	checkLoop(t, fx, "codex", thread, "PreToolUse", pre.answer, apiLog)
}
