package review_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/review"
	"github.com/gloss-dev/gloss/runenv"
)

// forgeRequest is one request the stand-in received.
type forgeRequest struct {
	Method, Path, Auth string
	Body               string
}

// standIn is a local stand-in of a forge's REST API for the comments of
// one pull request: GitHub's issue comments or GitLab's merge request
// notes, on loopback, recording every request.
type standIn struct {
	*httptest.Server
	mu       sync.Mutex
	requests []forgeRequest
	comments []map[string]any // id, body (and system for GitLab)
	nextID   int
}

func newStandIn(t *testing.T, forge string) *standIn {
	s := &standIn{nextID: 100}
	// Somebody's comment that quotes the marker: never gloss's to edit.
	s.comments = append(s.comments, map[string]any{"id": 7, "body": "> " + review.Marker + "\n> quoted by a person", "system": false})
	list, create, update := "/repos/o/r/issues/12/comments", "/repos/o/r/issues/12/comments", "/repos/o/r/issues/comments/"
	editMethod, auth := http.MethodPatch, "Authorization"
	if forge == review.GitLab {
		list, create, update = "/api/v4/projects/42/merge_requests/3/notes", "/api/v4/projects/42/merge_requests/3/notes", "/api/v4/projects/42/merge_requests/3/notes/"
		editMethod, auth = http.MethodPut, "PRIVATE-TOKEN"
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.requests = append(s.requests, forgeRequest{Method: r.Method, Path: r.URL.Path, Auth: r.Header.Get(auth), Body: string(body)})
		var in struct {
			Body string `json:"body"`
		}
		switch {
		case r.Method == http.MethodGet && r.URL.Path == list:
			page, _ := strconv.Atoi(r.URL.Query().Get("page"))
			if page > 1 {
				_, _ = w.Write([]byte("[]"))
				return
			}
			_ = json.NewEncoder(w).Encode(s.comments)
		case r.Method == http.MethodPost && r.URL.Path == create && json.Unmarshal(body, &in) == nil:
			c := map[string]any{"id": s.nextID, "body": in.Body, "system": false}
			s.nextID++
			s.comments = append(s.comments, c)
			w.WriteHeader(http.StatusCreated)
			_ = json.NewEncoder(w).Encode(c)
		case r.Method == editMethod && strings.HasPrefix(r.URL.Path, update) && json.Unmarshal(body, &in) == nil:
			id, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, update))
			for _, c := range s.comments {
				if c["id"] == id {
					c["body"] = in.Body
					_ = json.NewEncoder(w).Encode(c)
					return
				}
			}
			http.NotFound(w, r)
		default:
			http.Error(w, "unexpected request", http.StatusBadRequest)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// take returns the requests received since the last call.
func (s *standIn) take() []forgeRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.requests
	s.requests = nil
	return out
}

func (s *standIn) glossComments() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, c := range s.comments {
		if strings.HasPrefix(c["body"].(string), review.Marker) {
			out = append(out, c)
		}
	}
	return out
}

// project is a repository with gloss set up, a bare remote, a main with a
// recorded decision and a branch feature that brings its rejected
// alternative back, all pushed with their notes; and a CI clone of it at
// feature, as a job checks a pull request out.
func project(t *testing.T) (ci *fixtures.Repo, main string) {
	t.Helper()
	fixtures.Binary(t)
	bare := fixtures.NewBare(t)
	dev := fixtures.NewRepo(t)
	dev.Commit("a health check", map[string]string{"server.go": "package server\n\nfunc Health() int {\n\treturn 204\n}\n"})
	dev.MustGloss("init", "--no-mcp")
	dev.Write("server.go", "package server\n\nfunc Health() int {\n\treturn 204 // no database\n}\n")
	commit(t, dev, "server: Health answers without the database", "Constraint: must answer in under 10 ms\nRejected: reuse /status | it queries the database")
	main = dev.Git("rev-parse", "HEAD")
	dev.Git("checkout", "-q", "-b", "feature")
	dev.Write("server.go", "package server\n\nfunc Health() int {\n\treturn get(\"/status\")\n}\n")
	commit(t, dev, "server: Health is /status")
	dev.Git("remote", "add", "origin", bare)
	dev.Git("push", "-q", "origin", "main", "feature")
	dev.MustGloss("sync", "origin")
	ci = fixtures.Clone(t, bare)
	ci.Git("checkout", "-q", "--detach", "origin/feature")
	return ci, main
}

