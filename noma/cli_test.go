package noma_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/noma"
)

func runIn(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(fixtures.Binary(t), args...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// The built binary runs the Annex C harness on the committed corpus: one
// PASS line per fixture sorted by path, a blank line, the summary, exit 0.
func TestVerifyBinaryOnCorpus(t *testing.T) {
	root := fixtures.ModuleRoot()
	out, errOut, code := runIn(t, root, "doc", "verify", "fixtures/noma-conformance")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q\n%s", code, errOut, out)
	}
	var names []string
	for _, track := range []string{"invalid", "patch", "patch-error", "valid"} {
		entries, _ := os.ReadDir(filepath.Join(root, "fixtures/noma-conformance", track))
		for _, e := range entries {
			names = append(names, "fixtures/noma-conformance/"+track+"/"+e.Name())
		}
	}
	sort.Strings(names)
	var want []string
	for _, n := range names {
		want = append(want, "PASS  "+n)
	}
	want = append(want, "", "40 fixtures, 40 passed")
	if got := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("output:\n%s\nwant:\n%s", out, strings.Join(want, "\n"))
	}
	js, _, code := runIn(t, root, "doc", "verify", "fixtures/noma-conformance", "--json")
	var rep struct {
		Total, Passed, Failed int
		Schema                string `json:"$schema"`
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil || code != 0 || rep.Total != 40 || rep.Passed != 40 || rep.Schema != "gloss-doc-verify/v1" {
		t.Errorf("--json: %s (exit %d, %v)", js, code, err)
	}
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestVerifyHarnessExitCodes(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(fixtures.ModuleRoot(), "fixtures/noma-conformance")
	copyDir(t, filepath.Join(corpus, "patch/delete_block"), filepath.Join(dir, "fx/deep/nest/b-broken"))
	copyDir(t, filepath.Join(corpus, "valid/basic-section"), filepath.Join(dir, "fx/a-ok"))
	copyDir(t, filepath.Join(corpus, "valid/basic-section"), filepath.Join(dir, "fx/a-ok/inner-not-entered"))
	_ = os.WriteFile(filepath.Join(dir, "fx/deep/nest/b-broken/expected.post.noma"), []byte("nope\n"), 0o644)
	_ = os.MkdirAll(filepath.Join(dir, "fx/c-bare"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, "fx/c-bare/input.noma"), []byte("# x\n"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "fx/input.noma"), []byte("# root never counts\n"), 0o644)

	out, _, code := runIn(t, dir, "doc", "verify", "fx")
	lines := strings.Split(out, "\n")
	if code != 1 || len(lines) < 5 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if lines[0] != "PASS  fx/a-ok" || !strings.HasPrefix(lines[1], "SKIP  fx/c-bare  — ") ||
		!strings.HasPrefix(lines[2], "FAIL  fx/deep/nest/b-broken  — patch output mismatch") || !strings.HasSuffix(out, "\n\n3 fixtures, 1 passed, 1 skipped\n") {
		t.Errorf("output:\n%s", out)
	}
	_, errOut, code := runIn(t, dir, "doc", "verify")
	if code != 2 || errOut != "noma verify: <fixture-dir> required\n" {
		t.Errorf("missing argument: exit %d, %q", code, errOut)
	}
	_, errOut, code = runIn(t, dir, "doc", "verify", "absent")
	if code != 2 || errOut != "noma verify: absent does not exist\n" {
		t.Errorf("absent directory: exit %d, %q", code, errOut)
	}
}

const planDoc = `---
title: Plan
profile: research
---

# Plan

::claim{id="c1" confidence=0.5}
The market is worth ten billion.
::

::evidence{for="c1"}
A survey of 40 firms.
::

::table{id="t1" header}
Name | Score
Alice | 92
::

See [[c1]] and [[missing-block]].
`

// CLI --json and the MCP tools answer with the same bytes; patch errors
// are results {ok:false, error, code}; system faults are isError.
func TestCLIAndMCPAgree(t *testing.T) {
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("plan", map[string]string{"docs/plan.noma": planDoc})
	session := fx.StartMCP("--toolsets", "documents")
	for _, tc := range []struct {
		tool string
		cli  []string
	}{
		{"read_doc", []string{"doc", "read", "docs/plan.noma"}},
		{"list_ids", []string{"doc", "ids", "docs/plan.noma"}},
		{"validate_doc", []string{"doc", "check", "docs/plan.noma"}},
	} {
		res := session.Call(tc.tool, map[string]any{"file": "docs/plan.noma"})
		abs := session.Call(tc.tool, map[string]any{"file": fx.Path("docs/plan.noma")})
		if res.IsError || abs.Text != res.Text {
			t.Fatalf("%s: %s / %s", tc.tool, res.Text, abs.Text)
		}
		cli, _ := fx.Gloss(append(tc.cli, "--json")...)
		if res.Text != strings.TrimRight(cli, "\n") {
			t.Errorf("%s differs:\nmcp %s\ncli %s", tc.tool, res.Text, cli)
		}
		var sc, text any
		scData, _ := json.Marshal(res.Raw.StructuredContent)
		_ = json.Unmarshal(scData, &sc)
		_ = json.Unmarshal([]byte(res.Text), &text)
		if !reflect.DeepEqual(sc, text) {
			t.Errorf("%s: structuredContent %s", tc.tool, scData)
		}
	}
	check := session.Call("validate_doc", map[string]any{"file": "docs/plan.noma"})
	if !strings.Contains(check.Text, `"ok":false`) || !strings.Contains(check.Text, `"code":"broken-reference"`) {
		t.Errorf("validate_doc: %s", check.Text)
	}
	human, err := fx.Gloss("doc", "check", "docs/plan.noma", "--ignore-rule", "broken-reference,no-such-rule")
	if err != nil || !strings.Contains(human, "INFO [unknown-ignore-rule]") || strings.Contains(human, "broken-reference]") {
		t.Errorf("--ignore-rule: %v\n%s", err, human)
	}
	human, err = fx.Gloss("doc", "check", "docs/plan.noma")
	if err == nil || !strings.Contains(human, "ERROR [broken-reference] docs/plan.noma:21:1: ") {
		t.Errorf("check exits 1 on errors and prints SEVERITY [code] file:line:col: %v\n%s", err, human)
	}

	bad := session.Call("patch_block", map[string]any{"file": "docs/plan.noma", "op": map[string]any{"op": "rename_id", "from": "c1", "to": "t1"}})
	if bad.IsError || bad.Text != `{"ok":false,"error":"id \"t1\" exists","code":"id_conflict"}` {
		t.Errorf("patch error envelope: %+v", bad)
	}
	ok := session.Call("patch_block", map[string]any{"file": "docs/plan.noma", "op": map[string]any{"op": "update_table_cell", "id": "t1", "row": 0, "column": "Score", "value": "95"},
		"actor": map[string]any{"kind": "agent", "name": "claude", "model": "m"}, "reason": "fresh score"})
	if ok.IsError || !strings.HasPrefix(ok.Text, `{"ok":true,"post_validation":"error","transcript_entry":{"protocol_version":"1.0"`) {
		t.Errorf("patch_block: %s", ok.Text)
	}
	if !strings.Contains(fx.Read("docs/plan.noma"), "| Alice | 95 |\n") {
		t.Errorf("not written:\n%s", fx.Read("docs/plan.noma"))
	}
	list := session.Call("patch_block_list", map[string]any{"file": "docs/plan.noma", "ops": []any{
		map[string]any{"op": "update_attribute", "id": "c1", "key": "confidence", "value": 0.8},
		map[string]any{"op": "delete_block", "id": "nope"},
	}})
	if list.IsError || !strings.Contains(list.Text, `"code":"target_missing"`) || strings.Contains(fx.Read("docs/plan.noma"), "0.8") {
		t.Errorf("patch_block_list must be atomic: %s", list.Text)
	}
	for _, p := range []string{"../outside.noma", "/etc/passwd", ".git/config"} {
		r := session.Call("patch_block", map[string]any{"file": p, "op": map[string]any{"op": "delete_block", "id": "c1"}})
		if !r.IsError {
			t.Errorf("%s: system faults are isError: %s", p, r.Text)
		}
	}
	stale := session.Call("patch_block", map[string]any{"file": "docs/plan.noma", "base_hash": "deadbeef", "op": map[string]any{"op": "delete_block", "id": "c1", "baseHash": "ffffffff"}})
	if stale.Text != `{"ok":false,"error":"block \"c1\" changed since baseHash deadbeef","code":"sha_mismatch"}` {
		t.Errorf("base_hash (not op.baseHash) is the precondition: %s", stale.Text)
	}
	r := session.Call("patch_block", map[string]any{"file": "docs/plan.noma", "expected_sha": "zz", "op": map[string]any{"op": "delete_block", "id": "c1"}})
	if !r.IsError {
		t.Errorf("malformed expected_sha is refused: %s", r.Text)
	}
	tr := session.Call("transcript_read", map[string]any{"file": "docs/plan.noma"})
	cli, _ := fx.Gloss("doc", "log", "docs/plan.noma", "--json")
	if tr.IsError || tr.Text != strings.TrimRight(cli, "\n") || !strings.Contains(tr.Text, `"chain_ok":true`) {
		t.Errorf("transcript_read vs doc log --json:\n%s\n%s", tr.Text, cli)
	}
	var trr struct{ Records []map[string]any }
	_ = json.Unmarshal([]byte(tr.Text), &trr)
	if len(trr.Records) != 5 {
		t.Errorf("%d records, want 5 (id_conflict, applied, aborted, target_missing, sha_mismatch)", len(trr.Records))
	}
}

// Patches through the CLI, committed; replay finds the base in git
// history and reproduces the file byte for byte.
func TestReplayFromGitHistory(t *testing.T) {
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("plan", map[string]string{"plan.noma": strings.ReplaceAll(planDoc, "\n", "\r\n")})
	for _, o := range []string{
		`{"op":"update_attribute","id":"c1","key":"confidence","value":0.8}`,
		`{"op":"rename_id","from":"c1","to":"market"}`,
	} {
		fx.MustGloss("doc", "patch", "plan.noma", "--op", o, "--actor-name", "dev", "--reason", "test")
	}
	fx.MustGloss("doc", "patch", "plan.noma", "--op", `{"op":"add_comment","id":"k1","target":"market","content":"Source?","author":"rev"}`)
	got := fx.Read("plan.noma")
	if !strings.Contains(got, "A survey of 40 firms.\r\n") || !strings.Contains(got, "::evidence{for=\"market\"}\r\n") {
		t.Errorf("CRLF lost or rename missed:\n%q", got)
	}
	fx.Commit("patched", nil)
	out := fx.MustGloss("doc", "replay", "plan.noma")
	if !strings.Contains(out, "replayed 3 applied op(s)") || !strings.Contains(out, "(commit:") {
		t.Errorf("replay: %s", out)
	}
	log := fx.MustGloss("doc", "log", "plan.noma")
	if n := len(fixtures.Lines(log)); n != 3 || !strings.Contains(log, "rename_id") || !strings.Contains(log, "c1 → market") || !strings.Contains(log, "human:dev") || !strings.Contains(log, "human:"+fixtures.UserName) {
		t.Errorf("log:\n%s", log)
	}
	// a transcript whose op was edited no longer replays
	tp := fx.Path("plan.noma.patches")
	data, _ := os.ReadFile(tp)
	_ = os.WriteFile(tp, bytes.Replace(data, []byte(`"value":0.8`), []byte(`"value":0.7`), 1), 0o644)
	out, err := fx.Gloss("doc", "replay", "plan.noma")
	if err == nil || !strings.Contains(out, "replay failed") {
		t.Errorf("tampered transcript replays: %v\n%s", err, out)
	}
	if log := fx.MustGloss("doc", "log", "plan.noma"); !strings.Contains(log, "chain is broken") {
		t.Errorf("log does not flag the broken chain:\n%s", log)
	}
}

// Every documents tool's structuredContent validates against the output
// schema it publishes (the TypeScript SDK client checks the same).
func TestOutputSchemasHold(t *testing.T) {
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("plan", map[string]string{"plan.noma": planDoc})
	session := fx.StartMCP("--toolsets", "documents", "--output-schemas")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := session.Session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range list.Tools {
		data, _ := json.Marshal(tool.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: resolve: %v", tool.Name, err)
		}
		schemas[tool.Name] = r
	}
	if len(schemas) != 6 {
		t.Fatalf("documents toolset has %d tools, want 6", len(schemas))
	}
	if schemas["patch_block"].Validate(map[string]any{"ok": "yes"}) == nil || schemas["read_doc"].Validate(map[string]any{}) == nil {
		t.Fatalf("the schemas accept anything")
	}
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"read_doc", map[string]any{"file": "plan.noma"}},
		{"list_ids", map[string]any{"file": "plan.noma"}},
		{"validate_doc", map[string]any{"file": "plan.noma"}},
		{"patch_block", map[string]any{"file": "plan.noma", "op": map[string]any{"op": "update_attribute", "id": "c1", "key": "k", "value": true}}},
		{"patch_block", map[string]any{"file": "plan.noma", "op": map[string]any{"op": "nope"}}},
		{"patch_block_list", map[string]any{"file": "plan.noma", "ops": []any{map[string]any{"op": "remove_attribute", "id": "c1", "key": "k"}, map[string]any{"op": "rename_id", "from": "t1", "to": "tab"}}}},
		{"transcript_read", map[string]any{"file": "plan.noma"}},
	}
	for _, c := range calls {
		res := session.Call(c.tool, c.args)
		if res.IsError || res.Raw.StructuredContent == nil {
			t.Fatalf("%s: %s", c.tool, res.Text)
		}
		var v any
		_ = json.Unmarshal([]byte(res.Text), &v)
		if err := schemas[c.tool].Validate(v); err != nil {
			t.Errorf("%s: %s does not match its output schema: %v", c.tool, res.Text, err)
		}
	}
}

