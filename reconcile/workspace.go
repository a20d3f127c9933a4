package reconcile

import (
	"context"
	"errors"
	"fmt"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/spec"
)

// ErrMissingArgument marks a required argument that was not given; the
// MCP server answers it with -32602.
var ErrMissingArgument = errors.New("missing required argument")

func missing(name, hint string) error {
	return fault.As(fault.Usage, fmt.Errorf("%w %s: %s", ErrMissingArgument, name, hint))
}

// Workspace is one call's view of the repository: the working tree, its
// specs and the reconciliations that count at HEAD. It is read lazily, in
// one pass, against the commit the call compares with (the base for
// diffs, HEAD otherwise).
type Workspace struct {
	Repo  *gitops.Repo
	Tree  *spec.Tree
	Specs *spec.Set
	State *State
	Head  string

	ctx        context.Context
	treeRev    string
	prepared   bool
	changes    *changeSet
	changesRev string
}

// Open starts a workspace on the repository's working tree.
func Open(ctx context.Context, repo *gitops.Repo) (*Workspace, error) {
	head, err := repo.Head()
	if err != nil {
		return nil, err
	}
	return &Workspace{Repo: repo, Head: head, ctx: ctx}, nil
}

// Load reads the working tree (compared with HEAD), the specs and the
// records. The operations call it themselves; callers need it only to
// read Tree, Specs or State directly.
func (w *Workspace) Load() error { return w.prepare(w.Head) }

// prepare reads the working tree against rev, the specs and the records
// (the records in parallel with the tree).
func (w *Workspace) prepare(rev string) error {
	if w.prepared && w.treeRev == rev {
		return nil
	}
	type stateResult struct {
		st  *State
		err error
	}
	stc := make(chan stateResult, 1)
	if w.State == nil {
		go func() {
			st, err := loadState(w.ctx, w.Repo, w.Head, nil)
			stc <- stateResult{st, err}
		}()
	} else {
		stc <- stateResult{w.State, nil}
	}
	tree, changes, err := spec.WorktreeTree(w.ctx, w.Repo, rev)
	sr := <-stc
	if err != nil {
		return err
	}
	if sr.err != nil {
		return sr.err
	}
	set, err := spec.LoadSet(tree)
	if err != nil {
		return err
	}
	st := sr.st
	if err := st.addSnapshot(tree); err != nil {
		return err
	}
	w.Tree, w.Specs, w.State, w.treeRev, w.prepared = tree, set, st, rev, true
	w.changes, w.changesRev = newChangeSet(changes), rev
	return nil
}

func (w *Workspace) warnings() []string {
	out := append([]string{}, w.Specs.Warnings()...)
	return append(out, w.State.Warnings...)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func nonNilR(s []Rename) []Rename { return nonNil(s) }
