package setup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/safepath"
)

// The instruction files agents read at the start of a session (AGENTS.md
// for Codex, Cursor, Gemini CLI when configured, and most others;
// CLAUDE.md for Claude Code) get a short block, between markers, telling
// the agent what gloss gives it and what it asks of it.

const (
	// InstructionsBegin and InstructionsEnd delimit gloss's block.
	InstructionsBegin = "<!-- gloss:begin -->"
	InstructionsEnd   = "<!-- gloss:end -->"
)

// InstructionsBlock is the block, markers included, with a final newline.
const InstructionsBlock = InstructionsBegin + `
## gloss: this repository's recorded knowledge

This repository keeps its reasons in git with gloss: annotations on the code
(intent, constraints, risks, rejected alternatives, dependencies), specs and a
team notebook.

- Before you edit a file, gloss adds what is recorded for the regions you are
  about to change to your context by itself. Treat constraints as binding and
  do not bring back a rejected alternative without saying why.
- For more, call the MCP tool ` + "`gloss_read`" + ` (a file, a line range or an anchor)
  or run ` + "`git gloss read <file>`" + `.
- Before you commit, call ` + "`gloss_annotate`" + ` (or ` + "`git gloss annotate`" + `) to record
  the intent of the change, the constraints you found or introduced, and the
  alternatives you rejected and why. What you edited is attributed to you at
  commit time; the reasons are yours to give.
` + InstructionsEnd + "\n"

// InstructionsChange reports what install or uninstall did to one
// instruction file. The manifest keeps it with the exact text inserted.
type InstructionsChange struct {
	Path    string `json:"path"`
	Root    string `json:"root,omitempty"` // the working tree the file belongs to
	Action  string `json:"action"`         // "added", "updated", "unchanged", "removed", "absent"
	Created bool   `json:"created,omitempty"`
	// Inserted is the text install added (the block and the blank line
	// before it), so that uninstall takes out exactly that.
	Inserted string `json:"inserted,omitempty"`
}

// InstructionsState is one instruction file and whether gloss's block is in it.
type InstructionsState struct {
	Path    string `json:"path"`
	Exists  bool   `json:"exists"`
	Block   bool   `json:"block"`   // gloss's markers are in it
	Current bool   `json:"current"` // and the block is this version's
}

func instructionsPath(root, name string) string { return filepath.Join(root, name) }

func readTree(root, path string) ([]byte, error) {
	tree, err := safepath.OpenWorkTree(root)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	return tree.ReadFile(path, 0)
}

func writeTree(root, path string, data []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	tree, err := safepath.OpenWorkTree(root)
	if err != nil {
		return err
	}
	defer tree.Close()
	return tree.WriteFile(path, data, mode)
}

// blockSpan finds gloss's block in text: from the start of the begin
// marker's line to the end of the end marker's line (its newline
// included). ok is false if the markers are missing or out of order.
func blockSpan(text string) (from, to int, ok bool) {
	b := strings.Index(text, InstructionsBegin)
	if b < 0 {
		return 0, 0, false
	}
	e := strings.Index(text[b:], InstructionsEnd)
	if e < 0 {
		return 0, 0, false
	}
	from = strings.LastIndexByte(text[:b], '\n') + 1
	to = b + e + len(InstructionsEnd)
	if nl := strings.IndexByte(text[to:], '\n'); nl >= 0 && strings.TrimSpace(text[to:to+nl]) == "" {
		to += nl + 1
	}
	return from, to, true
}

// installInstructions adds or refreshes gloss's block in the file name at
// the root of the working tree, creating the file if it is missing.
func installInstructions(root, name string) (InstructionsChange, error) {
	p := instructionsPath(root, name)
	ch := InstructionsChange{Path: p, Root: root}
	data, err := readTree(root, p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		ch.Action, ch.Created, ch.Inserted = "added", true, InstructionsBlock
		return ch, writeTree(root, p, []byte(InstructionsBlock))
	case err != nil:
		return ch, fmt.Errorf("read %s: %w", p, err)
	}
	text := string(data)
	if from, to, ok := blockSpan(text); ok {
		if text[from:to] == InstructionsBlock {
			ch.Action = "unchanged"
			return ch, nil
		}
		ch.Action = "updated"
		return ch, writeTree(root, p, []byte(text[:from]+InstructionsBlock+text[to:]))
	}
	sep := "\n\n"
	switch {
	case text == "" || strings.HasSuffix(text, "\n\n"):
		sep = ""
	case strings.HasSuffix(text, "\n"):
		sep = "\n"
	}
	ch.Action, ch.Inserted = "added", sep+InstructionsBlock
	return ch, writeTree(root, p, []byte(text+ch.Inserted))
}

// recordInstructions keeps the first install's record of a file: later
// installs that found the block in place inserted nothing.
func (m *manifest) recordInstructions(ic InstructionsChange) {
	if ic.Action != "added" {
		return
	}
	i := slices.IndexFunc(m.Instructions, func(x InstructionsChange) bool { return x.Path == ic.Path })
	if i >= 0 {
		m.Instructions[i] = ic // the block had been removed by hand and install put it back
		return
	}
	m.Instructions = append(m.Instructions, InstructionsChange{Path: ic.Path, Root: ic.Root, Created: ic.Created, Inserted: ic.Inserted})
}

// uninstallInstructions takes gloss's block out again: the exact text
// install inserted when it is still there, otherwise the block between
// the markers as it is now (a newer gloss may have refreshed it). A file
// gloss created and nobody added to is deleted.
func uninstallInstructions(root string, ic InstructionsChange) (InstructionsChange, error) {
	out := InstructionsChange{Path: ic.Path, Root: ic.Root, Action: "absent"}
	if ic.Root != "" {
		root = ic.Root // install may have run in another worktree
	}
	if !fileExists(root) {
		return out, nil
	}
	data, err := readTree(root, ic.Path)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	} else if err != nil {
		return out, fmt.Errorf("read %s: %w", ic.Path, err)
	}
	text := string(data)
	from, to, ok := blockSpan(text)
	if !ok {
		return out, nil
	}
	sep := ic.Inserted
	if i := strings.Index(sep, InstructionsBegin); i >= 0 {
		sep = sep[:i]
	}
	if sep != "" && sep != ic.Inserted && strings.HasSuffix(text[:from], sep) {
		from -= len(sep)
	}
	text = text[:from] + text[to:]
	out.Action = "removed"
	if ic.Created && strings.TrimSpace(text) == "" {
		return out, os.Remove(ic.Path)
	}
	return out, writeTree(root, ic.Path, []byte(text))
}

// instructionsState reports the block in one instruction file.
func instructionsState(root, name string) InstructionsState {
	p := instructionsPath(root, name)
	st := InstructionsState{Path: p}
	data, err := readTree(root, p)
	if err != nil {
		return st
	}
	st.Exists = true
	from, to, ok := blockSpan(string(data))
	st.Block = ok
	st.Current = ok && string(data[from:to]) == InstructionsBlock
	return st
}
