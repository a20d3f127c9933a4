package review

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/buildinfo"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/runenv"
)

// Forges Post knows.
const (
	GitHub = "github"
	GitLab = "gitlab"
)

// Post actions.
const (
	Created     = "created"
	Updated     = "updated"
	WouldCreate = "would create"
	WouldUpdate = "would update"
	Skipped     = "skipped"
)

// PostOptions says where and how to post.
type PostOptions struct {
	// Env reads the CI's environment; nil is os.Getenv.
	Env func(string) string
	// Client talks to the forge; nil is a client with a 30 s timeout.
	Client *http.Client
	// DryRun looks the comment up (when there is a token) but writes
	// nothing.
	DryRun bool
}

// PostResult says what Post did.
type PostResult struct {
	Forge   string `json:"forge"`
	Target  string `json:"target" jsonschema:"the pull or merge request, e.g. pull request #4"`
	Action  string `json:"action" jsonschema:"created, updated, would create, would update or skipped"`
	Comment string `json:"comment,omitempty" jsonschema:"the comment's id on the forge"`
	Reason  string `json:"reason,omitempty" jsonschema:"why nothing was posted"`
}

// Line is the result in one line, for the job's log.
func (r *PostResult) Line() string {
	switch r.Action {
	case Skipped:
		return fmt.Sprintf("gloss review: not posted to %s: %s", orText(r.Target, r.Forge), r.Reason)
	case Created, Updated:
		return fmt.Sprintf("gloss review: %s comment %s on %s", r.Action, r.Comment, r.Target)
	case WouldUpdate:
		return fmt.Sprintf("gloss review: dry run: would update comment %s on %s", r.Comment, r.Target)
	}
	return fmt.Sprintf("gloss review: dry run: would create a comment on %s", r.Target)
}

// forgeAPI is one forge's REST API for the comments of one pull request.
type forgeAPI struct {
	name, target string
	base         *url.URL
	list         func(page int) string // path of a page of comments
	create       string                // path to POST a comment to
	update       func(id string) string
	updateMethod string
	auth         func(h http.Header)
	client       *http.Client
}

// Post keeps one comment with body on the pull request (GitHub Actions)
// or merge request (GitLab CI) the job runs for: the first run creates
// it, every later run edits the same comment (found by Marker at the start
// of its body). It uses the forge's REST API with the job's token
// (GITHUB_TOKEN; GitLab: runenv.ReviewToken, else CI_JOB_TOKEN) and
// nothing else. Without a token, or outside a pull request, it posts
// nothing and says why (Action Skipped): the caller has printed the report.
func Post(ctx context.Context, body string, opts PostOptions) (*PostResult, error) {
	if opts.Env == nil {
		opts.Env = os.Getenv
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 30 * time.Second}
	}
	api, res, err := detect(opts.Env, opts.Client)
	if err != nil || res != nil {
		return res, err
	}
	res = &PostResult{Forge: api.name, Target: api.target}
	id, err := api.find(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case opts.DryRun && id == "":
		res.Action = WouldCreate
	case opts.DryRun:
		res.Action, res.Comment = WouldUpdate, id
	case id == "":
		res.Action = Created
		res.Comment, err = api.write(ctx, http.MethodPost, api.create, body)
	default:
		res.Action, res.Comment = Updated, id
		_, err = api.write(ctx, api.updateMethod, api.update(id), body)
	}
	var denied *deniedError
	if errors.As(err, &denied) {
		return &PostResult{Forge: api.name, Target: api.target, Action: Skipped, Reason: denied.Error()}, nil
	}
	return res, err
}

// detect reads the CI's environment: which forge, which pull request, and
// the token. A result instead of an API means nothing is to be posted.
func detect(env func(string) string, client *http.Client) (*forgeAPI, *PostResult, error) {
	switch {
	case env("GITHUB_ACTIONS") == "true":
		return githubAPI(env, client)
	case env("GITLAB_CI") == "true":
		return gitlabAPI(env, client)
	}
	return nil, nil, fault.Usagef("--post runs in a GitHub Actions or GitLab CI job, whose environment names the pull request; without --post the report is printed")
}

