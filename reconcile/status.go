package reconcile

import (
	"slices"
)

// Spec states in status.
const (
	StateReconciled = "reconciled"
	StateDrifted    = "drifted"
	StateNever      = "never_reconciled"
	StateInvalid    = "invalid" // does not parse: governs nothing
)

// SpecStatus is one row of git gloss spec status.
type SpecStatus struct {
	SpecPath     string   `json:"spec_path"`
	State        string   `json:"state"`
	Valid        bool     `json:"valid"`
	Problems     int      `json:"problems"`
	Governed     int      `json:"governed"`
	Changed      []string `json:"changed"` // governed files that differ from the last reconciliation
	SpecChanged  bool     `json:"spec_changed"`
	Deleted      []string `json:"deleted"` // reconciled files that are gone
	Source       string   `json:"source"`
	ReconciledAt string   `json:"reconciled_at,omitempty"`
	ReconciledBy string   `json:"reconciled_by,omitempty"`
	// ReconciledHead is the commit HEAD was at when the spec was last
	// reconciled: the base of "the diff since the last reconciliation".
	ReconciledHead string `json:"reconciled_head,omitempty"`
}

// StatusResult is git gloss spec status.
type StatusResult struct {
	Schema   string         `json:"$schema"`
	Specs    []SpecStatus   `json:"specs"`
	Counts   map[string]int `json:"counts"`
	Head     string         `json:"head"`
	Warnings []string       `json:"warnings"`
}

// Status reports, per spec, whether its governed files and its own text
// are as last reconciled.
func (w *Workspace) Status() (*StatusResult, error) {
	if err := w.Load(); err != nil {
		return nil, err
	}
	res := &StatusResult{Schema: "gloss-spec-status/v1", Specs: []SpecStatus{}, Counts: map[string]int{StateReconciled: 0, StateDrifted: 0, StateNever: 0, StateInvalid: 0},
		Head: w.Head, Warnings: []string{}}
	if lw := w.Specs.Layout.Warning(); lw != "" {
		res.Warnings = append(res.Warnings, lw)
	}
	res.Warnings = append(res.Warnings, w.State.Warnings...)
	for _, sp := range w.Specs.Specs {
		row := SpecStatus{SpecPath: sp.Path, Valid: sp.Valid(), Problems: len(sp.Problems), Changed: []string{}, Deleted: []string{}}
		if !sp.Parsed {
			row.State, row.Source = StateInvalid, "none"
			res.Specs = append(res.Specs, row)
			res.Counts[row.State]++
			continue
		}
		v := w.State.view(sp.Path)
		row.Source = v.source
		if v.last != nil {
			row.ReconciledAt, row.ReconciledBy, row.ReconciledHead = v.last.Time, v.last.Actor, v.last.Head
		}
		var governed []string
		for _, f := range w.Tree.Files {
			if sp.Governs(f.Path) && f.Path != sp.Path {
				governed = append(governed, f.Path)
			}
		}
		row.Governed = len(governed)
		res.Warnings = append(res.Warnings, w.orphanWarnings(sp)...)
		if !v.warm {
			row.State = StateNever
			res.Specs = append(res.Specs, row)
			res.Counts[row.State]++
			continue
		}
		changed, _, warns := w.classify(v, governed, false)
		res.Warnings = append(res.Warnings, warns...)
		row.Changed = nonNil(changed)
		row.SpecChanged, _ = w.specChanged(v, sp.Path)
		for p := range v.files {
			if sp.Governs(p) && !w.Tree.Has(p) {
				row.Deleted = append(row.Deleted, p)
			}
		}
		slices.Sort(row.Deleted)
		row.State = StateReconciled
		if len(row.Changed) > 0 || row.SpecChanged || len(row.Deleted) > 0 {
			row.State = StateDrifted
		}
		res.Specs = append(res.Specs, row)
		res.Counts[row.State]++
	}
	return res, nil
}
