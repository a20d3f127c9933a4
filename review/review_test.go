package review_test

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/review"
	"github.com/gloss-dev/gloss/runenv"
)

// fzfRev is the commit of junegunn/fzf the tests build on (as bench's
// read recipe does).
const fzfRev = "956562da"

// fzfClone is a clone of fzf's real history at fzfRev, on a branch main,
// with gloss set up and no remote; it skips when the mirror is absent.
func fzfClone(t *testing.T) *fixtures.Repo {
	t.Helper()
	src := runenv.Get(runenv.FzfMirror)
	if src == "" {
		src = "/work/.mirror/junegunn+fzf/repo"
	}
	if _, err := os.Stat(src); err != nil {
		t.Skipf("no fzf mirror at %s", src)
	}
	fixtures.Binary(t)
	fx := fixtures.Clone(t, src)
	fx.Git("checkout", "-q", "-B", "main", fzfRev)
	fx.Git("remote", "remove", "origin")
	fx.MustGloss("init", "--no-mcp")
	return fx
}

// edit replaces old with new in a file of the working tree.
func edit(t *testing.T, fx *fixtures.Repo, file, old, new string) {
	t.Helper()
	s := fx.Read(file)
	if !strings.Contains(s, old) {
		t.Fatalf("%s does not contain %q", file, old)
	}
	fx.Write(file, strings.Replace(s, old, new, 1))
}

func commit(t *testing.T, fx *fixtures.Repo, msg ...string) string {
	t.Helper()
	args := []string{"commit", "-q", "-a"}
	for _, m := range msg {
		args = append(args, "-m", m)
	}
	fx.Git("add", "-A")
	fx.Git(args...)
	return fx.Git("rev-parse", "HEAD")
}

// featureBranch builds, on fzf's history, a main with two recorded
// decisions — a line of RepeatToFill's remainder loop with a constraint
// and a rejected alternative, a line of ToKebabCase's loop with a risk —
// and a branch feature with a human commit (editing the risk's line), two
// agent commits (Claude and Codex, through the agent hooks) and a commit
// that adds lines to RepeatToFill, away from its recorded line, and
// brings the rejected alternative back.
func featureBranch(t *testing.T) *fixtures.Repo {
	t.Helper()
	fx := fzfClone(t)
	const util = "src/util/util.go"
	edit(t, fx, util, "\t\t\trest -= uniseg.StringWidth(string(r))\n", "\t\t\trest -= uniseg.StringWidth(string(r)) // display width, not bytes\n")
	commit(t, fx, "util: RepeatToFill fills the rest rune by rune",
		"Constraint: must respect the display width limit\nRejected: `str[:rest]` | cuts a multi-byte rune and ignores display width")
	edit(t, fx, util, "\t\tif i > 0 && r >= 'A' && r <= 'Z' {", "\t\tif i > 0 && unicode.IsUpper(r) {")
	edit(t, fx, util, "import (\n", "import (\n\t\"unicode\"\n")
	commit(t, fx, "util: ToKebabCase splits on every upper-case letter", "Risk: option names with acronyms change their kebab form")

	fx.Git("checkout", "-q", "-b", "feature")
	edit(t, fx, util, "\t\tif i > 0 && unicode.IsUpper(r) {", "\t\tif i > 0 && unicode.IsUpper(r) { // a dash before each upper-case letter")
	commit(t, fx, "util: say what ToKebabCase does")
	fx.AgentWrites("claude", "claude-opus-4", "s-claude", "src/util/pad.go",
		"package util\n\n// PadRight pads s with spaces to n runes.\nfunc PadRight(s string, n int) string {\n\tfor len([]rune(s)) < n {\n\t\ts += \" \"\n\t}\n\treturn s\n}\n")
	commit(t, fx, "util: PadRight")
	fx.AgentWrites("codex", "gpt-5-codex", "s-codex", "src/util/trim.go",
		"package util\n\nimport \"strings\"\n\n// TrimAll trims spaces around each string.\nfunc TrimAll(ss []string) []string {\n\tout := make([]string, len(ss))\n\tfor i, s := range ss {\n\t\tout[i] = strings.TrimSpace(s)\n\t}\n\treturn out\n}\n")
	commit(t, fx, "util: TrimAll")
	// Lines added to the function, away from the lines the decision was
	// recorded on: it is the function's decision.
	edit(t, fx, util, "\toutput := strings.Repeat(str, times)\n",
		"\toutput := strings.Repeat(str, times)\n\tif rest > 0 && len(str) >= rest {\n\t\treturn output + str[:rest]\n\t}\n")
	commit(t, fx, "util: RepeatToFill keeps part of a wide rune")
	return fx
}

func reviewJSON(t *testing.T, fx *fixtures.Repo, args ...string) (*review.Report, []byte) {
	t.Helper()
	out := fx.MustGloss(append([]string{"review", "--json"}, args...)...)
	var rep review.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("review --json: %v\n%s", err, out)
	}
	return &rep, []byte(out)
}

