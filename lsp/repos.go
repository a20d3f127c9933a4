package lsp

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/gloss-dev/gloss/gitops"
)

// repoState is one repository the open documents are in. Its gitops.Repo
// is not safe for concurrent use, so every read through it holds mu;
// requests for documents of different repositories run in parallel.
type repoState struct {
	root string

	mu   sync.Mutex
	repo *gitops.Repo
	// epoch counts the changes of the repository seen (a new generation,
	// a save): documents' answers of an older epoch are dropped.
	epoch int
	specs *specCache
}

// repoFor returns the state of the repository at root, keeping repo as
// its handle when it is new (closing it otherwise), and starts following
// it.
func (s *server) repoFor(root string, repo *gitops.Repo) *repoState {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rs := s.repos[root]; rs != nil {
		repo.Close()
		return rs
	}
	rs := &repoState{root: root, repo: repo}
	s.repos[root] = rs
	go s.follow(rs)
	return rs
}

// closeRepos frees the repositories no request is reading; one still
// being read is left to the process's end (exit must not wait for a blame).
func (s *server) closeRepos() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rs := range s.repos {
		if rs.mu.TryLock() {
			rs.repo.Close()
			rs.repo = nil
			rs.mu.Unlock()
		}
	}
}

// generation names the state of the repository the answers depend on:
// the branch HEAD names and its commit (a commit, a checkout, a reset),
// and the tips of every notes ref (annotations, attribution, flags,
// reconciliations: an annotate, a sync, a flag, a forget). Reading refs
// is cheap enough to poll.
func generation(repo *gitops.Repo) string {
	var b strings.Builder
	branch, _ := repo.HeadBranch()
	head, _ := repo.Head()
	b.WriteString(branch + " " + head)
	if refs, err := repo.ListRefs("refs/notes/*"); err == nil {
		for _, r := range refs {
			b.WriteString("\n" + r.Name + " " + r.Target)
		}
	}
	return b.String()
}

// invalidate drops every cached answer (a saved file, a new generation).
func (rs *repoState) invalidate() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.epoch++
	rs.specs = nil
}

// follow polls the repository's generation until the session ends; a new
// one drops the cached answers and refreshes what the editor shows. It
// uses a handle of its own so that polling never waits for a long read.
func (s *server) follow(rs *repoState) {
	repo, err := gitops.Open(rs.root)
	if err != nil {
		s.log.Warn("cannot follow the repository", "root", rs.root, "error", err)
		return
	}
	defer repo.Close()
	last := generation(repo)
	tick := time.NewTicker(s.opts.Poll)
	defer tick.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-tick.C:
		}
		gen := generation(repo)
		if gen == last {
			continue
		}
		last = gen
		rs.invalidate()
		s.log.Info("repository changed: refreshing", "root", rs.root)
		s.refreshRepo(rs)
	}
}

// refreshRepo republishes the diagnostics of the repository's open
// documents and asks the client to pull code lenses and inlay hints
// again (hovers are pulled on demand and need nothing).
func (s *server) refreshRepo(rs *repoState) {
	s.mu.Lock()
	var docs []*document
	for _, d := range s.docs {
		if d.repo == rs {
			docs = append(docs, d)
		}
	}
	s.mu.Unlock()
	s.refreshViews()
	for _, d := range docs {
		s.publishDiagnostics(d.uri)
	}
}

// refreshViews asks the client to pull code lenses and inlay hints again,
// where it can be asked.
func (s *server) refreshViews() {
	s.mu.Lock()
	caps := s.caps
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
	defer cancel()
	if caps.codeLensRefresh {
		_ = s.client.CodeLensRefresh(ctx)
	}
	if caps.inlayHintRefresh {
		_ = s.client.InlayHintRefresh(ctx)
	}
}
