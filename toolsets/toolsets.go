// Package toolsets decides which of gloss's MCP tools a session has: the
// rules the MCP server starts by, written once so that what the agent
// hooks tell an agent ("ask gloss_read …", "search_notes …") names only
// tools its session really has, or says how to get them.
//
// The rules need what each toolset costs in tools/list and which toolset
// holds each tool; the MCP server is where tools are registered, so those
// figures live here as a table (table.go) that a test in mcp regenerates
// from the registered tools and fails on when they drift. Deciding costs
// no tool registration and no server: a hook can ask.
package toolsets

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/config"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notebook"
	"github.com/gloss-dev/gloss/tasks"
)

// Which toolsets a session exposes, first rule that applies:
//
//  1. the server's --toolsets (what `git gloss mcp install --toolsets`
//     writes into the client's configuration);
//  2. [mcp] toolsets in .gloss/config.toml, the team's choice;
//  3. the repository's default: Default, plus each toolset the
//     repository visibly uses — task files → tasks, tracked .noma files →
//     documents, a notebook with notes of its own → notebook — as far as
//     they fit in Budget. A used toolset that does not fit is one
//     enable_toolset away (list_toolsets and enable_toolset are added).
//
// In a list, "all" is every toolset and "default" is rule 3's set.

// Budget bounds the tools/list answer of the repository's default (rule
// 3): what every agent session pays before its first call. A list the
// user or the team names is theirs, whatever its size.
const Budget = 24 * 1024

// Default are the toolsets every repository's default starts from: the
// ones an agent needs in every session. The others join the default where
// the repository uses them, or where asked for (--toolsets, [mcp]
// toolsets, enable_toolset).
var Default = []string{"core", "annotations", "specs"}

// Dynamic names list_toolsets and enable_toolset in the table: not a
// toolset a person picks, the two tools that turn the others on.
const Dynamic = "dynamic"

// Names lists the toolsets a user may pick from, in the order their tools
// are listed.
func Names() []string { return slices.Clone(names) }

var names = []string{"core", "annotations", "specs", "documents", "tasks", "notebook"}

// Where a session's list came from (Selection.Source).
const (
	SourceFlag    = "flag"    // the server's --toolsets (or --dynamic-toolsets)
	SourceTeam    = "team"    // [mcp] toolsets in .gloss/config.toml
	SourceDefault = "default" // the repository's default
)

// Settings is the [mcp] table of .gloss/config.toml.
type Settings struct {
	Toolsets []string `toml:"toolsets"`
}

// Options are how the server is started: its flags.
type Options struct {
	Toolsets      []string // --toolsets; empty: the team's, else the default
	ReadOnly      bool     // --read-only: the tools that change anything are left out
	Dynamic       bool     // --dynamic-toolsets: core plus list_toolsets/enable_toolset
	OutputSchemas bool     // --output-schemas: bigger tools/list entries
	// Extra are further names a list may use (the test builds' debug
	// toolset); they are turned on like any other.
	Extra []string
}

// Selection is what a session starts with.
type Selection struct {
	On       map[string]bool
	LeftOut  []string // used by the repository, not in the default for lack of budget
	Source   string   // SourceFlag, SourceTeam or SourceDefault
	Dynamic  bool     // list_toolsets and enable_toolset are there
	ReadOnly bool
	Options  Options // what it was decided from
	// Warnings are what the server should tell its log: a team file that
	// could not be read, a name this binary does not know.
	Warnings []string
}

// Check validates a user's toolset list (for `mcp install`, which writes
// it into a client's configuration before any server runs).
func Check(list []string) error {
	for _, name := range list {
		if name = strings.TrimSpace(name); name != "" && name != "all" && name != "default" && !slices.Contains(names, name) {
			return unknown(name)
		}
	}
	return nil
}

func unknown(name string) error {
	return fault.Usagef("unknown toolset %q (available: all, default, %s)", name, strings.Join(names, ", "))
}

// Select applies the rules above for the repository (nil, or a bare
// one, leaves rules 2 and 3 with nothing to read: the base default).
func Select(repo *gitops.Repo, opts Options) (Selection, error) {
	return selectFor(repo, opts, true)
}

// SelectFor is Select deciding only as far as the named tools need: for
// tools of Default's toolsets, rule 3 runs none of its tests (which read
// the git index and walk the notebook: a large repository's index is
// megabytes, and the pre-edit hook asks on every edit). The selection
// answers Has for those tools only.
func SelectFor(repo *gitops.Repo, opts Options, tools ...string) (Selection, error) {
	used := false
	for _, name := range tools {
		if t, ok := ToolsetOf(name); !ok || !slices.Contains(Default, t.Toolset) {
			used = true
		}
	}
	return selectFor(repo, opts, used)
}