// ciStep is the shell of one step or job of a ready-made CI file.
func ciStep(t *testing.T, file string, pick func(doc map[string]any) string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtures.ModuleRoot(), "ci", file))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	script := pick(doc)
	if script == "" {
		t.Fatalf("no review step in ci/%s", file)
	}
	return script
}

func githubReviewStep(t *testing.T) string {
	return ciStep(t, "github/gloss.yml", func(doc map[string]any) string {
		job, _ := doc["jobs"].(map[string]any)["review"].(map[string]any)
		for _, s := range job["steps"].([]any) {
			if step := s.(map[string]any); step["name"] == "Post the gloss review" {
				return step["run"].(string)
			}
		}
		return ""
	})
}

func gitlabReviewJob(t *testing.T) string {
	return ciStep(t, "gitlab/gloss.gitlab-ci.yml", func(doc map[string]any) string {
		job, _ := doc["gloss-review"].(map[string]any)
		var lines []string
		for _, l := range job["script"].([]any) {
			lines = append(lines, l.(string))
		}
		return strings.Join(lines, "\n")
	})
}

// runStep runs a CI step's shell in the CI clone with env.
func runStep(t *testing.T, ci *fixtures.Repo, script string, env ...string) (stdout, stderr string) {
	t.Helper()
	cmd := ci.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Env = append(cmd.Env, env...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s%s", script, err, out.String(), errOut.String())
	}
	return out.String(), errOut.String()
}

func methods(rs []forgeRequest) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Method+" "+r.Path)
	}
	return strings.Join(out, ", ")
}

