package setup

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gloss-dev/gloss/agent"
)

// An agent without a hook configuration (OpenCode: plugins only) gets a
// file gloss writes whole. It is gloss's by its mark line
// (agent.OwnedFileMark): install writes it, brings an older one of its own
// up to date, and never touches a file of the same name without the mark;
// uninstall removes it when install created it in this clone and it still
// holds the mark, and otherwise says what to do.

// ownedByGloss reports whether data is a file gloss wrote whole.
func ownedByGloss(data []byte) bool {
	return bytes.Contains(data, []byte(agent.OwnedFileMark))
}

// installOwnedFile writes an agent's gloss-owned file.
func installOwnedFile(spec agentSpec, t MCPTarget) (AgentChange, error) {
	ch := AgentChange{Agent: spec.name, Path: t.Path, Global: t.Global, Root: t.root, Events: eventsOf(spec), Note: spec.note}
	data, err := readTarget(t)
	switch {
	case errors.Is(err, os.ErrNotExist):
		// writeFile makes the folders (through the one resolver in a
		// working tree).
		ch.Created, ch.Action = true, "added"
		ch.CreatedDirs = missingDirs(t)
		ch.CreatedDir = len(ch.CreatedDirs) > 0
		return ch, writeFile(t, spec.file)
	case err != nil:
		return ch, fmt.Errorf("read %s: %w", t.Path, err)
	case bytes.Equal(data, spec.file):
		ch.Action = "unchanged"
		return ch, nil
	case !ownedByGloss(data):
		ch.Action = "refused"
		ch.Error = fmt.Sprintf("left %s untouched: a file of that name is there and it is not gloss's; move it, then run this again", t.Path)
		return ch, nil
	}
	ch.Action = "updated"
	return ch, writeFile(t, spec.file)
}

// missingDirs are the folders above t.Path that do not exist yet, deepest
// first, up to the working tree's root (or the home directory's folders
// for a global file).
func missingDirs(t MCPTarget) []string {
	var out []string
	for d := filepath.Dir(t.Path); !fileExists(d); d = filepath.Dir(d) {
		if d == t.root || d == filepath.Dir(d) {
			break
		}
		out = append(out, d)
	}
	return out
}

// uninstallOwnedFile removes an agent's gloss-owned file.
func uninstallOwnedFile(e AgentChange, t MCPTarget) (AgentChange, error) {
	out := AgentChange{Agent: e.Agent, Path: e.Path, Global: e.Global, Root: e.Root, Action: "absent", Events: []string{}}
	data, err := readTarget(t)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	} else if err != nil {
		return out, fmt.Errorf("read %s: %w", t.Path, err)
	}
	if !ownedByGloss(data) {
		return out, nil // replaced by a file of the user's since: theirs
	}
	out.Events = eventsOf(agentSpecs()[e.Agent])
	if !e.Created {
		// It came with the repository (a teammate committed it): removing
		// it would change a tracked file this clone did not create.
		out.Action = "refused"
		out.Error = fmt.Sprintf("left %s in place: gloss did not create it in this clone (it came with the repository); delete it and commit that if the team no longer wants it", t.Path)
		return out, nil
	}
	if err := os.Remove(t.Path); err != nil {
		return out, err
	}
	for _, d := range e.CreatedDirs {
		_ = os.Remove(d) // only succeeds if it is empty
	}
	out.Action = "removed"
	return out, nil
}

// ownedFileState is agent status for a gloss-owned file.
func ownedFileState(spec agentSpec, st *AgentState, data []byte) {
	if !ownedByGloss(data) {
		st.Error = "not gloss's file (no " + agent.OwnedFileMark + " line)"
		return
	}
	st.Events = eventsOf(spec)
	st.Current = bytes.Equal(data, spec.file)
}
