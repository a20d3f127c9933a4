package annotate_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/why"
)

const lifecycleGo = `package svc

func Expired() int { return 1 }

func Flagged() int { return 2 }

func Corrected() int { return 3 }

func Kept() int { return 4 }
`

// idOf returns the id of the region read for an anchor (all records).
func idOf(t *testing.T, res why.ReadResult, intent string) string {
	t.Helper()
	for _, r := range res.Regions {
		if r.Intent == intent {
			return r.ID
		}
	}
	t.Fatalf("no region with intent %q in %v", intent, intents(res))
	return ""
}

func sortedIntents(res why.ReadResult) []string {
	out := intents(res)
	sort.Strings(out)
	return out
}

func TestFlaggedExpiredAndSupersededRecordsAreLeftOut(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)
	for _, a := range []struct{ anchor, intent string }{
		{"Expired", "expired decision"}, {"Flagged", "flagged decision"}, {"Corrected", "old decision"}, {"Kept", "kept decision"},
	} {
		args := []string{"annotate", "--file", "svc/svc.go", "--anchor", a.anchor, "--intent", a.intent}
		if a.anchor == "Expired" {
			args = append(args, "--expires", "2020-01-31")
		}
		if a.anchor == "Kept" {
			args = append(args, "--expires", "2999-12-31")
		}
		fx.MustGloss(args...)
	}
	fx.Commit("svc: four decisions", map[string]string{"svc/svc.go": lifecycleGo})

	all := read(t, fx, "svc/svc.go", "--all")
	fx.MustGloss("flag", idOf(t, all, "flagged decision"), "--reason", "reverted in #12")
	fx.MustGloss("correct", idOf(t, all, "old decision"), "--intent", "new decision")

	got := sortedIntents(read(t, fx, "svc/svc.go"))
	if strings.Join(got, "|") != "kept decision|new decision|svc: four decisions" {
		t.Errorf("read delivers %q; want the kept and the corrected decision (and the file-level one) only", got)
	}
	for _, a := range []string{"Expired", "Flagged", "Corrected"} {
		for _, r := range read(t, fx, "svc/svc.go", "--anchor", a).Regions {
			if r.Status != nil || strings.Contains(r.Intent, "decision") && r.Intent != "new decision" {
				t.Errorf("read --anchor %s delivers %q (%+v)", a, r.Intent, r.Status)
			}
		}
	}
	// The agent's pre-edit context (Claude Code's PreToolUse) reads through
	// the same pipeline: only the live decisions reach the agent.
	payload := `{"session_id":"s-life","cwd":"` + fx.Dir + `","hook_event_name":"PreToolUse","tool_name":"Edit",` +
		`"tool_input":{"file_path":"` + fx.Path("svc/svc.go") + `","old_string":"return 4","new_string":"return 5"}}`
	cmd := fx.Command(fixtures.Binary(t), "agent", "hook", "--agent", "claude", "PreToolUse")
	cmd.Stdin = strings.NewReader(payload)
	ctxOut, err := cmd.Output()
	if err != nil {
		t.Fatalf("agent hook PreToolUse: %v", err)
	}
	if !strings.Contains(string(ctxOut), "kept decision") && !strings.Contains(string(ctxOut), "new decision") {
		t.Errorf("the pre-edit context delivers no live decision: %s", ctxOut)
	}
	for _, gone := range []string{"expired decision", "flagged decision", "old decision"} {
		if strings.Contains(string(ctxOut), gone) {
			t.Errorf("the pre-edit context delivers %q: %s", gone, ctxOut)
		}
	}

	marked := map[string]string{}
	for _, r := range read(t, fx, "svc/svc.go", "--all").Regions {
		state := ""
		if r.Status != nil {
			state = r.Status.State
			if state == "flagged" && strings.Join(r.Status.Reason, "") != "reverted in #12" {
				t.Errorf("flag reason: %v", r.Status.Reason)
			}
		}
		marked[r.Intent] = state
	}
	want := map[string]string{"expired decision": "expired", "flagged decision": "flagged", "old decision": "superseded", "new decision": "", "kept decision": "", "svc: four decisions": ""}
	for intent, state := range want {
		if got, ok := marked[intent]; !ok || got != state {
			t.Errorf("read --all: %q is %q (present %v), want %q", intent, got, ok, state)
		}
	}
	// The human-readable view marks them too.
	out := fx.MustGloss("read", "svc/svc.go", "--all")
	for _, w := range []string{"expired", "flagged: reverted in #12", "superseded"} {
		if !strings.Contains(out, w) {
			t.Errorf("read --all does not say %q:\n%s", w, out)
		}
	}
}

func TestTrustedAuthorsComeFirstAsDirectives(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)
	fx.MustGloss("annotate", "--file", "svc/svc.go", "--anchor", "Kept", "--intent", "an agent's claim", "--author-name", "claude")
	fx.Commit("svc: kept", map[string]string{"svc/svc.go": lifecycleGo})
	res := read(t, fx, "svc/svc.go", "--anchor", "Kept")
	for _, r := range res.Regions {
		if r.Trust != "" {
			t.Fatalf("trust marked without a trusted list: %+v", r)
		}
	}
	fx.MustGloss("annotate", "--commit", "HEAD", "--file", "svc/svc.go", "--anchor", "Kept", "--intent", "the lead's directive",
		"--author-kind", "human", "--author-name", "Lead")
	fx.Write(".gloss/config.toml", "[annotations]\ntrusted = [\"lead\"]\n")
	res = read(t, fx, "svc/svc.go", "--anchor", "Kept")
	if len(res.Regions) < 2 || res.Regions[0].Intent != "the lead's directive" || res.Regions[0].Trust != "directive" {
		t.Fatalf("the trusted author's record is not first as a directive: %+v", res.Regions)
	}
	for _, r := range res.Regions[1:] {
		if r.Trust != "claim" {
			t.Errorf("%q is %q, want claim", r.Intent, r.Trust)
		}
	}
}