func TestCLIOpsList(t *testing.T) {
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("plan", map[string]string{"plan.noma": planDoc,
		"ops/bad.json":  `[{"op":"update_attribute","id":"c1","key":"k","value":1},{"op":"delete_block","id":"nope"}]`,
		"ops/good.json": `{"ops":[{"op":"update_attribute","id":"c1","key":"k","value":1},{"op":"rename_id","from":"c1","to":"c9"}]}`})
	out, err := fx.Gloss("doc", "patch", "plan.noma", "--ops", "ops/bad.json", "--json")
	if err == nil || !strings.HasPrefix(out, `{"ok":false,"error":"no block \"nope\"","code":"target_missing"}`) || fx.Read("plan.noma") != planDoc {
		t.Errorf("a failing list changes nothing: %v %s", err, out)
	}
	if _, err := fx.Gloss("doc", "patch", "plan.noma", "--ops", filepath.Join(t.TempDir(), "x.json")); err == nil {
		t.Errorf("--ops outside the repository accepted")
	}
	fx.MustGloss("doc", "patch", "plan.noma", "--ops", fx.Path("ops/good.json"))
	if !strings.Contains(fx.Read("plan.noma"), `::claim{id="c9" confidence=0.5 k=1}`) {
		t.Errorf("list not applied:\n%s", fx.Read("plan.noma"))
	}
	log := fx.MustGloss("doc", "log", "plan.noma")
	if strings.Count(log, "op_list_aborted") != 1 || strings.Count(log, "rejected") != 2 || strings.Count(log, "applied") != 2 {
		t.Errorf("log:\n%s", log)
	}
}

