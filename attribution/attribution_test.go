package attribution_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/why"
)

func newRepo(t *testing.T) *fixtures.Repo {
	t.Helper()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("initial", map[string]string{"README.md": "app\n"})
	fx.MustGloss("init", "--no-mcp")
	fx.Git("add", "-A")
	fx.Git("commit", "-q", "--allow-empty", "-m", "gloss init")
	return fx
}

func commitAll(t *testing.T, fx *fixtures.Repo, msg string) string {
	t.Helper()
	fx.Git("add", "-A")
	fx.Git("commit", "-q", "-m", msg)
	return fx.Git("rev-parse", "HEAD")
}

func blame(t *testing.T, fx *fixtures.Repo, file string, args ...string) *attribution.BlameResult {
	t.Helper()
	out := fx.MustGloss(append([]string{"blame", "--json", file}, args...)...)
	var res attribution.BlameResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("blame --json: %v\n%s", err, out)
	}
	return &res
}

// who is each line's contributor in one word: type[/agent/model/session].
func who(res *attribution.BlameResult) []string {
	var out []string
	for _, l := range res.Lines {
		c := l.Contributor
		w := c.Type
		if c.Agent != "" {
			w += "/" + c.Agent + "/" + c.Model + "/" + c.Session
		}
		out = append(out, w)
	}
	return out
}

