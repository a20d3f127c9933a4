package tasks

import "github.com/gloss-dev/gloss/schemas"

func init() {
	schemas.Register(
		schemas.Entry{Name: "task-list", Tag: schemaTag, Description: "Tasks (task_list, task_ready).", Type: schemas.TypeOf[ListResult]()},
		schemas.Entry{Name: "task", Tag: schemaTag, Description: "One task in full (task_get).", Type: schemas.TypeOf[Detail]()},
		schemas.Entry{Name: "task-message", Tag: schemaTag, Description: "What a task change did.", Type: schemas.TypeOf[Message]()},
		schemas.Entry{Name: "task-status", Tag: schemaTag, Description: "Task counts by status (task_status).", Type: schemas.TypeOf[StatusResult]()},
		schemas.Entry{Name: "task-log", Tag: schemaTag, Description: "A task's agent log (task_log).", Type: schemas.TypeOf[LogResult]()},
		schemas.Entry{Name: "task-lint", Tag: schemaTag, Description: "Task grades and rule findings (task_lint).", Type: schemas.TypeOf[LintReport]()},
		schemas.Entry{Name: "task-verify", Tag: schemaTag, Description: "Acceptance criteria check (task_verify).", Type: schemas.TypeOf[VerifyResult]()},
		schemas.Entry{Name: "task-start", Tag: schemaTag, Description: "An agent run started (task_work_start).", Type: schemas.TypeOf[StartResult]()},
		schemas.Entry{Name: "task-work", Tag: schemaTag, Description: "Agent runs (task_work_list).", Type: schemas.TypeOf[WorkList]()},
		schemas.Entry{Name: "task-takeover", Tag: schemaTag, Description: "A run taken over (task_takeover).", Type: schemas.TypeOf[TakeoverResult]()},
		schemas.Entry{Name: "task-diagnose", Tag: schemaTag, Description: "Where a task stands (task_diagnose).", Type: schemas.TypeOf[Diagnosis]()},
		schemas.Entry{Name: "task-import", Tag: schemaTag, Description: "What git gloss task import brought over from Chant.", Type: schemas.TypeOf[ImportResult]()},
	)
}
