// Package cli is gloss's command-line front door: `git gloss <command>`.
// It parses arguments with kong, calls the same library functions the MCP
// server calls, and prints either the shared JSON encoding (--json) or a
// human view. It holds no logic another front door would need.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/alecthomas/kong"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/schemas"
	"github.com/gloss-dev/gloss/termtext"
	"github.com/gloss-dev/gloss/toolsets"
)

// Exit codes. They are part of gloss's interface: scripts and hooks branch
// on them.
const (
	ExitOK       = 0 // success
	ExitCheck    = 1 // the command ran and found a problem: validation failed, drift, a blocked push
	ExitUsage    = 2 // bad command line or input: unknown command or flag, invalid argument
	ExitNotFound = 3 // something named does not exist: file, revision, anchor, id
	ExitConflict = 4 // a concurrent change or an ambiguous name; retrying or narrowing may help
	ExitInternal = 5 // anything else: git failure, I/O error, corrupt data
)

const description = `gloss: git-native memory and coordination for AI coding agents.

gloss keeps what agents and reviewers need to know in git itself: notes refs
and committed files, shared through the remotes you already have. No server,
no database.

Get started in a repository:
  git gloss init            install hooks, git config and the MCP entry
  git gloss status          what gloss knows about this repository
  git gloss sync            exchange gloss notes with a remote
  git gloss mcp             run the MCP server (agents start it themselves)
  git gloss agent install   let coding agents get gloss's context before edits

Every day:
  git gloss read server.go --anchor Server.Handle   why is this code the way it is?
  git gloss annotate --constraint "..."             tell the next commit what you know
  git gloss task ready                              what can be worked on now
  git gloss note search "deploy"                    what the team notebook says
  git gloss serve                                   see it all in a browser (local, read-only)
  git gloss log -n 5                                git log with gloss's records, readable

Every command takes --json for machine-readable output; "git gloss schema"
lists the JSON Schemas of those outputs.

Exit codes:
  0 success        1 check failed (drift, invalid, blocked)   2 usage error
  3 not found      4 conflict or ambiguous                      5 internal error`

// CLI is the command tree.
type CLI struct {
	Globals

	Read     ReadCmd     `cmd:"" group:"Annotations" help:"Why is this code the way it is? Annotations for a file or region."`
	Annotate AnnotateCmd `cmd:"" group:"Annotations" help:"Record intent, constraints and reasons for the next commit (or a given one)."`
	Deps     DepsCmd     `cmd:"" group:"Annotations" help:"Regions that declared a dependency on a file or anchor."`
	History  HistoryCmd  `cmd:"" group:"Annotations" help:"The annotated timeline of a file or anchor."`
	Summary  SummaryCmd  `cmd:"" group:"Annotations" help:"Intent and constraints per anchor of a file or directory."`
	Flag     FlagCmd     `cmd:"" group:"Annotations" help:"Mark an annotation record as no longer holding; reads leave it out."`
	Correct  CorrectCmd  `cmd:"" group:"Annotations" help:"Replace an annotation record with a corrected one that supersedes it."`

	Blame BlameCmd `cmd:"" group:"Attribution" help:"git blame with who wrote each line (human, ai, mixed, unknown) and the intent per hunk."`
	Stats StatsCmd `cmd:"" group:"Attribution" help:"Lines by contributor type, agent and model, author and directory."`
	Log   LogCmd   `cmd:"" group:"Annotations" passthrough:"" help:"git log with one readable line per gloss record under each commit."`

	Note NoteCmd `cmd:"" group:"Notebook" help:"The team notebook: create, show, list, search, tag, move, delete notes."`
	Task TaskCmd `cmd:"" group:"Tasks" help:"Work items: add, list, ready, show, work on them with an agent, finalize."`
	Doc  DocCmd  `cmd:"" group:"Documents" help:"Structured .noma documents: read, ids, check, patch, log, replay, verify."`
	Spec SpecCmd `cmd:"" group:"Specs" help:"Specs that govern files: validate, affected, diff, mark reconciled, status."`

	Status     StatusCmd     `cmd:"" help:"Show what gloss knows about this repository."`
	Init       InitCmd       `cmd:"" help:"Set gloss up in this repository (idempotent)."`
	Uninstall  UninstallCmd  `cmd:"" help:"Remove exactly what init added; notes stay."`
	Sync       SyncCmd       `cmd:"" help:"Fetch, merge and push gloss notes with a remote."`
	Forget     ForgetCmd     `cmd:"" help:"Take records back for good: tombstones every merge honours; --purge rewrites the notes history."`
	Export     ExportCmd     `cmd:"" help:"Write gloss's notes records as JSON Lines."`
	Import     ImportCmd     `cmd:"" help:"Read records from git gloss export, or from Chronicle (import chronicle)."`
	Carry      CarryCmd      `cmd:"" help:"Carry annotations onto the commits a forge's squash or rebase merge made."`
	Ci         CiCmd         `cmd:"" name:"ci" help:"Checks for CI: the pre-push checks over a commit range."`
	Review     ReviewCmd     `cmd:"" help:"Report a range for review: decisions it touches, who wrote it, specs, tasks; post it on the pull request."`
	Mcp        McpCmd        `cmd:"" help:"Run the MCP server, or register it with a client."`
	Serve      ServeCmd      `cmd:"" help:"Serve a local, read-only web view of gloss (127.0.0.1, token)."`
	Lsp        LspCmd        `cmd:"" help:"Run the language server (LSP, stdio) that editors start: hover, code lens, diagnostics."`
	Agent      AgentCmd      `cmd:"" help:"Coding agents' hooks: install, uninstall, status (and the hook entry point)."`
	Hook       HookCmd       `cmd:"" help:"Entry point for gloss's git hooks."`
	Schema     SchemaCmd     `cmd:"" help:"Print the JSON Schema of a machine-readable output."`
	CacheFill  CacheFillCmd  `cmd:"" name:"cache-fill" hidden:"" help:"Fill the blame cache for one file (reads start it)."`
	CacheGraph CacheGraphCmd `cmd:"" name:"cache-graph" hidden:"" help:"Build or refresh the blame graph (init starts it)."`
	HookWorker HookWorkerCmd `cmd:"" name:"hook-worker" hidden:"" help:"Annotate the commits the post-commit hook queued (the hook starts it)."`
	Help       HelpCmd       `cmd:"" help:"Explain gloss or one of its commands: git gloss help task ready."`
	Man        ManCmd        `cmd:"" hidden:"" help:"Print the git-gloss(1) man page (roff)."`
}

