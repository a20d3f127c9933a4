package setup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/gloss-dev/gloss/agent"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/schemas"
)

// Coding agents run gloss through their own hook systems: each agent's
// documented hook configuration gets entries that call
//
//	git gloss agent hook --agent <name> <event>
//
// (docs/agents.md has the list, the links and why others are left out).
// Like the MCP entry, every entry is a text edit of the user's file that
// leaves every other byte alone, recorded in the install manifest so that
// uninstall takes out exactly what install put in.

// Agents gloss installs hooks for, in the order it reports them: every
// agent the agent package answers (one payload file each, which also says
// how its hooks file is laid out).
var Agents = sync.OnceValue(agent.Names)

// HookCommand is the command an agent's configuration runs for event.
func HookCommand(agent, event string) string {
	return "git gloss agent hook --agent " + agent + " " + event
}

// glossCommandPrefixes recognise gloss's entries in a hook configuration,
// whatever version of gloss wrote them.
var glossCommandPrefixes = []string{"git gloss agent hook", "git-gloss agent hook"}

func isGlossCommand(cmd string) bool {
	cmd = strings.TrimSpace(cmd)
	for _, p := range glossCommandPrefixes {
		if strings.HasPrefix(cmd, p) {
			return true
		}
	}
	return false
}

// agentHook is one event gloss listens to, with the tool matcher where the
// event takes one.
type agentHook = agent.HookEvent

// agentSpec is what gloss writes for one agent.
type agentSpec struct {
	name    string
	display string
	project string // the hooks file, relative to the working tree
	global  string // the hooks file, relative to the home directory
	// cursor is Cursor's flat layout ({"version": 1, "hooks": {event:
	// [{"command"}]}}); the others share Claude Code's layout ({"hooks":
	// {event: [{"matcher", "hooks": [{"type": "command", "command"}]}]}}).
	cursor bool
	hooks  []agentHook
	// handler returns the fields of one hook handler besides the command.
	handler func(event string) map[string]any
	// note is what the user must do before the agent runs the hooks.
	note string
	// dir is the folder whose presence (in the repository or the home
	// directory) says the agent is in use.
	dir string
	// file is the whole content of a file gloss owns (OpenCode's plugin),
	// written instead of hook entries.
	file []byte
}

// agentSpecs is every agent's hooks file, as its payload file describes
// it; built on first use, not at every start.
var agentSpecs = sync.OnceValue(func() map[string]agentSpec {
	out := map[string]agentSpec{}
	for _, name := range agent.Names() {
		a, _ := agent.Lookup(name)
		h := a.Hooks()
		out[name] = agentSpec{name: name, display: h.Display, project: h.Project, global: h.Global,
			cursor: h.Layout == agent.LayoutFlat, hooks: h.Events, handler: h.Handler, note: h.Note, dir: h.Dir}
		if h.Layout == agent.LayoutOwnedFile {
			spec := out[name]
			spec.file = h.File
			out[name] = spec
		}
	}
	return out
})

// AgentChange reports what installing or removing one agent's hooks did
// to its configuration file. The manifest keeps the same record, with
// what install created, so that uninstall gives back the bytes there were.
type AgentChange struct {
	Agent  string   `json:"agent"`
	Path   string   `json:"path"`
	Global bool     `json:"global"`
	Root   string   `json:"root,omitempty"` // the working tree the file belongs to (not with Global)
	Action string   `json:"action"`         // "added", "updated", "unchanged", "removed", "absent", "refused", "kept" (the team's committed entries: uninstall leaves them)
	Events []string `json:"events"`
	// Note says what the user has to do before the agent runs the hooks.
	Note string `json:"note,omitempty"`
	// Error says why a file was left untouched ("refused").
	Error string `json:"error,omitempty"`

	Created    bool `json:"created,omitempty"`     // the file did not exist before
	CreatedDir bool `json:"created_dir,omitempty"` // nor did its directory
	// CreatedDirs are the folders install made for a gloss-owned file
	// (.opencode/plugins, then .opencode), deepest first.
	CreatedDirs []string `json:"created_dirs,omitempty"`
	CreatedKeys []string `json:"created_keys,omitempty"` // keys install added: "hooks", "hooks/<event>", "version"
	// Blank is what a file that existed but held only white space held
	// (install replaced it with a JSON object); nil otherwise.
	Blank *string `json:"blank,omitempty"`
}

// AgentOptions chooses the agents and where their hooks go.
type AgentOptions struct {
	Agents []string // nil: Claude Code plus every agent in use here (DefaultAgents)
	Global bool     // the user's own configuration instead of the repository's
}

