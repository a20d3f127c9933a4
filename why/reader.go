package why

import (
	"context"

	"github.com/gloss-dev/gloss/decisions"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// Reader answers many reads on one repository handle as of one moment:
// the annotation notes and the decisions index are opened by its first
// read and shared by the rest. A review asks about some 1,700 file
// versions; opening both again for each (the notes ref resolved, its
// fanout trees read, the index brought up to date) was a third of what
// its reads cost. A Reader is for one goroutine, as its handle is; Read
// is a Reader of one read.
type Reader struct {
	repo *gitops.Repo

	notesRead bool
	notes     *gitops.Notes
	notesErr  error

	ix    *decisions.Index
	ixErr error

	lineCount func(commit, path string) (int, bool)
}

// NewReader starts a batch of reads on repo. Close it when done.
func NewReader(repo *gitops.Repo) *Reader { return &Reader{repo: repo} }

// Close releases what the reads shared.
func (rd *Reader) Close() {
	if rd.notes != nil {
		rd.notes.Close()
		rd.notes = nil
	}
	if rd.ix != nil {
		rd.ix.Close()
		rd.ix = nil
	}
}

// Read answers a query, as the package's Read does.
func (rd *Reader) Read(ctx context.Context, q Query) (*ReadResult, error) {
	r, err := rd.read(ctx, q)
	if err != nil {
		return nil, err
	}
	return r.res, nil
}

// lines counts the lines of path at commit from the blame cache, ok
// false when it cannot (see gitops.LineCounter).
func (rd *Reader) lines(commit, path string) (int, bool) {
	if rd.lineCount == nil {
		rd.lineCount = rd.repo.LineCounter()
	}
	return rd.lineCount(commit, path)
}

// annotations is the snapshot of the annotation notes the reads share.
func (rd *Reader) annotations() (*gitops.Notes, error) {
	if !rd.notesRead {
		rd.notes, rd.notesErr = rd.repo.ReadNotes(notes.Annotations)
		rd.notesRead = true
	}
	return rd.notes, rd.notesErr
}

// index is the decisions index, brought up to date by the first read
// that asks. An error is kept (every read then notes it), unless the
// read was cancelled: the next one tries again.
func (rd *Reader) index(ctx context.Context) (*decisions.Index, error) {
	if rd.ix == nil && rd.ixErr == nil {
		rd.ix, rd.ixErr = decisions.Open(ctx, rd.repo)
		if rd.ixErr != nil && ctx.Err() != nil {
			err := rd.ixErr
			rd.ixErr = nil
			return nil, err
		}
	}
	return rd.ix, rd.ixErr
}
