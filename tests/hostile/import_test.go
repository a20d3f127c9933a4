package hostile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

func chantSpec(title string) string {
	return "---\ntype: code\nstatus: pending\n---\n# " + title + "\n"
}

// A Chant import is one commit or nothing: a refused file (a link into
// .git) among good ones leaves no task file behind, and once it is gone
// the rerun imports everything in one commit. Links to folders (into
// .git, out of the repository) are not followed and are said to be
// skipped.
func TestChantImportIsOneCommitOrNothing(t *testing.T) {
	t.Parallel()
	r := fixtures.NewRepo(t)
	r.Commit("base", map[string]string{"README.md": "# demo\n"})
	r.MustGloss("init", "--no-mcp")
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", "gloss init")
	outside := filepath.Join(filepath.Dir(r.Dir), "outside-chant")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "2026-01-01-009-out.md"), []byte(chantSpec("Outside")), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Write(".chant/specs/2026-01-01-001-aaa.md", chantSpec("A"))
	r.Write(".chant/specs/2026-01-01-003-ccc.md", chantSpec("C"))
	r.Write(".chant/prompts/standard.md", "prompt\n")
	links := map[string]string{
		".chant/specs/2026-01-01-002-bbb.md": "../../.git/config",
		".chant/specs/sub":                   "../../.git/refs/heads",
		".chant/archive/2026-01-01":          outside,
		".chant/prompts/h":                   "../../.git/hooks",
	}
	for l, target := range links {
		if err := os.MkdirAll(filepath.Dir(r.Path(l)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, r.Path(l)); err != nil {
			t.Fatal(err)
		}
	}
	head := r.Git("rev-parse", "HEAD")
	for run := range 2 {
		if out, err := r.Gloss("task", "import", "--from", ".chant"); err == nil {
			t.Fatalf("run %d: an import through a link into .git was accepted:\n%s", run, out)
		}
		if st := r.Git("status", "--porcelain", "--untracked-files=all", "--", ".gloss"); st != "" {
			t.Errorf("run %d: a refused import left files behind:\n%s", run, st)
		}
		if got := r.Git("rev-parse", "HEAD"); got != head {
			t.Errorf("run %d: a refused import committed", run)
		}
	}
	if err := os.Remove(r.Path(".chant/specs/2026-01-01-002-bbb.md")); err != nil {
		t.Fatal(err)
	}
	out := r.MustGloss("task", "import", "--from", ".chant", "--json")
	var res struct {
		Tasks, Archived, Skipped []string
		Committed                bool `json:"committed"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(res.Tasks) != 2 || len(res.Archived) != 0 || !res.Committed {
		t.Errorf("import: %s", out)
	}
	for _, l := range []string{".chant/specs/sub", ".chant/archive/2026-01-01", ".chant/prompts/h"} {
		if !slices.Contains(res.Skipped, l) {
			t.Errorf("link %s is not reported as skipped: %v", l, res.Skipped)
		}
	}
	if n := len(fixtures.Lines(r.Git("rev-list", head+"..HEAD"))); n != 1 {
		t.Errorf("the import made %d commits, want 1", n)
	}
	if st := r.Git("status", "--porcelain", "--", ".gloss"); st != "" {
		t.Errorf("the import left changes:\n%s", st)
	}
	if human := r.MustGloss("task", "import", "--from", ".chant"); !strings.Contains(human, "skipped (symbolic link, not followed): .chant/specs/sub") {
		t.Errorf("the human answer does not say what was skipped:\n%s", human)
	}
}
