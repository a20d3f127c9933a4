package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gloss-dev/gloss/config"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notebook"
	"github.com/gloss-dev/gloss/tasks"
)

// debugToolset names the test builds' debug tools (debug.go).
const debugToolset = "debug"

// Which toolsets a session exposes, first rule that applies:
//
//  1. the server's --toolsets (what `git gloss mcp install --toolsets`
//     writes into the client's configuration);
//  2. [mcp] toolsets in .gloss/config.toml, the team's choice;
//  3. the repository's default: DefaultToolsets, plus each toolset the
//     repository visibly uses — task files → tasks, tracked .noma files →
//     documents, a notebook with notes of its own → notebook — as far as
//     they fit in DefaultBudget. A used toolset that does not fit is one
//     enable_toolset away (list_toolsets and enable_toolset are added).
//
// In a list, "all" is every toolset and "default" is rule 3's set.

// DefaultBudget bounds the tools/list answer of the repository's default
// (rule 3): what every agent session pays before its first call. A list
// the user or the team names is theirs, whatever its size.
const DefaultBudget = 24 * 1024

// Settings is the [mcp] table of .gloss/config.toml.
type Settings struct {
	Toolsets []string `toml:"toolsets"`
}

// usedToolsets are the toolsets the default adds when the repository uses
// them, in the order they are fitted into the budget, with the cheap test
// for each.
var usedToolsets = []struct {
	name string
	used func(*gitops.Repo) bool
}{
	{"tasks", tasks.InUse},
	{"documents", func(r *gitops.Repo) bool { return r.IndexHasSuffix(".noma") }},
	{"notebook", notebook.HasNotes},
}

// CheckToolsets validates a user's toolset list (for `mcp install`, which
// writes it into a client's configuration before any server runs).
func CheckToolsets(names []string) error {
	for _, name := range names {
		if name = strings.TrimSpace(name); name != "" && name != "all" && name != "default" && !slices.Contains(ToolsetNames(), name) {
			return fault.Usagef("unknown toolset %q (available: all, default, %s)", name, strings.Join(ToolsetNames(), ", "))
		}
	}
	return nil
}

// selection is what a session starts with.
type selection struct {
	on      map[string]bool
	leftOut []string // used by the repository, not in the default for lack of budget
	source  string   // "flag", "team" or "default"
}

// selectToolsets applies the rules above. It takes the session's first
// repository handle (a directory that is no repository leaves rules 2 and 3
// with nothing to read: the base default).
func selectToolsets(opts Options, handles *handlePool) (selection, error) {
	sel := selection{on: map[string]bool{"core": opts.Dynamic}, source: "flag"} // dynamic mode always starts from core
	names := opts.Toolsets
	var repo *gitops.Repo
	if h, err := handles.get(); err == nil {
		defer handles.put(h)
		repo = h.repo
	}
	if len(names) == 0 && !opts.Dynamic {
		sel.source, names = "default", []string{"default"}
		if team := teamToolsets(repo); len(team) > 0 {
			sel.source, names = "team", team
		}
	}
	for _, name := range names {
		name = strings.TrimSpace(name)
		switch {
		case name == "":
		case name == "all":
			for _, ts := range toolsets {
				sel.on[ts.name] = true
			}
		case name == "default":
			on, left := repositoryDefault(repo, opts)
			for _, n := range on {
				sel.on[n] = true
			}
			sel.leftOut = left
		case slices.Contains(ToolsetNames(), name) || (name == debugToolset && debugEnabled()):
			sel.on[name] = true
		case sel.source == "team":
			// A committed file naming a toolset this binary lacks (a newer
			// gloss's) must not keep the server from starting.
			slog.Warn("mcp: "+config.TeamFile+": [mcp] toolsets names an unknown toolset; ignored", "toolset", name)
		default:
			return sel, fault.Usagef("unknown toolset %q (available: all, default, %s)", name, strings.Join(ToolsetNames(), ", "))
		}
	}
	sel.leftOut = slices.DeleteFunc(sel.leftOut, func(n string) bool { return sel.on[n] })
	return sel, nil
}

// teamToolsets reads [mcp] toolsets; a team file that cannot be read is
// reported on stderr and the default applies.
func teamToolsets(repo *gitops.Repo) []string {
	if repo == nil || repo.IsBare() {
		return nil
	}
	cfg, err := config.LoadTeam(repo)
	if err == nil {
		var s Settings
		if err = cfg.Section("mcp", &s); err == nil {
			return s.Toolsets
		}
	}
	slog.Warn("mcp: team configuration ignored", "err", err)
	return nil
}

