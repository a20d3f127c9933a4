package lsp

import (
	"context"
	"fmt"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/reconcile"
	"github.com/gloss-dev/gloss/treesitter"
	"github.com/gloss-dev/gloss/why"
)

// fileCache is what the server computed for one file of a repository at
// the repository's current generation; a new generation or a save drops
// it. The reads are gloss's own: why.Read and attribution.Blame.
type fileCache struct {
	disk     []byte // the saved file
	diskErr  error
	blame    *attribution.BlameResult // who wrote each saved line
	blameErr error
	whole    *why.ReadResult // every record of the file: the code lens source
	wholeErr error
	anchors  map[string]*why.ReadResult // the records of one anchor, by name
	lines    map[int]*why.ReadResult    // the records of one saved line
}

// view is one document as the answers see it: the buffer, its outline,
// and how its lines relate to the saved file. Built under the
// repository's lock.
type view struct {
	rs      *repoState
	fc      *fileCache
	rel     string
	text    []byte
	outline []treesitter.Anchor
	lines   lineMap
}

// withView runs f on the document's view, holding the repository's lock
// (its gitops handle is not safe for concurrent use).
func (s *server) withView(d *document, f func(v *view) error) error {
	rs := d.repo
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.repo == nil {
		return requestFailed("gloss lsp: the server is shutting down")
	}
	fc := rs.files[d.rel]
	if fc == nil {
		fc = &fileCache{anchors: map[string]*why.ReadResult{}, lines: map[int]*why.ReadResult{}}
		_, fc.disk, fc.diskErr = why.Source(rs.repo, d.rel, "")
		rs.files[d.rel] = fc
	}
	v := &view{rs: rs, fc: fc, rel: d.rel, text: d.text}
	if fc.diskErr == nil {
		v.lines = newLineMap(fc.disk, d.text)
	} else {
		v.lines = lineMap{toFile: make([]int, len(splitKeep(d.text))), changed: true}
	}
	// A saved buffer's outline is the file's, shared with the hooks
	// through the outline cache; an edited one is parsed once per version
	// and kept with it, not written to the cache at every keystroke.
	switch {
	case !v.lines.changed:
		v.outline = treesitter.OutlineCached(rs.repo, d.rel, d.text)
	case d.outlined:
		v.outline = d.outline
	default:
		v.outline = treesitter.Outline(d.rel, d.text)
		d.outline, d.outlined = v.outline, true
	}
	return f(v)
}

// enclosing is the innermost anchor of the buffer around line l.
func (v *view) enclosing(l int) *treesitter.Anchor {
	var best *treesitter.Anchor
	for i := range v.outline {
		a := &v.outline[i]
		if a.Start <= l && l <= a.End && (best == nil || a.End-a.Start < best.End-best.Start) {
			best = a
		}
	}
	return best
}

// anchorRecords are the records in force for an anchor of the buffer: a
// read of that anchor in the saved file (which finds the records its
// earlier commits wrote on other lines). An anchor the saved file does
// not have yet has none.
func (v *view) anchorRecords(ctx context.Context, name string, budget int) (*why.ReadResult, error) {
	if r, ok := v.fc.anchors[name]; ok {
		return r, nil
	}
	res, err := why.Read(ctx, v.rs.repo, why.Query{Path: v.rel, Anchor: name, MaxTokens: budget})
	if err != nil {
		return nil, err
	}
	if len(res.Resolved.Anchors) == 0 {
		res.Regions = nil // not in the saved file: the read fell back to the whole file
	}
	v.fc.anchors[name] = res
	return res, nil
}

// lineRecords are the records in force for one line of the saved file.
func (v *view) lineRecords(ctx context.Context, fileLine, budget int) (*why.ReadResult, error) {
	if r, ok := v.fc.lines[fileLine]; ok {
		return r, nil
	}
	res, err := why.Read(ctx, v.rs.repo, why.Query{Path: v.rel, Lines: &annotate.Lines{Start: fileLine, End: fileLine}, MaxTokens: budget})
	if err != nil {
		return nil, err
	}
	v.fc.lines[fileLine] = res
	return res, nil
}

