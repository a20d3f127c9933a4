package tasks_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/tasks"
)

// Each body is counted as Chant's count_total_checkboxes and
// count_unchecked_checkboxes count it: the cases where a different reading
// would flip a task's verdict.
func TestCriteriaCountLikeChant(t *testing.T) {
	cases := []struct {
		name             string
		body             string
		total, unchecked int
	}{
		{"nested lists count", "# T\n\n## Acceptance Criteria\n\n- [x] parent\n  - [ ] child\n    - [X] grandchild\n", 3, 1},
		{"heading with a suffix", "# T\n\n## Acceptance Criteria (phase 2)\n\n- [x] done\n", 1, 0},
		{"indented heading", "# T\n\n  ## Acceptance Criteria\n- [x] done\n", 1, 0},
		{"lower-case heading is not one", "# T\n\n## acceptance criteria\n\n- [ ] open\n", 0, 0},
		{"last heading wins", "# T\n\n## Acceptance Criteria\n\n- [ ] old\n\n## Acceptance Criteria\n\n- [x] new\n", 1, 0},
		{"subsections stay inside", "# T\n\n## Acceptance Criteria\n\n### API\n- [x] a\n### CLI\n- [ ] b\n\n## Notes\n- [ ] not counted\n", 2, 1},
		{"backtick fences are skipped", "# T\n\n## Acceptance Criteria\n\n- [x] a\n```md\n- [ ] example\n## Not the end\n```\n- [x] b\n", 2, 0},
		{"tilde fences are not fences", "# T\n\n## Acceptance Criteria\n\n~~~\n- [ ] inside tildes\n~~~\n", 1, 1},
		{"several boxes on one line", "# T\n\n## Acceptance Criteria\n\n- [x] a - [ ] b - [X] c\n", 3, 1},
		{"star and plus bullets are not boxes", "# T\n\n## Acceptance Criteria\n\n* [ ] star\n+ [x] plus\n- [x] dash\n", 1, 0},
		{"windows line endings", "# T\r\n\r\n## Acceptance Criteria\r\n\r\n- [x] a\r\n## Notes\r\n- [ ] b\r\n", 1, 0},
		{"no section", "# T\n\n- [ ] loose\n", 0, 0},
	}
	e := newEnv(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := e.add(c.name, nil)
			if _, err := e.s.Update(context.Background(), tasks.UpdateInput{ID: id, Output: c.body, ReplaceBody: true}); err != nil {
				t.Fatal(err)
			}
			v, err := e.s.Verify(id)
			if err != nil {
				t.Fatal(err)
			}
			if v.Criteria.Total != c.total || v.Criteria.Unchecked != c.unchecked {
				t.Fatalf("total %d unchecked %d, want %d %d", v.Criteria.Total, v.Criteria.Unchecked, c.total, c.unchecked)
			}
			if want := c.total > 0 && c.unchecked == 0; v.Verified != want {
				t.Fatalf("verified %v, want %v", v.Verified, want)
			}
		})
	}
}

// task verify answers with its exit code: 1 when the task is not verified
// (open boxes, or none at all), 0 when it is.
func TestVerifyExitCode(t *testing.T) {
	e := newEnv(t)
	open := e.add("Open work", []string{"first", "second"})
	if out, err := e.fx.Gloss("task", "verify", open); err == nil || !strings.Contains(err.Error(), "exit status 1") {
		t.Fatalf("unverified task: %v\n%s", err, out)
	}
	none := e.add("No criteria", nil)
	if _, err := e.fx.Gloss("task", "verify", none); err == nil || !strings.Contains(err.Error(), "exit status 1") {
		t.Fatalf("a task without criteria is not verified: %v", err)
	}
	done := e.add("Done work", nil)
	if _, err := e.s.Update(context.Background(), tasks.UpdateInput{ID: done, Output: "## Acceptance Criteria\n\n- [x] it works\n", ReplaceBody: true}); err != nil {
		t.Fatal(err)
	}
	if out, err := e.fx.Gloss("task", "verify", done, "--json"); err != nil || !strings.Contains(out, `"verified":true`) {
		t.Fatalf("verified task: %v\n%s", err, out)
	}
}
