package archtest

// The layer table of DESIGN.md, written out package by package. It is the
// map of the house: every package of the module has a row, and a row lists
// exactly the gloss packages that package imports (its test files aside).
// layers_test.go holds the table and the code to each other both ways, so a
// new package, a new import or an import that went away fails the tests
// until the table says so too, and every allowed import must point down.

// A rank orders the layers, bottom first. An import may point only to a
// lower rank, or sideways within a layer whose peers build on one another.
type rank int

const (
	names       rank = iota // runenv: names spelled once, which any package may import
	leaf                    // small shared helpers that import no gloss package but runenv
	gitLayer                // gitops: the only package that touches libgit2
	parsing                 // treesitter: the only package that touches tree-sitter
	stores                  // typed notes stores and the one path resolver
	settings                // configuration: reads the team file through safepath
	capability              // what gloss does; one capability may build on another
	workflow                // team workflows, installation, the agents' hooks
	door                    // the thin front doors: MCP, git hooks, web view
	commandLine             // the kong command tree, which mounts the other doors
	program                 // main
	tooling                 // test and benchmark harnesses: nothing above imports them
)

var rankNames = map[rank]string{
	names: "names", leaf: "leaf", gitLayer: "gitops", parsing: "treesitter", stores: "stores",
	settings: "settings", capability: "capability", workflow: "workflow",
	door: "front door", commandLine: "command line", program: "main", tooling: "tooling",
}

// sideways reports whether packages of rank r may import each other's
// peers. Go refuses import cycles, so a sideways import is always one way.
// The stores build on one another too: capture reads the working tree
// through safepath.
func sideways(r rank) bool { return r == stores || r == capability || r == workflow || r == tooling }

type row struct {
	rank    rank
	imports []string
}

