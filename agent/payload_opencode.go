package agent

import (
	_ "embed"
	"encoding/json"
	"slices"

	"github.com/gloss-dev/gloss/gitops"
)

// OpenCode (https://opencode.ai/docs/plugins): no hook configuration, only
// JavaScript plugins. gloss installs one plugin file of its own
// (opencode-plugin.js) that hands the plugin events to `git gloss agent
// hook --agent opencode <event>`, so the payloads below are the plugin's:
// OpenCode's own event arguments (tool.execute.after's tool, args and the
// edit's metadata.diff; chat.message's parts and model) under the names of
// Claude Code's hook input. Context reaches the model from the system
// prompt (experimental.chat.system.transform) and from a tool's output
// (tool.execute.after), not before a tool runs: as with Gemini CLI, the
// records of a file come after it is read.

func init() { register(openCode{}) }

type openCode struct{}

// OpenCode's tools, from the 1.18 binary's tool definitions: read
// {filePath, offset (1-based), limit}, edit {filePath, oldString,
// newString, replaceAll}, write {filePath, content}, apply_patch
// {patchText} (Codex's envelope, for OpenAI models).
var (
	opencodeReadTools = []string{"read"}
	opencodeEditTools = []string{"edit", "write", "apply_patch"}
)

//go:embed opencode-plugin.js
var opencodePlugin []byte

// OpenCodePlugin is the plugin file install writes.
func OpenCodePlugin() []byte { return opencodePlugin }

func (openCode) Name() string { return "opencode" }

func (openCode) Hooks() HookSpec {
	return HookSpec{
		Display: "OpenCode", Dir: ".opencode", Layout: LayoutOwnedFile, File: opencodePlugin,
		Project: ".opencode/plugins/gloss.js", Global: ".config/opencode/plugins/gloss.js",
		Events: []HookEvent{{Event: "chat.message"}, {Event: "experimental.chat.system.transform"},
			{Event: "tool.execute.after", Matcher: matcher(opencodeReadTools, opencodeEditTools)}},
		Note: "OpenCode loads plugins when it starts: restart it",
	}
}

// Answer is what the plugin reads: {"context": "..."}.
func (openCode) Answer(_ string, _ Kind, text string) []byte {
	return marshalLine(map[string]any{"context": text})
}

type opencodeInput struct {
	SessionID string          `json:"session_id"`
	Cwd       string          `json:"cwd"`
	Model     string          `json:"model"`
	Prompt    string          `json:"prompt"`
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args"`
	Diff      string          `json:"diff"` // tool.execute.after's output.metadata.diff
}

type opencodeArgs struct {
	FilePath   string  `json:"filePath"`
	OldString  string  `json:"oldString"`
	NewString  string  `json:"newString"`
	ReplaceAll bool    `json:"replaceAll"`
	Content    *string `json:"content"`
	PatchText  string  `json:"patchText"`
	Offset     int     `json:"offset"`
	Limit      int     `json:"limit"`
}

func (openCode) Parse(event string, data []byte) (*Payload, error) {
	var r opencodeInput
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	p := &Payload{Session: r.SessionID, Cwd: r.Cwd, Model: r.Model, Prompt: r.Prompt, Tool: r.Tool}
	var in opencodeArgs
	decodeToolInput(r.Args, &in)
	switch event {
	case "session.created":
		p.Kind = KindSessionStart
	case "chat.message":
		p.Kind = KindPrompt
	case "tool.execute.after":
		switch {
		case slices.Contains(opencodeReadTools, r.Tool):
			p.Kind = KindAfterRead
			op := FileOp{Path: in.FilePath}
			if in.Offset > 0 {
				op.Range = &LineRange{Start: in.Offset}
				if in.Limit > 0 {
					op.Range.End = in.Offset + in.Limit - 1
				}
			}
			p.Files = []FileOp{op}
		case r.Tool == "apply_patch":
			p.Kind, p.Files = KindPostEdit, ParsePatch(in.PatchText)
		case slices.Contains(opencodeEditTools, r.Tool):
			p.Kind = KindPostEdit
			op := FileOp{Path: in.FilePath, Content: in.Content}
			if in.Content == nil {
				op.Replaces = []Replace{{Old: in.OldString, New: in.NewString, All: in.ReplaceAll}}
			}
			if files, err := gitops.ParseUnifiedDiff([]byte(r.Diff)); err == nil && len(files) == 1 && len(files[0].Hunks) > 0 {
				op.Added = files[0].Added()
				if op.Added == nil {
					op.Added = []int{}
				}
			}
			p.Files = []FileOp{op}
		}
	}
	return p, nil
}