// TestReviewOfAFeatureBranch is issue 30's first test: on fzf's real
// history, the report lists the constraint and the rejected alternative
// brought back first, its per-file agent share is what git gloss blame
// says of the added lines, and its JSON validates against its schema.
func TestReviewOfAFeatureBranch(t *testing.T) {
	t.Parallel()
	fx := featureBranch(t)
	rep, raw := reviewJSON(t, fx, "main..feature")

	if rep.Range.Commits != 4 || rep.Range.Files != 3 {
		t.Errorf("range = %+v, want 4 commits and 3 files", rep.Range)
	}
	if len(rep.Decisions) < 2 {
		t.Fatalf("decisions = %+v, want RepeatToFill's and ToKebabCase's", rep.Decisions)
	}
	first := rep.Decisions[0]
	if first.Rank != review.RankReintroduced || first.File != "src/util/util.go" || len(first.Reintroduced) != 1 ||
		first.Reintroduced[0].Match != "str[:rest]" || !reflect.DeepEqual(first.Constraints, []string{"must respect the display width limit"}) {
		t.Errorf("first decision = %+v, want RepeatToFill's, bringing back str[:rest], with its constraint", first)
	}
	last := rep.Decisions[len(rep.Decisions)-1]
	if last.Rank != review.RankRisk || len(last.Risks) != 1 || !strings.Contains(last.Risks[0], "acronyms") {
		t.Errorf("last decision = %+v, want ToKebabCase's risk", last)
	}

	md := fx.MustGloss("review", "main..feature", "--format", "markdown")
	if !strings.HasPrefix(md, review.Marker) {
		t.Errorf("the markdown does not start with the marker:\n%s", md)
	}
	section := md[strings.Index(md, "### What this change touches"):]
	items := strings.Split(section, "\n1. ")
	if len(items) < 2 || !strings.HasPrefix(items[1], "**Brings back a rejected alternative** in `src/util/util.go`") ||
		!strings.Contains(strings.SplitN(items[1], "\n2. ", 2)[0], "constraint: must respect the display width limit") {
		t.Errorf("the markdown's first decision is not the rejected alternative brought back, with its constraint:\n%s", section)
	}
	if i, j := strings.Index(md, "Brings back a rejected alternative"), strings.Index(md, "known risk"); i < 0 || j < i {
		t.Errorf("the risk is not listed after the rejected alternative:\n%s", md)
	}

	checkShares(t, fx, rep, "main", "feature")
	agents := map[string]int{}
	for _, a := range rep.Authorship.Agents {
		agents[a.Agent+"/"+a.Model] = a.Lines
	}
	if agents["claude/claude-opus-4"] != 9 || agents["codex/gpt-5-codex"] != 12 {
		t.Errorf("agents = %v, want claude's 9 lines and codex's 12", agents)
	}
	validate(t, fx, raw)
}

// checkShares holds every examined file's counts to git gloss blame of the
// same lines: the + lines of git diff base...head, blamed at head.
func checkShares(t *testing.T, fx *fixtures.Repo, rep *review.Report, base, head string) {
	t.Helper()
	for _, f := range rep.Authorship.Files {
		if !f.Examined || f.Status == "deleted" {
			continue
		}
		added := addedLines(t, fx, base+"..."+head, f.Path)
		var blame attribution.BlameResult
		out := fx.MustGloss("blame", "--json", "--rev", head, f.Path)
		if err := json.Unmarshal([]byte(out), &blame); err != nil {
			t.Fatal(err)
		}
		var want attribution.Totals
		wantAgents := map[string]int{}
		for _, l := range blame.Lines {
			if !added[l.Line] {
				continue
			}
			switch l.Contributor.Type {
			case attribution.Human:
				want.Human++
			case attribution.AI:
				want.AI++
			case attribution.Mixed:
				want.Mixed++
			default:
				want.Unknown++
			}
			if l.Contributor.Agent != "" {
				wantAgents[l.Contributor.Agent+"/"+l.Contributor.Model]++
			}
		}
		gotAgents := map[string]int{}
		for _, a := range f.Agents {
			gotAgents[a.Agent+"/"+a.Model] = a.Lines
		}
		if f.Totals != want || !reflect.DeepEqual(gotAgents, wantAgents) || f.Added != len(added) {
			t.Errorf("%s: review says %+v %v (%d added), git gloss blame says %+v %v (%d added)", f.Path, f.Totals, gotAgents, f.Added, want, wantAgents, len(added))
		}
	}
}

// addedLines reads the new-side line numbers of a file's hunks from git's
// own diff.
func addedLines(t *testing.T, fx *fixtures.Repo, rng, file string) map[int]bool {
	t.Helper()
	out := fx.Git("diff", "-U0", "--no-color", rng, "--", file)
	lines := map[int]bool{}
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "@@ ") {
			continue
		}
		side := strings.TrimPrefix(strings.Fields(l)[2], "+")
		a, b, found := strings.Cut(side, ",")
		start, _ := strconv.Atoi(a)
		n := 1
		if found {
			n, _ = strconv.Atoi(b)
		}
		for i := start; i < start+n; i++ {
			lines[i] = true
		}
	}
	return lines
}

// validate checks a report against git gloss schema review, with a
// validator independent of the one that generates the schema.
func validate(t *testing.T, fx *fixtures.Repo, raw []byte) {
	t.Helper()
	doc := fx.MustGloss("schema", "review")
	schemaDoc, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("review.json", schemaDoc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("review.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("the report does not validate against git gloss schema review: %v", err)
	}
}
