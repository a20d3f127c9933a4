package setup

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

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

// Agents gloss installs hooks for, in the order it reports them.
var Agents = []string{"claude", "gemini", "codex", "cursor"}

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
type agentHook struct {
	Event   string
	Matcher string
}

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
}

// claudeEditTools are Claude Code's file-writing tools (MultiEdit is gone
// from recent versions; matching it costs nothing on those).
const claudeEditTools = "Edit|MultiEdit|Write|NotebookEdit"

var agentSpecs = map[string]agentSpec{
	// https://code.claude.com/docs/en/hooks
	"claude": {
		name: "claude", display: "Claude Code", dir: ".claude",
		project: ".claude/settings.json", global: ".claude/settings.json",
		hooks: []agentHook{
			{Event: "SessionStart"},
			{Event: "UserPromptSubmit"},
			{Event: "PreToolUse", Matcher: claudeEditTools},
			{Event: "PostToolUse", Matcher: claudeEditTools},
		},
		handler: func(string) map[string]any { return map[string]any{"type": "command", "timeout": 10} }, // seconds
	},
	// https://geminicli.com/docs/hooks/reference: context reaches the
	// model from SessionStart, BeforeAgent and AfterTool only, so gloss
	// answers after read_file (the agent reads before it replaces) and
	// after each write; BeforeModel tells gloss the model, which no other
	// payload names.
	"gemini": {
		name: "gemini", display: "Gemini CLI", dir: ".gemini",
		project: ".gemini/settings.json", global: ".gemini/settings.json",
		hooks: []agentHook{
			{Event: "SessionStart"},
			{Event: "BeforeAgent"},
			{Event: "BeforeModel"},
			{Event: "AfterTool", Matcher: "read_file|write_file|replace"},
		},
		handler: func(event string) map[string]any {
			return map[string]any{"type": "command", "name": "gloss-" + event, "timeout": 10000} // milliseconds
		},
		note: "Gemini CLI runs a project's hooks only in a trusted folder, and warns once about new project hooks",
	},
	// https://developers.openai.com/codex/hooks: file edits are the
	// apply_patch tool (the raw patch is tool_input.command).
	"codex": {
		name: "codex", display: "Codex CLI", dir: ".codex",
		project: ".codex/hooks.json", global: ".codex/hooks.json",
		hooks: []agentHook{
			{Event: "SessionStart"},
			{Event: "UserPromptSubmit"},
			{Event: "PreToolUse", Matcher: "apply_patch|Edit|Write"},
			{Event: "PostToolUse", Matcher: "apply_patch|Edit|Write"},
		},
		handler: func(string) map[string]any { return map[string]any{"type": "command", "timeout": 10} }, // seconds
		note:    "Codex runs new or changed hooks only after you review and trust them: open /hooks in Codex (and trust the project, for .codex/hooks.json)",
	},
	// https://cursor.com/docs/agent/hooks
	"cursor": {
		name: "cursor", display: "Cursor", dir: ".cursor", cursor: true,
		project: ".cursor/hooks.json", global: ".cursor/hooks.json",
		hooks: []agentHook{
			{Event: "sessionStart"},
			{Event: "beforeSubmitPrompt"},
			{Event: "afterFileEdit"},
		},
		handler: func(string) map[string]any { return map[string]any{"timeout": 10} }, // seconds
		note:    "Cursor reads hooks.json when it starts: restart Cursor (Settings → Hooks lists them)",
	},
}

