package setup

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/safepath"
)

// ServerName is gloss's key in MCP client configuration files.
const ServerName = "gloss"

// Clients gloss knows how to register with.
var Clients = []string{"claude", "cursor", "vscode"}

// MCPTarget is one client configuration file and where servers live in it.
type MCPTarget struct {
	Client string `json:"client"`
	Path   string `json:"path"`
	Key    string `json:"key"` // "mcpServers" (Claude, Cursor) or "servers" (VS Code)
	Global bool   `json:"global"`
	root   string // the working tree the file belongs to; "" for a user's own file
}

// TargetFor returns the configuration file of client: inside the repository
// at root, or the user's own file with global.
func TargetFor(client, root string, global bool) (MCPTarget, error) {
	home, err := os.UserHomeDir()
	if global && err != nil {
		return MCPTarget{}, fmt.Errorf("locate home directory: %w", err)
	}
	t := MCPTarget{Client: client, Key: "mcpServers", Global: global}
	if !global {
		t.root = root
	}
	switch client {
	case "claude":
		t.Path = filepath.Join(root, ".mcp.json")
		if global {
			t.Path = filepath.Join(home, ".claude.json")
		}
	case "cursor":
		t.Path = filepath.Join(root, ".cursor", "mcp.json")
		if global {
			t.Path = filepath.Join(home, ".cursor", "mcp.json")
		}
	case "vscode":
		t.Key = "servers"
		t.Path = filepath.Join(root, ".vscode", "mcp.json")
		if global {
			t.Path = filepath.Join(vscodeUserDir(home), "mcp.json")
		}
	default:
		return MCPTarget{}, fault.Usagef("unknown MCP client %q (known: %v)", client, Clients)
	}
	if !global && root == "" {
		return MCPTarget{}, fault.Usagef("a bare repository has no working tree for %s; use --global", t.Path)
	}
	return t, nil
}

func vscodeUserDir(home string) string {
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", "Code", "User")
	case "windows":
		return filepath.Join(os.Getenv("APPDATA"), "Code", "User")
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "Code", "User")
	}
	return filepath.Join(home, ".config", "Code", "User")
}

// serverEntry is what gloss registers: the binary itself, run as
// `git-gloss mcp` in the client's working directory (the repository).
func serverEntry(t MCPTarget) json.RawMessage {
	entry := map[string]any{"command": "git-gloss", "args": []string{"mcp"}}
	if t.Client == "vscode" || t.Client == "claude" {
		entry["type"] = "stdio"
	}
	raw, _ := json.Marshal(entry)
	return raw
}

// MCPChange reports what registering or unregistering did to one file.
type MCPChange struct {
	MCPTarget
	Action     string `json:"action"`                // "added", "updated", "unchanged", "removed", "absent"
	Created    bool   `json:"created,omitempty"`     // the file did not exist before
	CreatedDir bool   `json:"created_dir,omitempty"` // nor did its directory
}

// registerServer merges gloss's entry into the target file, keeping every
// other key and server. It refuses to touch a file it cannot parse.
func registerServer(t MCPTarget) (MCPChange, error) {
	ch := MCPChange{MCPTarget: t}
	data, err := os.ReadFile(t.Path)
	if errors.Is(err, os.ErrNotExist) {
		ch.Created = true
		if _, err := os.Stat(filepath.Dir(t.Path)); errors.Is(err, os.ErrNotExist) {
			ch.CreatedDir = true
		}
	} else if err != nil {
		return ch, fmt.Errorf("read %s: %w", t.Path, err)
	}
	top, err := parseObject(data)
	if err != nil {
		return ch, fault.Usagef("refusing to rewrite %s: it is not valid JSON (%v); fix or move it, then run this again", t.Path, err)
	}
	servers := &object{vals: map[string]json.RawMessage{}}
	if raw, ok := top.get(t.Key); ok {
		if !isJSONObject(raw) {
			return ch, fault.Usagef("refusing to rewrite %s: %q is not a JSON object", t.Path, t.Key)
		}
		if servers, err = parseObject(raw); err != nil {
			return ch, fault.Usagef("refusing to rewrite %s: %q: %v", t.Path, t.Key, err)
		}
	}
	want := serverEntry(t)
	old, had := servers.get(ServerName)
	switch {
	case had && jsonEqual(old, want):
		ch.Action = "unchanged"
		return ch, nil
	case had:
		ch.Action = "updated"
	default:
		ch.Action = "added"
	}
	servers.set(ServerName, want)
	raw, err := servers.raw()
	if err != nil {
		return ch, err
	}
	top.set(t.Key, raw)
	return ch, writeJSON(t, top)
}

// unregisterServer removes gloss's entry. If gloss created the file (and
// its directory) and nothing else is left in it, they go too.
func unregisterServer(t MCPTarget, created, createdDir bool) (MCPChange, error) {
	ch := MCPChange{MCPTarget: t, Action: "absent"}
	data, err := os.ReadFile(t.Path)
	if errors.Is(err, os.ErrNotExist) {
		return ch, nil
	} else if err != nil {
		return ch, fmt.Errorf("read %s: %w", t.Path, err)
	}
	top, err := parseObject(data)
	if err != nil {
		return ch, fault.Usagef("refusing to rewrite %s: it is not valid JSON (%v)", t.Path, err)
	}
	raw, ok := top.get(t.Key)
	if !ok || !isJSONObject(raw) {
		return ch, nil
	}
	servers, err := parseObject(raw)
	if err != nil || !servers.remove(ServerName) {
		return ch, nil
	}
	ch.Action = "removed"
	if servers.len() == 0 && top.len() == 1 && created {
		if err := os.Remove(t.Path); err != nil {
			return ch, err
		}
		if createdDir {
			_ = os.Remove(filepath.Dir(t.Path)) // only succeeds if it is empty
		}
		return ch, nil
	}
	if raw, err = servers.raw(); err != nil {
		return ch, err
	}
	top.set(t.Key, raw)
	return ch, writeJSON(t, top)
}

func writeJSON(t MCPTarget, o *object) error {
	path := t.Path
	out, err := o.marshal()
	if err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	// A client file inside a repository (.mcp.json, .cursor/mcp.json) is
	// a committed file: it goes through the one resolver, so a committed
	// symlink cannot turn it into a write under .git.
	if t.root != "" {
		tree, err := safepath.OpenWorkTree(t.root)
		if err != nil {
			return err
		}
		defer tree.Close()
		return tree.WriteFile(path, out, mode)
	}
	return atomicfile.Write(path, out, mode)
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return slices.Equal(xa, ya)
}
