package agent

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// An Agent is one coding agent gloss answers through the agent's own hook
// system. Each lives in its own payload_<name>.go, which registers it:
// adding an agent is adding a file.
type Agent interface {
	// Name is what `--agent` takes and what records name.
	Name() string
	// Parse reduces the agent's payload for one of its events to what
	// gloss uses: the kind of the event, the session, the model, and for a
	// tool call the files it touches.
	Parse(event string, data []byte) (*Payload, error)
	// Answer wraps context in the agent's documented output for event;
	// nil when the event takes none.
	Answer(event string, kind Kind, text string) []byte
	// Hooks says how `git gloss agent install` writes the agent's entries.
	Hooks() HookSpec
}

// HookSpec is an agent's hook configuration as install writes it.
type HookSpec struct {
	Display string // the agent's name for people: "Claude Code"
	// Dir is the folder whose presence (in the working tree or the home
	// directory) says the agent is in use.
	Dir     string
	Project string // the hooks file, relative to the working tree
	Global  string // the hooks file, relative to the home directory
	Layout  Layout
	Events  []HookEvent
	// Handler returns the fields of one hook handler besides the command.
	Handler func(event string) map[string]any
	// Note is what the user must do before the agent runs the hooks.
	Note string
	// File is the content of a LayoutOwnedFile.
	File []byte
	// Rank orders the agents in lists (Claude Code, the default, first).
	Rank int
}

// Layout is the shape of an agent's hooks file.
type Layout int

// Layouts.
const (
	// LayoutMatcherGroups is Claude Code's: {"hooks": {event: [{"matcher",
	// "hooks": [{"type": "command", "command", ...}]}]}}.
	LayoutMatcherGroups Layout = iota
	// LayoutFlat is Cursor's: {"version": 1, "hooks": {event: [{"command",
	// ...}]}}.
	LayoutFlat
	// LayoutOwnedFile is a file gloss writes whole (OpenCode's plugin):
	// HookSpec.File is its content, and it holds a line with
	// "gloss-owned-file:" so that install and uninstall know it is gloss's.
	LayoutOwnedFile
)

// OwnedFileMark is on a line of every file gloss writes whole.
const OwnedFileMark = "gloss-owned-file:"

// HookEvent is one event install listens to, with the tool matcher where
// the event takes one.
type HookEvent struct {
	Event   string
	Matcher string
}

// Agents gloss answers, by the name `--agent` takes.
const (
	Claude = "claude"
	Gemini = "gemini"
	Codex  = "codex"
	Cursor = "cursor"
)

var registry = map[string]Agent{}

// register adds an agent; each payload_<name>.go calls it from init.
func register(a Agent) { registry[a.Name()] = a }

// Lookup returns the agent called name.
func Lookup(name string) (Agent, bool) {
	a, ok := registry[name]
	return a, ok
}

// Names lists the supported agents by rank, then name.
func Names() []string {
	out := make([]string, 0, len(registry))
	rank := make(map[string]int, len(registry))
	for n, a := range registry {
		out = append(out, n)
		rank[n] = a.Hooks().Rank
	}
	sort.Slice(out, func(i, j int) bool {
		if ri, rj := rank[out[i]], rank[out[j]]; ri != rj {
			return ri < rj
		}
		return out[i] < out[j]
	})
	return out
}

// Kind is what an event means to gloss, whatever the agent calls it.
type Kind int

// Kinds of event.
const (
	KindIgnored      Kind = iota // an event gloss has nothing to do for
	KindSessionStart             // deliver the session brief
	KindPrompt                   // deliver matching notes; keep the redacted prompt
	KindPreEdit                  // deliver what is recorded for the regions about to be edited
	KindAfterRead                // deliver it after the file is read (where context before a tool call never reaches the model)
	KindPostEdit                 // capture which lines the agent wrote
	KindModel                    // only the model name, for capture
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
	Path string // as the agent gave it: absolute or relative to Cwd
	// From is where a moved file was before the edit (Codex's
	// "*** Move to:"): the records to deliver are there.
	From     string
	Delete   bool       // the call deletes the file
	Replaces []Replace  // Edit, MultiEdit, replace, Cursor's edits
	Content  *string    // Write, write_file: the whole new content
	Hunks    []Hunk     // apply_patch
	Range    *LineRange // a read's line range, when given
	// Added lists the lines of the new file the edit added, when the
	// agent reports them (Claude Code's structuredPatch): more exact than
	// finding new_string, which repeats the context it replaced.
	Added []int
	// Cell is the new source of a notebook cell (Claude Code's
	// NotebookEdit), found inside the notebook's JSON.
	Cell *string
}

// Before is the path whose content the op starts from.
func (op FileOp) Before() string {
	if op.From != "" {
		return op.From
	}
	return op.Path
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
	// Mute is set on an event whose answer the agent ignores (Cursor's
	// beforeSubmitPrompt): gloss keeps what it captures and says nothing.
	Mute bool
}

// Parse reads an agent's payload for event.
func Parse(agentName, event string, data []byte) (*Payload, error) {
	a, ok := registry[agentName]
	if !ok {
		return nil, fmt.Errorf("unknown agent %q (supported: %s)", agentName, strings.Join(Names(), ", "))
	}
	p, err := a.Parse(event, data)
	if err != nil {
		return nil, fmt.Errorf("%s %s payload: %w", agentName, event, err)
	}
	p.Agent, p.Event = agentName, event
	// An op without a path is nothing gloss can place.
	p.Files = slices.DeleteFunc(p.Files, func(f FileOp) bool { return strings.TrimSpace(f.Path) == "" })
	if (p.Kind == KindPreEdit || p.Kind == KindPostEdit || p.Kind == KindAfterRead) && len(p.Files) == 0 {
		p.Kind = KindIgnored
	}
	return p, nil
}

// Format wraps context in the agent's documented output for the event.
func Format(agentName, event string, kind Kind, text string) []byte {
	a, ok := registry[agentName]
	if !ok {
		return nil
	}
	return a.Answer(event, kind, text)
}

// additionalContext is the answer Claude Code, Codex, Gemini CLI and
// others that copied Claude Code's hooks read:
// hookSpecificOutput.additionalContext.
func additionalContext(event, text string) []byte {
	return marshalLine(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": event, "additionalContext": text}})
}

func marshalLine(v any) []byte {
	out, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return append(out, '\n')
}

// matcher joins tool names into a hook matcher ("Edit|Write").
func matcher(tools ...[]string) string {
	var all []string
	for _, t := range tools {
		all = append(all, t...)
	}
	return strings.Join(all, "|")
}

// decodeToolInput reads a tool_input object into v; a tool_input that is
// not an object (Cursor's MCP events send a JSON string) leaves v empty:
// gloss reads no such tool.
func decodeToolInput(raw json.RawMessage, v any) {
	if len(raw) > 0 && raw[0] == '{' {
		_ = json.Unmarshal(raw, v)
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
