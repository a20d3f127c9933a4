package annotate_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/why"
)

const serverV1 = `package server

import "net/http"

// Server answers the API.
type Server struct{ mux *http.ServeMux }

// Handle registers routes.
func (s *Server) Handle() {
	s.mux.HandleFunc("/todos", s.list)
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	w.Write([]byte("[]"))
}
`

// newRepo makes a repository with gloss set up, so commits run the real
// hooks.
func newRepo(t *testing.T) *fixtures.Repo {
	t.Helper()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("initial", map[string]string{"README.md": "todo service\n"})
	fx.MustGloss("init", "--no-mcp")
	// Commit what init wrote (init --notebook would scaffold a notebook) so
	// tests see only their own changes.
	fx.Git("add", "-A")
	fx.Git("commit", "-q", "--allow-empty", "-m", "gloss init")
	return fx
}

func openRepo(t *testing.T, dir string) *gitops.Repo {
	t.Helper()
	r, err := gitops.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// records returns the live annotation records of a commit.
func records(t *testing.T, fx *fixtures.Repo, rev string) []annotate.Decoded {
	t.Helper()
	repo := openRepo(t, fx.Dir)
	id, err := repo.ResolveCommit(rev)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := notes.Open(repo, notes.Annotations).Read([]string{id})
	if err != nil {
		t.Fatal(err)
	}
	return annotate.Decode(notes.Resolve(recs[id]))
}

func regionFor(ds []annotate.Decoded, anchor string) *annotate.Region {
	for _, d := range ds {
		if d.Region != nil && d.Region.Anchor != nil && d.Region.Anchor.Name == anchor {
			return d.Region
		}
	}
	return nil
}

// read runs git gloss read --json and decodes it.
func read(t *testing.T, fx *fixtures.Repo, args ...string) why.ReadResult {
	t.Helper()
	out := fx.MustGloss(append([]string{"read", "--json"}, args...)...)
	var res why.ReadResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("read output: %v\n%s", err, out)
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

func TestPostCommitCapturesRegionsTrailersAndStagedContext(t *testing.T) {
	fx := newRepo(t)
	fx.MustGloss("annotate", "--file", "server/server.go", "--anchor", "Server.Handle",
		"--intent", "register every route in one place", "--constraint", "routes are registered once",
		"--rejected", "a router library | one more dependency for three routes", "--author-name", "claude", "--model", "opus")
	fx.MustGloss("annotate", "--reasoning", "the whole change keeps the API read-only")
	fx.Write("server/server.go", serverV1)
	fx.Git("add", "-A")
	fx.Git("commit", "-q", "-m", "server: add the todo API", "-m", "Lists todos for now.",
		"-m", "Constraint: never write to the database\nRisk: the list grows without bound\nDepends-On: store/store.go#Store.List | returns a copy\nTags: api, http")

	ds := records(t, fx, "HEAD")
	handle := regionFor(ds, "Server.Handle")
	if handle == nil {
		t.Fatalf("no region for Server.Handle in %+v", ds)
	}
	if handle.Intent != "register every route in one place" || handle.Source != annotate.SourceAgent || handle.Author.Model != "opus" {
		t.Errorf("staged context not applied: %+v", handle)
	}
	want := map[string]bool{"routes are registered once": false, "never write to the database": false}
	for _, c := range handle.Constraints {
		want[c.Text] = true
	}
	for k, ok := range want {
		if !ok {
			t.Errorf("constraint %q missing: %+v", k, handle.Constraints)
		}
	}
	if len(handle.RejectedAlternatives) != 1 || handle.RejectedAlternatives[0].Reason != "one more dependency for three routes" {
		t.Errorf("rejected = %+v", handle.RejectedAlternatives)
	}
	if len(handle.Deps) != 1 || handle.Deps[0].Anchor != "Store.List" || handle.Deps[0].Nature != "returns a copy" {
		t.Errorf("deps = %+v", handle.Deps)
	}
	if !strings.Contains(handle.Reasoning, "read-only") || !strings.Contains(handle.Reasoning, "Lists todos") {
		t.Errorf("reasoning = %q", handle.Reasoning)
	}
	list := regionFor(ds, "Server.list")
	// The subject is the commit's intent, kept on the summary record, not
	// stamped on every region (read shows it for them, marked "commit").
	if list == nil || list.Intent != "" || list.Source != annotate.SourceHook || list.Lines != (annotate.Lines{Start: 13, End: 15}) {
		t.Errorf("hook region for Server.list = %+v", list)
	}
	for _, r := range read(t, fx, "server/server.go", "--anchor", "Server.list").Regions {
		if r.ID == list.ID && (r.Intent != "server: add the todo API" || r.IntentFrom != "commit") {
			t.Errorf("read shows the region without the commit's intent: %+v", r)
		}
	}
	if len(list.Risks) != 1 || strings.Join(list.Tags, ",") != "api,http" {
		t.Errorf("trailers not on every region: %+v", list)
	}
	var summaries int
	for _, d := range ds {
		if d.Summary != nil {
			summaries++
			if d.Summary.Intent != "server: add the todo API" || len(d.Summary.Files) != 1 {
				t.Errorf("summary = %+v", d.Summary)
			}
		}
	}
	if summaries != 1 {
		t.Errorf("%d summary records, want 1", summaries)
	}
	if out := fx.MustGloss("annotate", "--pending", "--json"); !strings.Contains(out, `"pending":[]`) {
		t.Errorf("staged context not consumed: %s", out)
	}
	// git log stays free of raw records (init sets no notes.displayRef);
	// git gloss log shows them, one readable line each.
	if log := fx.Git("log", "-1"); strings.Contains(log, "Notes (gloss/annotations)") || strings.Contains(log, `"$schema"`) {
		t.Errorf("git log shows raw gloss records:\n%s", log)
	}
	if log := fx.MustGloss("log", "-1"); !strings.Contains(log, "gloss: ") || !strings.Contains(log, "register every route") || strings.Contains(log, `"$schema"`) {
		t.Errorf("git gloss log does not show the annotation readably:\n%s", log)
	}
}

func TestEveryLanguageGetsAnchorsAndOthersLineRanges(t *testing.T) {
	fx := newRepo(t)
	files := map[string]string{
		"a.py":    "class A:\n    def run(self):\n        return 1\n",
		"b.js":    "function go() {\n  return 1;\n}\n",
		"c.ts":    "export class C {\n  m(): number { return 1; }\n}\n",
		"d.tsx":   "export function V() {\n  return <div/>;\n}\n",
		"e.rs":    "struct E;\nimpl E {\n    fn new() -> E { E }\n}\n",
		"F.java":  "class F {\n  void run() {}\n}\n",
		"g.c":     "int g(void) {\n  return 0;\n}\n",
		"h.cpp":   "namespace n {\nint h() { return 0; }\n}\n",
		"conf.md": "# config\n\nsome text\n",
	}
	fx.Commit("many languages", files)
	got := map[string][]string{}
	for _, d := range records(t, fx, "HEAD") {
		if r := d.Region; r != nil {
			name := "lines"
			if r.Anchor != nil {
				name = r.Anchor.Name
			}
			got[r.File] = append(got[r.File], name)
		}
	}
	for file, want := range map[string]string{
		"a.py": "A.run", "b.js": "go", "c.ts": "C.m", "d.tsx": "V", "e.rs": "E::new",
		"F.java": "F.run", "g.c": "g", "h.cpp": "n::h", "conf.md": "lines",
	} {
		if !strings.Contains(strings.Join(got[file], " "), want) {
			t.Errorf("%s: regions %v, want one for %s", file, got[file], want)
		}
	}
}

func TestAnnotateAfterTheFactAndSupersede(t *testing.T) {
	fx := newRepo(t)
	fx.Commit("server: add API", map[string]string{"server/server.go": serverV1})
	old := regionFor(records(t, fx, "HEAD"), "Server.Handle")
	fx.Commit("unrelated", map[string]string{"README.md": "more\n"})

	out := fx.MustGloss("annotate", "--commit", "HEAD~1", "--file", "server/server.go", "--anchor", "Handle",
		"--intent", "routes live in one function so they can be audited", "--supersedes", old.ID, "--json")
	var res annotate.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Written) != 1 || res.Superseded[0] != old.ID {
		t.Fatalf("annotate --commit = %s", out)
	}
	r := read(t, fx, "server/server.go", "--anchor", "Server.Handle")
	if got := intents(r); len(got) != 1 || got[0] != "routes live in one function so they can be audited" {
		t.Errorf("after superseding, read returns %v", got)
	}
	if _, err := fx.Gloss("annotate", "--commit", "HEAD~1", "--intent", "x", "--supersedes", "NOPE"); err == nil {
		t.Error("superseding an unknown record was accepted")
	}
	if _, err := fx.Gloss("annotate", "--intent", "x", "--supersedes", "NOPE"); err == nil {
		t.Error("staging a context that supersedes an unknown record was accepted")
	}
	if out, err := fx.Gloss("annotate", "--file", "x.go"); err == nil || !strings.Contains(out, "nothing to record") {
		t.Errorf("empty context: %v %s", err, out)
	}
}

func TestAnnotateFromStdinJSON(t *testing.T) {
	fx := newRepo(t)
	fx.Write("ctx.json", `[{"file":"server/server.go","anchor":"Server.list","intent":"empty list until the store lands","risks":["clients may cache []"]},
{"intent":"ship the skeleton","author":{"kind":"human","name":"Ada"}}]`)
	cmd := fx.Path("ctx.json")
	in, _ := os.Open(cmd)
	defer in.Close()
	out, err := runWithStdin(fx, in, "annotate", "--stdin", "--json")
	if err != nil || !strings.Contains(out, `"staged":2`) {
		t.Fatalf("annotate --stdin: %v %s", err, out)
	}
	os.Remove(cmd)
	fx.Commit("server: skeleton", map[string]string{"server/server.go": serverV1})
	list := regionFor(records(t, fx, "HEAD"), "Server.list")
	if list == nil || list.Intent != "empty list until the store lands" || len(list.Risks) != 1 {
		t.Errorf("stdin context: %+v", list)
	}
	bad := strings.NewReader(`{"file":"a.go","intent":"x","bogus":1}`)
	if out, err := runWithStdin(fx, bad, "annotate", "--stdin"); err == nil {
		t.Errorf("unknown field accepted: %s", out)
	}
}

func runWithStdin(fx *fixtures.Repo, in interface{ Read([]byte) (int, error) }, args ...string) (string, error) {
	cmd := fx.Command(fixtures.Binary(fx.T), args...)
	cmd.Stdin = in
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestAnnotatorCommandFromPersonalConfig(t *testing.T) {
	fx := newRepo(t)
	script := fx.Path("../annotator.sh")
	if err := os.WriteFile(script, []byte(`#!/bin/sh
input=$(cat)
case "$input" in
  *'"subject":"server: add API"'*) ;;
  *) echo "unexpected input" >&2; exit 1 ;;
esac
echo '{"file":"server/server.go","anchor":"Server.Handle","intent":"from the annotator","constraints":["checked by the annotator"]}'
`), 0o755); err != nil {
		t.Fatal(err)
	}
	fx.Git("config", "gloss.annotator", script)
	fx.Commit("server: add API", map[string]string{"server/server.go": serverV1})
	h := regionFor(records(t, fx, "HEAD"), "Server.Handle")
	if h == nil || h.Intent != "from the annotator" || h.Author.Kind != "tool" {
		t.Fatalf("annotator output not applied: %+v", h)
	}

	// A slow or failing annotator never blocks the commit.
	if err := os.WriteFile(script, []byte("#!/bin/sh\nsleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	fx.Git("config", "gloss.hookTimeout", "2s")
	out, err := fx.GitErr("commit", "--allow-empty", "-m", "slow annotator")
	if err != nil {
		t.Fatalf("commit failed: %v %s", err, out)
	}
	if !strings.Contains(out, "timed out") {
		t.Errorf("timeout not reported: %s", out)
	}
	// The annotator is never taken from a committed file.
	fx.Git("config", "--unset", "gloss.annotator")
	fx.Write(".gloss/config.toml", "[annotations]\nannotator = \"touch pwned\"\n")
	fx.Commit("config in repo", nil)
	if _, err := os.Stat(fx.Path("pwned")); err == nil {
		t.Error("a command from a committed file was executed")
	}
}

func TestAnnotateRefusesBadInput(t *testing.T) {
	fx := newRepo(t)
	for _, args := range [][]string{
		{"annotate", "--anchor", "X", "--intent", "i"},
		{"annotate", "--file", "../etc/passwd", "--intent", "i"},
		{"annotate", "--file", "a.go", "--lines", "5:2", "--intent", "i"},
		{"annotate", "--commit", "no-such-rev", "--intent", "i"},
	} {
		if out, err := fx.Gloss(args...); err == nil {
			t.Errorf("%v accepted: %s", args, out)
		}
	}
	repo := openRepo(t, fx.Dir)
	if _, err := annotate.Capture(context.Background(), repo, "HEAD", annotate.Options{}); err != nil {
		t.Errorf("capture of a commit without code: %v", err)
	}
}
