package agent

import (
	"encoding/json"
	"slices"
	"strings"
)

// GitHub Copilot CLI (https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference):
// it loads every .github/hooks/*.json of the repository, so gloss writes a
// file of its own there (.github/hooks/gloss.json) instead of editing the
// team's. gloss configures the camelCase events, whose payloads carry
// sessionId, cwd and, for a tool, toolName and toolArgs (an object, or in
// older versions the arguments as a JSON string). Copilot CLI reads no
// context from a hook: sessionStart's and userPromptSubmitted's output is
// not processed and preToolUse takes only a permission decision. So its
// hooks capture (the prompt, redacted, and the lines edit and create
// wrote); what is in force reaches it through the MCP server and the gloss
// block of AGENTS.md, which Copilot CLI reads. Its payloads name no model:
// its lines are attributed to the agent without one.

func init() { register(copilotCLI{}) }

type copilotCLI struct{}

// Copilot CLI's file tools, from the reference's tool names: view {path,
// view_range}, edit {path, old_str, new_str}, create {path, file_text}.
var copilotEditTools = []string{"edit", "create"}

// copilotOwnedMark makes the hooks file gloss's (agent.OwnedFileMark): JSON
// has no comments, so it is the value of an environment variable of each
// handler, a field the format documents.
const copilotOwnedMark = OwnedFileMark + " copilot (git gloss agent install wrote this file; git gloss uninstall removes it)"

// copilotEvents are the events gloss listens to, and the tools for one.
var copilotEvents = []HookEvent{{Event: "sessionStart"}, {Event: "userPromptSubmitted"}, {Event: "postToolUse", Matcher: matcher(copilotEditTools)}}

// copilotHooksFile is .github/hooks/gloss.json.
func copilotHooksFile() []byte {
	hooks := map[string]any{}
	for _, ev := range copilotEvents {
		hooks[ev.Event] = []any{map[string]any{
			"type": "command", "bash": "git gloss agent hook --agent copilot " + ev.Event,
			"timeoutSec": 10, "env": map[string]string{"gloss_hooks": copilotOwnedMark},
		}}
	}
	data, _ := json.MarshalIndent(map[string]any{"version": 1, "hooks": hooks}, "", "  ")
	return append(data, '\n')
}

func (copilotCLI) Name() string { return "copilot" }

func (copilotCLI) Hooks() HookSpec {
	return HookSpec{
		Display: "GitHub Copilot CLI", Dir: ".copilot", Layout: LayoutOwnedFile, File: copilotHooksFile(),
		Project: ".github/hooks/gloss.json", Events: copilotEvents,
		Note: "Copilot CLI loads .github/hooks when a session starts; it takes no context from hooks, so the records reach it through the MCP server and AGENTS.md",
	}
}

// Answer is nothing: Copilot CLI processes no hook output gloss could use.
func (copilotCLI) Answer(string, Kind, string) []byte { return nil }

type copilotArgs struct {
	Path     string  `json:"path"`
	OldStr   string  `json:"old_str"`
	NewStr   string  `json:"new_str"`
	FileText *string `json:"file_text"`
}

func (copilotCLI) Parse(event string, data []byte) (*Payload, error) {
	var r struct {
		SessionID string          `json:"sessionId"`
		Cwd       string          `json:"cwd"`
		Prompt    string          `json:"prompt"`
		ToolName  string          `json:"toolName"`
		ToolArgs  json.RawMessage `json:"toolArgs"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	p := &Payload{Session: r.SessionID, Cwd: r.Cwd, Prompt: r.Prompt, Tool: r.ToolName, Mute: true}
	switch event {
	case "sessionStart":
		p.Kind = KindModel // a session, no model: nothing to deliver
	case "userPromptSubmitted":
		p.Kind = KindPrompt
	case "postToolUse":
		if !slices.Contains(copilotEditTools, r.ToolName) {
			return p, nil
		}
		args := r.ToolArgs
		var s string
		if json.Unmarshal(args, &s) == nil && strings.HasPrefix(strings.TrimSpace(s), "{") {
			args = json.RawMessage(s) // the arguments as a JSON string
		}
		var in copilotArgs
		decodeToolInput(args, &in)
		if in.Path == "" {
			return p, nil
		}
		op := FileOp{Path: in.Path, Content: in.FileText}
		if r.ToolName == "edit" {
			op.Content, op.Replaces = nil, []Replace{{Old: in.OldStr, New: in.NewStr}}
		}
		p.Kind, p.Files = KindPostEdit, []FileOp{op}
	}
	return p, nil
}