func githubAPI(env func(string) string, client *http.Client) (*forgeAPI, *PostResult, error) {
	repo := env("GITHUB_REPOSITORY")
	number := githubPR(env)
	if repo == "" || number == "" {
		return nil, &PostResult{Forge: GitHub, Action: Skipped, Reason: "this run is not for a pull request (no pull request number in GITHUB_EVENT_PATH or GITHUB_REF)"}, nil
	}
	target := "pull request #" + number
	token := orText(env("GITHUB_TOKEN"), env("GH_TOKEN"))
	if token == "" {
		return nil, &PostResult{Forge: GitHub, Target: target, Action: Skipped,
			Reason: "no token: GITHUB_TOKEN is not set (give the step env: GITHUB_TOKEN: ${{ github.token }} and permissions: pull-requests: write)"}, nil
	}
	base, err := apiBase(orText(env("GITHUB_API_URL"), "https://api.github.com"))
	if err != nil {
		return nil, nil, err
	}
	issue := "repos/" + repo + "/issues/" + number
	return &forgeAPI{
		name: GitHub, target: target, base: base, client: client,
		list:         func(page int) string { return issue + "/comments?per_page=100&page=" + strconv.Itoa(page) },
		create:       issue + "/comments",
		update:       func(id string) string { return "repos/" + repo + "/issues/comments/" + id },
		updateMethod: http.MethodPatch,
		auth: func(h http.Header) {
			h.Set("Authorization", "Bearer "+token)
			h.Set("Accept", "application/vnd.github+json")
			h.Set("X-GitHub-Api-Version", "2022-11-28")
		},
	}, nil, nil
}

// githubPR finds the pull request's number: from the event payload
// (pull_request and pull_request_target events), else from the ref.
func githubPR(env func(string) string) string {
	if p := env("GITHUB_EVENT_PATH"); p != "" {
		if data, err := os.ReadFile(p); err == nil {
			var ev struct {
				PullRequest *struct {
					Number int `json:"number"`
				} `json:"pull_request"`
			}
			if json.Unmarshal(data, &ev) == nil && ev.PullRequest != nil && ev.PullRequest.Number > 0 {
				return strconv.Itoa(ev.PullRequest.Number)
			}
		}
	}
	// refs/pull/N/merge or refs/pull/N/head
	rest, ok := strings.CutPrefix(env("GITHUB_REF"), "refs/pull/")
	n, _, _ := strings.Cut(rest, "/")
	if _, err := strconv.Atoi(n); ok && err == nil {
		return n
	}
	return ""
}

func gitlabAPI(env func(string) string, client *http.Client) (*forgeAPI, *PostResult, error) {
	project, iid := env("CI_PROJECT_ID"), env("CI_MERGE_REQUEST_IID")
	if project == "" || iid == "" {
		return nil, &PostResult{Forge: GitLab, Action: Skipped, Reason: "this pipeline is not for a merge request (no CI_MERGE_REQUEST_IID)"}, nil
	}
	target := "merge request !" + iid
	var auth func(h http.Header)
	switch {
	case env(runenv.ReviewToken) != "":
		token := env(runenv.ReviewToken)
		auth = func(h http.Header) { h.Set("PRIVATE-TOKEN", token) }
	case env("CI_JOB_TOKEN") != "":
		token := env("CI_JOB_TOKEN")
		auth = func(h http.Header) { h.Set("JOB-TOKEN", token) }
	default:
		return nil, &PostResult{Forge: GitLab, Target: target, Action: Skipped,
			Reason: "no token: set the masked CI/CD variable " + runenv.ReviewToken + " (a project access token with the api scope)"}, nil
	}
	base, err := apiBase(env("CI_API_V4_URL"))
	if err != nil {
		return nil, nil, err
	}
	notes := "projects/" + url.PathEscape(project) + "/merge_requests/" + url.PathEscape(iid) + "/notes"
	return &forgeAPI{
		name: GitLab, target: target, base: base, client: client, auth: auth,
		list: func(page int) string {
			return notes + "?sort=asc&order_by=created_at&per_page=100&page=" + strconv.Itoa(page)
		},
		create:       notes,
		update:       func(id string) string { return notes + "/" + id },
		updateMethod: http.MethodPut,
	}, nil, nil
}

