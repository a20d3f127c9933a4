package noma

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func newStore(t *testing.T, files map[string]string) *Store {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	st.Now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC) }
	t.Cleanup(func() { st.Close() })
	return st
}

func read(t *testing.T, st *Store, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(st.Dir(), rel))
	if err != nil {
		return ""
	}
	return string(data)
}

func records(t *testing.T, st *Store, rel string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(read(t, st, rel+".patches")), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("record %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

const doc1 = "::claim{id=\"c1\" confidence=0.5}\nbody\n::\n\n::evidence{for=\"c1\"}\nx\n::\n"

func TestStorePatchRecords(t *testing.T) {
	st := newStore(t, map[string]string{"d.noma": doc1})
	res, err := st.Patch(PatchRequest{File: "d.noma", Ops: []Op{op(t, `{"op":"update_attribute","id":"c1","key":"confidence","value":0.9}`)}, Reason: "r"})
	if err != nil || !res.OK {
		t.Fatalf("%+v %v", res, err)
	}
	// noop: same value again
	res, _ = st.Patch(PatchRequest{File: "d.noma", Ops: []Op{op(t, `{"op":"update_attribute","id":"c1","key":"confidence","value":0.9}`)}})
	if !res.OK || res.Transcript.(*Record).PatchResult != "noop" {
		t.Errorf("second identical op is a noop: %+v", res.Transcript)
	}
	// expected_sha mismatch
	res, _ = st.Patch(PatchRequest{File: "d.noma", Ops: []Op{op(t, `{"op":"delete_block","id":"c1"}`)}, ExpectedSHA: "00000000"})
	if res.OK || res.Code != CodeSHAMismatch || res.Transcript != nil {
		t.Errorf("expected_sha: %+v", res)
	}
	// drift warning
	res, _ = st.Patch(PatchRequest{File: "d.noma", Ops: []Op{op(t, `{"op":"update_attribute","id":"c1","key":"x","value":1}`)}, BaseSHA256: strings.Repeat("a", 64)})
	if !res.OK {
		t.Fatal(res)
	}
	recs := records(t, st, "d.noma")
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
	if recs[0]["patch_result"] != "applied" || recs[1]["patch_result"] != "noop" || recs[2]["patch_result"] != "rejected" || recs[3]["patch_result"] != "applied" {
		t.Errorf("results %v %v %v %v", recs[0]["patch_result"], recs[1]["patch_result"], recs[2]["patch_result"], recs[3]["patch_result"])
	}
	if recs[0]["prev_entry_sha256"] != nil || recs[0]["signature"] != nil || recs[0]["reason"] != "r" || recs[0]["ts"] != "2026-01-02T03:04:05.006Z" {
		t.Errorf("first record %v", recs[0])
	}
	raw := strings.Split(strings.TrimSpace(read(t, st, "d.noma.patches")), "\n")
	for i := 1; i < len(raw); i++ {
		if recs[i]["prev_entry_sha256"] != sha(raw[i-1]) {
			t.Errorf("record %d does not chain to the line before it", i)
		}
	}
	keys := []string{`"protocol_version"`, `"tool_version"`, `"op_id"`, `"ts"`, `"actor"`, `"doc_uri"`, `"pre_sha256"`, `"post_sha256"`, `"pre_sha"`, `"post_sha"`, `"op"`, `"patch_result"`, `"pre_validation"`, `"post_validation"`, `"diagnostics"`, `"base_sha256"`, `"elapsed_ms"`, `"prev_entry_sha256"`, `"signature"`}
	last := -1
	for _, k := range keys {
		i := strings.Index(raw[3], k)
		if i < last {
			t.Errorf("key %s out of order in %s", k, raw[3])
		}
		last = i
	}
	if !strings.Contains(raw[3], `"code":"base_sha_drift"`) {
		t.Errorf("no drift warning: %s", raw[3])
	}
	if !strings.Contains(raw[2], `{"phase":"pre","severity":"error","code":"sha_mismatch"`) {
		t.Errorf("synthetic diagnostic puts phase first: %s", raw[2])
	}
	tr, _, err := st.Transcript("d.noma")
	if err != nil || !tr.ChainOK || len(tr.Records) != 4 {
		t.Errorf("transcript %+v %v", tr, err)
	}
	// tamper: the chain breaks
	tampered := strings.Replace(read(t, st, "d.noma.patches"), `"reason":"r"`, `"reason":"R"`, 1)
	_ = os.WriteFile(filepath.Join(st.Dir(), "d.noma.patches"), []byte(tampered), 0o644)
	if tr, _, _ := st.Transcript("d.noma"); tr.ChainOK {
		t.Errorf("an edited record must break the chain")
	}
}

func TestStoreListIsAtomic(t *testing.T) {
	st := newStore(t, map[string]string{"d.noma": doc1})
	ops := []Op{op(t, `{"op":"update_attribute","id":"c1","key":"a","value":1}`), op(t, `{"op":"delete_block","id":"zz"}`), op(t, `{"op":"update_attribute","id":"c1","key":"b","value":1}`)}
	res, err := st.Patch(PatchRequest{File: "d.noma", Ops: ops})
	if err != nil || res.OK || res.Code != CodeTargetMissing {
		t.Fatalf("%+v %v", res, err)
	}
	if read(t, st, "d.noma") != doc1 {
		t.Errorf("a failed list must not write")
	}
	recs := records(t, st, "d.noma")
	if len(recs) != 3 {
		t.Fatalf("%d records", len(recs))
	}
	for i, want := range []string{CodeOpListAborted, CodeTargetMissing, CodeOpListAborted} {
		ds := recs[i]["diagnostics"].([]any)
		got := ds[len(ds)-1].(map[string]any)["code"]
		if got != want || recs[i]["patch_result"] != "rejected" {
			t.Errorf("record %d: %v %v, want %s", i, recs[i]["patch_result"], got, want)
		}
	}
	ops = ops[:1]
	ops = append(ops, op(t, `{"op":"rename_id","from":"c1","to":"c9"}`))
	res, _ = st.Patch(PatchRequest{File: "d.noma", Ops: ops})
	if !res.OK || res.Entries != 2 || !strings.Contains(read(t, st, "d.noma"), `::claim{id="c9" confidence=0.5 a=1}`) {
		t.Fatalf("list: %+v\n%s", res, read(t, st, "d.noma"))
	}
	recs = records(t, st, "d.noma")
	if recs[3]["post_sha256"] != recs[4]["pre_sha256"] || recs[4]["post_sha256"] != sha(read(t, st, "d.noma")) {
		t.Errorf("per-op hashes must chain through the list")
	}
	rep, err := st.Replay("d.noma", nil)
	if err != nil || rep.OK {
		t.Errorf("without the base in the worktree or history, replay cannot succeed: %+v", rep)
	}
}

func TestStoreReplayFromWorktreeBase(t *testing.T) {
	st := newStore(t, map[string]string{"d.noma": doc1})
	_, _ = st.Patch(PatchRequest{File: "d.noma", Ops: []Op{op(t, `{"op":"update_attribute","id":"c1","key":"a","value":1}`)}})
	after := read(t, st, "d.noma")
	rep, _ := st.Replay("d.noma", func(want string) (string, string, bool) {
		if sha(doc1) == want {
			return doc1, "test", true
		}
		return "", "", false
	})
	if !rep.OK || rep.Applied != 1 || !rep.Current || rep.FinalSHA256 != sha(after) {
		t.Errorf("replay %+v", rep)
	}
	_ = os.WriteFile(filepath.Join(st.Dir(), "d.noma"), []byte(after+"x\n"), 0o644)
	rep, _ = st.Replay("d.noma", func(string) (string, string, bool) { return doc1, "test", true })
	if !rep.OK || rep.Current {
		t.Errorf("replay still matches the transcript, not the edited file: %+v", rep)
	}
}

func TestStoreStrictAndCapabilities(t *testing.T) {
	st := newStore(t, map[string]string{"d.noma": doc1, "d.noma.capabilities.yml": "ops: [update_attribute]\nids:\n  rename: false\n"})
	res, _ := st.Patch(PatchRequest{File: "d.noma", Ops: []Op{op(t, `{"op":"rename_id","from":"c1","to":"c2"}`)}})
	if !res.OK {
		t.Fatalf("capabilities are advisory: %+v", res)
	}
	rec, _ := json.Marshal(res.Transcript)
	if !bytes.Contains(rec, []byte("capability-advisory")) || !bytes.Contains(rec, []byte("ids.rename is false")) {
		t.Errorf("advisory warnings missing: %s", rec)
	}
	res, _ = st.Patch(PatchRequest{File: "d.noma", Ops: []Op{op(t, `{"op":"add_block","parent":"c2","content":":::x{id=\"c2\"}\n:::"}`)}, Strict: true})
	if res.OK || res.Code != CodeInvalidContent {
		t.Errorf("strict refuses a duplicate-id result: %+v", res)
	}
	res, _ = st.Patch(PatchRequest{File: "d.noma", Ops: []Op{op(t, `{"op":"add_block","parent":"c2","content":":::x{id=\"c2\"}\n:::"}`)}})
	if !res.OK || res.PostValidation != "error" {
		t.Errorf("without strict the result is written and reported: %+v", res)
	}
}

func TestStorePaths(t *testing.T) {
	outside := t.TempDir()
	_ = os.WriteFile(filepath.Join(outside, "x.noma"), []byte(doc1), 0o644)
	st := newStore(t, map[string]string{"d.noma": doc1, ".git/x.noma": doc1, "big.noma": "::c{id=\"a\"}\n" + strings.Repeat("x", MaxContentBytes) + "\n::\n"})
	if err := os.Symlink(outside, filepath.Join(st.Dir(), "link")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../x.noma", filepath.Join(outside, "x.noma"), "link/x.noma", ".git/x.noma", "a\x00b", "", "book.yml"} {
		if _, err := st.Read(p); err == nil {
			t.Errorf("Read(%q) accepted", p)
		}
		if _, err := st.Patch(PatchRequest{File: p, Ops: []Op{op(t, `{"op":"delete_block","id":"c1"}`)}}); err == nil {
			t.Errorf("Patch(%q) accepted", p)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "x.noma")); string(data) != doc1 {
		t.Errorf("outside file changed")
	}
	if _, err := st.Read(filepath.Join(st.Dir(), "d.noma")); err != nil {
		t.Errorf("an absolute path inside is fine: %v", err)
	}
	res, err := st.Patch(PatchRequest{File: "big.noma", Ops: []Op{op(t, `{"op":"delete_block","id":"a"}`)}})
	if err != nil || res.OK || res.Error != "content_too_large" || res.Code != CodeInvalidContent {
		t.Errorf("oversize: %+v %v", res, err)
	}
	if len(records(t, st, "big.noma")) != 1 {
		t.Errorf("oversize content is recorded too")
	}
	_ = os.WriteFile(filepath.Join(st.Dir(), "bad.noma"), []byte{0xff, 0xfe}, 0o644)
	if _, err := st.Read("bad.noma"); err == nil {
		t.Errorf("invalid UTF-8 accepted")
	}
}
