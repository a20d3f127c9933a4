package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// The text edits of one agent's hooks file: gloss's entries in and out,
// every other byte left as the user wrote it (see jsonedit.go).

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
	if spec.file != nil {
		return installOwnedFile(spec, t)
	}
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
	spec := agentSpecs()[e.Agent]
	if spec.file != nil {
		return uninstallOwnedFile(e, t)
	}
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
