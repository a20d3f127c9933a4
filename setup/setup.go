// Package setup installs gloss into a repository and takes it out again:
// hook shims chained to existing hooks, the git config that makes notes
// follow rewrites and fetches, and the MCP client registration. It records
// what it added in a manifest under the git dir, so that uninstall removes
// exactly that and nothing the user had before.
package setup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// SetupVersion is the version of what init installs. Bump it when init
// starts installing something new; repositories set up by an older
// version then get a projectNote in MCP initialize and a hint in status.
//
// 3: init no longer sets notes.displayRef (git log printed raw JSON
// records for the whole team; git gloss log is the readable view) and
// takes back the one an earlier init set.
// 4: the prepare-commit-msg shim starts git-gloss when the team file turns
// the AI-Share trailer on ([review] ai_share_trailer).
// 5: the shims start no process but git-gloss (the shell's own expansions
// where they ran dirname and grep: 3 processes on every commit).
const SetupVersion = 5

// setupVersionKey records, in the repository's git config, which
// SetupVersion last ran init there.
const setupVersionKey = "gloss.setupVersion"

// InitOptions chooses what init registers besides hooks and config.
type InitOptions struct {
	Clients []string // MCP clients to register with; nil means "claude"
	NoMCP   bool     // register with no MCP client
	// Agents, when set, also installs the coding agents' hooks (see
	// InstallAgents); an empty non-nil list means DefaultAgents.
	Agents []string
}

// HookChange reports one hook.
type HookChange struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	Action  string `json:"action"` // "installed", "updated", "unchanged", "removed", "absent"
	Chained string `json:"chained,omitempty"`
}

// ConfigChange reports one git config value.
type ConfigChange struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Action string `json:"action"` // "added", "present", "removed"
}

// Result is the report of init or uninstall.
type Result struct {
	Schema       string         `json:"$schema"`
	SetupVersion int            `json:"setup_version"`
	Hooks        []HookChange   `json:"hooks"`
	Config       []ConfigChange `json:"config"`
	MCP          []MCPChange    `json:"mcp"`
	// Scaffolded lists the files and folders init created in the working
	// tree (the notebook); uninstall removes those nobody changed or
	// committed since, and lists them here.
	Scaffolded []string `json:"scaffolded"`
	// Agents are the coding agents' hook files (agent install, init
	// --agents) and Instructions the AGENTS.md / CLAUDE.md blocks.
	Agents       []AgentChange        `json:"agents"`
	Instructions []InstructionsChange `json:"instructions"`
	// Next are the commands worth running next, for people.
	Next []string `json:"next"`
	// Skipped lists the parts of the setup init left out because the
	// repository's own files made them unsafe (a client file or the
	// notebook reached through a link into .git or out of the tree); the
	// rest is set up.
	Skipped []Skipped `json:"skipped"`
}

// Skipped is a part of the setup left out, and why.
type Skipped struct {
	What   string `json:"what"`
	Reason string `json:"reason"`
}

// SkipRefused records what as skipped when err is a refusal of the
// repository's content (a usage error: the resolver refused a path, a
// file is not what it must be) and reports whether it did; any other
// error is for the caller to return.
func (r *Result) SkipRefused(what string, err error) bool {
	if fault.KindOf(err) != fault.Usage {
		return false
	}
	r.Skipped = append(r.Skipped, Skipped{What: what, Reason: fault.Line(err.Error())})
	return true
}

func newResult(schema string) *Result {
	return &Result{Schema: schema, SetupVersion: SetupVersion, Hooks: []HookChange{}, Config: []ConfigChange{}, MCP: []MCPChange{},
		Scaffolded: []string{}, Agents: []AgentChange{}, Instructions: []InstructionsChange{}, Next: []string{}, Skipped: []Skipped{}}
}

// manifest is what init added, kept in <git common dir>/gloss/install.json.
type manifest struct {
	Version int            `json:"version"`
	Hooks   []HookChange   `json:"hooks"`
	Config  []ConfigChange `json:"config"`
	MCP     []MCPChange    `json:"mcp"`

	// TeamHooks is the tracked hooks folder gloss stepped in front of
	// (see teamhooks.go), as core.hooksPath named it; HooksPathPrev is
	// the local core.hooksPath value to put back, nil if it was unset.
	TeamHooks     string  `json:"team_hooks,omitempty"`
	HooksPathPrev *string `json:"hooks_path_prev,omitempty"`

	// Scaffold is what init created in the working tree (the notebook).
	Scaffold []ScaffoldEntry `json:"scaffold,omitempty"`

	// Agents and Instructions are what agent install added (agents.go,
	// instructions.go).
	Agents       []AgentChange        `json:"agents,omitempty"`
	Instructions []InstructionsChange `json:"instructions,omitempty"`
}