// A baseHash inside the op is the agent's lost-update protection (spec
// §3.4): over MCP it is honoured, not stripped (issue 11 item 2). The
// book manifest of Annex B is refused by read_doc as by patch_block.
func TestMCPOpBaseHash(t *testing.T) {
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("plan", map[string]string{"docs/plan.noma": planDoc, "docs/book.noma.yml": "title: Book\n"})
	session := fx.StartMCP("--toolsets", "documents")
	var doc struct {
		Blocks []struct{ ID, Hash string }
	}
	if err := json.Unmarshal([]byte(session.Call("read_doc", map[string]any{"file": "docs/plan.noma"}).Text), &doc); err != nil {
		t.Fatal(err)
	}
	hash := ""
	for _, b := range doc.Blocks {
		if b.ID == "c1" {
			hash = b.Hash
		}
	}
	if len(hash) != 64 {
		t.Fatalf("no hash for c1: %+v", doc)
	}
	stale := "00000000"
	if strings.HasPrefix(hash, stale) {
		stale = "11111111"
	}
	before := fx.Read("docs/plan.noma")
	r := session.Call("patch_block", map[string]any{"file": "docs/plan.noma",
		"op": map[string]any{"op": "update_attribute", "id": "c1", "key": "confidence", "value": 0.9, "baseHash": stale}})
	if r.IsError || r.Text != `{"ok":false,"error":"block \"c1\" changed since baseHash `+stale+`","code":"sha_mismatch"}` || fx.Read("docs/plan.noma") != before {
		t.Errorf("a stale op baseHash must be sha_mismatch: %s", r.Text)
	}
	r = session.Call("patch_block", map[string]any{"file": "docs/plan.noma",
		"op": map[string]any{"op": "update_attribute", "id": "c1", "key": "confidence", "value": 0.9, "baseHash": hash[:12]}})
	if r.IsError || !strings.HasPrefix(r.Text, `{"ok":true`) || !strings.Contains(r.Text, `"baseHash":"`+hash[:12]+`"`) {
		t.Errorf("a current op baseHash applies and is recorded: %s", r.Text)
	}
	if !strings.Contains(fx.Read("docs/plan.noma"), `confidence=0.9`) {
		t.Errorf("not written:\n%s", fx.Read("docs/plan.noma"))
	}
	for _, tool := range []string{"read_doc", "list_ids", "validate_doc"} {
		if r := session.Call(tool, map[string]any{"file": "docs/book.noma.yml"}); !r.IsError || !strings.Contains(r.Text, "unsupported_op") {
			t.Errorf("%s on a book manifest: %+v", tool, r)
		}
	}
}

