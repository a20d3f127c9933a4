package tasks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/gloss-dev/gloss/fixtures"
)

// The agent `task work` launches is the author of that run's commits: it
// gets GLOSS_AGENT and GLOSS_AGENT_MODEL (from its command line), and the
// post-commit hook of each commit it makes records it and its model
// instead of the commit's author.
func TestLaunchedAgentAuthorsItsCommits(t *testing.T) {
	e := newEnv(t)
	id := e.add("Say who", []string{"who.txt exists"})
	script := `#!/bin/sh
export PATH="` + filepath.Dir(fixtures.Binary(t)) + `:$PATH"
echo "$GLOSS_AGENT|$GLOSS_AGENT_MODEL" > who.txt
git add who.txt
git commit -q -m "task($GLOSS_TASK_ID): say who"
sed -i 's/- \[ \]/- [x]/' "$GLOSS_TASK_FILE"
git commit -q -am "task($GLOSS_TASK_ID): check the criteria"
`
	p := filepath.Join(t.TempDir(), "fake-agent")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	e.fx.Git("config", "gloss.agent", p+" -p --model fake-model-1")
	e.reopen()
	e.start(id)
	waitSettled(t, id)
	if got := e.fx.Read("who.txt"); got != "fake-agent|fake-model-1\n" {
		t.Fatalf("the agent's environment said %q, want fake-agent|fake-model-1", got)
	}
	out := e.fx.MustGloss("read", "who.txt", "--lines", "1:1", "--json")
	regions := gjson.Get(out, "regions").Array()
	if len(regions) == 0 {
		t.Fatalf("the agent's commit has no annotation: %s", out)
	}
	if a := regions[0].Get("author"); a.Get("kind").String() != "agent" || a.Get("name").String() != "fake-agent" || a.Get("model").String() != "fake-model-1" {
		t.Errorf("the launched agent's commit is recorded as %s, want agent fake-agent fake-model-1", a.Raw)
	}
	// A person's commit in the same repository stays theirs.
	e.fx.Commit("by hand", map[string]string{"hand.txt": "typed\n"})
	hand := e.fx.MustGloss("read", "hand.txt", "--lines", "1:1", "--json")
	if kind := gjson.Get(hand, "regions.0.author.kind").String(); kind != "human" || strings.Contains(hand, "fake-agent") {
		t.Errorf("a person's commit is recorded as %s", gjson.Get(hand, "regions.0.author").Raw)
	}
}
