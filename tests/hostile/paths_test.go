package hostile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Paths that are only strings — the file an annotation is about, the
// regions a Chronicle note names, the file an import reads — go through
// the one resolver like every other path: nothing lands in a record that
// names a file in .git or out of the repository, and nothing is read from
// .git or through a link out of the tree.
func TestStringPathsGoThroughTheResolver(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil, map[string]string{"gitlink": ".git"})
	r := w.repo
	if err := os.Symlink(w.outside, r.Path("outlink")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{".git/config", "gitlink/config", "./gitlink/hooks/pre-commit", "../outside/secret.noma", "outlink/secret.noma"} {
		w.cli("annotate "+f, "annotate", "--file", f, "--intent", "pwn")
		w.cli("annotate --commit "+f, "annotate", "--commit", "HEAD", "--file", f, "--intent", "pwn")
		w.tool("gloss_annotate "+f, "gloss_annotate", map[string]any{"file": f, "intent": "pwn"})
		w.tool("gloss_annotate commit "+f, "gloss_annotate", map[string]any{"file": f, "intent": "pwn", "commit": "HEAD"})
	}
	if out := r.MustGloss("annotate", "--pending", "--json"); strings.Contains(out, "config") || strings.Contains(out, "secret") {
		t.Errorf("a refused context was staged: %s", out)
	}

	// A Chronicle note with hostile regions: only the good one is stored.
	region := func(file string, start, end int) map[string]any {
		return map[string]any{"file": file, "lines": map[string]int{"start": start, "end": end}, "intent": "region of " + file}
	}
	note, _ := json.Marshal(map[string]any{
		"schema": "chronicle/v1", "commit": r.Git("rev-parse", "HEAD"), "timestamp": "2026-02-06T08:00:00Z", "summary": "hostile regions",
		"regions": []any{
			region("../../../etc/passwd", 1, 1), region(".git/config", 1, 2), region("gitlink/config", 1, 2),
			region("outlink/secret.noma", 1, 1), region("README.md", -5, 3), region("README.md", 1, 999999999999),
			region("README.md", 7, 9), region("README.md", 1, 1),
		},
	})
	r.Git("notes", "--ref", "refs/notes/chronicle", "add", "-m", string(note), "HEAD")
	out := r.MustGloss("import", "chronicle", "--json")
	var res struct {
		Written  int      `json:"written"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if res.Written != 2 || len(res.Warnings) != 7 {
		t.Errorf("import wrote %d records with %d warnings, want 2 (the good region and the summary) and 7:\n%s", res.Written, len(res.Warnings), out)
	}
	stored := r.Git("notes", "--ref", "refs/notes/gloss/annotations", "show", "HEAD")
	for _, bad := range []string{"passwd", ".git/config", "gitlink/", "outlink", "999999999999", "-5", `"start":7`} {
		if strings.Contains(stored, bad) {
			t.Errorf("a stored record holds %q:\n%s", bad, stored)
		}
	}

	// import FILE and import chronicle --file: not from .git, not through
	// a link out of the tree; a file outside the repository named as such
	// is the user's own and is read.
	export := filepath.Join(w.outside, "export.jsonl")
	if err := os.WriteFile(export, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	w.outSum = snapshot(t, w.outside)
	w.gitSum = snapshot(t, r.Path(".git"), gitSkip...) // the import wrote notes, as it should
	for _, f := range []string{".git/config", "gitlink/config", "outlink/export.jsonl", r.Path(".git/config")} {
		w.cli("import "+f, "import", f)
		w.cli("import chronicle --file "+f, "import", "chronicle", "--file", f)
	}
	r.MustGloss("import", export)
	r.MustGloss("import", "chronicle", "--file", export)
	w.noInjectedCommand()
}