func manifestPath(repo *gitops.Repo) string {
	return filepath.Join(repo.CommonDir(), "gloss", "install.json")
}

func loadManifest(repo *gitops.Repo) (*manifest, error) {
	m := &manifest{}
	data, err := os.ReadFile(manifestPath(repo))
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, m); err != nil {
		return nil, fmt.Errorf("read %s: %w", manifestPath(repo), err)
	}
	return m, nil
}

func (m *manifest) save(repo *gitops.Repo) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(manifestPath(repo), append(data, '\n'), 0o644)
}

// configWanted lists the git config values init ensures.
func configWanted(ctx context.Context, repo *gitops.Repo) ([][2]string, error) {
	want := [][2]string{
		// git copies notes on amend and rebase for every matching ref.
		{"notes.rewriteRef", notes.RefPrefix + "*"},
	}
	remotes, err := repo.Remotes(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range remotes {
		// Fetch into tracking refs; `git gloss sync` merges them.
		want = append(want, [2]string{"remote." + r + ".fetch", notes.FetchRefspec(r)})
	}
	return want, nil
}

// Init installs gloss into the repository. Running it again changes
// nothing that is already in place.
func Init(ctx context.Context, repo *gitops.Repo, opts InitOptions) (*Result, error) {
	if repo.IsBare() {
		return nil, fault.Usagef("git gloss init needs a working tree; %s is a bare repository", repo.GitDir())
	}
	m, err := loadManifest(repo)
	if err != nil {
		return nil, err
	}
	res := newResult("gloss-init/v1")
	clients := opts.Clients
	if len(clients) == 0 {
		clients = []string{"claude"}
	}
	if opts.NoMCP {
		clients = nil
	}
	// Client files are checked before anything changes: a broken one is
	// refused now, not after the hooks are in; one the resolver refuses
	// (the repository's own content made it unsafe) is skipped.
	var register []string
	for _, c := range clients {
		t, err := TargetFor(c, repo.Root(), false)
		if err != nil {
			return nil, err
		}
		unsafe, err := checkTarget(t)
		if err != nil {
			return nil, err
		}
		if unsafe != nil {
			res.SkipRefused("mcp "+c, fault.As(fault.Usage, unsafe))
			continue
		}
		register = append(register, c)
	}

	// What is done is recorded even when a later step fails, so that
	// uninstall can take it back.
	saved := false
	defer func() {
		if !saved {
			m.Version = SetupVersion
			_ = m.save(repo)
		}
	}()
	before := m.TeamHooks
	hooks, err := installHooks(ctx, repo, m)
	if err != nil {
		return nil, err
	}
	if m.TeamHooks != "" {
		// Say so: this clone's core.hooksPath now names gloss's folder.
		cc := ConfigChange{Key: "core.hooksPath", Value: ownHooksDir(repo), Action: "present"}
		if before == "" {
			cc.Action = "added"
		}
		res.Config = append(res.Config, cc)
	}
	for _, hc := range hooks {
		res.Hooks = append(res.Hooks, hc)
		if hc.Action != "tracked" && !slices.ContainsFunc(m.Hooks, func(h HookChange) bool { return h.Path == hc.Path }) {
			m.Hooks = append(m.Hooks, hc)
		}
	}

	want, err := configWanted(ctx, repo)
	if err != nil {
		return nil, err
	}
	for _, kv := range want {
		cc, err := ensureConfig(ctx, repo, kv[0], kv[1])
		if err != nil {
			return nil, err
		}
		res.Config = append(res.Config, cc)
		if cc.Action == "added" {
			m.Config = append(m.Config, cc)
		}
	}
	removed, err := dropRetired(ctx, repo, m)
	if err != nil {
		return nil, err
	}
	res.Config = append(res.Config, removed...)
	if err := repo.ConfigSet(ctx, setupVersionKey, strconv.Itoa(SetupVersion)); err != nil {
		return nil, err
	}

	for _, c := range register {
		ch, err := installMCP(repo, m, c, false, nil)
		if err != nil {
			return nil, err
		}
		res.MCP = append(res.MCP, ch)
	}
	if opts.Agents != nil {
		if err := installAgents(repo, m, AgentOptions{Agents: opts.Agents}, res); err != nil {
			return nil, err
		}
	} else if len(m.Agents) == 0 {
		res.Next = append(res.Next, "git gloss agent install    # let coding agents get gloss's context before they edit ("+strings.Join(DefaultAgents(repo.Root()), ", ")+")")
	}
	if files := sharedFiles(repo.Root(), res); len(files) > 0 {
		res.Next = append(res.Next, "git add "+strings.Join(files, " ")+" && git commit -m 'Set up gloss'   # share the setup with your team")
	}
	res.Next = append(res.Next, "git gloss status           # what gloss knows about this repository")
	m.Version = SetupVersion
	saved = true
	if err := m.save(repo); err != nil {
		return nil, err
	}
	return res, nil
}

// installHooks puts gloss's shims where git runs hooks. A hooks folder in
// the working tree is the team's and is never written to (teamhooks.go).
func installHooks(ctx context.Context, repo *gitops.Repo, m *manifest) ([]HookChange, error) {
	dir, err := repo.HooksDir(ctx)
	if err != nil {
		return nil, err
	}
	var out []HookChange
	switch {
	case m.TeamHooks != "" && resolve(dir) == resolve(ownHooksDir(repo)):
	case inWorkTree(repo, dir) && teamRunsGloss(dir):
		for _, name := range Hooks {
			out = append(out, HookChange{Name: name, Path: filepath.Join(dir, name), Action: "tracked"})
		}
		return out, nil
	case inWorkTree(repo, dir):
		if err := takeOverTeamHooks(ctx, repo, m, dir); err != nil {
			return nil, err
		}
		dir = ownHooksDir(repo)
	default:
		for _, name := range Hooks {
			action, err := installHook(dir, name)
			if err != nil {
				return nil, err
			}
			out = append(out, HookChange{Name: name, Path: filepath.Join(dir, name), Action: action, Chained: hookStatus(dir, name, Shim(name)).Chained})
		}
		return out, nil
	}
	for _, name := range Hooks {
		action, err := installTeamHook(dir, name, teamShim(repo.Root(), m, name))
		if err != nil {
			return nil, err
		}
		hc := HookChange{Name: name, Path: filepath.Join(dir, name), Action: action}
		if team := teamHookPath(repo.Root(), m, name); fileExists(team) {
			hc.Chained = team
		}
		out = append(out, hc)
	}
	return out, installTeamForwarders(repo, m)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// ensureConfig adds value to a multi-valued key unless it is already set.
// retiredConfig is config an earlier init set and this one no longer
// wants: notes.displayRef on the annotations ref made every git log print
// raw JSON records (git gloss log is the readable view).
var retiredConfig = [][2]string{{"notes.displayRef", notes.Annotations}}

// dropRetired takes back the retired config an earlier init recorded in
// the manifest as added by gloss. A value the user set themselves (not in
// the manifest) stays.
func dropRetired(ctx context.Context, repo *gitops.Repo, m *manifest) ([]ConfigChange, error) {
	var out []ConfigChange
	for _, kv := range retiredConfig {
		i := slices.IndexFunc(m.Config, func(c ConfigChange) bool { return c.Key == kv[0] && c.Value == kv[1] })
		if i < 0 {
			continue
		}
		have, err := repo.ConfigGetAll(ctx, kv[0])
		if err != nil {
			return nil, err
		}
		if slices.Contains(have, kv[1]) {
			if err := repo.ConfigUnsetValue(ctx, kv[0], kv[1]); err != nil {
				return nil, err
			}
			out = append(out, ConfigChange{Key: kv[0], Value: kv[1], Action: "removed"})
		}
		m.Config = slices.Delete(m.Config, i, i+1)
	}
	return out, nil
}

func ensureConfig(ctx context.Context, repo *gitops.Repo, key, value string) (ConfigChange, error) {
	cc := ConfigChange{Key: key, Value: value, Action: "present"}
	have, err := repo.ConfigGetAll(ctx, key)
	if err != nil {
		return cc, err
	}
	if slices.Contains(have, value) {
		return cc, nil
	}
	cc.Action = "added"
	return cc, repo.ConfigAdd(ctx, key, value)
}

// InstallMCP registers gloss with one MCP client, in the repository or in
// the user's global configuration.
func InstallMCP(ctx context.Context, repo *gitops.Repo, client string, global bool) (*Result, error) {
	return RegisterMCP(ctx, repo, client, global, nil)
}

// RegisterMCP is InstallMCP that also sets the server's toolsets: nil
// keeps what an existing entry has, an empty list removes them (the server
// then follows the team's [mcp] toolsets or the repository's default).
func RegisterMCP(ctx context.Context, repo *gitops.Repo, client string, global bool, toolsets []string) (*Result, error) {
	m, err := loadManifest(repo)
	if err != nil {
		return nil, err
	}
	ch, err := installMCP(repo, m, client, global, toolsets)
	if err != nil {
		return nil, err
	}
	if err := m.save(repo); err != nil {
		return nil, err
	}
	res := newResult("gloss-init/v1")
	res.MCP = append(res.MCP, ch)
	return res, nil
}

func installMCP(repo *gitops.Repo, m *manifest, client string, global bool, toolsets []string) (MCPChange, error) {
	t, err := TargetFor(client, repo.Root(), global)
	if err != nil {
		return MCPChange{}, err
	}
	t.Toolsets = toolsets
	ch, err := registerServer(t)
	if err != nil {
		return ch, err
	}
	if ch.Action == "added" && !slices.ContainsFunc(m.MCP, func(x MCPChange) bool { return x.Path == t.Path }) {
		m.MCP = append(m.MCP, ch)
	}
	return ch, nil
}

// Uninstall removes what init and mcp install added, as recorded in the
// manifest: hook shims (restoring chained hooks), config values and MCP
// entries. Notes refs and committed files are data and stay.
func Uninstall(ctx context.Context, repo *gitops.Repo) (*Result, error) {
	m, err := loadManifest(repo)
	if err != nil {
		return nil, err
	}
	res := newResult("gloss-uninstall/v1")

	hookPaths := map[string]bool{}
	for _, h := range m.Hooks {
		hookPaths[h.Path] = true
	}
	if dir, err := repo.HooksDir(ctx); err == nil {
		for _, name := range Hooks {
			hookPaths[filepath.Join(dir, name)] = true
		}
	}
	for _, p := range slices.Sorted(maps.Keys(hookPaths)) {
		removed, err := removeHook(filepath.Dir(p), filepath.Base(p))
		if err != nil {
			return nil, err
		}
		hc := HookChange{Name: filepath.Base(p), Path: p, Action: "absent"}
		if removed {
			hc.Action = "removed"
		}
		res.Hooks = append(res.Hooks, hc)
	}
	if m.TeamHooks != "" {
		if err := restoreTeamHooks(ctx, repo, m); err != nil {
			return nil, err
		}
		res.Config = append(res.Config, ConfigChange{Key: "core.hooksPath", Value: m.TeamHooks, Action: "restored"})
	}
	for _, c := range m.Config {
		if err := repo.ConfigUnsetValue(ctx, c.Key, c.Value); err != nil {
			return nil, err
		}
		res.Config = append(res.Config, ConfigChange{Key: c.Key, Value: c.Value, Action: "removed"})
	}
	if v, ok, _ := repo.ConfigGet(ctx, setupVersionKey); ok {
		if err := repo.ConfigUnsetValue(ctx, setupVersionKey, v); err != nil {
			return nil, err
		}
	}
	for _, e := range m.MCP {
		if !e.Global {
			e.root = repo.Root() // not in the manifest: writes go through the resolver
		}
		ch, err := unregisterServer(e)
		if err != nil {
			return nil, err
		}
		res.MCP = append(res.MCP, ch)
	}
	if err := uninstallAgents(ctx, repo, m, res); err != nil {
		return nil, err
	}
	removed, err := removeScaffold(ctx, repo, m.Scaffold)
	if err != nil {
		return nil, err
	}
	res.Scaffolded = append(res.Scaffolded, removed...)
	if err := os.Remove(manifestPath(repo)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return res, nil
}

// sharedFiles lists the files in the working tree that this init added or
// changed and a team shares by committing them (the MCP registration, the
// agents' hook files, the instruction blocks, the notebook scaffold), as
// repository-relative paths.
func sharedFiles(root string, res *Result) []string {
	var paths []string
	add := func(p, action string) {
		if action != "added" && action != "updated" && action != "installed" {
			return
		}
		if rel, err := filepath.Rel(root, p); err == nil && filepath.IsAbs(p) && !strings.HasPrefix(rel, "..") {
			p = rel
		} else if filepath.IsAbs(p) {
			return // outside the working tree: personal, not shared
		}
		p = filepath.ToSlash(p)
		if strings.HasPrefix(p, ".gloss/") {
			p = ".gloss"
		}
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	for _, c := range res.MCP {
		add(c.Path, c.Action)
	}
	for _, a := range res.Agents {
		if !a.Global {
			add(a.Path, a.Action)
		}
	}
	for _, f := range res.Instructions {
		add(f.Path, f.Action)
	}
	for _, p := range res.Scaffolded {
		add(p, "added")
	}
	return paths
}