func expect(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s:\n got  %q\n want %q", what, got, want)
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func join(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

const (
	claude = "ai/claude/claude-opus-4/s1"
	mixed1 = "mixed/claude/claude-opus-4/s1"
	codex  = "ai/codex/gpt-5-codex/s2"
	human  = "human"
)

func numbered(prefix string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s line %d\n", prefix, i)
	}
	return b.String()
}

// TestAttributionThroughRewrites builds a history with a scripted agent
// and a person editing the same files, then checks every line's
// contributor, before and after an amend, a rebase and a forge-style
// squash merge with carry.
func TestAttributionThroughRewrites(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)

	// The agent writes a.go; the person changes its line 5 before the
	// commit and writes b.go alone.
	a := numbered("agent", 8)
	fx.AgentWrites("claude", "claude-opus-4", "s1", "app/a.go", a)
	a = strings.Replace(a, "agent line 5", "agent line 5, fixed by hand", 1)
	fx.Write("app/a.go", a)
	fx.Write("app/b.go", numbered("person", 3))
	commitAll(t, fx, "feat: a and b")
	expect(t, "a.go after the first commit", who(blame(t, fx, "app/a.go")),
		join(repeat(claude, 4), []string{mixed1}, repeat(claude, 3))...)
	expect(t, "b.go after the first commit", who(blame(t, fx, "app/b.go")), repeat(human, 3)...)

	// A later commit by the person changes line 2 of the agent's file.
	a = strings.Replace(a, "agent line 2", "person rewrote line 2", 1)
	fx.Write("app/a.go", a)
	commitAll(t, fx, "fix: line 2")
	wantA := join([]string{claude, human, claude, claude, mixed1}, repeat(claude, 3))
	expect(t, "a.go after the fix", who(blame(t, fx, "app/a.go")), wantA...)

	// Amend: the person adds a line to b.go; the agent's lines keep theirs.
	fx.Write("app/b.go", numbered("person", 4))
	fx.Git("commit", "-q", "-a", "--amend", "--no-edit")
	expect(t, "a.go after the amend", who(blame(t, fx, "app/a.go")), wantA...)
	expect(t, "b.go after the amend", who(blame(t, fx, "app/b.go")), repeat(human, 4)...)

	// A feature branch: the agent writes c.go in another session, the
	// person edits one of its lines in a second commit.
	base := fx.Git("rev-parse", "HEAD")
	fx.Git("checkout", "-q", "-b", "feature")
	fx.AgentWrites("codex", "gpt-5-codex", "s2", "app/c.go", numbered("codex", 6))
	commitAll(t, fx, "feat: c")
	c := strings.Replace(numbered("codex", 6), "codex line 4", "person line 4", 1)
	fx.Write("app/c.go", c)
	commitAll(t, fx, "fix: c line 4")
	wantC := join(repeat(codex, 3), []string{human}, repeat(codex, 2))
	expect(t, "c.go on feature", who(blame(t, fx, "app/c.go")), wantC...)

	// Meanwhile main moves: the person prepends to a.go.
	fx.Git("checkout", "-q", "main")
	fx.Write("app/a.go", "// header by hand\n"+a)
	commitAll(t, fx, "docs: header")
	wantA2 := append([]string{human}, wantA...)
	expect(t, "a.go on main", who(blame(t, fx, "app/a.go")), wantA2...)

	// Rebase feature onto main: nothing changes for any line.
	fx.Git("checkout", "-q", "feature")
	fx.Git("rebase", "-q", "main")
	expect(t, "c.go after the rebase", who(blame(t, fx, "app/c.go")), wantC...)
	expect(t, "a.go after the rebase", who(blame(t, fx, "app/a.go")), wantA2...)
	if fx.Git("rev-parse", "HEAD~2") == base {
		t.Fatal("the rebase did not move the branch")
	}

	// A forge's squash merge: made where no hook runs, then carried.
	fx.Git("checkout", "-q", "main")
	fx.Git("-c", "core.hooksPath=/dev/null", "merge", "-q", "--squash", "feature")
	fx.Git("-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "feature (#1)")
	expect(t, "c.go after the squash, before carry", who(blame(t, fx, "app/c.go")), repeat("unknown", 6)...)
	fx.MustGloss("carry", "--from", "main@{1}..feature", "--no-push")
	expect(t, "c.go after carry", who(blame(t, fx, "app/c.go")), wantC...)
	note := fx.Git("notes", "--ref", "gloss/attribution", "show", "HEAD")
	fx.MustGloss("carry", "--from", "main@{1}..feature", "--no-push")
	if again := fx.Git("notes", "--ref", "gloss/attribution", "show", "HEAD"); again != note {
		t.Errorf("a second carry wrote again:\n%s\nthen\n%s", note, again)
	}
	expect(t, "a.go after carry", who(blame(t, fx, "app/a.go")), wantA2...)

	// read --json carries each region's attribution: the squash's region
	// of c.go is the codex session's five lines and the person's one.
	var rd why.ReadResult
	if err := json.Unmarshal([]byte(fx.MustGloss("read", "--json", "app/c.go")), &rd); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rd.Regions {
		if a := r.Attribution; a != nil && r.Current != nil && r.Current.Start == 1 && r.Current.End == 6 {
			found = true
			if a.AI != 3+2 || a.Human != 1 || len(a.Agents) != 1 || a.Agents[0].Agent != "codex" || a.Agents[0].Lines != 5 {
				t.Errorf("c.go region attribution: %+v", a)
			}
		}
	}
	if !found {
		t.Errorf("no region of c.go lines 1-6 with attribution: %+v", rd.Regions)
	}
}

// history builds the test history and returns the repository and the
// commit before any attributed one.
func history(t *testing.T) (*fixtures.Repo, string) {
	t.Helper()
	fx := newRepo(t)
	base := fx.Git("rev-parse", "HEAD")
	a := numbered("agent", 8)
	fx.AgentWrites("claude", "claude-opus-4", "s1", "app/a.go", a)
	a = strings.Replace(a, "agent line 5", "agent line 5, fixed by hand", 1)
	fx.Write("app/a.go", a)
	fx.Write("app/b.go", numbered("person", 3))
	commitAll(t, fx, "feat: a and b")
	fx.AgentWrites("codex", "gpt-5-codex", "s2", "lib/c.go", numbered("codex", 6))
	fx.Write("lib/c.go", strings.Replace(numbered("codex", 6), "codex line 4", "person line 4", 1))
	fx.Write("app/b.go", numbered("person", 2)) // one line deleted
	commitAll(t, fx, "feat: c")
	return fx, base
}

func stats(t *testing.T, fx *fixtures.Repo, args ...string) *attribution.StatsResult {
	t.Helper()
	out := fx.MustGloss(append([]string{"stats", "--json"}, args...)...)
	var res attribution.StatsResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("stats --json: %v\n%s", err, out)
	}
	return &res
}

func TestStatsAddUpToDiffStat(t *testing.T) {
	t.Parallel()
	fx, base := history(t)
	res := stats(t, fx, base+"..HEAD")
	// By hand: a.go 8 lines (7 claude, 1 mixed), b.go 2 human lines left,
	// c.go 6 lines (5 codex, 1 human where the person changed line 4; it is
	// inside the agent's block, so mixed).
	want := attribution.Totals{Human: 2, AI: 12, Mixed: 2}
	if res.Totals != want {
		t.Errorf("totals %+v, want %+v", res.Totals, want)
	}
	// git diff --stat of the same range.
	var ins, del int
	for _, l := range fixtures.Lines(fx.Git("diff", "--numstat", base, "HEAD")) {
		var a, d int
		var p string
		fmt.Sscanf(l, "%d\t%d\t%s", &a, &d, &p)
		ins, del = ins+a, del+d
	}
	if res.Insertions != ins || res.Deletions != del || res.Totals.Human+res.Totals.AI+res.Totals.Mixed+res.Totals.Unknown != ins {
		t.Errorf("insertions %d deletions %d totals %+v; git diff --stat says +%d -%d", res.Insertions, res.Deletions, res.Totals, ins, del)
	}
	agents := map[string]int{}
	for _, a := range res.Agents {
		agents[a.Agent+"/"+a.Model] = a.Lines
	}
	if agents["claude/claude-opus-4"] != 8 || agents["codex/gpt-5-codex"] != 6 || len(agents) != 2 {
		t.Errorf("agents: %v", res.Agents)
	}
	dirs := map[string]int{}
	sum := 0
	for _, d := range res.Directories {
		dirs[d.Dir] = d.Insertions
		sum += d.Human + d.AI + d.Mixed + d.Unknown
	}
	if dirs["app"] != 10 || dirs["lib"] != 6 || sum != ins {
		t.Errorf("directories: %+v", res.Directories)
	}
	authorSum := 0
	for _, a := range res.Authors {
		authorSum += a.Lines
	}
	if authorSum != ins {
		t.Errorf("authors add up to %d, want %d", authorSum, ins)
	}
	// One commit, and a path limit.
	one := stats(t, fx, "HEAD", "lib")
	if one.Insertions != 6 || one.Totals.AI != 5 || one.Totals.Mixed != 1 {
		t.Errorf("stats HEAD lib: %+v", one)
	}
}

// A cherry-pick and a local squash merge (both made with gloss's hooks)
// carry the attribution of the commits they copy.
func TestCherryPickAndLocalSquashCarryAttribution(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)
	fx.Git("checkout", "-q", "-b", "topic")
	fx.AgentWrites("claude", "claude-opus-4", "s1", "app/p.go", numbered("agent", 4))
	fx.Write("app/p.go", strings.Replace(numbered("agent", 4), "agent line 2", "hand line 2", 1))
	commitAll(t, fx, "feat: p")
	fx.AgentWrites("codex", "gpt-5-codex", "s2", "lib/q.go", numbered("codex", 3))
	commitAll(t, fx, "feat: q")
	wantP := who(blame(t, fx, "app/p.go"))
	wantQ := who(blame(t, fx, "lib/q.go"))
	expect(t, "p.go on topic", wantP, claude, mixed1, claude, claude)

	fx.Git("checkout", "-q", "main")
	fx.Git("checkout", "-q", "-b", "picked")
	fx.Git("cherry-pick", "topic~1")
	expect(t, "p.go after cherry-pick", who(blame(t, fx, "app/p.go")), wantP...)

	fx.Git("checkout", "-q", "main")
	fx.Git("merge", "-q", "--squash", "topic")
	fx.Git("commit", "-q", "--no-edit")
	expect(t, "p.go after a local squash merge", who(blame(t, fx, "app/p.go")), wantP...)
	expect(t, "q.go after a local squash merge", who(blame(t, fx, "lib/q.go")), wantQ...)
}

