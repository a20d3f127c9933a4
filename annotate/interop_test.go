package annotate_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/notes"
)

// A supplied author is kept on the records written after the fact, not
// replaced by "agent".
func TestAnnotateKeepsTheSuppliedAuthor(t *testing.T) {
	fx := newRepo(t)
	fx.Commit("server", map[string]string{"server/server.go": serverV1})
	fx.MustGloss("annotate", "--commit", "HEAD", "--file", "server/server.go", "--anchor", "Server.Handle",
		"--intent", "one place registers every route", "--author-kind", "human", "--author-name", "Ada")
	var found bool
	for _, d := range records(t, fx, "HEAD") {
		if d.Region != nil && d.Region.Intent == "one place registers every route" {
			found = true
			if d.Region.Author.Kind != "human" || d.Region.Author.Name != "Ada" {
				t.Fatalf("author = %+v, want human Ada", d.Region.Author)
			}
		}
	}
	if !found {
		t.Fatal("no record written")
	}
}

// Chronicle notes of the three schemas, as a Chronicle user has them in
// refs/notes/chronicle (one pretty-printed JSON document per commit).
func chronicleRepo(t *testing.T) (*fixtures.Repo, map[string]string) {
	t.Helper()
	fx := newRepo(t)
	c1 := fx.Commit("bell: ring on the hour", map[string]string{"bell/bell.go": "package bell\n\n// Ring rings.\nfunc Ring() {}\n\nfunc Stop() {}\n"})
	c2 := fx.Commit("bell: quieter at night", map[string]string{"bell/night.go": "package bell\n\nfunc Night() bool { return false }\n"})
	c3 := fx.Commit("docs: bell", map[string]string{"docs/bell.md": "# Bell\n"})
	v3 := map[string]any{
		"schema": "chronicle/v3", "commit": c1, "timestamp": "2026-02-08T10:00:00Z",
		"summary": "Ring the bell on the hour from a ticker, not a sleep loop",
		"wisdom": []map[string]any{
			{"category": "dead_end", "content": "time.Sleep drifted by seconds a day", "file": "bell/bell.go", "lines": map[string]int{"start": 3, "end": 4}},
			{"category": "gotcha", "content": "Stop must be called before Ring again", "file": "bell/bell.go"},
			{"category": "insight", "content": "the ticker is the only clock"},
			{"category": "unfinished_thread", "content": "daylight saving is not handled"},
		},
		"provenance": map[string]any{"source": "live", "author": "claude-opus"},
	}
	v2 := map[string]any{
		"schema": "chronicle/v2", "commit": c2, "timestamp": "2026-02-07T09:00:00Z",
		"narrative": map[string]any{
			"summary": "Keep the bell quiet at night", "motivation": "neighbours complained",
			"rejected_alternatives": []map[string]string{{"approach": "a volume knob", "reason": "nobody turns it back up"}},
			"follow_up":             "make the hours configurable",
		},
		"markers": []map[string]any{
			{"file": "bell/night.go", "kind": map[string]string{"type": "contract", "description": "Night is pure", "source": "author"}},
			{"file": "bell/night.go", "kind": map[string]string{"type": "dependency", "target_file": "bell/bell.go", "target_anchor": "Ring", "assumption": "Ring checks Night first"}},
		},
		"provenance": map[string]any{"source": "batch"},
	}
	v1 := map[string]any{
		"schema": "chronicle/v1", "commit": c3, "timestamp": "2026-02-06T08:00:00Z",
		"summary": "Document the bell", "context_level": "enhanced",
		"regions": []map[string]any{{
			"file": "docs/bell.md", "ast_anchor": map[string]string{"unit_type": "section", "name": "Bell"},
			"lines": map[string]int{"start": 1, "end": 1}, "intent": "say what the bell does",
			"constraints": []map[string]string{{"text": "one page only", "source": "author"}},
			"risk_notes":  "goes stale when the hours change",
		}},
		"provenance": map[string]any{"operation": "initial", "derived_from": []string{}, "original_annotations_preserved": false},
	}
	for commit, doc := range map[string]any{c1: v3, c2: v2, c3: v1} {
		data, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		fx.Git("notes", "--ref", annotate.ChronicleRef, "add", "-f", "-m", string(data), commit)
	}
	return fx, map[string]string{"v3": c1, "v2": c2, "v1": c3}
}

func importResult(t *testing.T, fx *fixtures.Repo, args ...string) notes.ImportResult {
	t.Helper()
	var res notes.ImportResult
	out := fx.MustGloss(append(args, "--json")...)
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	return res
}

