package cli

import (
	"os"
	"strings"

	"github.com/gloss-dev/gloss/mcp"
	"github.com/gloss-dev/gloss/setup"
	"github.com/gloss-dev/gloss/toolsets"
)

// McpCmd groups `git gloss mcp` (serve) and `git gloss mcp install`.
type McpCmd struct {
	Serve   McpServeCmd   `cmd:"" default:"withargs" help:"Run the MCP server on stdin/stdout (the default)."`
	Install McpInstallCmd `cmd:"" help:"Register gloss with an MCP client."`
}

// McpServeCmd is `git gloss mcp [serve]`.
type McpServeCmd struct {
	Toolsets      string `name:"toolsets" placeholder:"LIST" help:"Comma-separated toolsets to expose: ${toolsets}, all, or default (${default_toolsets} plus what the repository uses). Without it: [mcp] toolsets in .gloss/config.toml, else default."`
	ReadOnly      bool   `name:"read-only" help:"Leave out every tool that changes anything."`
	Dynamic       bool   `name:"dynamic-toolsets" help:"Start with core plus list_toolsets and enable_toolset; the agent turns toolsets on as it needs them."`
	OutputSchemas bool   `name:"output-schemas" help:"List each tool's output schema (large; a result names its shape in its schema tag either way)."`
}

// Help is the long help of mcp serve.
func (McpServeCmd) Help() string {
	return `Runs gloss's MCP server over stdio: JSON-RPC 2.0, one message per line,
protocol versions 2024-11-05 through the newest. MCP clients start it
themselves (see "git gloss mcp install"); run it by hand only to debug.

Only protocol messages go to stdout; logs go to stderr. A malformed line is
answered with a parse error and the server keeps serving; a failing or
panicking tool returns an error result; at the end of input the calls in
flight are answered before the server exits 0.`
}

// Run serves until stdin closes.
func (c *McpServeCmd) Run(g *Globals) error {
	// Only JSON-RPC may reach stdout: keep the real one for the protocol
	// and send anything else that writes to os.Stdout to stderr.
	out := g.rawStdout
	if out == os.Stdout {
		os.Stdout = os.Stderr
		defer func() { os.Stdout = out.(*os.File) }()
	}
	var toolsets []string
	if c.Toolsets != "" {
		toolsets = strings.Split(c.Toolsets, ",")
	}
	return mcp.Serve(g.ctx, mcp.Options{Dir: g.Dir, Toolsets: toolsets, ReadOnly: c.ReadOnly,
		Dynamic: c.Dynamic, OutputSchemas: c.OutputSchemas}, g.stdin, out)
}

// McpInstallCmd is `git gloss mcp install`.
type McpInstallCmd struct {
	Client   string `name:"client" enum:"claude,cursor,vscode" default:"claude" help:"Client to register with: claude (.mcp.json), cursor (.cursor/mcp.json) or vscode (.vscode/mcp.json)."`
	Global   bool   `name:"global" help:"Register in the user's configuration instead of the repository's (~/.claude.json, ~/.cursor/mcp.json, VS Code's user mcp.json)."`
	Toolsets string `name:"toolsets" placeholder:"LIST" help:"Toolsets the server exposes to this client, comma-separated: ${toolsets}, all, or default (the team's [mcp] toolsets, else what the repository uses). Omitted: an existing entry keeps its list."`
}

// Help is the long help of mcp install.
func (McpInstallCmd) Help() string {
	return `Adds a "gloss" server entry (command git-gloss, args ["mcp"]) to the
client's MCP configuration, keeping every other server and key in the file.
A file that is not valid JSON is left untouched and reported.
"git gloss uninstall" removes the entry again.

Which tools the agent sees: first, --toolsets here, written into the entry
as the server's own --toolsets ("default" takes the list out again):

  git gloss mcp install --toolsets default,tasks
  git gloss mcp install --toolsets all --client vscode

Without it, the team's choice in .gloss/config.toml:

  [mcp]
  toolsets = ["default", "notebook"]

Else the repository's default: core, annotations and specs, plus tasks
when there are task files, documents when .noma files are tracked and
notebook when the notebook holds notes, within a 24 KB tools/list budget
(what does not fit is one enable_toolset call away).`
}

// Run registers the server.
func (c *McpInstallCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	var list []string // nil: keep the entry's
	if c.Toolsets != "" {
		list = []string{}
		for _, name := range strings.Split(c.Toolsets, ",") {
			if name = strings.TrimSpace(name); name != "" {
				list = append(list, name)
			}
		}
		if err := toolsets.Check(list); err != nil {
			return err
		}
		if len(list) == 1 && list[0] == "default" {
			list = []string{} // the server's own default: no --toolsets in the entry
		}
	}
	res, err := setup.RegisterMCP(g.ctx, repo, c.Client, c.Global, list)
	if err != nil {
		return err
	}
	return g.emit(res, func(s *styler) { printSetupResult(s, repo.Root(), res, "gloss is registered with "+c.Client) })
}
