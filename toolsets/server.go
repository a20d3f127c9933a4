package toolsets

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/tidwall/gjson"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/safepath"
)

// ServerName is gloss's key in MCP client configuration files.
const ServerName = "gloss"

// Server is gloss's MCP server as a client starts it: where its entry is
// and the options its arguments give.
type Server struct {
	Client string // "claude", "cursor", "gemini", "codex"
	// File is the configuration file the entry is in: relative to the
	// working tree for the repository's own, else under the user's home
	// ("~/.claude.json").
	File    string
	Scope   string // ScopeProject, ScopeLocal or ScopeUser
	Options Options
}

// Where an entry is (Server.Scope).
const (
	ScopeProject = "project" // the repository's own file, committed with the code
	ScopeLocal   = "local"   // the user's file, in its entry for this repository (Claude Code's local scope)
	ScopeUser    = "user"    // the user's file, for every repository
)

// A client's MCP configuration: its files, most binding first, and what
// turns an entry off outside it.
type clientConfig struct {
	places []place
	// off reports whether the user turned gloss's entry in pl off
	// elsewhere (a setting of the client's).
	off func(r *reader, pl place) bool
}

type place struct {
	file    string // relative to the working tree, or "~/…" under the home directory
	servers string // gjson path of the servers object ({root}: the working tree's entry); "" for Codex's TOML
	scope   string
}

// clients are the agents whose MCP configuration gloss reads, each with
// the precedence its documentation gives: Claude Code's local scope
// (~/.claude.json's entry for the project) over its project scope
// (.mcp.json) over its user scope; a project's settings over the user's
// for the others. Codex reads $CODEX_HOME (default ~/.codex).
var clients = map[string]clientConfig{
	"claude": {places: []place{
		{file: "~/.claude.json", servers: "projects.{root}.mcpServers", scope: ScopeLocal},
		{file: ".mcp.json", servers: "mcpServers", scope: ScopeProject},
		{file: "~/.claude.json", servers: "mcpServers", scope: ScopeUser},
	}, off: claudeDisabled},
	"cursor": {places: []place{
		{file: ".cursor/mcp.json", servers: "mcpServers", scope: ScopeProject},
		{file: "~/.cursor/mcp.json", servers: "mcpServers", scope: ScopeUser},
	}},
	"gemini": {places: []place{
		{file: ".gemini/settings.json", servers: "mcpServers", scope: ScopeProject},
		{file: "~/.gemini/settings.json", servers: "mcpServers", scope: ScopeUser},
	}, off: geminiExcluded},
	"codex": {places: []place{
		{file: ".codex/config.toml", scope: ScopeProject},
		{file: "~/.codex/config.toml", scope: ScopeUser},
	}},
}

// Clients lists the agents FindServer knows.
func Clients() []string { return sortedKeys(clients) }

// maxConfigBytes bounds a client configuration file read (~/.claude.json
// grows with every project the user opens).
const maxConfigBytes = 32 << 20

// FindServer returns gloss's MCP server as client starts it in the
// repository: its entry in the client's configuration, the repository's
// own or the user's, read as the client reads them. nil when the client
// has none (or the user turned it off): gloss's tools are not in the
// agent's session. An entry is gloss's by its name ("gloss") or by its
// command (git-gloss mcp, git gloss mcp).
func FindServer(repo *gitops.Repo, client string) *Server {
	cc, ok := clients[client]
	if !ok || repo.IsBare() {
		return nil
	}
	tree, err := safepath.ForRepo(repo)
	if err != nil {
		return nil
	}
	defer tree.Close()
	r := &reader{tree: tree, root: repo.Root(), files: map[string][]byte{}}
	r.home, _ = os.UserHomeDir()
	for _, pl := range cc.places {
		data := r.file(pl.file)
		if data == nil {
			continue
		}
		args, found := findEntry(data, pl, r.root)
		switch {
		case !found:
			continue
		case args == nil, cc.off != nil && cc.off(r, pl):
			return nil // turned off
		}
		return &Server{Client: client, File: pl.file, Scope: pl.scope, Options: ParseArgs(args)}
	}
	return nil
}

// reader reads a client's files, each once (Claude Code's ~/.claude.json
// is two places); a file that is missing, unreadable or refused is nil.
type reader struct {
	tree       *safepath.Tree
	root, home string
	files      map[string][]byte
}

func (r *reader) file(name string) []byte {
	if data, ok := r.files[name]; ok {
		return data
	}
	var data []byte
	var err error
	if rest, ok := strings.CutPrefix(name, "~/"); ok {
		data, err = readUserFile(r.home, rest)
	} else {
		// The repository's file goes through the one resolver: a
		// committed .mcp.json that is a link into .git is not read.
		data, err = r.tree.ReadFile(name, maxConfigBytes)
	}
	if err != nil {
		data = nil
	}
	r.files[name] = data
	return data
}

