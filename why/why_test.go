package why_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/why"
)

const lib = `package lib

// Parse reads a token.
func Parse(s string) string {
	return s
}

type Client struct{}

// Connect dials the server.
func (c *Client) Connect() error {
	return nil
}
`

func newRepo(t *testing.T) *fixtures.Repo {
	t.Helper()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("initial", map[string]string{"README.md": "lib\n"})
	fx.MustGloss("init", "--no-mcp")
	return fx
}

func stage(t *testing.T, fx *fixtures.Repo, args ...string) {
	t.Helper()
	fx.MustGloss(append([]string{"annotate"}, args...)...)
}

func readJSON(t *testing.T, fx *fixtures.Repo, args ...string) why.ReadResult {
	t.Helper()
	out := fx.MustGloss(append([]string{"read", "--json"}, args...)...)
	var res why.ReadResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return res
}

func intents(res why.ReadResult) []string {
	var out []string
	for _, r := range res.Regions {
		out = append(out, r.Intent)
	}
	return out
}

// seed makes a history where Connect was written, then lines were
// inserted above it and the file renamed: reading today's lines must map
// through blame to the commit-time lines (Chronicle's defect D8).
func seed(t *testing.T) *fixtures.Repo {
	fx := newRepo(t)
	stage(t, fx, "--file", "lib/lib.go", "--anchor", "Client.Connect", "--intent", "dial once and reuse the connection",
		"--constraint", "never dial twice", "--rejected", "a pool | one server, one connection",
		"--reasoning", strings.Repeat("long reasoning about connections. ", 30), "--tag", "net", "--risk", "the server may drop idle connections")
	stage(t, fx, "--file", "lib/lib.go", "--anchor", "Parse", "--intent", "tokens are opaque strings", "--dep", "auth/auth.go#Verify|token format")
	fx.Commit("lib: client", map[string]string{"lib/lib.go": lib})
	moved := strings.Replace(lib, "package lib\n", "package lib\n\nimport \"fmt\"\n\nvar _ = fmt.Sprint\n", 1)
	fx.Commit("lib: use fmt", map[string]string{"lib/lib.go": moved})
	fx.Git("mv", "lib/lib.go", "lib/client.go")
	fx.Git("commit", "-q", "-m", "lib: rename")
	return fx
}

func TestReadMapsThroughBlameAndRenames(t *testing.T) {
	fx := seed(t)
	res := readJSON(t, fx, "lib/client.go", "--anchor", "Client.Connect")
	if got := intents(res); len(got) != 1 || got[0] != "dial once and reuse the connection" {
		t.Fatalf("intents = %v", got)
	}
	r := res.Regions[0]
	if r.File != "lib/lib.go" || r.Lines.Start != 10 || r.Current == nil || r.Current.Start != 14 {
		t.Errorf("region = file %s lines %+v current %+v; want lib/lib.go 10-13 now at 14", r.File, r.Lines, r.Current)
	}
	if len(r.Constraints) != 1 || r.Constraints[0].Text != "never dial twice" {
		t.Errorf("constraints = %+v", r.Constraints)
	}
	// Lines instead of an anchor reach the same record.
	if got := intents(readJSON(t, fx, "lib/client.go", "--lines", "16:16")); len(got) != 1 || got[0] != "dial once and reuse the connection" {
		t.Errorf("by lines: %v", got)
	}
	// Short and :: forms of the anchor resolve too.
	for _, a := range []string{"Connect", "Client::Connect"} {
		if got := intents(readJSON(t, fx, "lib/client.go", "--anchor", a)); len(got) != 1 {
			t.Errorf("anchor %q: %v", a, got)
		}
	}
	// At an older revision, the old path.
	if got := intents(readJSON(t, fx, "lib/lib.go", "--anchor", "Parse", "--rev", "HEAD~1")); len(got) != 1 || got[0] != "tokens are opaque strings" {
		t.Errorf("--rev: %v", got)
	}
}