// repositoryDefault is rule 3: DefaultToolsets and the used toolsets that
// fit the budget, and those that did not.
func repositoryDefault(repo *gitops.Repo, opts Options) (on, leftOut []string) {
	on = slices.Clone(DefaultToolsets)
	if repo == nil {
		return on, nil
	}
	var used []string
	for _, u := range usedToolsets {
		if u.used(repo) {
			used = append(used, u.name)
		}
	}
	size := listOverhead
	for _, name := range on {
		size += toolsetBytes(name, opts)
	}
	all := size
	for _, name := range used {
		all += toolsetBytes(name, opts)
	}
	if all <= DefaultBudget {
		return append(on, used...), nil
	}
	size += dynamicBytes(opts) // the way to turn on what does not fit
	for _, name := range used {
		if n := toolsetBytes(name, opts); size+n <= DefaultBudget {
			size += n
			on = append(on, name)
		} else {
			leftOut = append(leftOut, name)
		}
	}
	return on, leftOut
}

// listOverhead is the tools/list response around the tools themselves.
const listOverhead = len(`{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`) + 8

var (
	sizesMu sync.Mutex
	sizes   = map[string]int{}
)

// toolsetBytes is what a toolset's tools add to tools/list, measured by
// registering them on a scratch server and encoding them as the SDK does.
func toolsetBytes(name string, opts Options) int {
	key := fmt.Sprint(name, opts.ReadOnly, opts.OutputSchemas)
	sizesMu.Lock()
	defer sizesMu.Unlock()
	if n, ok := sizes[key]; ok {
		return n
	}
	scratch := scratchRegistry(opts)
	if name == "dynamic" {
		registerDynamic(scratch)
	} else if i := slices.IndexFunc(toolsets, func(ts toolset) bool { return ts.name == name }); i >= 0 {
		toolsets[i].register(scratch)
	}
	n := 0
	for _, t := range scratch.defs {
		data, _ := json.Marshal(t)
		n += len(data) + 1
	}
	sizes[key] = n
	return n
}

func dynamicBytes(opts Options) int { return toolsetBytes("dynamic", opts) }

func scratchRegistry(opts Options) *registry {
	return &registry{server: sdk.NewServer(&sdk.Implementation{Name: "scratch"}, nil), readOnly: opts.ReadOnly,
		outputSchemas: opts.OutputSchemas, required: map[string][]string{}, enabled: map[string]bool{}}
}

// toolsetOf names the toolset that has tool, "" if none does.
func toolsetOf(tool string, readOnly bool) (name string, leftOutByReadOnly bool) {
	for _, ts := range toolsets {
		if slices.Contains(toolNames(ts, false), tool) {
			return ts.name, readOnly && !slices.Contains(toolNames(ts, true), tool)
		}
	}
	return "", false
}

// explainUnknownTools answers a call to a tool this session does not
// expose with the same invalid-params error (-32602) the SDK sends, but
// saying which toolset has it and how to turn that on.
func (r *registry) explainUnknownTools(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		p, ok := req.GetParams().(*sdk.CallToolParamsRaw)
		if !ok {
			return next(ctx, method, req)
		}
		r.mu.Lock()
		_, registered := r.required[p.Name]
		dynamic, source := r.dynamic, r.source
		r.mu.Unlock()
		if registered {
			return next(ctx, method, req)
		}
		ts, readOnly := toolsetOf(p.Name, r.readOnly)
		var msg string
		switch {
		case ts == "":
			return next(ctx, method, req)
		case readOnly:
			msg = fmt.Sprintf("unknown tool %q: it changes the repository, and this server runs with --read-only", p.Name)
		case dynamic:
			msg = fmt.Sprintf("unknown tool %q: it is in the %s toolset, which is off in this session; call enable_toolset with {\"toolset\":%q}, then list tools again", p.Name, ts, ts)
		case source == "team":
			msg = fmt.Sprintf("unknown tool %q: it is in the %s toolset, which this repository's team configuration leaves out; add %q to toolsets under [mcp] in .gloss/config.toml (or give this client its own list with `git gloss mcp install --toolsets default,%s`), then restart the MCP server", p.Name, ts, ts, ts)
		default:
			msg = fmt.Sprintf("unknown tool %q: it is in the %s toolset, which this server does not expose; turn it on with `git gloss mcp install --toolsets default,%s` (this client's configuration) or `toolsets = [\"default\", %q]` under [mcp] in .gloss/config.toml (the team's), then restart the MCP server", p.Name, ts, ts, ts)
		}
		data, _ := json.Marshal(map[string]string{"tool": p.Name, "toolset": ts})
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg, Data: data}
	}
}