// AgentChange reports what installing or removing one agent's hooks did
// to its configuration file. The manifest keeps the same record, with
// what install created, so that uninstall gives back the bytes there were.
type AgentChange struct {
	Agent  string   `json:"agent"`
	Path   string   `json:"path"`
	Global bool     `json:"global"`
	Root   string   `json:"root,omitempty"` // the working tree the file belongs to (not with Global)
	Action string   `json:"action"`         // "added", "updated", "unchanged", "removed", "absent", "refused"
	Events []string `json:"events"`
	// Note says what the user has to do before the agent runs the hooks.
	Note string `json:"note,omitempty"`
	// Error says why a file was left untouched ("refused").
	Error string `json:"error,omitempty"`

	Created     bool     `json:"created,omitempty"`      // the file did not exist before
	CreatedDir  bool     `json:"created_dir,omitempty"`  // nor did its directory
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

// DefaultAgents is Claude Code plus every other agent whose configuration
// folder exists in the working tree or the home directory.
func DefaultAgents(root string) []string {
	home, _ := os.UserHomeDir()
	out := []string{"claude"}
	for _, a := range Agents[1:] {
		d := agentSpecs[a].dir
		if (root != "" && fileExists(filepath.Join(root, d))) || (home != "" && fileExists(filepath.Join(home, d))) {
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
				for _, x := range Agents {
					if !slices.Contains(out, x) {
						out = append(out, x)
					}
				}
			case agentSpecs[a].name == "":
				return nil, fault.Usagef("unknown agent %q (known: %s, or all)", a, strings.Join(Agents, ", "))
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
	}
	for _, a := range agents {
		spec, ok := agentSpecs[a]
		if !ok {
			return fault.Usagef("unknown agent %q (known: %s)", a, strings.Join(Agents, ", "))
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
	m.Agents[i].Events = ch.Events
}

// hooksObject is the "hooks" object of a file that had none: one array
// per event, holding gloss's entry.
func hooksObject(spec agentSpec) (json.RawMessage, error) {
	hooks := &object{vals: map[string]json.RawMessage{}}
	for _, h := range spec.hooks {
		hooks.set(h.Event, json.RawMessage("["+string(groupFor(spec, h))+"]"))
	}
	return hooks.raw()
}

// groupFor is gloss's entry for one event: a matcher group (Claude's
// layout) or a handler (Cursor's).
func groupFor(spec agentSpec, h agentHook) json.RawMessage {
	handler := map[string]any{"command": HookCommand(spec.name, h.Event)}
	for k, v := range spec.handler(h.Event) {
		handler[k] = v
	}
	if spec.cursor {
		raw, _ := json.Marshal(handler)
		return raw
	}
	group := &object{vals: map[string]json.RawMessage{}}
	if h.Matcher != "" {
		mt, _ := json.Marshal(h.Matcher)
		group.set("matcher", mt)
	}
	// Keys in a fixed, readable order: type, command, then the rest.
	hd := &object{vals: map[string]json.RawMessage{}}
	for _, k := range []string{"type", "name", "command", "timeout"} {
		if v, ok := handler[k]; ok {
			raw, _ := json.Marshal(v)
			hd.set(k, raw)
		}
	}
	inner, _ := hd.raw()
	group.set("hooks", json.RawMessage("["+string(inner)+"]"))
	raw, _ := group.raw()
	return raw
}

func eventsOf(spec agentSpec) []string {
	var out []string
	for _, h := range spec.hooks {
		out = append(out, h.Event)
	}
	return out
}

// installAgentHooks brings gloss's entries in one agent's file to what
// this version writes.
func installAgentHooks(spec agentSpec, t MCPTarget) (AgentChange, error) {
	ch := AgentChange{Agent: spec.name, Path: t.Path, Global: t.Global, Root: t.root, Events: eventsOf(spec), Note: spec.note}
	data, err := readTarget(t)
	if errors.Is(err, os.ErrNotExist) {
		ch.Created = true
		ch.CreatedDir = !fileExists(filepath.Dir(t.Path))
		data = nil
	} else if err != nil {
		return ch, fmt.Errorf("read %s: %w", t.Path, err)
	}
	refuse := func(why string) (AgentChange, error) {
		ch.Action, ch.Error, ch.Created, ch.CreatedDir = "refused", fmt.Sprintf("left %s untouched: %s; fix or move it, then run this again", t.Path, why), false, false
		return ch, nil
	}
	top, err := parseObject(data)
	if err != nil {
		return refuse("it is not valid JSON (" + err.Error() + ")")
	}
	if raw, ok := top.get("hooks"); ok && !isJSONObject(raw) {
		return refuse(`"hooks" is not a JSON object`)
	}

	if len(bytes.TrimSpace(data)) == 0 {
		// A new (or blank) file: gloss lays it out.
		if !ch.Created {
			blank := string(data)
			ch.Blank = &blank
		}
		out := &object{vals: map[string]json.RawMessage{}}
		if spec.cursor {
			out.set("version", json.RawMessage("1"))
			ch.CreatedKeys = append(ch.CreatedKeys, "version")
		}
		raw, err := hooksObject(spec)
		if err != nil {
			return ch, err
		}
		out.set("hooks", raw)
		ch.CreatedKeys = append(ch.CreatedKeys, "hooks")
		text, err := out.marshal()
		if err != nil {
			return ch, err
		}
		ch.Action = "added"
		return ch, writeFile(t, text)
	}

	present, err := glossEntries(data, spec.cursor)
	if err != nil {
		return refuse(err.Error())
	}
	if sameEntries(present, spec) {
		ch.Action = "unchanged"
		return ch, nil
	}
	ch.Action = "added"
	if len(present) > 0 {
		ch.Action = "updated"
		if data, err = stripGlossEntries(data, spec.cursor, nil); err != nil {
			return refuse(err.Error())
		}
	}
	out, created, err := withAgentHooks(data, spec)
	if err != nil {
		return refuse(err.Error())
	}
	ch.CreatedKeys = created
	return ch, writeFile(t, out)
}

// withAgentHooks adds gloss's entries to data as text edits and returns
// the keys it had to create.
func withAgentHooks(data []byte, spec agentSpec) ([]byte, []string, error) {
	var created []string
	top, err := locateObject(data, 0, len(data))
	if err != nil {
		return nil, nil, err
	}
	if spec.cursor && top.find("version") < 0 {
		data = insertMember(data, top, "version", json.RawMessage("1"))
		created = append(created, "version")
		if top, err = locateObject(data, 0, len(data)); err != nil {
			return nil, nil, err
		}
	}
	i := top.find("hooks")
	if i < 0 {
		// No hooks yet: one new member holds them all.
		raw, err := hooksObject(spec)
		if err != nil {
			return nil, nil, err
		}
		return insertMember(data, top, "hooks", raw), append(created, "hooks"), nil
	}
	for _, h := range spec.hooks {
		top, err := locateObject(data, 0, len(data))
		if err != nil {
			return nil, nil, err
		}
		hm := top.members[top.find("hooks")]
		hooks, err := locateObject(data, hm.valStart, hm.valEnd)
		if err != nil {
			return nil, nil, fmt.Errorf(`"hooks": %v`, err)
		}
		j := hooks.find(h.Event)
		if j < 0 {
			data = insertMember(data, hooks, h.Event, json.RawMessage("["+string(groupFor(spec, h))+"]"))
			created = append(created, "hooks/"+h.Event)
			continue
		}
		em := hooks.members[j]
		arr, err := locateArray(data, em.valStart, em.valEnd)
		if err != nil {
			return nil, nil, fmt.Errorf(`"hooks"."%s" is not an array`, h.Event)
		}
		data = appendElement(data, arr, groupFor(spec, h))
	}
	return data, created, nil
}

// glossEntry is one of gloss's handlers found in a file: the event, and
// its matcher group (the handler itself in Cursor's layout) as JSON.
type glossEntry struct {
	event string
	group json.RawMessage
}

// glossEntries lists gloss's handlers in a hooks file.
func glossEntries(data []byte, cursor bool) ([]glossEntry, error) {
	var top struct {
		Hooks map[string][]json.RawMessage `json:"hooks"`
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf(`"hooks" is not an object of arrays: %v`, err)
	}
	var out []glossEntry
	for event, groups := range top.Hooks {
		for _, g := range groups {
			if handlersOf(g, cursor, isGlossCommand) > 0 {
				out = append(out, glossEntry{event: event, group: g})
			}
		}
	}
	return out, nil
}

// presentEvents lists the events of gloss's entries, in the order this
// version installs them (others, from an older gloss, after them).
func presentEvents(spec agentSpec, present []glossEntry) []string {
	out := []string{}
	for _, p := range present {
		if !slices.Contains(out, p.event) {
			out = append(out, p.event)
		}
	}
	order := eventsOf(spec)
	rank := func(e string) int {
		if i := slices.Index(order, e); i >= 0 {
			return i
		}
		return len(order)
	}
	slices.SortStableFunc(out, func(a, b string) int { return rank(a) - rank(b) })
	return out
}

// handlersOf counts the handlers in a group whose command satisfies f.
func handlersOf(group json.RawMessage, cursor bool, f func(string) bool) int {
	if cursor {
		var h struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(group, &h) == nil && f(h.Command) {
			return 1
		}
		return 0
	}
	var g struct {
		Hooks []struct {
			Command string `json:"command"`
		} `json:"hooks"`
	}
	n := 0
	if json.Unmarshal(group, &g) == nil {
		for _, h := range g.Hooks {
			if f(h.Command) {
				n++
			}
		}
	}
	return n
}

// sameEntries reports whether the file holds exactly the entries this
// version writes.
func sameEntries(present []glossEntry, spec agentSpec) bool {
	if len(present) != len(spec.hooks) {
		return false
	}
	for _, h := range spec.hooks {
		want := groupFor(spec, h)
		if !slices.ContainsFunc(present, func(e glossEntry) bool { return e.event == h.Event && jsonEqual(e.group, want) }) {
			return false
		}
	}
	return true
}

// stripGlossEntries removes gloss's handlers from data, as text edits: a
// group holding only gloss's handlers goes whole; from a group the user
// added handlers to, only gloss's go. An event array left empty goes too
// when gloss created its key (created lists "hooks/<event>" keys), so that
// uninstall gives back the original bytes.
func stripGlossEntries(data []byte, cursor bool, created []string) ([]byte, error) {
	for {
		next, changed, err := stripOne(data, cursor, created)
		if err != nil || !changed {
			return data, err
		}
		data = next
	}
}

// stripOne removes the first gloss handler it finds.
func stripOne(data []byte, cursor bool, created []string) ([]byte, bool, error) {
	top, err := locateObject(data, 0, len(data))
	if err != nil {
		return nil, false, err
	}
	i := top.find("hooks")
	if i < 0 || !isJSONObject(data[top.members[i].valStart:top.members[i].valEnd]) {
		return data, false, nil
	}
	hooks, err := locateObject(data, top.members[i].valStart, top.members[i].valEnd)
	if err != nil {
		return nil, false, err
	}
	for j, em := range hooks.members {
		arr, err := locateArray(data, em.valStart, em.valEnd)
		if err != nil {
			continue // not an array: not gloss's
		}
		for k, e := range arr.elems {
			group := json.RawMessage(data[e[0]:e[1]])
			n := handlersOf(group, cursor, isGlossCommand)
			if n == 0 {
				continue
			}
			if cursor || handlersOf(group, cursor, func(string) bool { return true }) == n {
				if len(arr.elems) == 1 && (slices.Contains(created, "hooks/"+em.key) || slices.Contains(created, "hooks")) {
					return removeMember(data, hooks, j), true, nil
				}
				return removeElement(data, arr, k), true, nil
			}
			// A mixed group: take out gloss's handlers only.
			g, err := locateObject(data, e[0], e[1])
			if err != nil {
				return nil, false, err
			}
			hm := g.members[g.find("hooks")]
			inner, err := locateArray(data, hm.valStart, hm.valEnd)
			if err != nil {
				return nil, false, err
			}
			for x, h := range inner.elems {
				if handlersOf(json.RawMessage(`{"hooks":[`+string(data[h[0]:h[1]])+`]}`), false, isGlossCommand) > 0 {
					return removeElement(data, inner, x), true, nil
				}
			}
		}
	}
	return data, false, nil
}

// uninstallAgentHooks removes gloss's entries from one agent's file, and
// what install created around them.
func uninstallAgentHooks(e AgentChange, root string) (AgentChange, error) {
	t := MCPTarget{Client: e.Agent, Path: e.Path, Global: e.Global}
	out := AgentChange{Agent: e.Agent, Path: e.Path, Global: e.Global, Root: e.Root, Action: "absent", Events: []string{}}
	if !e.Global {
		// The file belongs to the working tree install ran in, which may be
		// another worktree of this repository (the manifest is shared).
		t.root = root
		if e.Root != "" {
			t.root = e.Root
		}
		if !fileExists(t.root) {
			return out, nil // that worktree is gone, and its files with it
		}
	}
	spec := agentSpecs[e.Agent]
	data, err := readTarget(t)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	} else if err != nil {
		return out, fmt.Errorf("read %s: %w", t.Path, err)
	}
	if _, err := parseObject(data); err != nil {
		out.Action, out.Error = "refused", fmt.Sprintf("left %s untouched: it is not valid JSON (%v); remove gloss's entries (commands \"git gloss agent hook ...\") by hand", t.Path, err)
		return out, nil
	}
	present, err := glossEntries(data, spec.cursor)
	if err != nil {
		out.Action, out.Error = "refused", fmt.Sprintf("left %s untouched: %v", t.Path, err)
		return out, nil
	}
	if len(present) == 0 {
		return out, nil
	}
	out.Events = presentEvents(spec, present)
	out.Action = "removed"
	data, err = stripGlossEntries(data, spec.cursor, e.CreatedKeys)
	if err != nil {
		return out, err
	}
	// The hooks object goes if gloss created it and nothing else is in it;
	// Cursor's version if gloss added it.
	if slices.Contains(e.CreatedKeys, "hooks") {
		top, err := locateObject(data, 0, len(data))
		if err != nil {
			return out, err
		}
		if i := top.find("hooks"); i >= 0 {
			hooks, err := locateObject(data, top.members[i].valStart, top.members[i].valEnd)
			if err == nil && onlyEmptyArrays(data, hooks) {
				data = removeMember(data, top, i)
			}
		}
	}
	if slices.Contains(e.CreatedKeys, "version") {
		top, err := locateObject(data, 0, len(data))
		if err != nil {
			return out, err
		}
		if i := top.find("version"); i >= 0 {
			data = removeMember(data, top, i)
		}
	}
	if e.Blank != nil {
		if top, err := locateObject(data, 0, len(data)); err == nil && len(top.members) == 0 {
			return out, writeFile(t, []byte(*e.Blank))
		}
	}
	if e.Created {
		if top, err := locateObject(data, 0, len(data)); err == nil && len(top.members) == 0 {
			if err := os.Remove(t.Path); err != nil {
				return out, err
			}
			if e.CreatedDir {
				_ = os.Remove(filepath.Dir(t.Path)) // only succeeds if it is empty
			}
			return out, nil
		}
	}
	return out, writeFile(t, data)
}

// onlyEmptyArrays reports whether every member of the object is [] (what
// is left of event arrays gloss created when their keys were not recorded).
func onlyEmptyArrays(data []byte, o objectText) bool {
	for _, m := range o.members {
		if a, err := locateArray(data, m.valStart, m.valEnd); err != nil || len(a.elems) > 0 {
			return false
		}
	}
	return true
}

// AgentState is one agent's hooks file and the gloss events in it.
type AgentState struct {
	Agent   string   `json:"agent"`
	Name    string   `json:"name"`
	Path    string   `json:"path"`
	Global  bool     `json:"global"`
	Exists  bool     `json:"exists"`
	Events  []string `json:"events"`  // the events gloss's entries listen to
	Current bool     `json:"current"` // exactly the entries this version writes
	Error   string   `json:"error,omitempty"`
	Note    string   `json:"note,omitempty"`
}

// AgentStatusResult is `git gloss agent status`.
type AgentStatusResult struct {
	Schema       string              `json:"$schema"`
	Agents       []AgentState        `json:"agents"`
	Instructions []InstructionsState `json:"instructions"`
}

// AgentStatus reports, for every agent, the repository's and the user's
// hooks files and whether gloss's entries are in them.
func AgentStatus(ctx context.Context, repo *gitops.Repo) (*AgentStatusResult, error) {
	res := &AgentStatusResult{Schema: "gloss-agent-status/v1", Agents: []AgentState{}, Instructions: []InstructionsState{}}
	for _, a := range Agents {
		spec := agentSpecs[a]
		for _, global := range []bool{false, true} {
			t, err := agentTarget(spec, repo.Root(), global)
			if err != nil {
				continue
			}
			st := AgentState{Agent: a, Name: spec.display, Path: t.Path, Global: global, Events: []string{}, Note: spec.note}
			data, err := readTarget(t)
			if err == nil {
				st.Exists = true
				if _, perr := parseObject(data); perr != nil {
					st.Error = "not valid JSON: " + perr.Error()
				} else if present, gerr := glossEntries(data, spec.cursor); gerr != nil {
					st.Error = gerr.Error()
				} else {
					st.Events = presentEvents(spec, present)
					st.Current = sameEntries(present, spec)
				}
			}
			res.Agents = append(res.Agents, st)
		}
	}
	if root := repo.Root(); root != "" {
		for _, f := range []string{"AGENTS.md", "CLAUDE.md"} {
			res.Instructions = append(res.Instructions, instructionsState(root, f))
		}
	}
	return res, nil
}

// uninstallAgents removes what agent install recorded. A file it cannot
// parse is left untouched and reported; the rest still goes.
func uninstallAgents(repo *gitops.Repo, m *manifest, res *Result) error {
	for _, e := range m.Agents {
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
	if err := uninstallAgents(repo, m, res); err != nil {
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

func init() {
	schemas.Register(schemas.Entry{Name: "agent-status", Tag: "gloss-agent-status/v1", Description: "Which agents run gloss's hooks (git gloss agent status).", Type: schemas.TypeOf[AgentStatusResult]()})
}