// apiBase checks the API's address: a token goes over https only, or to
// this machine (a test's stand-in, a proxy on loopback).
func apiBase(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fault.Usagef("the forge's API address %s is not a URL", fault.Quote(raw))
	}
	if u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname())) {
		return nil, fault.Usagef("the forge's API address %s is not https: the token is not sent over plain http", fault.Quote(raw))
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// maxPages bounds the comment pages read (100 comments each).
const maxPages = 50

// find returns the id of the pull request's gloss comment, "" if none:
// the oldest comment whose body starts with Marker.
func (a *forgeAPI) find(ctx context.Context) (string, error) {
	for page := 1; page <= maxPages; page++ {
		data, err := a.do(ctx, http.MethodGet, a.list(page), nil)
		if err != nil {
			return "", err
		}
		var comments []struct {
			ID     json.Number `json:"id"`
			Body   string      `json:"body"`
			System bool        `json:"system"`
		}
		if err := json.Unmarshal(data, &comments); err != nil {
			return "", fmt.Errorf("%s: the comments of %s are not a JSON list: %w", a.name, a.target, err)
		}
		for _, c := range comments {
			if !c.System && strings.HasPrefix(c.Body, Marker) && c.ID != "" {
				return c.ID.String(), nil
			}
		}
		if len(comments) < 100 {
			return "", nil
		}
	}
	return "", nil
}

// write sends the comment and returns its id.
func (a *forgeAPI) write(ctx context.Context, method, path, body string) (string, error) {
	payload, err := json.Marshal(map[string]string{"body": body})
	if err != nil {
		return "", err
	}
	data, err := a.do(ctx, method, path, payload)
	if err != nil {
		return "", err
	}
	var c struct {
		ID json.Number `json:"id"`
	}
	if err := json.Unmarshal(data, &c); err != nil || c.ID == "" {
		return "", fmt.Errorf("%s: %s %s answered without a comment id", a.name, method, path)
	}
	return c.ID.String(), nil
}

// deniedError is a forge refusing to let the token write: a pull request
// from a fork gets a read-only token, and a job without the permission
// too. The report is in the job's log; the job does not fail for it.
type deniedError struct{ forge, status string }

func (e *deniedError) Error() string {
	return fmt.Sprintf("%s refused to let the token write the comment (%s): a pull request from a fork gets a read-only token; otherwise give the job pull-requests: write (GitHub) or a %s with the api scope (GitLab)", e.forge, e.status, runenv.ReviewToken)
}

func (a *forgeAPI) do(ctx context.Context, method, path string, payload []byte) ([]byte, error) {
	ref, err := url.Parse(path)
	if err != nil {
		return nil, err
	}
	u := a.base.ResolveReference(ref)
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, err
	}
	a.auth(req.Header)
	req.Header.Set("User-Agent", "gloss/"+buildinfo.Version)
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %s %s: %w", a.name, method, u.Path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: read the answer to %s %s: %w", a.name, method, u.Path, err)
	}
	if resp.StatusCode == http.StatusForbidden && method != http.MethodGet {
		return nil, &deniedError{forge: a.name, status: resp.Status}
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s: %s %s: %s: %s", a.name, method, u.Path, resp.Status, fault.Line(cut(string(data), 300)))
	}
	return data, nil
}

// LinksFor links a file's lines to the forge the CI runs on: GitHub's or
// GitLab's blob view at a commit. nil outside a CI job.
func LinksFor(env func(string) string) Links {
	switch {
	case env("GITHUB_ACTIONS") == "true" && env("GITHUB_REPOSITORY") != "":
		server := strings.TrimSuffix(orText(env("GITHUB_SERVER_URL"), "https://github.com"), "/")
		repo := env("GITHUB_REPOSITORY")
		return func(rev, path string, start, end int) string {
			return fmt.Sprintf("%s/%s/blob/%s/%s#L%d-L%d", server, repo, rev, escapePath(path), start, end)
		}
	case env("GITLAB_CI") == "true" && env("CI_PROJECT_URL") != "":
		project := strings.TrimSuffix(env("CI_PROJECT_URL"), "/")
		return func(rev, path string, start, end int) string {
			return fmt.Sprintf("%s/-/blob/%s/%s#L%d-%d", project, rev, escapePath(path), start, end)
		}
	}
	return nil
}

// escapePath escapes each segment of a repository path for a URL.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
