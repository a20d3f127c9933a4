package cli

import (
	"io"
	"strings"

	"github.com/gloss-dev/gloss/agent"
	"github.com/gloss-dev/gloss/fault"
)

// AgentRedactCmd is `git gloss agent redact`.
type AgentRedactCmd struct {
	Text []string `arg:"" optional:"" help:"Text to redact; standard input when none is given."`
}

// Help is the long help of agent redact.
func (AgentRedactCmd) Help() string {
	return `Prints text as gloss would keep it from a prompt: every secret that
gitleaks' rules, gloss's own (docs/redaction.md) or the team's
(.gloss/redact.toml) find replaced by [REDACTED:<rule>]. Use it to try a
team rule before committing it; --json lists the rules that fired.

  echo 'postgres://app:hunter22@db/app' | git gloss agent redact
  git gloss agent redact --json 'the admin password is hunter22'`
}

// Run redacts.
func (c *AgentRedactCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	text := strings.Join(c.Text, " ")
	if len(c.Text) == 0 {
		data, err := io.ReadAll(io.LimitReader(g.stdin, 1<<20))
		if err != nil {
			return err
		}
		text = string(data)
	}
	r, err := agent.RedactorFor(repo)
	if err != nil {
		return err
	}
	if text == "" {
		return fault.Usagef("give text to redact, as arguments or on standard input")
	}
	res := agent.RedactResult{Schema: "gloss-redact/v1", Redacted: r.Redact(text), Rules: []string{}}
	for _, f := range r.Find(text) {
		res.Rules = append(res.Rules, f.Rule)
	}
	return g.emit(res, func(s *styler) {
		s.printf("%s", res.Redacted)
		if !strings.HasSuffix(res.Redacted, "\n") {
			s.println()
		}
	})
}
