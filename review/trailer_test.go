package review_test

import (
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// TestAIShareTrailer: with [review] ai_share_trailer on, a commit an agent
// wrote part of says so in an AI-Share trailer (what post-commit then
// records: git gloss blame agrees), a person's commit gets none, and the
// setting off adds nothing.
func TestAIShareTrailer(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("initial", map[string]string{"README.md": "app\n"})
	fx.MustGloss("init", "--no-mcp")
	fx.Write(".gloss/config.toml", "[review]\nai_share_trailer = true\n")
	commit(t, fx, "turn the trailer on")
	if msg := fx.Git("log", "-1", "--format=%B"); strings.Contains(msg, "AI-Share") {
		t.Errorf("a person's commit got a trailer:\n%s", msg)
	}

	// The agent writes 8 lines; the person adds 2 more lines elsewhere.
	fx.AgentWrites("claude", "claude-opus-4", "s1", "app/x.go",
		"package app\n\n// X is x.\nfunc X() int {\n\tn := 1\n\tn++\n\treturn n\n}\n")
	fx.Write("notes.txt", "first note\nsecond note\n")
	commit(t, fx, "app: X")
	msg := fx.Git("log", "-1", "--format=%B")
	if !strings.Contains(msg, "AI-Share: 80% claude/claude-opus-4") {
		t.Errorf("message:\n%s\nwant AI-Share: 80%% claude/claude-opus-4 (8 of 10 lines)", msg)
	}
	if got := fx.MustGloss("blame", "app/x.go"); !strings.Contains(got, "8 line(s): 0 human, 8 ai") {
		t.Errorf("blame disagrees with the trailer:\n%s", got)
	}

	fx.Write(".gloss/config.toml", "[review]\nai_share_trailer = false\n")
	commit(t, fx, "turn it off")
	fx.AgentWrites("claude", "claude-opus-4", "s2", "app/y.go", "package app\n\nfunc Y() int { return 2 }\n")
	commit(t, fx, "app: Y")
	if msg := fx.Git("log", "-1", "--format=%B"); strings.Contains(msg, "AI-Share") {
		t.Errorf("the trailer is off, but:\n%s", msg)
	}
}