// `git gloss doc check` on a book manifest validates the whole book, as the
// reference CLI's `noma check book.yml` does (loadBook in
// https://github.com/ferax564/noma/blob/95319db/src/book.ts): chapters
// concatenated, headings below a chapter's title scoped by its slug with
// the old id kept as an alias. The manifest follows upstream's
// https://github.com/ferax564/noma/blob/95319db/examples/book/book.noma.yml.
// The MCP tools still refuse it (Annex B).
func TestCLIChecksABook(t *testing.T) {
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("book", map[string]string{
		"guide/book.noma.yml":                "title: A Short Field Guide\ndescription: Agents editing documents.\nauthor: ferax564\n\noutputs:\n  html:\n    theme: default\n  llm: {}\n\nchapters:\n  - chapters/01-why-noma.noma\n  - chapters/02-block-model.noma\n",
		"guide/chapters/01-why-noma.noma":    "# Why Noma {id=\"why\"}\n\n## Blocks\n\nEvery block has an id.\n\n::claim{id=\"c1\" noverify}\nIds make edits safe.\n::\n",
		"guide/chapters/02-block-model.noma": "# The block model\n\nSee [[why/blocks]], [[blocks]] and [[c1]].\n\nBut not [[nowhere]].\n\n::risk{id=\"r1\"}\nIds drift.\n::\n",
	})
	out, err := fx.Gloss("doc", "check", "guide/book.noma.yml", "--json")
	if err == nil {
		t.Fatalf("a broken reference is an error (exit 1): %s", out)
	}
	var res noma.CheckResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var got []string
	for _, d := range res.Diagnostics {
		got = append(got, d.Code+" "+d.Message)
	}
	want := []string{`broken-reference Reference to unknown block ID "nowhere".`, "risk-without-owner Risk \"r1\" has no `owner=` attribute."}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("book diagnostics:\n got %q\nwant %q", got, want)
	}
	fx.Write("guide/book.noma.yml", "title: x\nchapters:\n  - ../../outside.noma\n")
	if out, err := fx.Gloss("doc", "check", "guide/book.noma.yml"); err == nil || !strings.Contains(out, "escapes the manifest directory") {
		t.Fatalf("a chapter outside the manifest's folder: %v %s", err, out)
	}
	session := fx.StartMCP("--toolsets", "documents")
	if r := session.Call("validate_doc", map[string]any{"file": "guide/book.noma.yml"}); !r.IsError || !strings.Contains(r.Text, "unsupported_op") {
		t.Fatalf("validate_doc on a book manifest: %+v", r)
	}
}