// wholeFile is every record of the saved file (the code lens source).
func (v *view) wholeFile(ctx context.Context) (*why.ReadResult, error) {
	if v.fc.whole == nil && v.fc.wholeErr == nil {
		v.fc.whole, v.fc.wholeErr = why.Read(ctx, v.rs.repo, why.Query{Path: v.rel})
	}
	return v.fc.whole, v.fc.wholeErr
}

// lineAuthor is who wrote a line of the buffer and in which commit.
type lineAuthor struct {
	unsaved     bool // an edit not saved yet
	line        attribution.BlameLine
	hunk        *attribution.BlameHunk
	uncommitted bool
}

// blame is line attribution for the saved file (attribution.Blame, the
// library behind git gloss blame), read once per generation.
func (v *view) blame(ctx context.Context) (*attribution.BlameResult, error) {
	if v.fc.blame == nil && v.fc.blameErr == nil && v.fc.diskErr == nil {
		v.fc.blame, v.fc.blameErr = attribution.Blame(ctx, v.rs.repo, attribution.BlameQuery{Path: v.rel})
	}
	if v.fc.diskErr != nil {
		return nil, v.fc.diskErr
	}
	return v.fc.blame, v.fc.blameErr
}

// author answers who wrote buffer line l.
func (v *view) author(ctx context.Context, l int) (lineAuthor, error) {
	fl := v.lines.fileLine(l)
	if fl == 0 {
		return lineAuthor{unsaved: true}, nil
	}
	b, err := v.blame(ctx)
	if err != nil {
		return lineAuthor{}, err
	}
	if fl > len(b.Lines) {
		return lineAuthor{unsaved: true}, nil
	}
	la := lineAuthor{line: b.Lines[fl-1]}
	for i := range b.Hunks {
		if h := &b.Hunks[i]; h.Start <= fl && fl <= h.End {
			la.hunk = h
			break
		}
	}
	la.uncommitted = la.line.Contributor.Basis == "uncommitted"
	return la, nil
}

// specInfo is a spec that governs a file.
type specInfo struct {
	path    string
	state   string // reconcile's: reconciled, drifted, never_reconciled
	changed int    // governed files changed since the last reconciliation
	intent  string
}

// specCache is the specs of a repository at one generation.
type specCache struct {
	ws   *reconcile.Workspace
	rows []reconcile.SpecStatus
	err  error
}

// specs are the specs that govern the view's file, with their state.
func (v *view) specs(ctx context.Context) []specInfo {
	rs := v.rs
	if rs.specs == nil {
		rs.specs = &specCache{}
		ws, err := reconcile.Open(ctx, rs.repo)
		if err == nil {
			var st *reconcile.StatusResult
			if st, err = ws.Status(); err == nil {
				rs.specs.ws, rs.specs.rows = ws, st.Specs
			}
		}
		rs.specs.err = err
	}
	if rs.specs.ws == nil {
		return nil
	}
	var out []specInfo
	for _, row := range rs.specs.rows {
		sp := rs.specs.ws.Specs.Get(row.SpecPath)
		if sp == nil || !sp.Governs(v.rel) || sp.Path == v.rel {
			continue
		}
		out = append(out, specInfo{path: row.SpecPath, state: row.State, changed: len(row.Changed), intent: sp.Intent})
	}
	return out
}

// webLink is the web view's page of the file at a line, when git gloss
// serve runs for the repository.
func (s *server) webLink(rs *repoState, rel string, fileLine int) string {
	if s.opts.WebURL == nil {
		return ""
	}
	base, token := s.opts.WebURL(rs.repo.GitDir())
	if base == "" {
		return ""
	}
	link := fmt.Sprintf("%s/file/%s?token=%s", base, rel, token)
	if fileLine > 0 {
		link += fmt.Sprintf("#L%d", fileLine)
	}
	return link
}