// DefaultAgents is Claude Code plus every other agent the repository
// already uses: its project folder (.gemini/, .codex/, .cursor/) is in the
// working tree. A folder in the person's home directory says what the
// person runs elsewhere, not what this project uses: those agents are
// offered (OtherAgents), never installed unasked.
func DefaultAgents(root string) []string {
	out := []string{"claude"}
	for _, a := range Agents()[1:] {
		if root != "" && fileExists(filepath.Join(root, agentSpecs()[a].dir)) {
			out = append(out, a)
		}
	}
	return out
}

// OtherAgents are the agents gloss knows that are not in chosen, for the
// line that says how to add them.
func OtherAgents(chosen []string) []string {
	var out []string
	for _, a := range Agents() {
		if !slices.Contains(chosen, a) {
			out = append(out, a)
		}
	}
	return out
}

// ParseAgents reads a list of agent names ("all" for every one), comma
// separated or repeated.
func ParseAgents(list []string) ([]string, error) {
	var out []string
	for _, item := range list {
		for _, a := range strings.Split(item, ",") {
			a = strings.ToLower(strings.TrimSpace(a))
			switch {
			case a == "":
			case a == "all":
				for _, x := range Agents() {
					if !slices.Contains(out, x) {
						out = append(out, x)
					}
				}
			case agentSpecs()[a].name == "":
				return nil, fault.Usagef("unknown agent %q (known: %s, or all)", a, strings.Join(Agents(), ", "))
			case !slices.Contains(out, a):
				out = append(out, a)
			}
		}
	}
	return out, nil
}

// agentTarget is the hooks file of one agent.
func agentTarget(spec agentSpec, root string, global bool) (MCPTarget, error) {
	t := MCPTarget{Client: spec.name, Global: global}
	if global && spec.global == "" {
		return t, fault.Usagef("%s reads hooks only from the repository (%s): install them without --global", spec.display, spec.project)
	}
	if global {
		home, err := os.UserHomeDir()
		if err != nil {
			return t, fmt.Errorf("locate home directory: %w", err)
		}
		t.Path = filepath.Join(home, filepath.FromSlash(spec.global))
		return t, nil
	}
	if root == "" {
		return t, fault.Usagef("a bare repository has no working tree for %s; use --global", spec.project)
	}
	t.root = root
	t.Path = filepath.Join(root, filepath.FromSlash(spec.project))
	return t, nil
}

// InstallAgents writes gloss's hook entries for each agent, and the gloss
// block of AGENTS.md / CLAUDE.md (not with Global). A file gloss cannot
// parse is left untouched and reported ("refused"); the others are still
// written. The error is non-nil only for a failure that stopped the run.
func InstallAgents(ctx context.Context, repo *gitops.Repo, opts AgentOptions) (*Result, error) {
	m, err := loadManifest(repo)
	if err != nil {
		return nil, err
	}
	res := newResult("gloss-init/v1")
	if err := installAgents(repo, m, opts, res); err != nil {
		return nil, err
	}
	if err := m.save(repo); err != nil {
		return nil, err
	}
	return res, nil
}

func installAgents(repo *gitops.Repo, m *manifest, opts AgentOptions, res *Result) error {
	agents := opts.Agents
	if len(agents) == 0 {
		agents = DefaultAgents(repo.Root())
		if others := OtherAgents(agents); len(others) > 0 {
			res.Next = append(res.Next, "git gloss agent install --agent "+strings.Join(others, ",")+"   # also set up the agents this repository does not use yet (pick the ones you run)")
		}
	}
	for _, a := range agents {
		spec, ok := agentSpecs()[a]
		if !ok {
			return fault.Usagef("unknown agent %q (known: %s)", a, strings.Join(Agents(), ", "))
		}
		if opts.Global && spec.global == "" {
			// An agent without a user-wide hooks file: skipped when found
			// in use, refused (and said why) when named.
			if len(opts.Agents) > 0 {
				res.Agents = append(res.Agents, AgentChange{Agent: a, Path: spec.project, Global: true, Action: "refused", Events: []string{},
					Error: spec.display + " reads hooks only from the repository (" + spec.project + "): install them without --global"})
			}
			continue
		}
		t, err := agentTarget(spec, repo.Root(), opts.Global)
		if err != nil {
			return err
		}
		ch, err := installAgentHooks(spec, t)
		if err != nil {
			return err
		}
		res.Agents = append(res.Agents, ch)
		if ch.Action != "refused" {
			m.recordAgent(ch)
		}
	}
	if opts.Global {
		return nil
	}
	files := []string{"AGENTS.md"}
	if slices.Contains(agents, "claude") {
		files = append(files, "CLAUDE.md")
	}
	for _, f := range files {
		ic, err := installInstructions(repo.Root(), f)
		if err != nil {
			return err
		}
		res.Instructions = append(res.Instructions, ic)
		m.recordInstructions(ic)
	}
	return nil
}

