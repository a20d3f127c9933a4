package cli

import (
	"fmt"
	"os/exec"
	"runtime"

	"github.com/gloss-dev/gloss/web"
)

// ServeCmd is `git gloss serve`.
type ServeCmd struct {
	Port int  `name:"port" short:"p" default:"0" placeholder:"N" help:"Port on 127.0.0.1 (0 picks a free one)."`
	Open bool `name:"open" help:"Open the URL in the default browser."`
}

// Help is the long help of serve.
func (ServeCmd) Help() string {
	return `Serves a local, read-only web view of what gloss knows about this
repository: an overview, files with annotated blame (intent, constraints,
rejected alternatives and risks beside each hunk), specs by state with
their diffs, the task board (live), the notebook with search as you type,
and .noma documents with their transcripts.

It listens on 127.0.0.1 only and prints a URL with a random token; every
request needs the token (a cookie keeps it after the first page), requests
for another Host are refused, and nothing can be changed through it. Every
page has a JSON twin: add ?format=json (the bytes of the matching --json
command). Stop it with Ctrl-C. See docs/serve.md.

  git gloss serve
  git gloss serve --port 8642 --open`
}

// Run serves until interrupted.
func (c *ServeCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	root := repo.Root()
	if root == "" {
		root = repo.GitDir()
	}
	gitDir := repo.GitDir()
	repo.Close()
	s, err := web.New(root)
	if err != nil {
		return err
	}
	ln, err := web.Listen(c.Port)
	if err != nil {
		return fmt.Errorf("listen on 127.0.0.1:%d: %w", c.Port, err)
	}
	url := s.URL(ln)
	fmt.Fprintln(g.stdout, url)
	fmt.Fprintln(g.stderr, "git gloss serve: read-only view of "+root+" on 127.0.0.1 only; Ctrl-C stops it")
	if c.Open {
		openBrowser(url)
	}
	// git gloss lsp links its hovers to the pages of a running serve.
	defer announceServe(gitDir, "http://"+ln.Addr().String(), s.Token())()
	return s.Serve(g.ctx, ln)
}

// openBrowser asks the desktop to open url; failing is not an error (the
// URL is printed).
func openBrowser(url string) {
	name := "xdg-open"
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name = "explorer"
	}
	if err := exec.Command(name, url).Start(); err != nil {
		return
	}
}