// A person's "}" is not the agent's because the agent also wrote a "}"
// into the file: a line with no word counts as the agent's only beside the
// agent's real lines.
func TestTrivialLinesNeedAgentNeighbours(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)
	fx.AgentWrites("claude", "claude-opus-4", "s1", "app/x.go", "func A() {\n\treturn\n}\n")
	fx.Write("app/x.go", "func A() {\n\treturn\n}\n\nfunc B() {\n}\n")
	commitAll(t, fx, "feat: A by the agent, B by hand")
	expect(t, "x.go", who(blame(t, fx, "app/x.go")), claude, claude, claude, human, human, human)
}

// A person who changes the last of the agent's lines makes it mixed (the
// capture says the agent wrote that line's place); lines the person adds
// after the agent's are the person's.
func TestChangedEdgeLineIsMixed(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)
	fx.AgentWrites("claude", "claude-opus-4", "s1", "app/e.go", numbered("agent", 4))
	fx.Write("app/e.go", strings.Replace(numbered("agent", 4), "agent line 4", "hand line 4", 1)+"hand line 5\n")
	commitAll(t, fx, "feat: e")
	expect(t, "e.go", who(blame(t, fx, "app/e.go")), claude, claude, claude, mixed1, human)
}

// An interactive rebase that squashes and reorders keeps every line's
// contributor.
func TestInteractiveRebaseSquashKeepsAttribution(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)
	base := fx.Git("rev-parse", "HEAD")
	fx.AgentWrites("claude", "claude-opus-4", "s1", "app/r.go", numbered("agent", 5))
	commitAll(t, fx, "feat: r")
	fx.Write("app/r.go", strings.Replace(numbered("agent", 5), "agent line 3", "hand line 3", 1))
	commitAll(t, fx, "fix: r line 3")
	fx.AgentWrites("codex", "gpt-5-codex", "s2", "lib/s.go", numbered("codex", 2))
	commitAll(t, fx, "feat: s")
	wantR := who(blame(t, fx, "app/r.go"))
	wantS := who(blame(t, fx, "lib/s.go"))
	expect(t, "r.go", wantR, claude, claude, human, claude, claude)

	// Move "feat: s" first and fold the fix into "feat: r".
	editor := filepath.Join(t.TempDir(), "todo.sh")
	script := "#!/bin/sh\nawk '/feat: r/{r=$0;next} /fix: r/{f=$0;sub(/^pick/,\"fixup\",f);next} {print} END{print r; print f}' \"$1\" > \"$1.new\" && mv \"$1.new\" \"$1\"\n"
	if err := os.WriteFile(editor, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	fx.Git("-c", "sequence.editor="+editor, "rebase", "-q", "-i", base)
	if n := fx.Git("rev-list", "--count", base+"..HEAD"); n != "2" {
		t.Fatalf("the rebase left %s commits, want 2", n)
	}
	expect(t, "r.go after squash and reorder", who(blame(t, fx, "app/r.go")), wantR...)
	expect(t, "s.go after squash and reorder", who(blame(t, fx, "lib/s.go")), wantS...)
}

// Stats reads the names git quotes (a quote, a tab, non-ASCII) and the
// ones its diff ends with a tab (a space) like any other: each inserted
// line is counted as who wrote it, none as unknown.
func TestStatsOfUnusualNames(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)
	base := fx.Git("rev-parse", "HEAD")
	names := []string{"a b.go", "q\"t\tx.go", "dir/ü.go"}
	for _, n := range names {
		fx.Write(n, "one\ntwo\n")
	}
	fx.Git("add", "-A")
	agent := *fx
	agent.Env = append(append([]string{}, fx.Env...), "GLOSS_AGENT=claude", "GLOSS_MODEL=opus")
	agent.Git("commit", "-q", "-m", "names")
	res := stats(t, fx, base+"..HEAD")
	if want := (attribution.Totals{AI: 6}); res.Totals != want || res.Insertions != 6 {
		t.Errorf("stats of %q: insertions %d, totals %+v, want 6 lines, all ai", names, res.Insertions, res.Totals)
	}
}
