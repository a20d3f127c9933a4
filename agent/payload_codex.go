package agent

import (
	"encoding/json"
	"strings"
)

// Codex CLI (https://developers.openai.com/codex/hooks): Claude Code's
// layout and input, plus model; file edits are the apply_patch tool, with
// the patch text in tool_input.command (schemas in openai/codex
// codex-rs/hooks/schema/generated/).

func init() { register(codexCLI{}) }

type codexCLI struct{}

// codexEditTools: Edit and Write are there for versions that alias them.
var codexEditTools = []string{"apply_patch", "Edit", "Write"}

func (codexCLI) Name() string { return Codex }

func (codexCLI) Parse(event string, data []byte) (*Payload, error) {
	return parseClaudeShape(event, data, codexEditTools, codexOps)
}

func (codexCLI) Answer(event string, _ Kind, text string) []byte {
	return additionalContext(event, text)
}

func (codexCLI) Hooks() HookSpec {
	m := matcher(codexEditTools)
	return HookSpec{
		Display: "Codex CLI", Dir: ".codex",
		Project: ".codex/hooks.json", Global: ".codex/hooks.json",
		Events:  []HookEvent{{Event: "SessionStart"}, {Event: "UserPromptSubmit"}, {Event: "PreToolUse", Matcher: m}, {Event: "PostToolUse", Matcher: m}},
		Handler: func(string) map[string]any { return map[string]any{"type": "command", "timeout": 10} }, // seconds
		Note:    "Codex runs new or changed hooks only after you review and trust them: open /hooks in Codex (and trust the project, for .codex/hooks.json)",
	}
}

func codexOps(tool string, input json.RawMessage) []FileOp {
	if tool != "apply_patch" {
		return claudeOps(tool, input)
	}
	var in struct {
		Command json.RawMessage `json:"command"` // the patch text, or the exec form ["apply_patch", "<patch>"]
		Input   string          `json:"input"`   // the freeform form
	}
	decodeToolInput(input, &in)
	text := in.Input
	if len(in.Command) > 0 {
		var s string
		var arr []string
		switch {
		case json.Unmarshal(in.Command, &s) == nil:
			text = s
		case json.Unmarshal(in.Command, &arr) == nil && len(arr) > 0:
			text = arr[len(arr)-1]
		}
	}
	return ParsePatch(text)
}

// ParsePatch reads the files of a Codex apply_patch envelope
// (openai/codex codex-rs/apply-patch, its grammar in apply_patch_tool_instructions.md):
//
//	*** Begin Patch
//	*** Add File: path          the "+" lines that follow are the file
//	*** Delete File: path
//	*** Update File: path
//	*** Move to: new path       optional, right after Update File
//	@@ context
//	 context line
//	-old line
//	+new line
//	*** End Patch
//
// A moved file's op has Path at the new place and From at the old one; a
// deleted file's op has Delete set.
func ParsePatch(text string) []FileOp {
	var out []FileOp
	var cur *FileOp
	var h *Hunk
	header := func(line, prefix string) (string, bool) {
		if !strings.HasPrefix(line, prefix) {
			return "", false
		}
		return strings.TrimSpace(strings.TrimPrefix(line, prefix)), true
	}
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if p, ok := header(line, "*** Update File: "); ok {
			out, h = append(out, FileOp{Path: p}), nil
			cur = &out[len(out)-1]
			continue
		}
		if p, ok := header(line, "*** Add File: "); ok {
			out, h = append(out, FileOp{Path: p}), nil
			cur = &out[len(out)-1]
			continue
		}
		if p, ok := header(line, "*** Delete File: "); ok {
			out, cur, h = append(out, FileOp{Path: p, Delete: true}), nil, nil
			continue
		}
		if p, ok := header(line, "*** Move to: "); ok {
			if cur != nil && cur.From == "" {
				cur.From, cur.Path = cur.Path, p
			}
			continue
		}
		switch {
		case strings.HasPrefix(line, "*** "):
			cur, h = nil, nil // End Patch, End of File
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
