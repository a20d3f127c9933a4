package runenv_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/runenv"
)

func TestLookupAgentRun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		env  map[string]string
		want runenv.AgentRun
		ok   bool
	}{
		{nil, runenv.AgentRun{}, false},
		{map[string]string{"GLOSS_MODEL": "opus"}, runenv.AgentRun{Model: "opus"}, false},
		{map[string]string{"GLOSS_AGENT": " claude ", "GLOSS_MODEL": "opus", "GLOSS_SESSION": "s1"}, runenv.AgentRun{"claude", "opus", "s1"}, true},
		{map[string]string{"GLOSS_AGENT": "claude", "GLOSS_AGENT_MODEL": "old"}, runenv.AgentRun{Agent: "claude", Model: "old"}, true},
		{map[string]string{"GLOSS_AGENT": "claude", "GLOSS_MODEL": "new", "GLOSS_AGENT_MODEL": "old"}, runenv.AgentRun{Agent: "claude", Model: "new"}, true},
	}
	for _, c := range cases {
		got, ok := runenv.LookupAgentRun(func(k string) string { return c.env[k] })
		if got != c.want || ok != c.ok {
			t.Errorf("%v: got %+v %v, want %+v %v", c.env, got, ok, c.want, c.ok)
		}
	}
}

// Environ leaves a child nothing of an outer run: not its values, not the
// old spelling of the model.
func TestAgentRunEnviron(t *testing.T) {
	t.Parallel()
	outer := []string{"PATH=/bin", "GLOSS_AGENT=outer", "GLOSS_AGENT_MODEL=outer-model", "GLOSS_SESSION=outer-s", "GLOSS_MODEL=x"}
	got := runenv.AgentRun{Agent: "inner"}.Environ(outer)
	want := []string{"PATH=/bin", "GLOSS_AGENT=inner", "GLOSS_MODEL=", "GLOSS_SESSION="}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	m := map[string]string{}
	for _, kv := range got {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	if run, _ := runenv.LookupAgentRun(func(k string) string { return m[k] }); run.Model != "" {
		t.Errorf("the child reads model %q, want none", run.Model)
	}
	if outer[1] != "GLOSS_AGENT=outer" {
		t.Error("Environ changed its argument")
	}
}