// TestGitHubReviewStepKeepsOneComment runs the workflow's review step as
// written against a stand-in of GitHub's REST API: the first run creates
// the comment, the second edits that one, a dry run writes nothing, and a
// run with no token prints the report, says why, and exits 0.
func TestGitHubReviewStepKeepsOneComment(t *testing.T) {
	t.Parallel()
	ci, _ := project(t)
	srv := newStandIn(t, review.GitHub)
	event := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(event, []byte(`{"action":"synchronize","number":12,"pull_request":{"number":12}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	script := githubReviewStep(t)
	env := []string{"GITHUB_ACTIONS=true", "GITHUB_API_URL=" + srv.URL, "GITHUB_SERVER_URL=https://github.invalid", "GITHUB_REPOSITORY=o/r",
		"GITHUB_EVENT_PATH=" + event, "GITHUB_BASE_REF=main", "GITHUB_REF=refs/pull/12/merge"}

	out, msg := runStep(t, ci, script, append(env, "GITHUB_TOKEN=tok-1")...)
	reqs := srv.take()
	if methods(reqs) != "GET /repos/o/r/issues/12/comments, POST /repos/o/r/issues/12/comments" {
		t.Fatalf("first run: %s", methods(reqs))
	}
	for _, r := range reqs {
		if r.Auth != "Bearer tok-1" {
			t.Errorf("%s %s sent Authorization %q", r.Method, r.Path, r.Auth)
		}
	}
	posted := reqs[1].Body
	if !strings.Contains(posted, "Brings back a rejected alternative") || !strings.Contains(posted, "must answer in under 10 ms") ||
		!strings.Contains(posted, "https://github.invalid/o/r/blob/") || !strings.Contains(out, "Brings back a rejected alternative") {
		t.Errorf("first run posted:\n%s\nprinted:\n%s", posted, out)
	}
	if !strings.Contains(msg, "created comment 100 on pull request #12") {
		t.Errorf("first run said: %s", msg)
	}

	ci.Write("server.go", "package server\n\nfunc Health() int {\n\treturn get(\"/status\") // for now\n}\n")
	commit(t, ci, "server: note it")
	_, msg = runStep(t, ci, script, append(env, "GITHUB_TOKEN=tok-1")...)
	if got := methods(srv.take()); got != "GET /repos/o/r/issues/12/comments, PATCH /repos/o/r/issues/comments/100" {
		t.Fatalf("second run: %s", got)
	}
	if gc := srv.glossComments(); len(gc) != 1 || gc[0]["id"] != 100 || !strings.Contains(gc[0]["body"].(string), "2 commit(s)") {
		t.Errorf("gloss comments after two runs: %v", gc)
	}
	if !strings.Contains(msg, "updated comment 100 on pull request #12") {
		t.Errorf("second run said: %s", msg)
	}

	_, msg = runStep(t, ci, "git gloss review --post --dry-run", append(env, "GITHUB_TOKEN=tok-1")...)
	if got := methods(srv.take()); got != "GET /repos/o/r/issues/12/comments" || !strings.Contains(msg, "dry run: would update comment 100") {
		t.Errorf("dry run: %s; said %s", got, msg)
	}

	out, msg = runStep(t, ci, script, env...)
	if got := srv.take(); len(got) != 0 {
		t.Errorf("a run without a token sent %s", methods(got))
	}
	if !strings.Contains(out, "Brings back a rejected alternative") || !strings.Contains(msg, "not posted to pull request #12: no token: GITHUB_TOKEN is not set") {
		t.Errorf("without a token: printed\n%s\nsaid %s", out, msg)
	}
}

// TestGitLabReviewJobKeepsOneNote runs the GitLab job's script against a
// stand-in of GitLab's notes API: created once, then edited.
func TestGitLabReviewJobKeepsOneNote(t *testing.T) {
	t.Parallel()
	ci, main := project(t)
	srv := newStandIn(t, review.GitLab)
	script := gitlabReviewJob(t)
	env := []string{"GITLAB_CI=true", "CI_API_V4_URL=" + srv.URL + "/api/v4", "CI_PROJECT_ID=42", "CI_MERGE_REQUEST_IID=3",
		"CI_MERGE_REQUEST_DIFF_BASE_SHA=" + main, "CI_PROJECT_URL=https://gitlab.invalid/o/r", runenv.ReviewToken + "=glpat-1"}
	for i, want := range []string{
		"GET /api/v4/projects/42/merge_requests/3/notes, POST /api/v4/projects/42/merge_requests/3/notes",
		"GET /api/v4/projects/42/merge_requests/3/notes, PUT /api/v4/projects/42/merge_requests/3/notes/100",
	} {
		_, msg := runStep(t, ci, script, env...)
		reqs := srv.take()
		if got := methods(reqs); got != want {
			t.Fatalf("run %d: %s, want %s (said %s)", i+1, got, want, msg)
		}
		if reqs[0].Auth != "glpat-1" {
			t.Errorf("run %d sent PRIVATE-TOKEN %q", i+1, reqs[0].Auth)
		}
	}
	if gc := srv.glossComments(); len(gc) != 1 || !strings.Contains(gc[0]["body"].(string), "https://gitlab.invalid/o/r/-/blob/") {
		t.Errorf("gloss notes after two runs: %v", gc)
	}
}

// TestPostRefusesPlainHTTP: the token goes to a forge over https only (or
// to this machine).
func TestPostRefusesPlainHTTP(t *testing.T) {
	t.Parallel()
	ci, _ := project(t)
	out, err := ci.Gloss("review", "--post")
	if err == nil || !strings.Contains(out, "--post runs in a GitHub Actions or GitLab CI job") {
		t.Errorf("outside CI: %v\n%s", err, out)
	}
	cmd := ci.Command(fixtures.Binary(t), "review", "--post")
	cmd.Env = append(cmd.Env, "GITHUB_ACTIONS=true", "GITHUB_REPOSITORY=o/r", "GITHUB_REF=refs/pull/1/merge", "GITHUB_TOKEN=t",
		"GITHUB_API_URL=http://api.github.invalid", "GITHUB_BASE_REF=main")
	data, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(data), "is not https") {
		t.Errorf("plain http: %v\n%s", err, data)
	}
}
