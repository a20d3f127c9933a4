package agent

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gloss-dev/gloss/lazyregexp"
)

// Agents gloss answers, by the name `--agent` takes.
const (
	Claude = "claude"
	Gemini = "gemini"
	Codex  = "codex"
	Cursor = "cursor"
)

// AgentNames lists the supported agents.
var AgentNames = []string{Claude, Gemini, Codex, Cursor}

// Kind is what an event means to gloss, whatever the agent calls it.
type Kind int

// Kinds of event.
const (
	KindIgnored      Kind = iota // an event gloss has nothing to do for
	KindSessionStart             // deliver the session brief
	KindPrompt                   // deliver matching notes; keep the redacted prompt
	KindPreEdit                  // deliver what is recorded for the regions about to be edited
	KindAfterRead                // Gemini: deliver it after the file is read (BeforeTool context never reaches the model)
	KindPostEdit                 // capture which lines the agent wrote
	KindModel                    // Gemini BeforeModel: only the model name, for capture
)

func (k Kind) String() string {
	return [...]string{"ignored", "session-start", "prompt", "pre-edit", "after-read", "post-edit", "model"}[k]
}

// Replace is one text replacement of an edit tool.
type Replace struct {
	Old, New string
	All      bool // every occurrence (Claude's replace_all)
}

// FileOp is what one tool call does, or did, to one file.
type FileOp struct {
	Path     string     // as the agent gave it: absolute or relative to Cwd
	Replaces []Replace  // Edit, MultiEdit, replace, Cursor's edits
	Content  *string    // Write, write_file: the whole new content
	Hunks    []Hunk     // apply_patch
	Range    *LineRange // read_file's start_line/end_line, when given
	// Added lists the lines of the new file the edit added, when the
	// agent reports them (Claude Code's structuredPatch): more exact than
	// finding new_string, which repeats the context it replaced.
	Added []int
}

// Hunk is one hunk of a Codex patch: its old side (context and "-" lines),
// its new side (context and "+" lines) and which new lines it adds.
type Hunk struct {
	Old, New []string
	Added    []bool // per New line: a "+" line
}

// Payload is an agent's event, reduced to what gloss uses.
type Payload struct {
	Agent      string
	Event      string // the agent's own event name
	Kind       Kind
	Session    string
	Cwd        string
	Transcript string
	Model      string
	Prompt     string
	Tool       string
	Files      []FileOp
	// Forgot is set on a session start after which the agent no longer
	// has what it was told (Claude Code's, Codex's and Gemini CLI's
	// source "clear" or "compact"): items may be delivered again.
	Forgot bool
}

// raw holds every field the supported agents send that gloss reads.
type raw struct {
	HookEventName  string          `json:"hook_event_name"`
	SessionID      string          `json:"session_id"`
	ConversationID string          `json:"conversation_id"` // Cursor
	Cwd            string          `json:"cwd"`
	WorkspaceRoots []string        `json:"workspace_roots"` // Cursor
	TranscriptPath string          `json:"transcript_path"`
	Model          string          `json:"model"` // Codex, Cursor
	Prompt         string          `json:"prompt"`
	Source         string          `json:"source"` // SessionStart: startup, resume, clear, compact
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	FilePath       string          `json:"file_path"` // Cursor afterFileEdit
	Edits          []struct {
		Old string `json:"old_string"`
		New string `json:"new_string"`
	} `json:"edits"` // Cursor afterFileEdit
	LLMRequest struct {
		Model string `json:"model"`
	} `json:"llm_request"` // Gemini BeforeModel
}

type toolInput struct {
	FilePath   string  `json:"file_path"`
	Path       string  `json:"path"`
	OldString  string  `json:"old_string"`
	NewString  string  `json:"new_string"`
	ReplaceAll bool    `json:"replace_all"`
	Content    *string `json:"content"`
	Edits      []struct {
		Old        string `json:"old_string"`
		New        string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
	} `json:"edits"`
	Command   json.RawMessage `json:"command"` // Codex apply_patch: the patch text
	Input     string          `json:"input"`   // Codex apply_patch (freeform form)
	StartLine int             `json:"start_line"`
	EndLine   int             `json:"end_line"`
}

// Edit tools, per agent.
var (
	claudeEditTools = []string{"Edit", "Write", "MultiEdit"}
	codexEditTools  = []string{"apply_patch", "Edit", "Write"}
	geminiEditTools = []string{"replace", "write_file"}
	geminiReadTools = []string{"read_file"}
)

