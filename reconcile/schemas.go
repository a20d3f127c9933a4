package reconcile

import "github.com/gloss-dev/gloss/schemas"

func init() {
	schemas.Register(
		schemas.Entry{Name: "spec-affected", Tag: "gloss-spec-affected/v1", Description: "Specs touched by changes since a base (list_affected_specs).", Type: schemas.TypeOf[AffectedResult]()},
		schemas.Entry{Name: "spec-diff", Tag: "gloss-spec-diff/v1", Description: "A spec's governed changes since its last reconciliation (get_spec_diff).", Type: schemas.TypeOf[DiffResult]()},
		schemas.Entry{Name: "spec-artifacts", Tag: "gloss-spec-artifacts/v1", Description: "A spec's changed artifacts (get_changed_artifacts).", Type: schemas.TypeOf[ArtifactsResult]()},
		schemas.Entry{Name: "spec-mark", Tag: "gloss-spec-mark/v1", Description: "Reconciliation records written (mark_reconciled).", Type: schemas.TypeOf[MarkResult]()},
		schemas.Entry{Name: "spec-clear", Tag: "gloss-spec-clear/v1", Description: "A reconciliation tombstone written (clear_cache).", Type: schemas.TypeOf[ClearResult]()},
		schemas.Entry{Name: "spec-snapshot", Tag: "gloss-spec-snapshot/v1", Description: "The committed reconciliation snapshot written (snapshot_state).", Type: schemas.TypeOf[SnapshotResult]()},
		schemas.Entry{Name: "spec-status", Tag: "gloss-spec-status/v1", Description: "Per spec: reconciled, drifted or never reconciled (git gloss spec status).", Type: schemas.TypeOf[StatusResult]()},
		schemas.Entry{Name: "reconcile-record", Tag: RecordSchema, Description: "A reconciliation record in refs/notes/gloss/reconcile.", Type: schemas.TypeOf[Record]()},
	)
}
