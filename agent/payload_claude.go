package agent

import (
	"encoding/json"
	"slices"

	"github.com/gloss-dev/gloss/gitops"
)

// Claude Code (https://code.claude.com/docs/en/hooks). Its hook input is
// the shape Codex and Factory Droid copied, so the decoding below serves
// them too.

func init() { register(claudeCode{}) }

type claudeCode struct{}

// claudeEditTools are Claude Code's file-writing tools (MultiEdit is gone
// from recent versions; matching it costs nothing on those). Every one is
// in the installed matcher and parsed below: a tool in the matcher that
// the parser did not know would leave the agent's lines to the person.
var claudeEditTools = []string{"Edit", "MultiEdit", "Write", "NotebookEdit"}

func (claudeCode) Name() string { return Claude }

func (claudeCode) Parse(event string, data []byte) (*Payload, error) {
	return parseClaudeShape(event, data, claudeEditTools, claudeOps)
}

func (claudeCode) Answer(event string, _ Kind, text string) []byte {
	return additionalContext(event, text)
}

func (claudeCode) Hooks() HookSpec {
	m := matcher(claudeEditTools)
	return HookSpec{
		Display: "Claude Code", Dir: ".claude", Rank: -1,
		Project: ".claude/settings.json", Global: ".claude/settings.json",
		Events:  []HookEvent{{Event: "SessionStart"}, {Event: "UserPromptSubmit"}, {Event: "PreToolUse", Matcher: m}, {Event: "PostToolUse", Matcher: m}},
		Handler: func(string) map[string]any { return map[string]any{"type": "command", "timeout": 10} }, // seconds
	}
}

// TranscriptModel reads the model from the session transcript: no Claude
// Code payload names it.
func (claudeCode) TranscriptModel(path string) string { return ModelFromTranscript(path) }

// claudeInput holds the fields of Claude Code's hook input that gloss
// reads (Codex and Factory Droid send the same, Codex with model).
type claudeInput struct {
	HookEventName  string          `json:"hook_event_name"`
	SessionID      string          `json:"session_id"`
	Cwd            string          `json:"cwd"`
	TranscriptPath string          `json:"transcript_path"`
	Model          string          `json:"model"`
	Prompt         string          `json:"prompt"`
	Source         string          `json:"source"` // SessionStart: startup, resume, clear, compact
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolResponse   json.RawMessage `json:"tool_response"`
}

// parseClaudeShape reads a payload in Claude Code's shape; tools are the
// edit tools the agent's matcher lists, ops turns one of their inputs into
// file operations.
func parseClaudeShape(event string, data []byte, tools []string, ops func(tool string, input json.RawMessage) []FileOp) (*Payload, error) {
	var r claudeInput
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	p := &Payload{Session: r.SessionID, Cwd: r.Cwd, Transcript: r.TranscriptPath, Model: r.Model, Prompt: r.Prompt,
		Tool: r.ToolName, Forgot: r.Source == "clear" || r.Source == "compact"}
	switch event {
	case "SessionStart":
		p.Kind = KindSessionStart
	case "UserPromptSubmit":
		p.Kind = KindPrompt
	case "PreToolUse", "PostToolUse":
		if !slices.Contains(tools, r.ToolName) {
			break
		}
		p.Kind = KindPreEdit
		p.Files = ops(r.ToolName, r.ToolInput)
		if event == "PostToolUse" {
			p.Kind = KindPostEdit
			if added, ok := structuredPatchAdded(r.ToolResponse); ok && len(p.Files) == 1 {
				p.Files[0].Added = added
			}
		}
	}
	return p, nil
}

// claudeToolInput is the tool_input of Claude Code's edit tools.
type claudeToolInput struct {
	FilePath   string  `json:"file_path"`
	OldString  string  `json:"old_string"`
	NewString  string  `json:"new_string"`
	ReplaceAll bool    `json:"replace_all"`
	Content    *string `json:"content"`
	Edits      []struct {
		Old        string `json:"old_string"`
		New        string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
	} `json:"edits"`
	// NotebookEdit (https://docs.claude.com/en/docs/claude-code/sdk/sdk-typescript#notebookedit).
	NotebookPath string  `json:"notebook_path"`
	NewSource    *string `json:"new_source"`
	EditMode     string  `json:"edit_mode"` // replace (default), insert, delete
}

// claudeOps reads Edit, MultiEdit, Write and NotebookEdit.
func claudeOps(tool string, input json.RawMessage) []FileOp {
	var in claudeToolInput
	decodeToolInput(input, &in)
	if tool == "NotebookEdit" {
		// The cell is found by its new source; before the edit, the whole
		// notebook's records are delivered (the payload names the cell by
		// id only).
		op := FileOp{Path: in.NotebookPath}
		if in.EditMode != "delete" && in.NewSource != nil {
			op.Cell = in.NewSource
		}
		return []FileOp{op}
	}
	op := FileOp{Path: in.FilePath}
	switch {
	case in.Content != nil:
		op.Content = in.Content
	case len(in.Edits) > 0:
		for _, e := range in.Edits {
			op.Replaces = append(op.Replaces, Replace{Old: e.Old, New: e.New, All: e.ReplaceAll})
		}
	default:
		op.Replaces = []Replace{{Old: in.OldString, New: in.NewString, All: in.ReplaceAll}}
	}
	return []FileOp{op}
}

// structuredPatchAdded reads the lines an Edit or Write added from Claude
// Code's tool_response.structuredPatch (jsdiff hunks: newStart and lines
// prefixed " ", "-" or "+"). The lines' text there is not the file's
// (tabs come back as spaces), so only their numbers are used. ok is false
// when there is no patch (a new file: its whole content is the agent's).
func structuredPatchAdded(resp json.RawMessage) (added []int, ok bool) {
	if len(resp) == 0 || resp[0] != '{' {
		return nil, false
	}
	var r struct {
		StructuredPatch []struct {
			NewStart int      `json:"newStart"`
			Lines    []string `json:"lines"`
		} `json:"structuredPatch"`
	}
	if json.Unmarshal(resp, &r) != nil || len(r.StructuredPatch) == 0 {
		return nil, false
	}
	added = []int{} // not nil: a deletion adds nothing, and says so
	for _, h := range r.StructuredPatch {
		added = append(added, gitops.HunkAdded(h.NewStart, h.Lines)...)
	}
	return added, true
}