// Parse reads an agent's payload for event.
func Parse(agentName, event string, data []byte) (*Payload, error) {
	if !slices.Contains(AgentNames, agentName) {
		return nil, fmt.Errorf("unknown agent %q (supported: %s)", agentName, strings.Join(AgentNames, ", "))
	}
	var r raw
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s %s payload: %w", agentName, event, err)
	}
	p := &Payload{Agent: agentName, Event: event, Session: r.SessionID, Cwd: r.Cwd, Transcript: r.TranscriptPath,
		Model: r.Model, Prompt: r.Prompt, Tool: r.ToolName, Forgot: r.Source == "clear" || r.Source == "compact"}
	if p.Session == "" {
		p.Session = r.ConversationID
	}
	if p.Cwd == "" && len(r.WorkspaceRoots) > 0 {
		p.Cwd = r.WorkspaceRoots[0]
	}
	var in toolInput
	if len(r.ToolInput) > 0 && string(r.ToolInput) != "null" {
		if err := json.Unmarshal(r.ToolInput, &in); err != nil {
			// Cursor's MCP events send tool_input as a JSON string; gloss
			// reads no such tool, so the payload is simply not an edit.
			in = toolInput{}
		}
	}
	switch agentName {
	case Claude, Codex:
		tools := claudeEditTools
		if agentName == Codex {
			tools = codexEditTools
		}
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
			p.Files = fileOps(r.ToolName, in)
			if event == "PostToolUse" {
				p.Kind = KindPostEdit
				if added, ok := structuredPatchAdded(r.ToolResponse); ok && len(p.Files) == 1 {
					p.Files[0].Added = added
				}
			}
		}
	case Gemini:
		switch event {
		case "SessionStart":
			p.Kind = KindSessionStart
		case "BeforeAgent":
			p.Kind = KindPrompt
		case "BeforeModel":
			p.Kind, p.Model = KindModel, r.LLMRequest.Model
		case "AfterTool":
			switch {
			case slices.Contains(geminiReadTools, r.ToolName):
				p.Kind = KindAfterRead
				op := FileOp{Path: firstNonEmpty(in.FilePath, in.Path)}
				if in.StartLine > 0 {
					op.Range = &LineRange{Start: in.StartLine, End: max(in.EndLine, in.StartLine)}
					if in.EndLine <= 0 {
						op.Range.End = 0 // to the end of the file
					}
				}
				p.Files = []FileOp{op}
			case slices.Contains(geminiEditTools, r.ToolName):
				p.Kind = KindPostEdit
				p.Files = fileOps(r.ToolName, in)
				if added, ok := fileDiffAdded(r.ToolResponse); ok && len(p.Files) == 1 {
					p.Files[0].Added = added
				}
			}
		}
	case Cursor:
		switch event {
		case "sessionStart":
			p.Kind = KindSessionStart
		case "beforeSubmitPrompt":
			p.Kind = KindPrompt
		case "afterFileEdit":
			p.Kind = KindPostEdit
			p.Tool = "afterFileEdit"
			op := FileOp{Path: r.FilePath}
			for _, e := range r.Edits {
				op.Replaces = append(op.Replaces, Replace{Old: e.Old, New: e.New})
			}
			p.Files = []FileOp{op}
		}
	}
	// An op without a path is nothing gloss can place.
	p.Files = slices.DeleteFunc(p.Files, func(f FileOp) bool { return strings.TrimSpace(f.Path) == "" })
	if (p.Kind == KindPreEdit || p.Kind == KindPostEdit || p.Kind == KindAfterRead) && len(p.Files) == 0 {
		p.Kind = KindIgnored
	}
	return p, nil
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
		n := h.NewStart
		for _, l := range h.Lines {
			switch {
			case strings.HasPrefix(l, "+"):
				added = append(added, n)
				n++
			case strings.HasPrefix(l, "-"), strings.HasPrefix(l, "\\"):
			default:
				n++
			}
		}
	}
	return added, true
}

var hunkHeader = lazyregexp.New(`^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@`)

