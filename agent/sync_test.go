package agent_test

import (
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/agent"
	"github.com/gloss-dev/gloss/fixtures"
)

// TestSessionsStayLocalUnlessTheTeamSharesThem: sync pushes and fetches
// refs/notes/gloss/sessions only with [sync] sessions = true.
func TestSessionsStayLocalUnlessTheTeamSharesThem(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	remote := fixtures.NewBare(t)
	fx := fixtures.Clone(t, remote)
	fx.Commit("base", map[string]string{"a.txt": "a\n"})
	fx.Git("push", "-q", "origin", "main")
	fx.Git("notes", "--ref", "gloss/sessions", "add", "-m", `{"$schema":"gloss/session/v1","id":"01S","ts":"2026-01-01T00:00:00Z","session":"s1","agent":"claude","commit":"x"}`, "HEAD")
	fx.Git("notes", "--ref", "gloss/annotations", "add", "-m", `{"$schema":"gloss/annotation/v1","id":"01A","ts":"2026-01-01T00:00:00Z","kind":"summary"}`, "HEAD")

	fx.MustGloss("sync")
	refs := fx.Git("ls-remote", "origin", "refs/notes/*")
	if !strings.Contains(refs, "refs/notes/gloss/annotations") || strings.Contains(refs, agent.Sessions) {
		t.Fatalf("sessions are private by default; the remote has:\n%s", refs)
	}

	fx.Commit("share sessions", map[string]string{".gloss/config.toml": "[sync]\nsessions = true\n"})
	fx.Git("push", "-q", "origin", "main")
	fx.MustGloss("sync")
	if refs = fx.Git("ls-remote", "origin", "refs/notes/*"); !strings.Contains(refs, agent.Sessions) {
		t.Fatalf("[sync] sessions = true, yet the remote has:\n%s", refs)
	}
	// Another clone gets them only when it shares them too.
	other := fixtures.Clone(t, remote)
	other.MustGloss("sync")
	if _, err := other.GitErr("rev-parse", "--verify", "-q", agent.Sessions); err != nil {
		t.Errorf("the other clone (its checkout has [sync] sessions = true) did not fetch the sessions")
	}
	private := fixtures.Clone(t, remote)
	private.Write(".gloss/config.toml", "[sync]\nsessions = false\n")
	private.MustGloss("sync")
	if _, err := private.GitErr("rev-parse", "--verify", "-q", agent.Sessions); err == nil {
		t.Errorf("a clone with [sync] sessions = false fetched the sessions")
	}
}

func TestRedactUsesTheMaintainedRuleSet(t *testing.T) {
	t.Parallel()
	aws := "AKIA" + "QYLPMN5HHHFPZAM2" // split so that scanners of this file do not flag it
	in := "deploy with " + plantedToken + " and " + aws + " then tell me"
	out, err := agent.Summarize(in)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, plantedToken) || strings.Contains(out, aws) || !strings.Contains(out, "[REDACTED:github-pat]") || !strings.Contains(out, "then tell me") {
		t.Errorf("Summarize = %q", out)
	}
	long, _ := agent.Summarize(strings.Repeat("word ", 200) + plantedToken)
	if strings.Contains(long, "ghp_") || len(long) > 260 {
		t.Errorf("a long prompt is cut after redaction: %q", long)
	}
}