var table = map[string]row{
	"runenv": {rank: names},

	// leaves
	"atomicfile":  {rank: leaf},
	"buildinfo":   {rank: leaf},
	"detach":      {rank: leaf},
	"editdist":    {rank: leaf},
	"lazyregexp":  {rank: leaf},
	"fault":       {rank: leaf, imports: []string{"runenv"}},
	"frontmatter": {rank: leaf},
	"guard":       {rank: leaf, imports: []string{"runenv"}},
	"schemas":     {rank: leaf},
	"termtext":    {rank: leaf},

	"gitops":     {rank: gitLayer, imports: []string{"atomicfile", "detach", "fault", "runenv"}},
	"treesitter": {rank: parsing, imports: []string{"editdist"}},

	"notes":    {rank: stores, imports: []string{"atomicfile", "fault", "gitops", "schemas"}},
	"safepath": {rank: stores, imports: []string{"atomicfile", "fault", "gitops"}},
	// what the commit-time pipeline keeps between processes: the captured
	// edits, the staged contexts, the post-commit queue
	"capture": {rank: stores, imports: []string{"atomicfile", "gitops", "safepath"}},

	// DESIGN.md lists config among the leaves, but the team config is a
	// committed file and every committed path goes through safepath, so
	// config sits just above it.
	"config": {rank: settings, imports: []string{"fault", "gitops", "safepath"}},

	"annotate":    {rank: capability, imports: []string{"capture", "editdist", "fault", "gitops", "lazyregexp", "notes", "runenv", "safepath", "schemas", "treesitter"}},
	"attribution": {rank: capability, imports: []string{"annotate", "buildinfo", "capture", "fault", "gitops", "lazyregexp", "notes", "runenv", "safepath", "schemas"}},
	"noma":        {rank: capability, imports: []string{"atomicfile", "buildinfo", "editdist", "fault", "gitops", "lazyregexp", "safepath", "schemas"}},
	"notebook":    {rank: capability, imports: []string{"atomicfile", "config", "fault", "frontmatter", "gitops", "runenv", "safepath", "schemas"}},
	"reconcile":   {rank: capability, imports: []string{"atomicfile", "buildinfo", "fault", "gitops", "notes", "runenv", "safepath", "schemas", "spec"}},
	"spec":        {rank: capability, imports: []string{"config", "editdist", "fault", "gitops", "lazyregexp", "safepath", "schemas"}},
	"decisions":   {rank: capability, imports: []string{"annotate", "atomicfile", "gitops", "notes", "treesitter"}},
	"tasks":       {rank: capability, imports: []string{"atomicfile", "config", "detach", "fault", "frontmatter", "gitops", "lazyregexp", "runenv", "safepath", "schemas"}},
	// which MCP tools a session has: the server's rules, read by the
	// server and by the agent hooks (which name only tools a session has)
	"toolsets": {rank: capability, imports: []string{"config", "fault", "gitops", "notebook", "safepath", "tasks"}},
	"why":      {rank: capability, imports: []string{"annotate", "attribution", "config", "decisions", "fault", "gitops", "notes", "safepath", "schemas", "treesitter"}},

	"agent": {rank: workflow, imports: []string{"annotate", "atomicfile", "capture", "config", "fault", "gitops", "guard", "lazyregexp", "notebook", "notes", "reconcile", "safepath", "schemas", "tasks", "toolsets", "why"}},
	// entire reads Entire's checkpoints into agent's session records and
	// attribution's line records: an import workflow over both.
	"entire": {rank: workflow, imports: []string{"agent", "attribution", "fault", "gitops", "lazyregexp", "notes", "schemas"}},
	"forge":  {rank: workflow, imports: []string{"annotate", "attribution", "buildinfo", "fault", "gitops", "lazyregexp", "noma", "notes", "reconcile", "schemas", "tasks"}},
	// review composes the capabilities and forge's check into a pull
	// request's report, and posts it: a team workflow on a forge, like forge.
	"review": {rank: workflow, imports: []string{"agent", "annotate", "attribution", "buildinfo", "config", "fault", "forge", "gitops", "notes", "runenv", "schemas", "spec", "tasks", "why"}},
	"setup":  {rank: workflow, imports: []string{"agent", "atomicfile", "buildinfo", "capture", "config", "fault", "gitops", "notes", "safepath", "schemas", "toolsets"}},

	"hooks": {rank: door, imports: []string{"agent", "annotate", "attribution", "capture", "detach", "gitops", "guard", "reconcile", "review", "setup"}},
	"mcp":   {rank: door, imports: []string{"annotate", "attribution", "buildinfo", "detach", "fault", "gitops", "noma", "notebook", "reconcile", "runenv", "safepath", "schemas", "setup", "spec", "tasks", "toolsets", "why"}},
	"web":   {rank: door, imports: []string{"annotate", "attribution", "fault", "gitops", "noma", "notebook", "notes", "reconcile", "review", "safepath", "schemas", "setup", "tasks", "why"}},
	"lsp":   {rank: door, imports: []string{"annotate", "atomicfile", "attribution", "gitops", "reconcile", "treesitter", "why"}},

	"cli": {rank: commandLine, imports: []string{"agent", "annotate", "atomicfile", "attribution", "buildinfo", "detach", "editdist", "entire", "fault", "forge", "gitops", "hooks", "lsp", "mcp", "noma", "notebook", "notes", "reconcile", "review", "runenv", "safepath", "schemas", "setup", "spec", "tasks", "termtext", "toolsets", "web", "why"}},

	"cmd/git-gloss": {rank: program, imports: []string{"cli", "runenv"}},

	"archtest":             {rank: tooling},
	"fixtures":             {rank: tooling, imports: []string{"runenv"}},
	"bench":                {rank: tooling, imports: []string{"annotate", "atomicfile", "attribution", "fixtures", "gitops", "notes", "reconcile", "treesitter", "why"}},
	"bench/cmd/agenthooks": {rank: tooling, imports: []string{"bench"}},
	"bench/cmd/compare":    {rank: tooling, imports: []string{"bench", "fixtures"}},
	"bench/cmd/delivery":   {rank: tooling, imports: []string{"bench"}},
	"bench/cmd/mcpcalls":   {rank: tooling, imports: []string{"bench"}},
	"bench/cmd/recipe":     {rank: tooling, imports: []string{"bench", "fixtures"}},
	"tests/agent-e2e":      {rank: tooling},
	"tests/demo":           {rank: tooling},
	"tests/dist":           {rank: tooling},
	"tests/hostile":        {rank: tooling},
}
