package tasks

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
)

func TestImportHints(t *testing.T) {
	t.Parallel()
	const left = ".chant is left in place: remove it (git rm -r .chant) once the team has switched"
	cases := []struct {
		skipped, conflicts int
		want               []string
	}{
		{0, 0, []string{left}},
		{2, 0, []string{"2 symbolic link(s) to folders in .chant were not followed: copy what they hold into .chant by hand if you want it", left}},
		{0, 1, []string{"1 file(s) already in gloss differ from Chant's and were left alone: compare them by hand", left}},
		{1, 3, []string{
			"1 symbolic link(s) to folders in .chant were not followed: copy what they hold into .chant by hand if you want it",
			"3 file(s) already in gloss differ from Chant's and were left alone: compare them by hand",
			left,
		}},
	}
	for _, c := range cases {
		if got := importHints(".chant", c.skipped, c.conflicts); !slices.Equal(got, c.want) {
			t.Errorf("importHints(%d, %d) = %q, want %q", c.skipped, c.conflicts, got, c.want)
		}
	}
}

// TestImportPlanPut pins how an import plans one file: a new file is
// planned, one already there is never overwritten but sorted into same or
// conflict, an unreadable one and a cancelled import fail.
func TestImportPlanPut(t *testing.T) {
	fx := fixtures.NewRepo(t)
	fx.Commit("initial", map[string]string{"README.md": "project\n", ".gloss/tasks/same.md": "a\n", ".gloss/tasks/other.md": "b\n", ".gloss/tasks/dir.md/x": "x\n"})
	repo, err := gitops.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(repo.Close)
	s, err := Open(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name            string
		ctx             context.Context
		dst             string
		planned         bool
		same, conflicts int
		err             string
	}{
		{"new", context.Background(), ".gloss/tasks/new.md", true, 0, 0, ""},
		{"same bytes", context.Background(), ".gloss/tasks/same.md", false, 1, 0, ""},
		{"other bytes", context.Background(), ".gloss/tasks/other.md", false, 0, 1, ""},
		{"not a file", context.Background(), ".gloss/tasks/dir.md", false, 0, 0, "not a regular file"},
		{"cancelled", cancelled, ".gloss/tasks/new.md", false, 0, 0, "context canceled"},
	}
	for _, c := range cases {
		res := &ImportResult{}
		plan := &importPlan{ctx: c.ctx, s: s, res: res}
		err := plan.put(c.dst, []byte("a\n"), &res.Tasks)
		planned := len(plan.writes) == 1 && plan.writes[0].dst == c.dst && plan.writes[0].list == &res.Tasks
		if planned != c.planned || len(res.Same) != c.same || len(res.Conflict) != c.conflicts ||
			(err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: planned %v, same %q, conflict %q, err %v", c.name, planned, res.Same, res.Conflict, err)
		}
	}
}
