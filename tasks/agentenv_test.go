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
// gets GLOSS_AGENT, GLOSS_MODEL (from its command line) and GLOSS_SESSION,
// and the post-commit hook of each commit it makes records it and its
// model instead of the commit's author — in the annotation and in the
// attribution of every line it wrote. (`task work` once set
// GLOSS_AGENT_MODEL, which attribution did not read: the lines lost their
// model.)
func TestLaunchedAgentAuthorsItsCommits(t *testing.T) {
	e := newEnv(t)
	id := e.add("Say who", []string{"who.txt exists"})
	script := `#!/bin/sh
export PATH="` + filepath.Dir(fixtures.Binary(t)) + `:$PATH"
echo "$GLOSS_AGENT|$GLOSS_MODEL|$GLOSS_SESSION|$GLOSS_AGENT_MODEL" > who.txt
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
	if got, want := e.fx.Read("who.txt"), "fake-agent|fake-model-1|"+id+"|\n"; got != want {
		t.Fatalf("the agent's environment said %q, want %q", got, want)
	}
	out := e.fx.MustGloss("read", "who.txt", "--lines", "1:1", "--json")
	regions := gjson.Get(out, "regions").Array()
	if len(regions) == 0 {
		t.Fatalf("the agent's commit has no annotation: %s", out)
	}
	if a := regions[0].Get("author"); a.Get("kind").String() != "agent" || a.Get("name").String() != "fake-agent" || a.Get("model").String() != "fake-model-1" {
		t.Errorf("the launched agent's commit is recorded as %s, want agent fake-agent fake-model-1", a.Raw)
	}
	blame := e.fx.MustGloss("blame", "who.txt", "--json")
	line := gjson.Get(blame, "lines.0.contributor")
	if line.Get("type").String() != "ai" || line.Get("agent").String() != "fake-agent" || line.Get("model").String() != "fake-model-1" || line.Get("session").String() != id {
		t.Errorf("the launched agent's line is attributed to %s, want ai fake-agent fake-model-1 session %s", line.Raw, id)
	}
	// A person's commit in the same repository stays theirs.
	e.fx.Commit("by hand", map[string]string{"hand.txt": "typed\n"})
	hand := e.fx.MustGloss("read", "hand.txt", "--lines", "1:1", "--json")
	if kind := gjson.Get(hand, "regions.0.author.kind").String(); kind != "human" || strings.Contains(hand, "fake-agent") {
		t.Errorf("a person's commit is recorded as %s", gjson.Get(hand, "regions.0.author").Raw)
	}
}
