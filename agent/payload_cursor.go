package agent

import "encoding/json"

// Cursor (https://cursor.com/docs/agent/hooks): a flat layout, payloads
// with conversation_id and workspace_roots; beforeSubmitPrompt cannot add
// context (it may only block), afterFileEdit carries the edits for
// capture, sessionStart's additional_context carries the brief. Before a
// tool runs, Cursor's preToolUse may only allow, deny or rewrite it; after
// one, postToolUse's additional_context reaches the model. So, as for
// Gemini CLI, a file's decisions are delivered after the agent reads it
// (postToolUse with the matcher Read): an agent reads a file before it
// edits it.

func init() { register(cursorIDE{}) }

type cursorIDE struct{}

func (cursorIDE) Name() string { return Cursor }

func (cursorIDE) Hooks() HookSpec {
	return HookSpec{
		Display: "Cursor", Dir: ".cursor", Layout: LayoutFlat,
		Project: ".cursor/hooks.json", Global: ".cursor/hooks.json",
		Events: []HookEvent{{Event: "sessionStart"}, {Event: "beforeSubmitPrompt"}, {Event: "afterFileEdit"},
			{Event: "postToolUse", Matcher: cursorReadTool}},
		Handler: func(event string) map[string]any {
			h := map[string]any{"timeout": 10} // seconds
			if event == "postToolUse" {
				h["matcher"] = cursorReadTool // a flat entry carries its own matcher
			}
			return h
		},
		Note: "Cursor reads hooks.json when it starts: restart Cursor (Settings → Hooks lists them)",
	}
}

// cursorReadTool is the name Cursor's postToolUse gives its file-read tool.
const cursorReadTool = "Read"

func (cursorIDE) Answer(_ string, kind Kind, text string) []byte {
	if kind != KindSessionStart && kind != KindAfterRead {
		return nil
	}
	return marshalLine(map[string]any{"additional_context": text})
}

func (cursorIDE) Parse(event string, data []byte) (*Payload, error) {
	var r struct {
		SessionID      string   `json:"session_id"`
		ConversationID string   `json:"conversation_id"`
		Cwd            string   `json:"cwd"`
		WorkspaceRoots []string `json:"workspace_roots"`
		Model          string   `json:"model"`
		Prompt         string   `json:"prompt"`
		FilePath       string   `json:"file_path"` // afterFileEdit
		Edits          []struct {
			Old string `json:"old_string"`
			New string `json:"new_string"`
		} `json:"edits"` // afterFileEdit
		ToolName  string          `json:"tool_name"`  // postToolUse
		ToolInput json.RawMessage `json:"tool_input"` // postToolUse
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	p := &Payload{Session: firstNonEmpty(r.SessionID, r.ConversationID), Cwd: r.Cwd, Model: r.Model, Prompt: r.Prompt}
	if p.Cwd == "" && len(r.WorkspaceRoots) > 0 {
		p.Cwd = r.WorkspaceRoots[0]
	}
	switch event {
	case "sessionStart":
		p.Kind = KindSessionStart
	case "beforeSubmitPrompt":
		p.Kind, p.Mute = KindPrompt, true
	case "afterFileEdit":
		p.Kind, p.Tool = KindPostEdit, "afterFileEdit"
		op := FileOp{Path: r.FilePath}
		for _, e := range r.Edits {
			op.Replaces = append(op.Replaces, Replace{Old: e.Old, New: e.New})
		}
		p.Files = []FileOp{op}
	case "postToolUse":
		if r.ToolName == cursorReadTool || r.ToolName == "read_file" {
			var in struct {
				FilePath   string `json:"file_path"`
				Path       string `json:"path"`
				TargetFile string `json:"target_file"`
			}
			decodeToolInput(r.ToolInput, &in)
			p.Kind, p.Tool = KindAfterRead, r.ToolName
			p.Files = []FileOp{{Path: firstNonEmpty(in.FilePath, in.Path, in.TargetFile)}}
		}
	}
	return p, nil
}
