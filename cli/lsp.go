package cli

import (
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/buildinfo"
	"github.com/gloss-dev/gloss/lsp"
)

// LspCmd is `git gloss lsp`.
type LspCmd struct {
	Stdio bool `name:"stdio" help:"Talk over stdin and stdout (the only transport; accepted because editors pass it)."`
}

// Help is the long help of lsp.
func (LspCmd) Help() string {
	return `Runs gloss's language server over stdio (the Language Server Protocol),
for any editor that speaks it: VS Code (the extension in editors/vscode),
Neovim, Helix, Zed, Emacs (eglot), JetBrains IDEs. Editors start it
themselves; docs/editors.md has the configuration of each.

For the file open in the editor, its unsaved text included, it shows:
hover on a line, the decisions in force there (constraints, rejected
alternatives, risks, intent), who wrote the line (a person or an agent and
its model), the commit and its age, and the specs that govern the file;
a code lens above each function with decisions ("2 constraints · 1 risk ·
40% ai claude/opus") that opens its full records; information-level
diagnostics for an edit not committed yet inside a function with
constraints, and for a spec of the file that drifted; and, when turned on
({"agentLines": "inlay"} in the editor's gloss settings), an inlay hint at
each run of lines an agent wrote.

It follows the repository: a commit, a sync, a flag or a branch switch
refreshes what the editor shows without a restart. Only protocol messages
go to stdout; with --verbose the log goes to stderr. A malformed message
is answered with an error and the server keeps serving.

  git gloss lsp
  git gloss lsp --stdio`
}

// Run serves until the editor exits the server or closes stdin.
func (c *LspCmd) Run(g *Globals) error {
	// Only protocol messages may reach stdout, byte for byte (the raw
	// writer, not the one for people); anything else writing to
	// os.Stdout goes to stderr.
	out := g.rawStdout
	if out == os.Stdout {
		os.Stdout = os.Stderr
		defer func() { os.Stdout = out.(*os.File) }()
	}
	opts := lsp.Options{Version: buildinfo.Version, WebURL: runningServe}
	if g.Verbose {
		opts.Log = slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return lsp.Serve(g.ctx, g.stdin, out, opts)
}

// serveInfo is what a running `git gloss serve` leaves in the git dir so
// that the language server can link to its pages: its address, its token
// and its process. The file is the user's own (mode 0600), like the
// token it holds, and is removed when serve stops.
type serveInfo struct {
	URL   string `json:"url"`
	Token string `json:"token"`
	PID   int    `json:"pid"`
}

func serveInfoPath(gitDir string) string { return filepath.Join(gitDir, "gloss", "serve.json") }

// announceServe records a running serve; the returned func removes the
// record.
func announceServe(gitDir, url, token string) func() {
	path := serveInfoPath(gitDir)
	data, _ := json.Marshal(serveInfo{URL: url, Token: token, PID: os.Getpid()})
	if os.MkdirAll(filepath.Dir(path), 0o755) != nil || atomicfile.Write(path, data, 0o600) != nil {
		return func() {}
	}
	return func() { _ = os.Remove(path) }
}

// runningServe is the address and token of the serve running for gitDir,
// if its process is still alive.
func runningServe(gitDir string) (string, string) {
	data, err := os.ReadFile(serveInfoPath(gitDir))
	if err != nil {
		return "", ""
	}
	var info serveInfo
	if json.Unmarshal(data, &info) != nil || info.URL == "" || info.PID <= 0 {
		return "", ""
	}
	if err := syscall.Kill(info.PID, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return "", ""
	}
	return info.URL, info.Token
}
