package reconcile_test

import (
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"lukechampine.com/blake3"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/reconcile"
	"github.com/gloss-dev/gloss/spec"
)

// A small repository as a NotarAI team has it: specs in .notarai/, the
// schema copy and README stamp NotarAI writes there, and a committed
// reconciliation_state.json in NotarAI's own form (epoch-seconds "Z"
// timestamp, spec keys under .notarai/).
const (
	bellSpec = `schema_version: '0.7'
intent: The bell rings on time.
behaviors:
  - name: ring
    given: the hour turns
    then: the bell rings once per hour
artifacts:
  code:
    - path: bell/*.go
  docs:
    - path: docs/bell.md
`
	towerSpec = `schema_version: '0.7'
intent: A clock tower.
subsystems:
  - $ref: ./bell.spec.yaml
tier: registered
artifacts:
  docs:
    - path: README.md
`
	bellGo   = "package bell\n\nfunc Ring() {}\n"
	bellDoc  = "# The bell\n\nIt rings.\n"
	towerDoc = "# Tower\n"
)

func b3(s string) string {
	sum := blake3.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func notaraiRepo(t *testing.T) *fixtures.Repo {
	t.Helper()
	r := fixtures.NewRepo(t)
	state := map[string]any{
		"schema_version": "1",
		"cli_version":    "0.5.0",
		"last_reconciliation": map[string]any{
			"timestamp": "1773423102Z",
			"git_hash":  nil,
			"branch":    "main",
		},
		"file_fingerprints": map[string]any{
			"bell/bell.go": map[string]string{"blake3": b3(bellGo)},
			"docs/bell.md": map[string]string{"blake3": b3(bellDoc)},
		},
		"spec_fingerprints": map[string]string{
			".notarai/bell.spec.yaml": b3(bellSpec),
		},
	}
	data, err := json.MarshalIndent(state, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	r.Commit("notarai project", map[string]string{
		".notarai/bell.spec.yaml":            bellSpec,
		".notarai/system.spec.yaml":          towerSpec,
		".notarai/README.md":                 "# NotarAI -- 0.5.0\n",
		".notarai/reconciliation_state.json": string(data) + "\n",
		"bell/bell.go":                       bellGo,
		"docs/bell.md":                       bellDoc,
		"README.md":                          towerDoc,
	})
	return r
}

// Specs kept in .notarai/ are found, validated, and reconciled against
// NotarAI's committed snapshot without any conversion.
func TestNotarAILayoutReadInPlace(t *testing.T) {
	r := notaraiRepo(t)

	var v spec.ValidateResult
	glossJSON(t, r, &v, "spec", "validate")
	if v.Passed != 2 || v.Failed != 0 {
		t.Fatalf("validate must find the two .notarai specs: %+v", v)
	}

	var st reconcile.StatusResult
	glossJSON(t, r, &st, "spec", "status")
	var paths []string
	for _, s := range st.Specs {
		paths = append(paths, s.SpecPath)
	}
	mustContain(t, "specs", paths, ".notarai/bell.spec.yaml", ".notarai/system.spec.yaml")

	// The snapshot counts: nothing changed since NotarAI reconciled.
	r.Commit("base", nil)
	d := specDiff(t, r, "bell")
	if d.Cache.Source != "snapshot" || d.Cache.State != "warm" {
		t.Fatalf("NotarAI's snapshot must warm the cache: %+v (warnings %v)", d.Cache, d.Warnings)
	}
	mustContain(t, "skipped", d.Skipped, "bell/bell.go", "docs/bell.md")

	// A change since then is drift.
	r.Write("bell/bell.go", bellGo+"\nfunc Stop() {}\n")
	d = specDiff(t, r, "bell")
	mustContain(t, "files", d.Files, "bell/bell.go")

	// Marking and snapshotting write NotarAI's file, where NotarAI reads it.
	r.MustGloss("spec", "mark", "bell/bell.go")
	var snap reconcile.SnapshotResult
	glossJSON(t, r, &snap, "spec", "snapshot")
	if snap.StatePath != ".notarai/reconciliation_state.json" {
		t.Fatalf("snapshot written to %s", snap.StatePath)
	}
	var written map[string]any
	if err := json.Unmarshal([]byte(r.Read(".notarai/reconciliation_state.json")), &written); err != nil {
		t.Fatal(err)
	}
	fps, _ := written["spec_fingerprints"].(map[string]any)
	if _, ok := fps[".notarai/bell.spec.yaml"]; !ok {
		t.Fatalf("spec keys must stay under .notarai/: %v", written)
	}
	if _, err := r.GitErr("ls-files", "--error-unmatch", ".gloss/reconciliation_state.json"); err == nil {
		t.Fatal("no second snapshot may appear in .gloss/")
	}
}

// [specs] path in .gloss/config.toml names any folder; specs in two
// folders are a warning, not a silent choice.
func TestSpecsFolderSetting(t *testing.T) {
	r := notaraiRepo(t)
	r.Commit("gloss specs too", map[string]string{
		".gloss/specs/doc.spec.yaml": "schema_version: '0.8'\nintent: docs\ntier: registered\nartifacts:\n  docs:\n    - path: docs/**\n",
	})
	var st reconcile.StatusResult
	glossJSON(t, r, &st, "spec", "status")
	if len(st.Specs) != 1 || st.Specs[0].SpecPath != ".gloss/specs/doc.spec.yaml" {
		t.Fatalf(".gloss/specs wins when both hold specs: %+v", st.Specs)
	}
	if !strings.Contains(strings.Join(st.Warnings, "\n"), "specs in .notarai are not read") {
		t.Fatalf("the ignored folder must be named: %v", st.Warnings)
	}

	r.Commit("choose", map[string]string{".gloss/config.toml": "[specs]\npath = \".notarai\"\n"})
	glossJSON(t, r, &st, "spec", "status")
	var paths []string
	for _, s := range st.Specs {
		paths = append(paths, s.SpecPath)
	}
	mustContain(t, "specs", paths, ".notarai/bell.spec.yaml")
	mustNotContain(t, "specs", paths, ".gloss/specs/doc.spec.yaml")

	r.Write(".gloss/config.toml", "[specs]\npath = \"../elsewhere\"\n")
	if out, err := r.Gloss("spec", "status"); fixtures.ExitCode(err) != 2 || !strings.Contains(out, "inside the repository") {
		t.Fatalf("a folder outside the repository is a usage error: %v\n%s", err, out)
	}
}

// snapshot_state on NotarAI's committed file keeps it NotarAI's: the
// epoch-seconds "Z" timestamp, the cli_version of the NotarAI that wrote
// it, key order, and the fingerprints of files no spec governs (NotarAI's
// cache is global, so its file lists every file it was told about, as in
// NotarAI's own https://github.com/davidroeca/NotarAI/blob/0a38c78/.notarai/reconciliation_state.json,
// written by save_state in
// https://github.com/davidroeca/NotarAI/blob/0030d7d/src/core/state.rs).
func TestSnapshotKeepsNotarAIsFile(t *testing.T) {
	r := notaraiRepo(t)
	var state map[string]any
	if err := json.Unmarshal([]byte(r.Read(".notarai/reconciliation_state.json")), &state); err != nil {
		t.Fatal(err)
	}
	ungoverned := map[string]any{
		".github/workflows/ci.yml": map[string]string{"blake3": b3("ci: yes\n")},
		"Cargo.toml":               map[string]string{"blake3": b3("[package]\n")},
		"gone/deleted.rs":          map[string]string{"blake3": b3("fn main() {}\n")},
	}
	for p, fp := range ungoverned {
		state["file_fingerprints"].(map[string]any)[p] = fp
	}
	data, _ := json.MarshalIndent(state, "", "  ")
	r.Commit("notarai state", map[string]string{
		".notarai/reconciliation_state.json": string(data) + "\n",
		".github/workflows/ci.yml":           "ci: yes\n",
		"Cargo.toml":                         "[package]\n",
	})

	r.Write("bell/bell.go", bellGo+"\nfunc Stop() {}\n")
	r.MustGloss("spec", "mark", "bell/bell.go")
	r.MustGloss("spec", "snapshot")
	text := r.Read(".notarai/reconciliation_state.json")
	if !regexp.MustCompile(`^\{\n  "schema_version": "1",\n  "cli_version": "0\.5\.0",\n  "last_reconciliation": \{\n    "timestamp": "\d+Z",\n`).MatchString(text) {
		t.Fatalf("NotarAI's timestamp, cli_version and key order:\n%s", text)
	}
	var written struct {
		Files map[string]map[string]string `json:"file_fingerprints"`
	}
	if err := json.Unmarshal([]byte(text), &written); err != nil {
		t.Fatal(err)
	}
	for p, fp := range ungoverned {
		if got := written.Files[p]["blake3"]; got != fp.(map[string]string)["blake3"] {
			t.Errorf("%s: %q, want NotarAI's entry kept", p, got)
		}
	}
	if got := written.Files["bell/bell.go"]["blake3"]; got != b3(bellGo+"\nfunc Stop() {}\n") {
		t.Errorf("the governed file marked since: %q", got)
	}

	// A second snapshot with nothing new changes only the time and the
	// commit, as NotarAI's does.
	r.Git("add", "-A")
	r.Git("commit", "-qm", "snapshot")
	r.MustGloss("spec", "snapshot")
	for _, line := range fixtures.Lines(r.Git("diff", "-U0")) {
		if (strings.HasPrefix(line, "+ ") || strings.HasPrefix(line, "- ")) && !strings.Contains(line, `"timestamp"`) && !strings.Contains(line, `"git_hash"`) {
			t.Fatalf("a second snapshot churns the file:\n%s", r.Git("diff"))
		}
	}
}