// fileDiffAdded reads the lines an edit added from Gemini CLI's
// tool_response.returnDisplay.fileDiff (a unified diff of the file).
func fileDiffAdded(resp json.RawMessage) (added []int, ok bool) {
	var r struct {
		ReturnDisplay json.RawMessage `json:"returnDisplay"`
	}
	if json.Unmarshal(resp, &r) != nil || len(r.ReturnDisplay) == 0 || r.ReturnDisplay[0] != '{' {
		return nil, false
	}
	var d struct {
		FileDiff string `json:"fileDiff"`
	}
	if json.Unmarshal(r.ReturnDisplay, &d) != nil || d.FileDiff == "" {
		return nil, false
	}
	added = []int{}
	n, inHunk := 0, false
	for _, l := range strings.Split(d.FileDiff, "\n") {
		if m := hunkHeader.FindStringSubmatch(l); m != nil {
			n, _ = strconv.Atoi(m[1])
			inHunk = true
			continue
		}
		if !inHunk {
			continue
		}
		switch {
		case strings.HasPrefix(l, "+"):
			added = append(added, n)
			n++
		case strings.HasPrefix(l, "-"), strings.HasPrefix(l, "\\"):
		default:
			n++
		}
	}
	return added, inHunk
}

func fileOps(tool string, in toolInput) []FileOp {
	if tool == "apply_patch" {
		text := in.Input
		if len(in.Command) > 0 {
			var s string
			var arr []string
			switch {
			case json.Unmarshal(in.Command, &s) == nil:
				text = s
			case json.Unmarshal(in.Command, &arr) == nil:
				// The exec form: ["apply_patch", "<patch>"].
				if len(arr) > 0 {
					text = arr[len(arr)-1]
				}
			}
		}
		return ParsePatch(text)
	}
	op := FileOp{Path: firstNonEmpty(in.FilePath, in.Path)}
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

// ParsePatch reads the files of a Codex apply_patch envelope:
//
//	*** Begin Patch
//	*** Update File: path      (or Add File / Delete File, *** Move to: new)
//	@@ context
//	 context line
//	-old line
//	+new line
//	*** End Patch
func ParsePatch(text string) []FileOp {
	var out []FileOp
	var cur *FileOp
	var h *Hunk
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "*** Update File: "), strings.HasPrefix(line, "*** Add File: "):
			path := strings.TrimSpace(line[strings.Index(line, ":")+1:])
			out = append(out, FileOp{Path: path})
			cur, h = &out[len(out)-1], nil
		case strings.HasPrefix(line, "*** Move to: "):
			if cur != nil {
				cur.Path = strings.TrimSpace(strings.TrimPrefix(line, "*** Move to: "))
			}
		case strings.HasPrefix(line, "*** "):
			cur, h = nil, nil // Delete File, End Patch, End of File
		case cur == nil:
		case strings.HasPrefix(line, "@@"):
			h = nil
		default:
			if line == "" {
				line = " " // an empty context line whose space an editor dropped
			}
			op, txt := line[0], line[1:]
			if op != '+' && op != '-' && op != ' ' {
				continue
			}
			if h == nil {
				cur.Hunks = append(cur.Hunks, Hunk{})
				h = &cur.Hunks[len(cur.Hunks)-1]
			}
			if op != '+' {
				h.Old = append(h.Old, txt)
			}
			if op != '-' {
				h.New = append(h.New, txt)
				h.Added = append(h.Added, op == '+')
			}
		}
	}
	for i := range out {
		for j := range out[i].Hunks {
			out[i].Hunks[j].dropRewrites()
		}
	}
	return out
}

// dropRewrites marks as unchanged the "+" lines that put back a "-" line
// of the same hunk word for word: patch writers often remove and re-add a
// line they only moved past.
func (h *Hunk) dropRewrites() {
	removed := map[string]int{}
	ctx := map[string]int{}
	for i, t := range h.New {
		if !h.Added[i] {
			ctx[t]++
		}
	}
	for _, t := range h.Old {
		removed[t]++
	}
	for t := range ctx {
		removed[t] -= ctx[t] // context lines are on the old side too
	}
	for i, t := range h.New {
		if h.Added[i] && removed[t] > 0 {
			removed[t]--
			h.Added[i] = false
		}
	}
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// RelPath turns a path from a payload into a repository-relative one.
// Relative paths are relative to the payload's cwd. ok is false for a
// path outside root.
func RelPath(root, cwd, p string) (string, bool) {
	if !filepath.IsAbs(p) {
		base := cwd
		if base == "" {
			base = root
		}
		p = filepath.Join(base, p)
	}
	rel, err := filepath.Rel(root, filepath.Clean(p))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		// The agent may name the tree through a symlink (macOS's /tmp):
		// compare real paths before giving up.
		realRoot, err1 := filepath.EvalSymlinks(root)
		realDir, err2 := filepath.EvalSymlinks(filepath.Dir(p))
		if err1 != nil || err2 != nil {
			return "", false
		}
		rel, err = filepath.Rel(realRoot, filepath.Join(realDir, filepath.Base(p)))
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
			return "", false
		}
	}
	return filepath.ToSlash(rel), true
}
