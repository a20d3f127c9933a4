package web

import (
	"net/http"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/review"
)

// reviewData is the review page: git gloss review of a range.
type reviewData struct {
	Range  string
	Report *review.Report
}

// review renders git gloss review of ?range=A..B (default: the current
// branch against its base); its JSON twin is the command's --json.
func (s *Server) review(w http.ResponseWriter, r *http.Request) {
	rng := r.URL.Query().Get("range")
	s.withRepo(w, r, func(repo *gitops.Repo) error {
		rep, err := review.Build(r.Context(), repo, review.Options{Range: rng, Env: func(string) string { return "" }})
		if err != nil {
			return err
		}
		s.page(w, r, "review", view{Title: "Review", Nav: "overview", Data: reviewData{Range: rng, Report: rep}}, rep)
		return nil
	})
}
