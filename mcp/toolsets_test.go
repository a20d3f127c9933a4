package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/gloss-dev/gloss/toolsets"
)

func compact(raw string) string {
	var v any
	if json.Unmarshal([]byte(raw), &v) != nil {
		return raw
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// toolsetsListed returns the toolsets with a tool in a tools/list answer.
func toolsetsListed(t *testing.T, line string) []string {
	t.Helper()
	prefixes := map[string]string{"gloss_status": "core", "gloss_read": "annotations", "list_affected_specs": "specs",
		"read_doc": "documents", "task_ready": "tasks", "list_notes": "notebook", "enable_toolset": "dynamic"}
	var out []string
	for _, name := range gjson.Get(line, "result.tools.#.name").Array() {
		if ts, ok := prefixes[name.String()]; ok {
			out = append(out, ts)
		}
	}
	slices.Sort(out)
	return out
}

// The default follows what the repository uses: tasks, tracked .noma
// documents, a notebook with notes; within the budget, with what does not
// fit one enable_toolset away; a team's [mcp] toolsets replaces it, and the
// server's --toolsets replaces both.
func TestDefaultToolsetsFollowTheRepository(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)
	fx.MustGloss("init", "--no-mcp") // scaffolds an empty notebook: not "a notebook with notes"
	want := func(label string, want ...string) string {
		t.Helper()
		line := toolsListLine(t, fx.Dir)
		slices.Sort(want)
		if got := toolsetsListed(t, line); !slices.Equal(got, want) {
			t.Errorf("%s: toolsets %v, want %v", label, got, want)
		}
		if len(line) > toolsets.Budget {
			t.Errorf("%s: default tools/list is %d bytes, over the %d budget", label, len(line), toolsets.Budget)
		}
		return line
	}
	want("fresh repository", "core", "annotations", "specs")

	fx.Write(".gloss/notebook/notes/deploy.md", "# Deploy\n\nRun make deploy.\n")
	want("with a note", "core", "annotations", "specs", "notebook")

	fx.Write("design.noma", "# Design\n")
	want("untracked .noma", "core", "annotations", "specs", "notebook")
	fx.Git("add", "design.noma")
	want("with a note and a tracked .noma", "core", "annotations", "specs", "documents", "notebook")

	// Tasks, documents and notes are more than the budget holds: what fits
	// (in the order tasks, documents, notebook) is on, the rest is one
	// enable_toolset away. With gloss_blame and gloss_stats in annotations,
	// tasks fits and documents (5.5 KB more) does not.
	fx.Write(".gloss/tasks/2026-01-01-001-abc.md", "---\nstatus: pending\n---\n# Do the thing\n")
	want("everything used", "core", "annotations", "specs", "tasks", "dynamic")

	fx.Write(".gloss/config.toml", "[mcp]\ntoolsets = [\"core\", \"notebook\"]\n")
	want("team choice", "core", "notebook")
	line := toolsListLine(t, fx.Dir, "--toolsets", "default,notebook")
	if got := toolsetsListed(t, line); !slices.Contains(got, "notebook") || !slices.Contains(got, "annotations") {
		t.Errorf("--toolsets default,notebook: %v", got)
	}
}

// A call to a tool of a toolset the session leaves out is still invalid
// params (-32602), and says which toolset has the tool and how to turn it on.
func TestUnknownToolNamesItsToolset(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)
	cases := []struct {
		args []string
		team string
		want []string
	}{
		{nil, "", []string{`"task_ready"`, "tasks toolset", "git gloss mcp install --toolsets default,tasks", "[mcp]"}},
		{[]string{"--dynamic-toolsets"}, "", []string{"tasks toolset", `enable_toolset with {\"toolset\":\"tasks\"}`}},
		{nil, "[mcp]\ntoolsets = [\"core\"]\n", []string{"team configuration", `add \"tasks\"`}},
		{[]string{"--read-only", "--toolsets", "all"}, "", []string{"--read-only"}},
	}
	for _, c := range cases {
		tool := "task_ready"
		if slices.Contains(c.args, "--read-only") {
			tool = "task_add"
		}
		if c.team != "" {
			fx.Write(".gloss/config.toml", c.team)
		} else {
			_ = os.Remove(filepath.Join(fx.Dir, ".gloss", "config.toml"))
		}
		s := startServerArgs(t, fx.Dir, c.args)
		s.initialize("2025-06-18")
		s.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}` + "\n")
		reply := s.next()
		if errCode(reply) != -32602 {
			t.Errorf("%v: %s: code %d, want -32602", c.args, tool, errCode(reply))
		}
		raw, _ := json.Marshal(reply["error"])
		for _, w := range c.want {
			if !strings.Contains(string(raw), w) {
				t.Errorf("%v: error %s does not say %q", c.args, raw, w)
			}
		}
	}
}

// mcp install --toolsets writes the list into the client's entry; init
// run again keeps it; --toolsets default takes it out; a name gloss does
// not know is refused before anything is written.
func TestInstallWritesToolsets(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)
	fx.MustGloss("init")
	args := func() string {
		data, err := os.ReadFile(filepath.Join(fx.Dir, ".mcp.json"))
		if err != nil {
			t.Fatal(err)
		}
		return compact(gjson.GetBytes(data, "mcpServers.gloss.args").Raw)
	}
	fx.MustGloss("mcp", "install", "--toolsets", "default,tasks")
	if got := args(); got != `["mcp","--toolsets","default,tasks"]` {
		t.Errorf("after --toolsets default,tasks: args %s", got)
	}
	fx.MustGloss("init")
	fx.MustGloss("mcp", "install")
	if got := args(); got != `["mcp","--toolsets","default,tasks"]` {
		t.Errorf("init and install without --toolsets changed the list: args %s", got)
	}
	if out, err := fx.Gloss("mcp", "install", "--toolsets", "tasks,nope"); err == nil || !strings.Contains(out, `unknown toolset "nope"`) {
		t.Errorf("unknown toolset accepted: %v %s", err, out)
	}
	fx.MustGloss("mcp", "install", "--toolsets", "default")
	if got := args(); got != `["mcp"]` {
		t.Errorf("after --toolsets default: args %s", got)
	}
	fx.MustGloss("mcp", "install", "--toolsets", "all", "--client", "vscode")
	data, err := os.ReadFile(filepath.Join(fx.Dir, ".vscode", "mcp.json"))
	if err != nil || compact(gjson.GetBytes(data, "servers.gloss.args").Raw) != `["mcp","--toolsets","all"]` {
		t.Errorf("vscode entry: %s %v", data, err)
	}
}