func readUserFile(home, rest string) ([]byte, error) {
	p := filepath.Join(home, filepath.FromSlash(rest))
	if sub, ok := strings.CutPrefix(rest, ".codex/"); ok {
		if ch := os.Getenv("CODEX_HOME"); ch != "" {
			p = filepath.Join(ch, sub)
		}
	}
	if !filepath.IsAbs(p) {
		return nil, fs.ErrNotExist // no home directory
	}
	f, err := safepath.OpenRegularPath(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err == nil && len(data) > maxConfigBytes {
		err = fmt.Errorf("%s: larger than %d bytes", p, maxConfigBytes)
	}
	return data, err
}

// findEntry finds gloss's server in one place of a configuration file and
// returns its arguments; found with nil args is an entry turned off
// (Codex's enabled = false).
func findEntry(data []byte, pl place, root string) (args []string, found bool) {
	if pl.servers == "" {
		return tomlEntry(data)
	}
	servers := gjson.ParseBytes(data)
	for _, part := range strings.Split(pl.servers, ".") {
		if part == "{root}" {
			servers = projectEntry(servers, root)
		} else {
			servers = servers.Get(gjson.Escape(part))
		}
	}
	if !servers.IsObject() {
		return nil, false
	}
	var entry gjson.Result
	if e := servers.Get(gjson.Escape(ServerName)); e.IsObject() {
		entry = e
	} else {
		servers.ForEach(func(_, e gjson.Result) bool {
			if isGloss(e.Get("command").String(), stringArray(e.Get("args"))) {
				entry = e
				return false
			}
			return true
		})
	}
	if !entry.IsObject() {
		return nil, false
	}
	args = stringArray(entry.Get("args"))
	if args == nil {
		args = []string{}
	}
	return args, true
}

// projectEntry finds the working tree's entry under ~/.claude.json's
// projects, keyed by its absolute path.
func projectEntry(projects gjson.Result, root string) gjson.Result {
	var out gjson.Result
	clean := filepath.Clean(root)
	projects.ForEach(func(k, v gjson.Result) bool {
		if filepath.Clean(k.String()) == clean {
			out = v
			return false
		}
		return true
	})
	return out
}

func stringArray(r gjson.Result) []string {
	if !r.IsArray() {
		return nil
	}
	out := []string{}
	for _, a := range r.Array() {
		out = append(out, a.String())
	}
	return out
}

// tomlEntry reads Codex's [mcp_servers.NAME] tables.
func tomlEntry(data []byte) (args []string, found bool) {
	var cfg struct {
		Servers map[string]struct {
			Command string   `toml:"command"`
			Args    []string `toml:"args"`
			Enabled *bool    `toml:"enabled"`
		} `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(string(data), &cfg); err != nil {
		return nil, false
	}
	e, ok := cfg.Servers[ServerName]
	if !ok {
		for _, name := range sortedKeys(cfg.Servers) {
			if s := cfg.Servers[name]; isGloss(s.Command, s.Args) {
				e, ok = s, true
				break
			}
		}
	}
	if !ok {
		return nil, false
	}
	if e.Enabled != nil && !*e.Enabled {
		return nil, true
	}
	if e.Args == nil {
		e.Args = []string{}
	}
	return e.Args, true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// isGloss reports whether a command line starts gloss's MCP server:
// git-gloss mcp …, or git gloss mcp ….
func isGloss(command string, args []string) bool {
	base := strings.TrimSuffix(path.Base(filepath.ToSlash(command)), ".exe")
	switch {
	case base == "git-gloss":
		return len(args) > 0 && args[0] == "mcp"
	case base == "git":
		return len(args) > 1 && args[0] == "gloss" && args[1] == "mcp"
	}
	return false
}

// ParseArgs reads the server's options from its arguments (those after
// "mcp", "serve" and the global flags are skipped). A flag it does not
// know is left alone: it cannot change which tools there are.
func ParseArgs(args []string) Options {
	var o Options
	flag := func(a, name string) (val string, isFlag, hasVal bool) {
		if a == name {
			return "", true, false
		}
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v, true, true
		}
		return "", false, false
	}
	boolean := func(v string, hasVal bool) bool { return !hasVal || v == "true" || v == "1" }
	for i := 0; i < len(args); i++ {
		a := args[i]
		if v, ok, has := flag(a, "--toolsets"); ok {
			if !has && i+1 < len(args) {
				i++
				v = args[i]
			}
			o.Toolsets = splitList(v)
		} else if v, ok, has := flag(a, "--read-only"); ok {
			o.ReadOnly = boolean(v, has)
		} else if v, ok, has := flag(a, "--dynamic-toolsets"); ok {
			o.Dynamic = boolean(v, has)
		} else if v, ok, has := flag(a, "--output-schemas"); ok {
			o.OutputSchemas = boolean(v, has)
		}
	}
	return o
}

func splitList(v string) []string {
	var out []string
	for _, n := range strings.Split(v, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// claudeDisabled reports whether the user turned the repository's
// .mcp.json entry for gloss off in Claude Code: its
// disabledMcpjsonServers setting, in the project's settings or in its
// entry in ~/.claude.json.
func claudeDisabled(r *reader, pl place) bool {
	if pl.scope != ScopeProject {
		return false
	}
	for _, f := range []string{".claude/settings.local.json", ".claude/settings.json"} {
		if listHas(gjson.GetBytes(r.file(f), "disabledMcpjsonServers"), ServerName) {
			return true
		}
	}
	project := projectEntry(gjson.ParseBytes(r.file("~/.claude.json")).Get("projects"), r.root)
	return listHas(project.Get("disabledMcpjsonServers"), ServerName)
}

// geminiExcluded reports whether Gemini CLI's settings leave gloss's
// server out: mcp.excluded names it, or mcp.allowed names others only
// (allowMCPServers and excludeMCPServers, their older spellings).
func geminiExcluded(r *reader, _ place) bool {
	for _, f := range []string{".gemini/settings.json", "~/.gemini/settings.json"} {
		data := r.file(f)
		for _, key := range []string{"mcp.excluded", "excludeMCPServers"} {
			if listHas(gjson.GetBytes(data, key), ServerName) {
				return true
			}
		}
		for _, key := range []string{"mcp.allowed", "allowMCPServers"} {
			if a := gjson.GetBytes(data, key); a.IsArray() && !listHas(a, ServerName) {
				return true
			}
		}
	}
	return false
}

func listHas(r gjson.Result, name string) bool {
	return slices.Contains(stringArray(r), name)
}
