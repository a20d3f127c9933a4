package tasks

import "testing"

func TestAgentIdentity(t *testing.T) {
	t.Parallel()
	cases := []struct{ command, name, model string }{
		{"claude -p", "claude", ""},
		{"claude -p --model claude-opus-4-1", "claude", "claude-opus-4-1"},
		{"/usr/local/bin/codex exec --model=gpt-5-codex", "codex", "gpt-5-codex"},
		{"env FOO=1 gemini -m gemini-2.5-pro", "gemini", "gemini-2.5-pro"},
		{"", "", ""},
	}
	for _, c := range cases {
		if name, model := agentIdentity(c.command); name != c.name || model != c.model {
			t.Errorf("agentIdentity(%q) = %q, %q; want %q, %q", c.command, name, model, c.name, c.model)
		}
	}
}