func TestImportChronicleKeepsAuthorProvenanceAndIsIdempotent(t *testing.T) {
	fx, commits := chronicleRepo(t)
	res := importResult(t, fx, "import", "chronicle")
	if res.Written == 0 || res.Missing != 0 || len(res.Warnings) != 0 {
		t.Fatalf("first import: %+v", res)
	}

	var sum *annotate.Summary
	var deadEnd, gotcha *annotate.Region
	for _, d := range records(t, fx, commits["v3"]) {
		switch {
		case d.Summary != nil && d.Summary.Source == annotate.SourceImport:
			sum = d.Summary
		case d.Region != nil && len(d.Region.RejectedAlternatives) > 0:
			deadEnd = d.Region
		case d.Region != nil && d.Region.Source == annotate.SourceImport && len(d.Region.Risks) > 0:
			gotcha = d.Region
		}
	}
	if sum == nil || sum.Intent != "Ring the bell on the hour from a ticker, not a sleep loop" {
		t.Fatalf("summary: %+v", sum)
	}
	if sum.Author.Name != "claude-opus" || sum.Author.Kind != "agent" || sum.Origin == nil || sum.Origin.Schema != "chronicle/v3" || sum.Origin.Source != "live" {
		t.Fatalf("author and provenance must be kept: %+v origin %+v", sum.Author, sum.Origin)
	}
	if sum.Time != "2026-02-08T10:00:00Z" {
		t.Fatalf("the record keeps Chronicle's time: %s", sum.Time)
	}
	if !strings.Contains(sum.Reasoning, "the ticker is the only clock") || !strings.Contains(strings.Join(sum.Risks, "|"), "unfinished: daylight saving") {
		t.Fatalf("repo-wide wisdom goes to the summary: %+v", sum)
	}
	if deadEnd == nil || deadEnd.File != "bell/bell.go" || deadEnd.Lines != (annotate.Lines{Start: 3, End: 4}) || deadEnd.RejectedAlternatives[0].Text != "time.Sleep drifted by seconds a day" || deadEnd.Origin.Category != "dead_end" {
		t.Fatalf("dead end: %+v", deadEnd)
	}
	if gotcha == nil || gotcha.Lines != (annotate.Lines{Start: 1, End: 6}) || gotcha.Risks[0] != "Stop must be called before Ring again" {
		t.Fatalf("a gotcha without lines covers the whole file: %+v", gotcha)
	}

	// v2 and v1 come over too.
	var contract, dep bool
	for _, d := range records(t, fx, commits["v2"]) {
		if d.Region != nil && len(d.Region.Constraints) > 0 && d.Region.Constraints[0].Text == "Night is pure" {
			contract = true
		}
		if d.Region != nil && len(d.Region.Deps) > 0 && d.Region.Deps[0].File == "bell/bell.go" {
			dep = true
		}
		if d.Summary != nil && d.Summary.Source == annotate.SourceImport && (d.Summary.Author.Kind != "tool" || !strings.Contains(d.Summary.Reasoning, "a volume knob")) {
			t.Errorf("v2 summary: %+v", d.Summary)
		}
	}
	if !contract || !dep {
		t.Errorf("v2 markers: contract %v dependency %v", contract, dep)
	}
	out := fx.MustGloss("read", "docs/bell.md")
	if !strings.Contains(out, "say what the bell does") || !strings.Contains(out, "one page only") {
		t.Errorf("v1 region must be readable with git gloss read:\n%s", out)
	}

	// Idempotent: nothing new, and the notes ref does not move.
	tip := fx.Git("rev-parse", notes.Annotations)
	again := importResult(t, fx, "import", "chronicle")
	if again.Written != 0 || again.Present != res.Written {
		t.Fatalf("second import: %+v (first wrote %d)", again, res.Written)
	}
	if fx.Git("rev-parse", notes.Annotations) != tip {
		t.Fatal("a second import must not write")
	}

	// Chronicle rewrote a note (its agents overwrite with -f): the new
	// content replaces what was imported from the old one.
	fx.Git("notes", "--ref", annotate.ChronicleRef, "add", "-f", "-m",
		`{"schema":"chronicle/v3","commit":"`+commits["v3"]+`","timestamp":"2026-02-09T10:00:00Z","summary":"Ring from a ticker","wisdom":[],"provenance":{"source":"amend","author":"claude-opus"}}`, commits["v3"])
	third := importResult(t, fx, "import", "chronicle")
	if third.Written != 1 {
		t.Fatalf("rewritten note: %+v", third)
	}
	var live []string
	for _, d := range records(t, fx, commits["v3"]) {
		if d.Summary != nil && d.Summary.Source == annotate.SourceImport {
			live = append(live, d.Summary.Intent)
		}
		if d.Region != nil && d.Region.Source == annotate.SourceImport {
			t.Errorf("a region of the old note still counts: %+v", d.Region)
		}
	}
	if len(live) != 1 || live[0] != "Ring from a ticker" {
		t.Fatalf("live imported summaries: %v", live)
	}
}

