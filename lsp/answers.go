package lsp

import (
	"context"
	"fmt"
	"time"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/reconcile"
	"github.com/gloss-dev/gloss/treesitter"
	"github.com/gloss-dev/gloss/why"
)

// answers is what the server computed for one version of a document at
// one state of its repository; a new version is a new document, and a
// new state of the repository (epoch) drops it. Every answer comes from
// gloss's own lookups on the buffer: why.Read with Query.Content, and the
// buffer's blame (gitops.BlameContent, what git blame --contents gives)
// with line attribution (attribution.OfBlame).
type answers struct {
	epoch    int
	whole    *why.ReadResult // every record in force in the file: the code lens source
	wholeErr error
	lines    map[annotate.Lines]*why.ReadResult
	blame    *gitops.Blame
	attrs    *attribution.LineAttribution
	blameErr error
	outline  []treesitter.Anchor
	parsed   bool
}

// view is one document as the answers see it, under its repository's
// lock (a gitops handle is not safe for concurrent use).
type view struct {
	rs *repoState
	d  *document
	a  *answers
}

// withView runs f on the document's view, holding the repository's lock.
func (s *server) withView(d *document, f func(v *view) error) error {
	rs := d.repo
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.repo == nil {
		return requestFailed("gloss lsp: the server is shutting down")
	}
	if d.answers == nil || d.answers.epoch != rs.epoch {
		d.answers = &answers{epoch: rs.epoch, lines: map[annotate.Lines]*why.ReadResult{}}
	}
	return f(&view{rs: rs, d: d, a: d.answers})
}

// lineCount is the number of lines of the buffer.
func (v *view) lineCount() int { return gitops.CountLines(v.d.text) }

// records are the records in force for lines of the buffer, ranked and
// within the budget: why.Read's answer, which holds the decisions of the
// functions around the lines wherever they were recorded, those of the
// file and its directories, and the records of the lines themselves.
func (v *view) records(ctx context.Context, lines annotate.Lines, budget int) (*why.ReadResult, error) {
	if r, ok := v.a.lines[lines]; ok {
		return r, nil
	}
	res, err := why.Read(ctx, v.rs.repo, why.Query{Path: v.d.rel, Lines: &lines, Content: v.d.text, ContentBlame: v.contentBlame(ctx), MaxTokens: budget})
	if err != nil {
		return nil, err
	}
	v.a.lines[lines] = res
	return res, nil
}

// wholeFile is every record in force in the buffer's file, each with the
// span of its scope in the buffer.
func (v *view) wholeFile(ctx context.Context) (*why.ReadResult, error) {
	if v.a.whole == nil && v.a.wholeErr == nil {
		v.a.whole, v.a.wholeErr = why.Read(ctx, v.rs.repo, why.Query{Path: v.d.rel, Content: v.d.text, ContentBlame: v.contentBlame(ctx)})
	}
	return v.a.whole, v.a.wholeErr
}

// contentBlame is the buffer's blame for why.Read, which would blame the
// buffer again otherwise (the lenses, the hover and the gutter all need
// it); nil when it failed, and the read then tells why.
func (v *view) contentBlame(ctx context.Context) *gitops.Blame {
	b, _, err := v.blame(ctx)
	if err != nil {
		return nil
	}
	return b
}

// blame is the buffer's blame and who wrote each of its lines.
func (v *view) blame(ctx context.Context) (*gitops.Blame, *attribution.LineAttribution, error) {
	if v.a.blame == nil && v.a.blameErr == nil {
		v.a.blame, v.a.blameErr = v.rs.repo.BlameContent(ctx, v.d.rel, v.d.text, 0, 0)
		if v.a.blameErr == nil {
			v.a.attrs, v.a.blameErr = attribution.OfBlame(v.rs.repo, v.a.blame)
		}
	}
	return v.a.blame, v.a.attrs, v.a.blameErr
}

// outline is the buffer's functions and types, parsed once per version,
// through the repository's outline cache (keyed by the bytes): why.Read
// parses the same buffer and keeps its outline there, so the version is
// parsed once between them, and a reopened file not at all.
func (v *view) outline() []treesitter.Anchor {
	if !v.a.parsed {
		v.a.outline, v.a.parsed = treesitter.OutlineCached(v.rs.repo, v.d.rel, v.d.text), true
	}
	return v.a.outline
}

// enclosing is the innermost anchor of the buffer around line l.
func (v *view) enclosing(l int) *treesitter.Anchor {
	var best *treesitter.Anchor
	for i, a := range v.outline() {
		if a.Start <= l && l <= a.End && (best == nil || a.End-a.Start < best.End-best.Start) {
			best = &v.a.outline[i]
		}
	}
	return best
}

// lineAuthor is who wrote a line of the buffer, and in which commit.
type lineAuthor struct {
	known       bool
	uncommitted bool
	who         *attribution.Summary
	commit      string
	author      string
	time        time.Time
}

// author answers who wrote buffer line l.
func (v *view) author(ctx context.Context, l int) (lineAuthor, error) {
	b, attrs, err := v.blame(ctx)
	if err != nil {
		return lineAuthor{}, err
	}
	if l < 1 || l > len(b.Lines) {
		return lineAuthor{}, nil
	}
	bl := b.Lines[l-1]
	if bl.Commit == gitops.Uncommitted {
		return lineAuthor{known: true, uncommitted: true}, nil
	}
	la := lineAuthor{known: true, commit: bl.Commit, who: attrs.Summarize(l, l)}
	if c, ok := b.Commits[bl.Commit]; ok {
		la.author, la.time = c.Author, c.AuthorTime
	}
	return la, nil
}

// specInfo is a spec that governs a file.
type specInfo struct {
	path    string
	state   string // reconcile's: reconciled, drifted, never_reconciled
	changed int    // governed files changed since the last reconciliation
}

// specCache is the specs of a repository at one state of it.
type specCache struct {
	ws   *reconcile.Workspace
	rows []reconcile.SpecStatus
}

// specs are the specs that govern the document's file, with their state
// (git gloss spec status).
func (v *view) specs(ctx context.Context) []specInfo {
	rs := v.rs
	if rs.specs == nil {
		rs.specs = &specCache{}
		if ws, err := reconcile.Open(ctx, rs.repo); err == nil {
			if st, err := ws.Status(); err == nil {
				rs.specs.ws, rs.specs.rows = ws, st.Specs
			}
		}
	}
	if rs.specs.ws == nil {
		return nil
	}
	var out []specInfo
	for _, row := range rs.specs.rows {
		sp := rs.specs.ws.Specs.Get(row.SpecPath)
		if sp == nil || sp.Path == v.d.rel || !sp.Governs(v.d.rel) {
			continue
		}
		out = append(out, specInfo{path: row.SpecPath, state: row.State, changed: len(row.Changed)})
	}
	return out
}

// webLink is the web view's page of the file at a line, when git gloss
// serve runs for the repository.
func (s *server) webLink(rs *repoState, rel string, line int) string {
	if s.opts.WebURL == nil {
		return ""
	}
	base, token := s.opts.WebURL(rs.repo.GitDir())
	if base == "" {
		return ""
	}
	link := fmt.Sprintf("%s/file/%s?token=%s", base, rel, token)
	if line > 0 {
		link += fmt.Sprintf("#L%d", line)
	}
	return link
}
