package cli_test

import (
	"testing"

	"github.com/tidwall/gjson"

	"github.com/gloss-dev/gloss/fixtures"
)

// annotate without --author-kind speaks for a person, unless the command
// runs for an agent: the one task work launched (GLOSS_AGENT), or an agent
// whose shell marks itself (CLAUDECODE, GEMINI_CLI). A flag always wins.
func TestAnnotateAuthorDefault(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("first", map[string]string{"a.txt": "a\n"})
	base := fx.Env
	cases := []struct {
		env              []string
		args             []string
		kind, name, mode string
	}{
		{nil, nil, "human", "", ""},
		{[]string{"CLAUDECODE=1"}, nil, "agent", "claude", ""},
		{[]string{"GEMINI_CLI=1"}, nil, "agent", "gemini", ""},
		{[]string{"GLOSS_AGENT=codex", "GLOSS_AGENT_MODEL=gpt-5-codex", "CLAUDECODE=1"}, nil, "agent", "codex", "gpt-5-codex"},
		{[]string{"CLAUDECODE=1"}, []string{"--author-kind", "human", "--author-name", "Ada"}, "human", "Ada", ""},
		{nil, []string{"--author-kind", "agent", "--model", "m"}, "agent", "", "m"},
	}
	for i, c := range cases {
		fx.Env = append(append([]string{}, base...), c.env...)
		fx.MustGloss(append([]string{"annotate", "--intent", "case"}, c.args...)...)
		pending := fx.MustGloss("annotate", "--pending", "--json")
		a := gjson.Get(pending, "pending."+itoa(i)+".author")
		if a.Get("kind").String() != c.kind || a.Get("name").String() != c.name || a.Get("model").String() != c.mode {
			t.Errorf("env %v args %v: author %s, want %s %q %q", c.env, c.args, a.Raw, c.kind, c.name, c.mode)
		}
	}
	fx.Env = base
}

func itoa(i int) string { return string(rune('0' + i)) }