func TestReadFallbacksAndErrors(t *testing.T) {
	fx := seed(t)
	res := readJSON(t, fx, "lib/client.go", "--anchor", "NoSuchThing")
	if len(res.Notes) == 0 || !strings.Contains(res.Notes[0], `anchor "NoSuchThing" not found`) || len(res.Regions) < 2 {
		t.Errorf("unknown anchor: notes %v, %d regions (want file-level results)", res.Notes, len(res.Regions))
	}
	empty := readJSON(t, fx, "README.md")
	if len(empty.Regions) != 0 || empty.Schema != "gloss-read/v1" {
		t.Errorf("a file without annotations: %+v", empty)
	}
	out, err := fx.Gloss("read", "no/such/file.go")
	if code := fixtures.ExitCode(err); code != 3 || !strings.Contains(out, "no such file") {
		t.Errorf("missing file: exit %d, %s", code, out)
	}
	if _, err := fx.Gloss("read", "../outside.go"); fixtures.ExitCode(err) != 2 {
		t.Errorf("path outside the repository: exit %d", fixtures.ExitCode(err))
	}
	if _, err := fx.Gloss("read", "lib/client.go", "--lines", "9:3"); fixtures.ExitCode(err) != 2 {
		t.Errorf("bad range: exit %d", fixtures.ExitCode(err))
	}
	// Uncommitted lines are said to be uncommitted.
	fx.Write("lib/client.go", fx.Read("lib/client.go")+"\nfunc Extra() {}\n")
	res = readJSON(t, fx, "lib/client.go", "--anchor", "Extra")
	if len(res.Regions) != 0 || !strings.Contains(strings.Join(res.Notes, " "), "not committed") {
		t.Errorf("uncommitted anchor: %+v", res)
	}
}

func TestTrimToTokenBudget(t *testing.T) {
	fx := seed(t)
	full := readJSON(t, fx, "lib/client.go")
	if len(full.Regions) < 3 {
		t.Fatalf("want several regions, got %d", len(full.Regions))
	}
	// A budget that fits one region without its long reasoning: the
	// lowest-scored regions go first, then lesser fields, never intent or
	// constraints.
	res := readJSON(t, fx, "lib/client.go", "--anchor", "Client.Connect", "--max-tokens", "120")
	if len(res.Regions) != 1 {
		t.Fatalf("want 1 region, got %d", len(res.Regions))
	}
	r := res.Regions[0]
	if r.Reasoning != "" || r.Tags != nil || r.Risks != nil {
		t.Errorf("lesser fields kept: %+v", r)
	}
	if r.Intent == "" || len(r.Constraints) != 1 {
		t.Errorf("intent or constraints dropped: %+v", r)
	}
	if res.Stats.FieldsTrimmed == 0 || !strings.Contains(strings.Join(res.Notes, " "), "trimmed") {
		t.Errorf("trimming not reported: %+v %v", res.Stats, res.Notes)
	}
	tight := readJSON(t, fx, "lib/client.go", "--max-tokens", "200")
	if tight.Stats.RegionsDropped == 0 || tight.Regions[0].Score < tight.Regions[len(tight.Regions)-1].Score {
		t.Errorf("dropping order wrong: %+v", tight.Stats)
	}
	// Decisions first (constraints and rejected alternatives, then risks),
	// then by score.
	for i := 1; i < len(full.Regions); i++ {
		a, b := &full.Regions[i-1], &full.Regions[i]
		if why.Rank(b) < why.Rank(a) || why.Rank(b) == why.Rank(a) && b.Score > a.Score {
			t.Errorf("regions not ranked: %v", full.Regions)
		}
	}
}

func TestStalenessCountsLaterCommits(t *testing.T) {
	fx := seed(t)
	before := readJSON(t, fx, "lib/client.go", "--anchor", "Client.Connect").Regions[0]
	fx.Commit("lib: connect logs", map[string]string{"lib/client.go": strings.Replace(fx.Read("lib/client.go"), "return nil\n}\n", "println(\"dial\")\n\treturn nil\n}\n", 1)})
	after := readJSON(t, fx, "lib/client.go", "--anchor", "Client.Connect")
	var old *why.RegionView
	for i, r := range after.Regions {
		if r.Intent == "dial once and reuse the connection" {
			old = &after.Regions[i]
		}
	}
	if old == nil || !old.Stale || old.LaterCommits != 1 || old.Score >= before.Score {
		t.Errorf("staleness: before %+v after %+v", before, old)
	}
}

