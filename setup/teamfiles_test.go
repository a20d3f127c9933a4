package setup_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 28, point 5: in a teammate's clone where the team committed
// .claude/settings.json with gloss's entries, uninstall leaves the tracked
// file byte for byte as committed and says what to do instead; entries
// install added in this clone to a tracked file (uncommitted) are still
// taken back.
func TestUninstallLeavesTheTeamsCommittedFileAlone(t *testing.T) {
	t.Parallel()
	team := newRepo(t)
	team.MustGloss("agent", "install", "--agent", "claude")
	team.Git("add", ".claude/settings.json")
	team.Git("commit", "-q", "-m", "share gloss's agent hooks")
	committed := team.Read(".claude/settings.json")

	// A teammate's clone: the same history, its own install.
	mate := newRepo(t)
	mate.Git("pull", "-q", "--no-rebase", "--allow-unrelated-histories", "-X", "theirs", team.Dir, "HEAD")
	if mate.Read(".claude/settings.json") != committed {
		t.Fatal("the clone does not hold the committed file")
	}
	mate.MustGloss("init", "--no-mcp")
	mate.MustGloss("agent", "install", "--agent", "claude", "--agent", "gemini")
	mate.Git("add", ".gemini/settings.json")
	mate.Git("commit", "-q", "-m", "gemini too")
	// Gemini's file is tracked, but this clone's install created it: the
	// person's own, uninstall takes it back (the deletion is theirs to commit).
	out := mate.MustGloss("uninstall")
	if got := mate.Read(".claude/settings.json"); got != committed {
		t.Errorf("uninstall edited the team's tracked file:\n%s\nwant:\n%s", got, committed)
	}
	if st := mate.Git("status", "--porcelain", "--", ".claude"); st != "" {
		t.Errorf("uninstall left changes in .claude: %s", st)
	}
	if !strings.Contains(out, "git tracks it") || !strings.Contains(out, "commit") {
		t.Errorf("uninstall does not say why it kept the file or what to do instead:\n%s", out)
	}
	if _, err := os.Stat(mate.Path(".gemini/settings.json")); !os.IsNotExist(err) {
		t.Errorf("the file this clone's install created is left: %v", err)
	}

	// Entries install adds to a tracked file nobody committed them to are
	// this clone's: uninstall gives the committed bytes back.
	own := newRepo(t)
	own.Commit("team settings", map[string]string{".claude/settings.json": "{\n  \"theme\": \"dark\"\n}\n"})
	own.MustGloss("agent", "install", "--agent", "claude")
	own.MustGloss("agent", "uninstall")
	if got := own.Read(".claude/settings.json"); got != "{\n  \"theme\": \"dark\"\n}\n" {
		t.Errorf("uninstall did not take back what install added to a tracked file:\n%s", got)
	}
}

// agent install with no --agent sets up Claude Code and the agents whose
// project folder the repository has, never one because of a folder in the
// person's home directory, and says how to add the others.
func TestAgentInstallDefaultsToTheAgentsTheRepositoryUses(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)
	home := envValue(fx, "HOME")
	for _, d := range []string{".gemini", ".codex"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fx.Commit("cursor rules", map[string]string{".cursor/rules/go.mdc": "use gofmt\n"})
	out := fx.MustGloss("agent", "install")
	for _, p := range []string{".gemini", ".codex"} {
		if _, err := os.Stat(fx.Path(p)); !os.IsNotExist(err) {
			t.Errorf("install added %s to the project because the home directory has one", p)
		}
	}
	for _, p := range []string{".claude/settings.json", ".cursor/hooks.json"} {
		if _, err := os.Stat(fx.Path(p)); err != nil {
			t.Errorf("install did not set up %s: %v", p, err)
		}
	}
	line := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "git gloss agent install --agent ") {
			line = l
		}
	}
	if !strings.Contains(line, "gemini") || !strings.Contains(line, "codex") || strings.Contains(line, "cursor") {
		t.Errorf("install does not say how to add the other agents:\n%s", out)
	}
}
