package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/safepath"
	"github.com/gloss-dev/gloss/toolsets"
)

// ServerName is gloss's key in MCP client configuration files.
const ServerName = toolsets.ServerName

// Clients gloss knows how to register with.
var Clients = []string{"claude", "cursor", "vscode"}

// MCPTarget is one client configuration file and where servers live in it.
type MCPTarget struct {
	Client string `json:"client"`
	Path   string `json:"path"`
	Key    string `json:"key"` // "mcpServers" (Claude, Cursor) or "servers" (VS Code)
	Global bool   `json:"global"`
	// Toolsets, when not nil, are written as the server's --toolsets
	// (empty: no --toolsets, the server follows the team's [mcp] toolsets
	// or the repository's default). nil keeps what an existing entry has.
	Toolsets []string `json:"toolsets,omitempty"`
	root     string   // the working tree the file belongs to; "" for a user's own file
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
// `git-gloss mcp [--toolsets LIST]` in the client's working directory (the
// repository).
func serverEntry(t MCPTarget) json.RawMessage {
	args := []string{"mcp"}
	if len(t.Toolsets) > 0 {
		args = append(args, "--toolsets", strings.Join(t.Toolsets, ","))
	}
	entry := map[string]any{"command": "git-gloss", "args": args}
	if t.Client == "vscode" || t.Client == "claude" {
		entry["type"] = "stdio"
	}
	raw, _ := json.Marshal(entry)
	return raw
}

// entryToolsets returns the --toolsets list of an existing gloss entry.
func entryToolsets(raw []byte) []string {
	var e struct {
		Args []string `json:"args"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return nil
	}
	return toolsets.ParseArgs(e.Args).Toolsets
}

// MCPChange reports what registering or unregistering did to one file.
type MCPChange struct {
	MCPTarget
	Action     string `json:"action"`                // "added", "updated", "unchanged", "removed", "absent"
	Created    bool   `json:"created,omitempty"`     // the file did not exist before
	CreatedDir bool   `json:"created_dir,omitempty"` // nor did its directory
	CreatedKey bool   `json:"created_key,omitempty"` // nor did the servers object in it
}

// readTarget reads a client file. One inside a repository goes through
// the one resolver, like its write: a committed .mcp.json that is a link
// into .git is refused, not read. A missing file is os.ErrNotExist.
func readTarget(t MCPTarget) ([]byte, error) {
	if t.root == "" {
		return os.ReadFile(t.Path)
	}
	tree, err := safepath.OpenWorkTree(t.root)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	return tree.ReadFile(t.Path, 0)
}

// checkTarget reads and parses a client file without writing it, so that
// init can decide before changing anything. unsafe is set when the file
// cannot be read safely (the resolver refuses it: a link into .git or out
// of the tree, a folder): init skips that client and says so. err is set
// when the file is the user's and broken (not JSON): init refuses, before
// any change.
func checkTarget(t MCPTarget) (unsafe, err error) {
	data, err := readTarget(t)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", t.Path, err), nil
	}
	top, err := parseObject(data)
	if err != nil {
		return nil, fault.Usagef("refusing to rewrite %s: it is not valid JSON (%v); fix or move it, then run this again", t.Path, err)
	}
	if raw, ok := top.get(t.Key); ok && !isJSONObject(raw) {
		return nil, fault.Usagef("refusing to rewrite %s: %q is not a JSON object", t.Path, t.Key)
	}
	return nil, nil
}

// registerServer merges gloss's entry into the target file, keeping every
// other key and server, and every byte of them. It refuses to touch a
// file it cannot parse.
func registerServer(t MCPTarget) (MCPChange, error) {
	ch := MCPChange{MCPTarget: t}
	data, err := readTarget(t)
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
	if raw, ok := top.get(t.Key); ok && !isJSONObject(raw) {
		return ch, fault.Usagef("refusing to rewrite %s: %q is not a JSON object", t.Path, t.Key)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		// A new (or blank) file: gloss lays it out.
		servers := &object{vals: map[string]json.RawMessage{}}
		servers.set(ServerName, serverEntry(t))
		raw, err := servers.raw()
		if err != nil {
			return ch, err
		}
		top.set(t.Key, raw)
		ch.Action, ch.CreatedKey = "added", true
		out, err := top.marshal()
		if err != nil {
			return ch, err
		}
		return ch, writeFile(t, out)
	}
	out, action, createdKey, err := withServer(data, t)
	if err != nil {
		return ch, fault.Usagef("refusing to rewrite %s: %v", t.Path, err)
	}
	ch.Action, ch.CreatedKey = action, createdKey
	if action == "unchanged" {
		return ch, nil
	}
	return ch, writeFile(t, out)
}

// withServer returns data with gloss's entry added or brought up to date,
// as a text edit.
func withServer(data []byte, t MCPTarget) (out []byte, action string, createdKey bool, err error) {
	top, err := locateObject(data, 0, len(data))
	if err != nil {
		return nil, "", false, err
	}
	want := serverEntry(t)
	i := top.find(t.Key)
	if i < 0 {
		wrapped := json.RawMessage(`{"` + ServerName + `":` + string(want) + `}`)
		return insertMember(data, top, t.Key, wrapped), "added", true, nil
	}
	m := top.members[i]
	servers, err := locateObject(data, m.valStart, m.valEnd)
	if err != nil {
		return nil, "", false, fmt.Errorf("%q: %v", t.Key, err)
	}
	j := servers.find(ServerName)
	if j < 0 {
		return insertMember(data, servers, ServerName, want), "added", false, nil
	}
	g := servers.members[j]
	if t.Toolsets == nil {
		// Asked for nothing (init run again, mcp install without
		// --toolsets): the toolsets the entry names stay.
		t.Toolsets = entryToolsets(data[g.valStart:g.valEnd])
		want = serverEntry(t)
	}
	if jsonEqual(data[g.valStart:g.valEnd], want) {
		return data, "unchanged", false, nil
	}
	prevEnd := servers.open + 1
	if j > 0 {
		prevEnd = servers.members[j-1].valEnd
	}
	return splice(data, g.valStart, g.valEnd, layout(want, string(data[prevEnd:g.keyStart]))), "updated", false, nil
}

// unregisterServer removes gloss's entry, as a text edit that leaves every
// other byte alone. If gloss created the servers object and nothing else
// is in it, that goes too; if gloss created the file (and its directory),
// they go.
func unregisterServer(ch MCPChange) (MCPChange, error) {
	t := ch.MCPTarget
	out := MCPChange{MCPTarget: t, Action: "absent"}
	data, err := readTarget(t)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	} else if err != nil {
		return out, fmt.Errorf("read %s: %w", t.Path, err)
	}
	if _, err := parseObject(data); err != nil {
		return out, fault.Usagef("refusing to rewrite %s: it is not valid JSON (%v)", t.Path, err)
	}
	top, err := locateObject(data, 0, len(data))
	if err != nil {
		return out, err
	}
	i := top.find(t.Key)
	if i < 0 || !isJSONObject(data[top.members[i].valStart:top.members[i].valEnd]) {
		return out, nil
	}
	servers, err := locateObject(data, top.members[i].valStart, top.members[i].valEnd)
	if err != nil {
		return out, nil
	}
	j := servers.find(ServerName)
	if j < 0 {
		return out, nil
	}
	out.Action = "removed"
	onlyGloss := len(servers.members) == 1
	switch {
	case onlyGloss && ch.Created && len(top.members) == 1:
		if err := os.Remove(t.Path); err != nil {
			return out, err
		}
		if ch.CreatedDir {
			_ = os.Remove(filepath.Dir(t.Path)) // only succeeds if it is empty
		}
		return out, nil
	case onlyGloss && (ch.CreatedKey || ch.Created):
		data = removeMember(data, top, i)
	default:
		data = removeMember(data, servers, j)
	}
	return out, writeFile(t, data)
}

// writeFile replaces a configuration file, keeping its permissions.
func writeFile(t MCPTarget, data []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(t.Path); err == nil {
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
		return tree.WriteFile(t.Path, data, mode)
	}
	return atomicfile.Write(t.Path, data, mode)
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