func TestDepsHistorySummary(t *testing.T) {
	fx := seed(t)
	out := fx.MustGloss("deps", "auth/auth.go", "--anchor", "Verify", "--json")
	var deps why.DepsResult
	if err := json.Unmarshal([]byte(out), &deps); err != nil || len(deps.Dependents) != 1 || deps.Dependents[0].Anchor.Name != "Parse" {
		t.Errorf("deps = %s", out)
	}
	if out := fx.MustGloss("deps", "auth/auth.go", "--anchor", "Other", "--json"); !strings.Contains(out, `"dependents":[]`) {
		t.Errorf("deps on another anchor: %s", out)
	}
	for i := 0; i < 12; i++ {
		stage(t, fx, "--file", "lib/client.go", "--anchor", "Parse", "--intent", fmt.Sprintf("parse change %d", i))
		fx.Commit(fmt.Sprintf("lib: parse %d", i), map[string]string{"lib/client.go": strings.Replace(fx.Read("lib/client.go"), "return s\n", fmt.Sprintf("return s // %d\n", i), 1)})
		fx.Write("lib/client.go", strings.Replace(fx.Read("lib/client.go"), fmt.Sprintf(" // %d", i), "", 1))
		fx.Git("commit", "-q", "-a", "-m", fmt.Sprintf("lib: parse %d back", i))
	}
	out = fx.MustGloss("history", "lib/client.go", "--anchor", "Parse", "--limit", "3", "--json")
	var h why.HistoryResult
	if err := json.Unmarshal([]byte(out), &h); err != nil || len(h.Events) != 3 {
		t.Fatalf("history = %s", out)
	}
	if h.Events[2].Intent != "lib: parse 11 back" || h.Events[0].Time > h.Events[2].Time {
		t.Errorf("history not the newest three, oldest first: %+v", h.Events)
	}
	out = fx.MustGloss("summary", "lib", "--json")
	var s why.SummaryResult
	if err := json.Unmarshal([]byte(out), &s); err != nil || len(s.Files) != 1 {
		t.Fatalf("summary = %s", out)
	}
	got := map[string]why.AnchorSummary{}
	for _, a := range s.Files[0].Anchors {
		got[a.Anchor] = a
	}
	if got["Client.Connect"].Intent != "dial once and reuse the connection" || len(got["Client.Connect"].Constraints) != 1 {
		t.Errorf("summary Connect = %+v", got["Client.Connect"])
	}
	if got["Parse"].Intent != "lib: parse 11 back" || got["Parse"].Records < 10 {
		t.Errorf("summary Parse = %+v", got["Parse"])
	}
	if _, err := fx.Gloss("summary", "nowhere"); fixtures.ExitCode(err) != 3 {
		t.Errorf("summary of a missing path: exit %d", fixtures.ExitCode(err))
	}
}