// recordAgent keeps what install created the first time it touched a file;
// a later install that finds gloss's entries in place created nothing.
func (m *manifest) recordAgent(ch AgentChange) {
	i := slices.IndexFunc(m.Agents, func(x AgentChange) bool { return x.Path == ch.Path })
	if i < 0 {
		ch.Note, ch.Error = "", ""
		m.Agents = append(m.Agents, ch)
		return
	}
	for _, k := range ch.CreatedKeys {
		if !slices.Contains(m.Agents[i].CreatedKeys, k) {
			m.Agents[i].CreatedKeys = append(m.Agents[i].CreatedKeys, k)
		}
	}
	// The file or its folder may have been deleted since and created again.
	if m.Agents[i].Blank == nil {
		m.Agents[i].Blank = ch.Blank
	}
	m.Agents[i].Created = m.Agents[i].Created || ch.Created
	m.Agents[i].CreatedDir = m.Agents[i].CreatedDir || ch.CreatedDir
	for _, d := range ch.CreatedDirs {
		if !slices.Contains(m.Agents[i].CreatedDirs, d) {
			m.Agents[i].CreatedDirs = append(m.Agents[i].CreatedDirs, d)
		}
	}
	m.Agents[i].Events = ch.Events
}

// uninstallAgents removes what agent install recorded. A file it cannot
// parse is left untouched and reported; the rest still goes.
func uninstallAgents(ctx context.Context, repo *gitops.Repo, m *manifest, res *Result) error {
	for _, e := range m.Agents {
		if ch, ok := teamsFile(ctx, e, repo.Root()); ok {
			res.Agents = append(res.Agents, ch)
			continue
		}
		ch, err := uninstallAgentHooks(e, repo.Root())
		if err != nil {
			return err
		}
		res.Agents = append(res.Agents, ch)
	}
	for _, ic := range m.Instructions {
		ch, err := uninstallInstructions(repo.Root(), ic)
		if err != nil {
			return err
		}
		res.Instructions = append(res.Instructions, ch)
	}
	return nil
}

// UninstallAgents removes only what agent install added (hooks entries and
// instruction blocks), leaving the rest of gloss's setup in place.
func UninstallAgents(ctx context.Context, repo *gitops.Repo) (*Result, error) {
	m, err := loadManifest(repo)
	if err != nil {
		return nil, err
	}
	res := newResult("gloss-uninstall/v1")
	if err := uninstallAgents(ctx, repo, m, res); err != nil {
		return nil, err
	}
	// Keep the records of files left untouched, so a later run can finish.
	var keep []AgentChange
	for i, ch := range res.Agents {
		if ch.Action == "refused" {
			keep = append(keep, m.Agents[i])
		}
	}
	m.Agents, m.Instructions = keep, nil
	if err := m.save(repo); err != nil {
		return nil, err
	}
	return res, nil
}

// teamsFile reports, as the change uninstall makes (none), an agent's
// project file that git tracks with gloss's entries committed, where this
// clone's install created nothing: it found the entries in place (the
// manifest keeps the first install's action, "unchanged"). They came with
// the repository (a teammate set gloss up), and removing them would be an
// edit of the team's file. A file install created here, or entries it
// added here (committed since or not), are this clone's own and are taken
// back as usual.
func teamsFile(ctx context.Context, e AgentChange, root string) (AgentChange, bool) {
	if e.Global || e.Created || e.Action != "unchanged" {
		return AgentChange{}, false
	}
	if e.Root != "" {
		root = e.Root
	}
	rel, err := filepath.Rel(root, e.Path)
	if err != nil || !filepath.IsLocal(rel) {
		return AgentChange{}, false
	}
	wt, err := gitops.Open(root)
	if err != nil {
		return AgentChange{}, false
	}
	defer wt.Close()
	committed, err := wt.Git(ctx, "cat-file", "blob", "HEAD:"+filepath.ToSlash(rel))
	if err != nil {
		return AgentChange{}, false // not tracked, or no commit yet
	}
	if present, err := glossEntries(committed, agentSpecs()[e.Agent].cursor); err != nil || len(present) == 0 {
		return AgentChange{}, false
	}
	return AgentChange{Agent: e.Agent, Path: e.Path, Root: e.Root, Action: "kept", Events: []string{},
		Note: fmt.Sprintf("left %s as it is: git tracks it, and gloss's entries in it were committed to the repository, not added by this clone's install. "+
			"To stop gloss's hooks for the whole team, remove the entries whose command is \"git gloss agent hook ...\" and commit that", e.Path)}, true
}

func init() {
	schemas.Register(schemas.Entry{Name: "agent-status", Tag: "gloss-agent-status/v1", Description: "Which agents run gloss's hooks (git gloss agent status).", Type: schemas.TypeOf[AgentStatusResult]()})
}