// Globals are the flags every command accepts.
type Globals struct {
	Dir     string           `short:"C" name:"directory" placeholder:"DIR" help:"Run as if gloss was started in DIR."`
	JSON    bool             `name:"json" help:"Print machine-readable JSON (see 'git gloss schema')."`
	Color   string           `name:"color" enum:"auto,always,never" default:"auto" help:"Colour human output: auto, always or never."`
	Verbose bool             `short:"v" help:"Log more detail to stderr."`
	Version kong.VersionFlag `help:"Print the version and exit."`

	ctx context.Context
	// stdout and stderr are for people: everything written to them passes
	// termtext, so that text stored by others cannot drive the terminal.
	// rawStdout is for machines (JSON, the MCP protocol, an agent hook's
	// answer, an export), whose bytes must stay as they are.
	stdout    io.Writer
	stderr    io.Writer
	rawStdout io.Writer
	stdin     io.Reader
}

// Run executes gloss with args (without the program name) and returns the
// exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signalContext()
	defer stop()

	var c CLI
	out, errOut := termtext.NewWriter(stdout), termtext.NewWriter(stderr)
	defer out.Flush()
	defer errOut.Flush()
	c.ctx, c.stdout, c.stderr, c.rawStdout, c.stdin = ctx, out, errOut, stdout, stdin
	stdout, stderr = out, errOut
	// The parser would quietly turn invalid UTF-8 into U+FFFD and gloss
	// would store the damage; refuse it instead.
	for i, a := range args {
		if !utf8.ValidString(a) {
			fmt.Fprintf(stderr, "git gloss: error: argument %d is not valid UTF-8: %q\n", i+1, a)
			return ExitUsage
		}
	}
	if run := fastCommand(args); run != nil {
		c.Color = "auto" // the flag's default
		setLogger(stderr, false)
		return c.report(run(&c.Globals))
	}
	if len(args) == 0 {
		// Bare `git gloss` is a person asking what there is: the overview
		// of the commands, as --help prints it, and success.
		args = []string{"--help"}
	}
	exitCode := -1
	parser, err := newParser(&c, stdout, stderr, func(code int) { exitCode = code })
	if err != nil {
		fmt.Fprintln(stderr, "git gloss: internal error:", err)
		return ExitInternal
	}
	kctx, err := parser.Parse(args)
	if exitCode >= 0 {
		return exitCode // --help or --version
	}
	if err != nil {
		// An unknown command gets one line with the closest name; any other
		// mistake gets the error and where to read more, not the whole help.
		if unknown := unknownCommandIn(parser.Model, args); unknown != nil {
			err = unknown
		}
		fmt.Fprintln(stderr, "git gloss: error:", errorText(err))
		var pe *kong.ParseError
		if errors.As(err, &pe) && pe.Context != nil {
			fmt.Fprintf(stderr, "see '%s'\n", strings.Join(append([]string{"git gloss help"}, commandPath(pe.Context.Selected())...), " "))
		}
		return ExitUsage
	}
	setLogger(stderr, c.Verbose)

	err = kctx.Run(&c.Globals)
	if exitCode >= 0 {
		return exitCode
	}
	return c.report(err)
}