// The MCP tools return the same bytes as the CLI's --json.
func TestMCPToolsMatchCLI(t *testing.T) {
	fx := seed(t)
	session := fx.StartMCP()
	for _, tc := range []struct {
		tool string
		args map[string]any
		cli  []string
	}{
		{"gloss_read", map[string]any{"path": "lib/client.go", "anchor": "Client.Connect", "max_tokens": 300}, []string{"read", "lib/client.go", "--anchor", "Client.Connect", "--max-tokens", "300"}},
		{"gloss_read", map[string]any{"path": "lib/client.go", "lines": map[string]int{"start": 1, "end": 9}}, []string{"read", "lib/client.go", "--lines", "1:9"}},
		{"gloss_deps", map[string]any{"path": "auth/auth.go"}, []string{"deps", "auth/auth.go"}},
		{"gloss_history", map[string]any{"path": "lib/client.go", "limit": 5}, []string{"history", "lib/client.go", "--limit", "5"}},
		{"gloss_summary", map[string]any{"path": "."}, []string{"summary", "."}},
	} {
		res := session.Call(tc.tool, tc.args)
		if res.IsError {
			t.Fatalf("%s: %s", tc.tool, res.Text)
		}
		cli := strings.TrimRight(fx.MustGloss(append(tc.cli, "--json")...), "\n")
		if res.Text != cli {
			t.Errorf("%s differs from the CLI:\nmcp %s\ncli %s", tc.tool, res.Text, cli)
		}
	}
	// gloss_annotate stages for the next commit, like the CLI.
	res := session.Call("gloss_annotate", map[string]any{"file": "lib/client.go", "anchor": "Parse", "intent": "from MCP"})
	if res.IsError || !strings.Contains(res.Text, `"staged":1`) {
		t.Fatalf("gloss_annotate: %s", res.Text)
	}
	fx.Commit("lib: parse again", map[string]string{"lib/client.go": strings.Replace(fx.Read("lib/client.go"), "return s\n", "return s + \"\"\n", 1)})
	if got := intents(readJSON(t, fx, "lib/client.go", "--anchor", "Parse")); !strings.Contains(strings.Join(got, "|"), "from MCP") {
		t.Errorf("MCP-staged context: %v", got)
	}
	if bad := session.Call("gloss_read", map[string]any{"path": "missing.go"}); !bad.IsError || !strings.Contains(bad.Text, "no such file") {
		t.Errorf("missing file over MCP: %+v", bad)
	}
	if ro := fx.StartMCP("--read-only"); ro != nil {
		if _, err := ro.CallErr("gloss_annotate", map[string]any{"intent": "x"}); err == nil {
			t.Error("gloss_annotate available under --read-only")
		}
	}
}

// Lists are arrays in every answer, never null, even when they are empty.
func TestEmptyAnswersAreArrays(t *testing.T) {
	fx := seed(t)
	for _, args := range [][]string{
		{"read", "README.md", "--json"},
		{"read", "README.md", "--lines", "1:1", "--json"},
		{"deps", "README.md", "--json"},
		{"history", "lib/client.go", "--anchor", "Nope", "--json"},
		{"history", "README.md", "--json"},
		{"summary", "README.md", "--json"},
	} {
		out := fx.MustGloss(args...)
		if strings.Contains(out, "null") {
			t.Errorf("%v: %s", args, out)
		}
	}
}

