package agent_test

import (
	"context"
	"testing"

	"github.com/gloss-dev/gloss/agent"
	"github.com/gloss-dev/gloss/capture"
	"github.com/gloss-dev/gloss/fixtures"
)

// A commit's session records are of the sessions as the commit found
// them, like its lines' intents: a prompt the agent sends while the
// post-commit runs belongs to the next commit, never to this one's
// record.
func TestSessionRecordsAreOfTheSessionsTheCommitTook(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewRepo(t)
	repo := openRepo(t, fx)
	prompt := func(text, at string) {
		t.Helper()
		_, err := agent.UpdateSession(repo, "s1", "claude", func(s *agent.Session) error {
			s.Prompts = append(s.Prompts, agent.Prompt{Time: at, Summary: text})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	prompt("add the parser", "2026-01-01T00:00:00Z")
	if err := capture.AppendEdits(repo, capture.Edit{Time: "2026-01-01T00:00:01Z", Session: "s1", Agent: "claude", Tool: "Edit", File: "parse.go",
		Lines: []capture.LineRange{{Start: 1, End: 1}}, Hashes: []string{capture.HashLine("package parse")}}); err != nil {
		t.Fatal(err)
	}
	head := fx.Commit("add the parser", map[string]string{"parse.go": "package parse\n"})
	c, err := repo.LookupCommit(head)
	if err != nil {
		t.Fatal(err)
	}
	taken, err := capture.TakeEdits(repo, c)
	if err != nil {
		t.Fatal(err)
	}
	cw := agent.ForCommit(repo, taken)
	if len(cw.Work) != 1 {
		t.Fatalf("agent work %+v, want parse.go's line", cw.Work)
	}
	for _, l := range cw.Work[0].Lines {
		if l.Intent != "add the parser" {
			t.Fatalf("intent %q, want the prompt before the edit", l.Intent)
		}
	}
	prompt("now write the tests", "2026-01-01T00:00:02Z") // meanwhile, in the agent
	if err := cw.RecordSessions(context.Background(), repo, head); err != nil {
		t.Fatal(err)
	}
	recs, err := agent.ReadSessions(repo, []string{head})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs[head]) != 1 || recs[head][0].Summary != "add the parser" {
		t.Errorf("session records %+v, want one whose summary is the prompt the commit's lines answered", recs[head])
	}
}