// `git chronicle export` files are read too.
func TestImportChronicleExportFile(t *testing.T) {
	fx, commits := chronicleRepo(t)
	line, _ := json.Marshal(map[string]any{"commit_sha": commits["v1"], "timestamp": "2026-02-06T08:00:00Z",
		"annotation": map[string]any{"schema": "chronicle/v3", "commit": commits["v1"], "timestamp": "2026-02-06T08:00:00Z", "summary": "from the export", "provenance": map[string]any{"source": "auto"}}})
	file := filepath.Join(t.TempDir(), "chronicle.jsonl")
	if err := os.WriteFile(file, append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	res := importResult(t, fx, "import", "chronicle", "--file", file)
	if res.Written != 1 {
		t.Fatalf("%+v", res)
	}
}

// gloss's own records go out and come back byte for byte; importing twice
// adds nothing.
func TestExportImportRoundTrip(t *testing.T) {
	fx, _ := chronicleRepo(t)
	importResult(t, fx, "import", "chronicle")
	fx.MustGloss("annotate", "--commit", "HEAD", "--intent", "a hand-written note with <html> & \"quotes\"", "--author-kind", "human", "--author-name", "Ada")
	dir := t.TempDir()
	first := filepath.Join(dir, "a.jsonl")
	fx.MustGloss("export", "-o", first)
	exported, err := os.ReadFile(first)
	if err != nil || len(exported) == 0 {
		t.Fatalf("export: %v %d bytes", err, len(exported))
	}

	bare := fixtures.NewBare(t)
	fx.Git("remote", "add", "origin", bare)
	fx.Git("push", "-q", "origin", "main")
	clone := fixtures.Clone(t, bare)
	res := importResult(t, clone, "import", first)
	if res.Written != len(fixtures.Lines(string(exported))) || res.Missing != 0 {
		t.Fatalf("import into a clone: %+v", res)
	}
	second := filepath.Join(dir, "b.jsonl")
	clone.MustGloss("export", "-o", second)
	back, _ := os.ReadFile(second)
	if string(back) != string(exported) {
		t.Fatalf("round trip differs:\n%s\n---\n%s", exported, back)
	}
	tip := clone.Git("rev-parse", notes.Annotations)
	again := importResult(t, clone, "import", first)
	if again.Written != 0 || again.Present != res.Written || clone.Git("rev-parse", notes.Annotations) != tip {
		t.Fatalf("re-import must write nothing: %+v", again)
	}
}

// chronicleExport writes the export file `git chronicle export` makes from
// the notes in refs/notes/chronicle: each note parsed as a
// serde_json::Value (keys sorted, as serde_json's map is a BTreeMap) and
// written compact in an {commit_sha, timestamp, annotation} line
// (https://github.com/gotwalt/chronicle/blob/f774a7d/src/export.rs).
func chronicleExport(t *testing.T, fx *fixtures.Repo) string {
	t.Helper()
	var out bytes.Buffer
	for _, line := range fixtures.Lines(fx.Git("notes", "--ref", annotate.ChronicleRef, "list")) {
		commit := strings.Fields(line)[1]
		var v map[string]any
		dec := json.NewDecoder(strings.NewReader(fx.Git("notes", "--ref", annotate.ChronicleRef, "show", commit)))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(map[string]any{"commit_sha": commit, "timestamp": v["timestamp"], "annotation": v}); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(t.TempDir(), "chronicle.jsonl")
	if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// One Chronicle record gets one id whichever way it arrives: from the notes
// ref (pretty-printed in Chronicle's field order, as `serde_json::
// to_string_pretty` of the v3 Annotation struct writes it:
// https://github.com/gotwalt/chronicle/blob/9b7c217/src/schema/v3.rs) or
// from an export file of the same notes; and what is printed is what was
// written.
func TestChronicleImportedTwoWaysIsImportedOnce(t *testing.T) {
	for _, order := range [][]string{{"ref", "file"}, {"file", "ref"}} {
		t.Run(strings.Join(order, "-then-"), func(t *testing.T) {
			fx, _ := chronicleRepo(t)
			c := fx.Commit("bell: louder <at> noon & midnight", map[string]string{"bell/loud.go": "package bell\n"})
			fx.Git("notes", "--ref", annotate.ChronicleRef, "add", "-m", `{
  "schema": "chronicle/v3",
  "commit": "`+c+`",
  "timestamp": "2026-02-09T12:00:00Z",
  "summary": "Louder at <noon> & midnight — \"ding\"",
  "wisdom": [
    {
      "category": "gotcha",
      "content": "volume 1.50 is the cap",
      "file": "bell/loud.go",
      "lines": {
        "start": 1,
        "end": 1
      }
    }
  ],
  "provenance": {
    "source": "live",
    "author": "claude-opus"
  }
}`, c)
			file := chronicleExport(t, fx)
			run := func(way string) notes.ImportResult {
				if way == "file" {
					return importResult(t, fx, "import", "chronicle", "--file", file)
				}
				return importResult(t, fx, "import", "chronicle")
			}
			first := run(order[0])
			if first.Written == 0 || first.Written != first.Read {
				t.Fatalf("first import: %+v", first)
			}
			tip := fx.Git("rev-parse", notes.Annotations)
			for _, way := range []string{order[1], order[0], order[1]} {
				again := run(way)
				if again.Written != 0 || again.Present != first.Written || fx.Git("rev-parse", notes.Annotations) != tip {
					t.Fatalf("import by %s after %s: %+v (first wrote %d)", way, order[0], again, first.Written)
				}
			}
			out := fx.MustGloss("import", "chronicle", "--file", file)
			if want := fmt.Sprintf("imported 0 record(s)\n  skipped %d: already present", first.Written); !strings.Contains(out, want) {
				t.Fatalf("printed %q, want %q", out, want)
			}
		})
	}
}

// TestImportChronicleHonoursTombstones: imported records have ids derived
// from Chronicle's notes, so a forgotten one would come back with the same
// id on the next import; it does not.
func TestImportChronicleHonoursTombstones(t *testing.T) {
	t.Parallel()
	fx, commits := chronicleRepo(t)
	importResult(t, fx, "import", "chronicle")
	var id string
	for _, d := range records(t, fx, commits["v3"]) {
		if d.Region != nil && len(d.Region.RejectedAlternatives) > 0 {
			id = d.Region.ID
		}
	}
	if id == "" {
		t.Fatal("no dead-end region imported")
	}
	fx.MustGloss("forget", id, "--reason", "test")
	again := importResult(t, fx, "import", "chronicle")
	if again.Forgotten != 1 || again.Written != 0 {
		t.Errorf("import after the forget: %+v", again)
	}
	for _, d := range records(t, fx, commits["v3"]) {
		if d.Record.ID == id {
			t.Errorf("the forgotten record came back: %+v", d.Region)
		}
	}
}

// A Chronicle annotation with a wisdom entry gloss cannot place (lines past
// the file's end: Chronicle does not check them) still brings every other
// entry, from the export file as from the notes ref: the skipped entry is
// a warning, never a record of the same note counted "already present".
// The note follows Chronicle's v3 Annotation
// (https://github.com/gotwalt/chronicle/blob/9b7c217/src/schema/v3.rs), the
// export line its export.rs (https://github.com/gotwalt/chronicle/blob/f774a7d/src/export.rs).
func TestChronicleEntryPastTheFileLosesNoOther(t *testing.T) {
	t.Parallel()
	for _, way := range []string{"file", "ref"} {
		t.Run(way, func(t *testing.T) {
			t.Parallel()
			fx, _ := chronicleRepo(t)
			c := fx.Commit("bell: chime", map[string]string{"bell/chime.go": "package bell\n\nfunc Chime() {}\n"})
			fx.Git("notes", "--ref", annotate.ChronicleRef, "add", "-m", `{
  "schema": "chronicle/v3",
  "commit": "`+c+`",
  "timestamp": "2026-02-09T13:00:00Z",
  "summary": "Chime between the hours",
  "wisdom": [
    {"category": "gotcha", "content": "the chime table is read at start", "file": "bell/chime.go", "lines": {"start": 40, "end": 52}},
    {"category": "dead_end", "content": "a goroutine per chime leaked", "file": "bell/chime.go", "lines": {"start": 3, "end": 3}},
    {"category": "insight", "content": "Chime is Ring with a shorter bell", "file": "bell/chime.go"}
  ],
  "provenance": {"source": "live", "author": "claude-opus"}
}`, c)
			args := []string{"import", "chronicle"}
			if way == "file" {
				args = append(args, "--file", chronicleExport(t, fx))
			}
			res := importResult(t, fx, args...)
			if res.Present != 0 || res.Written != res.Read {
				t.Fatalf("import by %s: %+v", way, res)
			}
			var regions int
			for _, d := range records(t, fx, c) {
				if d.Region != nil && d.Region.Source == annotate.SourceImport {
					regions++
				}
			}
			if regions != 2 || !strings.Contains(strings.Join(res.Warnings, "\n"), "lines 40:52 are not lines of the file") {
				t.Fatalf("import by %s: %d regions (want the dead end and the insight), warnings %q", way, regions, res.Warnings)
			}
		})
	}
}