// A note written by hand with a damaged line and a record of an unknown
// kind still answers from its good lines, and every reader says how many
// lines it skipped.
func TestSkippedNoteLinesAreCounted(t *testing.T) {
	fx := newRepo(t)
	c := fx.Commit("lib: client", map[string]string{"lib/lib.go": lib})
	good := fmt.Sprintf(`{"$schema":"gloss/annotation/v1","id":"01JBENCH00000000000000000A","ts":"2026-01-02T03:04:05Z","kind":"region","commit":%q,"file":"lib/lib.go","anchor":{"kind":"function","name":"Parse"},"lines":{"start":3,"end":6},"intent":"tokens are opaque","deps":[{"file":"auth/auth.go"}],"author":{"kind":"human"},"source":"agent"}`, c)
	unknown := `{"$schema":"gloss/annotation/v1","id":"01JBENCH00000000000000000B","kind":"mystery"}`
	note := good + "\n{not json at all\n" + unknown + "\n"
	fx.Git("notes", "--ref", "gloss/annotations", "add", "-f", "-m", note, c)

	var r why.ReadResult
	out := fx.MustGloss("read", "lib/lib.go", "--anchor", "Parse", "--json")
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Skipped != 2 || len(r.Regions) != 1 {
		t.Errorf("read: skipped %d, %d regions: %s", r.Skipped, len(r.Regions), out)
	}
	if out := fx.MustGloss("read", "lib/lib.go", "--anchor", "Parse"); !strings.Contains(out, "skipped 2 note line(s)") {
		t.Errorf("read does not say what it skipped:\n%s", out)
	}
	for _, cmd := range [][]string{{"deps", "auth/auth.go"}, {"history", "lib/lib.go"}, {"summary", "lib"}} {
		out := fx.MustGloss(append(cmd, "--json")...)
		var v struct {
			Skipped *int `json:"skipped"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil || v.Skipped == nil || *v.Skipped != 2 {
			t.Errorf("%v: %s", cmd, out)
		}
		if out := fx.MustGloss(cmd...); !strings.Contains(out, "skipped 2 note line(s)") {
			t.Errorf("%v does not say what it skipped:\n%s", cmd, out)
		}
	}
	// Nothing skipped: the field is there, and the human output is quiet.
	fx.Git("notes", "--ref", "gloss/annotations", "add", "-f", "-m", good, c)
	if out := fx.MustGloss("summary", "lib", "--json"); !strings.Contains(out, `"skipped":0`) {
		t.Errorf("summary without bad lines: %s", out)
	}
	if out := fx.MustGloss("summary", "lib"); strings.Contains(out, "skipped") {
		t.Errorf("summary without bad lines mentions skipping:\n%s", out)
	}
	// An annotated commit with no event for the anchor leaves an empty
	// timeline, still an array.
	if out := fx.MustGloss("history", "lib/lib.go", "--anchor", "Nope", "--json"); !strings.Contains(out, `"events":[]`) {
		t.Errorf("history with no events: %s", out)
	}
}

// Outlines are cached by content: a second read answers the same, and a
// changed file is parsed again rather than read from the cache.
func TestOutlineCacheFollowsContent(t *testing.T) {
	fx := seed(t)
	first := fx.MustGloss("read", "lib/client.go", "--anchor", "Client.Connect", "--json")
	if again := fx.MustGloss("read", "lib/client.go", "--anchor", "Client.Connect", "--json"); again != first {
		t.Errorf("second read differs:\n%s\n%s", first, again)
	}
	fx.Write("lib/client.go", strings.Replace(fx.Read("lib/client.go"), "type Client struct{}", "type Client struct{}\n\n// spacer\n\nfunc Extra() {}\n", 1))
	res := readJSON(t, fx, "lib/client.go", "--anchor", "Client.Connect")
	if len(res.Resolved.Anchors) != 1 || res.Resolved.Anchors[0].Start != 19 {
		t.Errorf("anchor after the edit = %+v", res.Resolved.Anchors)
	}
}

// TestReadAnEditorsBuffer reads the lines of an unsaved buffer (--contents,
// what an editor holds): ten lines inserted above Client.Connect move it
// down, and the buffer's line numbers still reach its record.
func TestReadAnEditorsBuffer(t *testing.T) {
	fx := seed(t)
	today := fx.Read("lib/client.go")
	buffer := strings.Replace(today, "type Client struct{}", strings.Repeat("// a comment being typed\n", 10)+"type Client struct{}", 1)
	file := filepath.Join(t.TempDir(), "buffer.go")
	if err := os.WriteFile(file, []byte(buffer), 0o644); err != nil {
		t.Fatal(err)
	}
	connect := 0
	for i, l := range strings.Split(buffer, "\n") {
		if strings.Contains(l, "return nil") {
			connect = i + 1
		}
	}
	res := readJSON(t, fx, "lib/client.go", "--lines", fmt.Sprintf("%d:%d", connect, connect), "--contents", file)
	if got := intents(res); len(got) != 1 || got[0] != "dial once and reuse the connection" {
		t.Fatalf("buffer line %d: intents %v (notes %v)", connect, got, res.Notes)
	}
	if cur := res.Regions[0].Current; cur == nil || cur.Start > connect || cur.End < connect {
		t.Errorf("current lines %+v do not hold buffer line %d", cur, connect)
	}
	// The inserted lines are the buffer's own: uncommitted, no record.
	res = readJSON(t, fx, "lib/client.go", "--lines", fmt.Sprintf("%d:%d", connect-5, connect-5), "--contents", file)
	if len(res.Regions) != 0 || !strings.Contains(strings.Join(res.Notes, " "), "not committed") {
		t.Errorf("an inserted line: %d regions, notes %v", len(res.Regions), res.Notes)
	}
	// The file on disk is untouched and reads as before.
	if fx.Read("lib/client.go") != today {
		t.Fatal("the working-tree file changed")
	}
	if _, err := fx.Gloss("read", "lib/client.go", "--contents", file, "--rev", "HEAD"); fixtures.ExitCode(err) != 2 {
		t.Errorf("--contents with --rev: exit %d, want 2 (usage)", fixtures.ExitCode(err))
	}
}