// stopGrace is how long a command may take to stop after SIGINT or
// SIGTERM before the process exits anyway: a command waiting on something
// that never comes (a read of a pipe nobody writes) must not ignore the
// signal. Every write gloss makes is atomic or journaled, so an exit at
// any point leaves nothing half-written.
const stopGrace = 5 * time.Second

// signalContext is cancelled by the first SIGINT or SIGTERM; the process
// exits (128+signal) on a second one, or stopGrace after the first.
//
// The goroutine that waits for the signals installs the handler, rather
// than the command before it starts: signal.Notify starts a runtime
// thread for the signals and waits until it has run, and signal.Stop
// waits until the signal loop has started. A process that ends within a
// few milliseconds (a hook, --version) waited for both, a millisecond
// or more off the CPU on a loaded machine. A signal in the first moments,
// before the handler is in, ends the process as one before main would.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		sigs := make(chan os.Signal, 2)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(sigs)
		var first os.Signal
		select {
		case first = <-sigs:
		case <-done:
			return
		}
		cancel()
		select {
		case <-sigs:
		case <-time.After(stopGrace):
		case <-done:
			return
		}
		code := 130
		if first == syscall.SIGTERM {
			code = 143
		}
		os.Exit(code)
	}()
	return ctx, func() { close(done); cancel() }
}

// setLogger sends gloss's log to stderr: warnings, and with --verbose the
// detail too.
func setLogger(stderr io.Writer, verbose bool) {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})))
}

// newParser builds the kong parser of the command tree; help, the man page
// and the documentation test all read the same model.
func newParser(c *CLI, stdout, stderr io.Writer, exit func(int)) (*kong.Kong, error) {
	return kong.New(c,
		kong.Name("git gloss"),
		kong.Description(description),
		kong.Writers(stdout, stderr),
		kong.Exit(exit),
		kong.Vars{"version": versionText(), "toolsets": strings.Join(toolsets.Names(), ", "), "default_toolsets": strings.Join(toolsets.Default, ",")},
		kong.ConfigureHelp(kong.HelpOptions{Compact: true, Summary: true}),
		kong.UsageOnError(),
	)
}

// report prints err for people (and, with --json, as a JSON object on
// stdout for machines) and returns the exit code for its kind.
func (g *Globals) report(err error) int {
	if err == nil {
		return ExitOK
	}
	code := exitCodeFor(err)
	if g.JSON && !errors.Is(err, errSilent) {
		g.printJSON(schemas.ErrorOutput{Schema: "gloss-error/v1", Error: fault.Bounded(err).Error(), Kind: kindName(fault.KindOf(err)), ExitCode: code})
	}
	if !errors.Is(err, errSilent) {
		fmt.Fprintln(g.stderr, "git gloss: error:", errorText(err))
	}
	return code
}

// errorText is an error as printed on stderr. Errors quote user input (a
// ref, a path) that may hold control characters or line breaks: those
// are escaped, and the lines of a message that has several are indented,
// so no line of it can pass for a CI runner's "::command".
func errorText(err error) string {
	lines := strings.Split(fault.Bounded(err).Error(), "\n")
	for i, l := range lines {
		lines[i] = fault.Line(l)
	}
	return strings.Join(lines, "\n  ")
}

// errSilent marks a failure whose explanation the command already printed.
var errSilent = errors.New("failed")

func exitCodeFor(err error) int {
	if errors.Is(err, context.Canceled) {
		return ExitInternal
	}
	switch fault.KindOf(err) {
	case fault.Check:
		return ExitCheck
	case fault.Usage:
		return ExitUsage
	case fault.NotFound:
		return ExitNotFound
	case fault.Conflict:
		return ExitConflict
	}
	return ExitInternal
}

func kindName(k fault.Kind) string {
	return [...]string{"internal", "usage", "not_found", "conflict", "check"}[k]
}
