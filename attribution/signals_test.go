package attribution

import (
	"testing"

	"github.com/gloss-dev/gloss/gitops"
)

func TestAgentIdentity(t *testing.T) {
	t.Parallel()
	for identity, want := range map[string]string{
		"Claude <noreply@anthropic.com>":                                                     "claude",
		"Claude Code <noreply@anthropic.com>":                                                "claude",
		"copilot-swe-agent[bot] <198982749+Copilot@users.noreply.github.com>":                "copilot",
		"google-labs-jules[bot] <161369871+google-labs-jules[bot]@users.noreply.github.com>": "jules",
		"aider (gpt-4o) <noreply@aider.chat>":                                                "aider",
		"Codex <codex@openai.com>":                                                           "codex",
		"cursor":                                                                             "cursor",
		"Jules Verne <jules@example.com>":                                                    "",
		"Claude Monet <claude@example.org>":                                                  "",
		"Claudette Smith <cs@example.com>":                                                   "",
		"Gemini Team <team@example.com>":                                                     "",
		"Ada Lovelace <ada@example.com>":                                                     "",
	} {
		if got := agentIdentity(identity); got != want {
			t.Errorf("agentIdentity(%q) = %q, want %q", identity, got, want)
		}
	}
}

func TestSignalOfCommit(t *testing.T) {
	t.Parallel()
	none := func(string) string { return "" }
	cases := []struct {
		name, email, msg string
		env              map[string]string
		want             string // type/agent/model/basis, "" for no signal
	}{
		{"Ada", "ada@example.com", "fix\n", nil, ""},
		{"Ada", "ada@example.com", "fix\n\nCo-Authored-By: Claude <noreply@anthropic.com>\n", nil, "mixed/claude//trailer"},
		{"Ada", "ada@example.com", "fix\n\nCo-authored-by: Jules Verne <jules@example.com>\n", nil, ""},
		{"Ada", "ada@example.com", "fix\n\nAgent: codex\nModel: gpt-5-codex\n", nil, "ai/codex/gpt-5-codex/trailer"},
		{"Claude", "noreply@anthropic.com", "fix\n", nil, "ai/claude//author"},
		{"Ada", "ada@example.com", "fix\n\nCo-authored-by: aider (gpt-4o) <noreply@aider.chat>\n", nil, "mixed/aider/gpt-4o/trailer"},
		{"Ada", "ada@example.com", "fix\n", map[string]string{"GLOSS_AGENT": "claude", "GLOSS_MODEL": "opus", "GLOSS_SESSION": "t1"}, "ai/claude/opus/env"},
		// the spelling `task work` set in 0.1, read through 0.2
		{"Ada", "ada@example.com", "fix\n", map[string]string{"GLOSS_AGENT": "claude", "GLOSS_AGENT_MODEL": "opus"}, "ai/claude/opus/env"},
		{"Ada", "ada@example.com", "fix\n", map[string]string{"GLOSS_AGENT": "claude", "GLOSS_MODEL": "opus", "GLOSS_AGENT_MODEL": "old"}, "ai/claude/opus/env"},
		{"Ada", "ada@example.com", "fix\n\nModel: sonnet\n", map[string]string{"GLOSS_AGENT": "claude"}, "ai/claude/sonnet/env"},
	}
	for _, c := range cases {
		env := none
		if c.env != nil {
			env = func(k string) string { return c.env[k] }
		}
		got := ""
		if s := signalOf(&gitops.Commit{AuthorName: c.name, AuthorEmail: c.email, Message: c.msg}, env); s != nil {
			got = s.Type + "/" + s.Agent + "/" + s.Model + "/" + s.Basis
		}
		if got != c.want {
			t.Errorf("%s <%s> %q: got %q, want %q", c.name, c.email, c.msg, got, c.want)
		}
	}
}
