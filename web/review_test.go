package web_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestReviewPage: /review?range=A..B is git gloss review of that range (its
// JSON twin is the command's --json, byte for byte), and the overview
// links to the current branch's report.
func TestReviewPage(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	// From the metrics commit, which drifts the server spec, to HEAD.
	rng := s.fx.Git("log", "-1", "--format=%H", "--grep=server: metrics") + "~1..HEAD"
	code, body, h := s.get(t, "/review?range="+rng+"&format=json")
	if want := s.fx.MustGloss("review", rng, "--json"); code != http.StatusOK || body != want ||
		!strings.HasPrefix(h.Get("Content-Type"), "application/json") {
		t.Errorf("/review twin (%d):\n%s\ngit gloss review --json:\n%s", code, body, want)
	}
	code, page, _ := s.get(t, "/review?range="+rng)
	for _, want := range []string{
		"What this change touches that the team decided",
		"Who wrote it",
		`<span class="warn">out of step</span> <code>` + specPath + `</code>`,
		`<a href="/file/server/server.go?rev=`,
	} {
		if code != http.StatusOK || !strings.Contains(page, want) {
			t.Errorf("/review (%d) lacks %q:\n%.3000s", code, want, page)
		}
	}
	if _, home, _ := s.get(t, "/"); !strings.Contains(home, `<a href="/review">Review of this branch</a>`) {
		t.Error("the overview does not link to the branch's review")
	}
	if code, _, _ := s.get(t, "/review?range=nosuchrev..HEAD"); code != http.StatusNotFound {
		t.Errorf("an unknown revision: %d, want 404", code)
	}
}
