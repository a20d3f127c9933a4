package gitops

import (
	"fmt"
	"strings"

	git "github.com/libgit2/git2go/v34"
)

// NoteDelta is one note that differs between two snapshots of a notes
// ref: OldBlob is "" for a note added, NewBlob "" for one removed.
type NoteDelta struct {
	Object           string
	OldBlob, NewBlob string
}

// NotesDiff lists the notes that differ between two snapshots of a ref:
// what an index of the notes (gloss's decisions index) must read again to
// follow the ref. It diffs the two trees, so its cost is the notes that
// changed, not the notes there are; a note that only moved between fanout
// layouts (git re-splits a notes tree as it grows) is not a change.
func (r *Repo) NotesDiff(old, new *Notes) ([]NoteDelta, error) {
	opts, err := git.DefaultDiffOptions()
	if err != nil {
		return nil, err
	}
	d, err := r.r.DiffTreeToTree(old.tree, new.tree, &opts)
	if err != nil {
		return nil, fmt.Errorf("diff notes %s..%s: %w", ShortID(old.Tip), ShortID(new.Tip), err)
	}
	defer d.Free()
	n, err := d.NumDeltas()
	if err != nil {
		return nil, err
	}
	byObject := map[string]*NoteDelta{}
	var order []string
	side := func(path string) (*NoteDelta, bool) {
		obj := strings.ReplaceAll(path, "/", "")
		if !isHex(obj) {
			return nil, false
		}
		nd := byObject[obj]
		if nd == nil {
			nd = &NoteDelta{Object: obj}
			byObject[obj] = nd
			order = append(order, obj)
		}
		return nd, true
	}
	for i := 0; i < n; i++ {
		delta, err := d.Delta(i)
		if err != nil {
			return nil, err
		}
		if delta.OldFile.Mode != 0 && !delta.OldFile.Oid.IsZero() {
			if nd, ok := side(delta.OldFile.Path); ok {
				nd.OldBlob = delta.OldFile.Oid.String()
			}
		}
		if delta.NewFile.Mode != 0 && !delta.NewFile.Oid.IsZero() {
			if nd, ok := side(delta.NewFile.Path); ok {
				nd.NewBlob = delta.NewFile.Oid.String()
			}
		}
	}
	out := make([]NoteDelta, 0, len(order))
	for _, obj := range order {
		if nd := byObject[obj]; nd.OldBlob != nd.NewBlob {
			out = append(out, *nd)
		}
	}
	return out, nil
}
