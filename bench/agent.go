package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// AgentHookCase is one agent hook event timed as a whole process, the way
// an agent runs it: `git gloss agent hook --agent NAME EVENT` with the
// event's JSON on stdin.
type AgentHookCase struct {
	Name, Agent, Event string
	Payload            func(session string) []byte
	// Fresh gives each run its own session, so that nothing is left out
	// as already delivered and every run does the full work.
	Fresh bool
	// Args, when set, runs git gloss with these instead: the baselines.
	Args []string
}

// AgentHookResult is a case's figures.
type AgentHookResult struct {
	Name     string
	P50, P95 time.Duration
	CPU50    time.Duration // median user+system time of the process
	Bytes    int           // size of the answer
}

// AgentHookCases are the events of a session on the recipe's file: the
// brief, a prompt, the delivery before an Edit of a line inside the
// recipe's anchor (whose records carry a constraint), Gemini's delivery
// after read_file, Codex's apply_patch, and the capture after an edit.
func (e *RecipeEnv) AgentHookCases() ([]AgentHookCase, error) {
	content, err := os.ReadFile(filepath.Join(e.Dir, e.File))
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(content), "\n")
	// A line of the anchor that occurs once in the file: the Edit's old_string.
	old, line := "", 0
	for l := e.Start + 1; l < e.End && old == ""; l++ {
		if t := lines[l-1]; len(strings.TrimSpace(t)) > 20 && strings.Count(string(content), t) == 1 {
			old, line = t, l
		}
	}
	if old == "" {
		return nil, fmt.Errorf("no unique line in %s %s", e.File, e.Anchor)
	}
	abs := filepath.Join(e.Dir, e.File)
	js := func(v map[string]any) []byte { b, _ := json.Marshal(v); return b }
	base := func(session, event string) map[string]any {
		return map[string]any{"session_id": session, "cwd": e.Dir, "hook_event_name": event, "transcript_path": ""}
	}
	with := func(m map[string]any, kv ...any) map[string]any {
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	edit := map[string]any{"file_path": abs, "old_string": old + "\n", "new_string": old + "\n"}
	patch := "*** Begin Patch\n*** Update File: " + e.File + "\n@@\n-" + old + "\n+" + old + "\n*** End Patch\n"
	return []AgentHookCase{
		{Name: "baseline: git gloss --version", Args: []string{"--version"}},
		{Name: "baseline: git gloss read --lines (same line)", Args: []string{"read", e.File, "--lines", fmt.Sprintf("%d:%d", line, line), "--json"}},
		{Name: "session start (claude SessionStart)", Agent: "claude", Event: "SessionStart", Fresh: true,
			Payload: func(s string) []byte { return js(with(base(s, "SessionStart"), "source", "startup")) }},
		{Name: "prompt (claude UserPromptSubmit)", Agent: "claude", Event: "UserPromptSubmit", Fresh: true,
			Payload: func(s string) []byte {
				return js(with(base(s, "UserPromptSubmit"), "prompt", "Make the list render faster when the terminal is narrow"))
			}},
		{Name: "pre-edit (claude PreToolUse Edit)", Agent: "claude", Event: "PreToolUse", Fresh: true,
			Payload: func(s string) []byte {
				return js(with(base(s, "PreToolUse"), "tool_name", "Edit", "tool_input", edit))
			}},
		{Name: "pre-edit, repeated in a session", Agent: "claude", Event: "PreToolUse",
			Payload: func(s string) []byte {
				return js(with(base(s, "PreToolUse"), "tool_name", "Edit", "tool_input", edit))
			}},
		{Name: "pre-edit (codex PreToolUse apply_patch)", Agent: "codex", Event: "PreToolUse", Fresh: true,
			Payload: func(s string) []byte {
				return js(with(base(s, "PreToolUse"), "model", "gpt-5-codex", "tool_name", "apply_patch", "tool_input", map[string]any{"command": patch}))
			}},
		{Name: "after read (gemini AfterTool read_file)", Agent: "gemini", Event: "AfterTool", Fresh: true,
			Payload: func(s string) []byte {
				return js(with(base(s, "AfterTool"), "tool_name", "read_file", "tool_input", map[string]any{"file_path": abs}))
			}},
		{Name: "capture (claude PostToolUse Edit)", Agent: "claude", Event: "PostToolUse",
			Payload: func(s string) []byte {
				return js(with(base(s, "PostToolUse"), "tool_name", "Edit", "tool_input", edit))
			}},
	}, nil
}

// MeasureAgentHooks runs every case runs times after one warm-up round,
// in rounds (each round runs each case once), so that a machine whose load
// changes during the measurement weighs on every case alike. It returns
// the median and 95th percentile of the wall time, process start
// included, and the median CPU time.
func (e *RecipeEnv) MeasureAgentHooks(ctx context.Context, cases []AgentHookCase, runs int) ([]AgentHookResult, error) {
	times := make([][]time.Duration, len(cases))
	cpu := make([][]time.Duration, len(cases))
	res := make([]AgentHookResult, len(cases))
	for round := 0; round <= runs; round++ {
		for i, c := range cases {
			session := "bench-" + c.Agent
			if c.Fresh {
				session = fmt.Sprintf("bench-%d-%d", time.Now().UnixNano(), round)
			}
			cmd := exec.CommandContext(ctx, e.Binary, "agent", "hook", "--agent", c.Agent, c.Event)
			if c.Args != nil {
				cmd = exec.CommandContext(ctx, e.Binary, c.Args...)
			} else {
				cmd.Stdin = bytes.NewReader(c.Payload(session))
			}
			cmd.Dir = e.Dir
			var out bytes.Buffer
			cmd.Stdout = &out
			start := time.Now()
			if err := cmd.Run(); err != nil {
				return nil, fmt.Errorf("%s: %w", c.Name, err)
			}
			took := time.Since(start)
			if round > 0 { // the first round warms the caches
				times[i] = append(times[i], took)
				cpu[i] = append(cpu[i], cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
			}
			res[i].Name, res[i].Bytes = c.Name, out.Len()
		}
		// The capture case appends to the store on every run: keep it small.
		_ = os.Remove(filepath.Join(e.GitDir, "gloss", "agent", "pending.jsonl"))
	}
	for i := range cases {
		slices.Sort(times[i])
		slices.Sort(cpu[i])
		n := len(times[i])
		res[i].P50, res[i].CPU50 = times[i][n/2], cpu[i][n/2]
		res[i].P95 = times[i][min(n-1, (n*95+99)/100-1)]
	}
	return res, nil
}