// selectFor is Select; without used, rule 3 leaves out the toolsets the
// repository uses.
func selectFor(repo *gitops.Repo, opts Options, used bool) (Selection, error) {
	if repo != nil && repo.IsBare() {
		repo = nil
	}
	sel := Selection{On: map[string]bool{"core": opts.Dynamic}, Source: SourceFlag, ReadOnly: opts.ReadOnly, Options: opts} // dynamic mode always starts from core
	list := opts.Toolsets
	if len(list) == 0 && !opts.Dynamic {
		sel.Source, list = SourceDefault, []string{"default"}
		if team, err := teamToolsets(repo); err != nil {
			sel.Warnings = append(sel.Warnings, "team configuration ignored: "+err.Error())
		} else if len(team) > 0 {
			sel.Source, list = SourceTeam, team
		}
	}
	for _, name := range list {
		name = strings.TrimSpace(name)
		switch {
		case name == "":
		case name == "all":
			for _, n := range names {
				sel.On[n] = true
			}
		case name == "default":
			on, left := repositoryDefault(repo, opts, used)
			for _, n := range on {
				sel.On[n] = true
			}
			sel.LeftOut = left
		case slices.Contains(names, name) || slices.Contains(opts.Extra, name):
			sel.On[name] = true
		case sel.Source == SourceTeam:
			// A committed file naming a toolset this binary lacks (a newer
			// gloss's) must not keep the server from starting.
			sel.Warnings = append(sel.Warnings, fmt.Sprintf("%s: [mcp] toolsets names an unknown toolset %q; ignored", config.TeamFile, name))
		default:
			return sel, unknown(name)
		}
	}
	sel.LeftOut = slices.DeleteFunc(sel.LeftOut, func(n string) bool { return sel.On[n] })
	// What the repository uses but the default's budget left out is one
	// enable_toolset away.
	sel.Dynamic = opts.Dynamic || len(sel.LeftOut) > 0
	return sel, nil
}

// teamToolsets reads [mcp] toolsets.
func teamToolsets(repo *gitops.Repo) ([]string, error) {
	if repo == nil {
		return nil, nil
	}
	cfg, err := config.LoadTeam(repo)
	if err != nil {
		return nil, err
	}
	var s Settings
	if err := cfg.Section("mcp", &s); err != nil {
		return nil, err
	}
	return s.Toolsets, nil
}

type usedToolset struct {
	name string
	used func(*gitops.Repo) bool
}

// usedToolsets are the toolsets the default adds when the repository uses
// them, in the order they are fitted into the budget, with the cheap test
// for each.
var usedToolsets = []usedToolset{
	{"tasks", tasks.InUse},
	{"documents", func(r *gitops.Repo) bool { return r.IndexHasSuffix(".noma") }},
	{"notebook", notebook.HasNotes},
}

// InUse reports whether the repository uses a toolset as rule 3 sees it:
// Default's always, the others by their test (task files, tracked .noma
// files, notes in the notebook).
func InUse(repo *gitops.Repo, toolset string) bool {
	if slices.Contains(Default, toolset) {
		return true
	}
	i := slices.IndexFunc(usedToolsets, func(u usedToolset) bool { return u.name == toolset })
	return i >= 0 && repo != nil && !repo.IsBare() && usedToolsets[i].used(repo)
}

// repositoryDefault is rule 3: Default and the used toolsets that fit the
// budget, and those that did not.
func repositoryDefault(repo *gitops.Repo, opts Options, withUsed bool) (on, leftOut []string) {
	on = slices.Clone(Default)
	if repo == nil || !withUsed {
		return on, nil
	}
	var used []string
	for _, u := range usedToolsets {
		if u.used(repo) {
			used = append(used, u.name)
		}
	}
	size := ListOverhead
	for _, name := range on {
		size += Size(name, opts.ReadOnly, opts.OutputSchemas)
	}
	all := size
	for _, name := range used {
		all += Size(name, opts.ReadOnly, opts.OutputSchemas)
	}
	if all <= Budget {
		return append(on, used...), nil
	}
	size += Size(Dynamic, opts.ReadOnly, opts.OutputSchemas) // the way to turn on what does not fit
	for _, name := range used {
		if n := Size(name, opts.ReadOnly, opts.OutputSchemas); size+n <= Budget {
			size += n
			on = append(on, name)
		} else {
			leftOut = append(leftOut, name)
		}
	}
	return on, leftOut
}

// ListOverhead is the tools/list response around the tools themselves.
const ListOverhead = len(`{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`) + 8

// Size is what a toolset's tools (or, for Dynamic, list_toolsets and
// enable_toolset) add to tools/list: each tool's JSON and a separator.
func Size(name string, readOnly, outputSchemas bool) int {
	s := sizes[name]
	return s[variant(readOnly, outputSchemas)]
}

// variant indexes a toolset's sizes.
func variant(readOnly, outputSchemas bool) int {
	v := 0
	if readOnly {
		v |= 1
	}
	if outputSchemas {
		v |= 2
	}
	return v
}

// Tool is one MCP tool: its toolset and whether it changes anything (left
// out under --read-only).
type Tool struct {
	Name, Toolset string
	Writes        bool
}

// Tools lists every tool, in the order the server lists them when every
// toolset is on (then list_toolsets and enable_toolset).
func Tools() []Tool { return slices.Clone(tools) }

// ToolsetOf returns the tool's entry; ok is false for a tool no toolset
// has.
func ToolsetOf(tool string) (t Tool, ok bool) {
	i := slices.IndexFunc(tools, func(t Tool) bool { return t.Name == tool })
	if i < 0 {
		return Tool{}, false
	}
	return tools[i], true
}

// ToolNames lists a toolset's tools, sorted; under readOnly only those
// that change nothing.
func ToolNames(toolset string, readOnly bool) []string {
	var out []string
	for _, t := range tools {
		if t.Toolset == toolset && !(readOnly && t.Writes) {
			out = append(out, t.Name)
		}
	}
	slices.Sort(out)
	return out
}

// Has reports whether a session with this selection lists the tool.
func (s Selection) Has(tool string) bool {
	t, ok := ToolsetOf(tool)
	switch {
	case !ok:
		return false
	case s.ReadOnly && t.Writes:
		return false
	case t.Toolset == Dynamic:
		return s.Dynamic
	}
	return s.On[t.Toolset]
}
