package tasks

import "github.com/gloss-dev/gloss/schemas"

func init() {
	schemas.Register(
		schemas.Entry{Name: "task-list", Tag: "gloss-task-list/v1", Description: "Tasks (task_list, task_ready).", Type: schemas.TypeOf[ListResult]()},
		schemas.Entry{Name: "task", Tag: "gloss-task/v1", Description: "One task in full (task_get).", Type: schemas.TypeOf[Detail]()},
		schemas.Entry{Name: "task-message", Tag: "gloss-task-message/v1", Description: "What a task change did.", Type: schemas.TypeOf[Message]()},
		schemas.Entry{Name: "task-status", Tag: "gloss-task-status/v1", Description: "Task counts by status (task_status).", Type: schemas.TypeOf[StatusResult]()},
		schemas.Entry{Name: "task-log", Tag: "gloss-task-log/v1", Description: "A task's agent log (task_log).", Type: schemas.TypeOf[LogResult]()},
		schemas.Entry{Name: "task-lint", Tag: "gloss-task-lint/v1", Description: "Task grades and rule findings (task_lint).", Type: schemas.TypeOf[LintReport]()},
		schemas.Entry{Name: "task-verify", Tag: "gloss-task-verify/v1", Description: "Acceptance criteria check (task_verify).", Type: schemas.TypeOf[VerifyResult]()},
		schemas.Entry{Name: "task-start", Tag: "gloss-task-start/v1", Description: "An agent run started (task_work_start).", Type: schemas.TypeOf[StartResult]()},
		schemas.Entry{Name: "task-work", Tag: "gloss-task-work/v1", Description: "Agent runs (task_work_list).", Type: schemas.TypeOf[WorkList]()},
		schemas.Entry{Name: "task-takeover", Tag: "gloss-task-takeover/v1", Description: "A run taken over (task_takeover).", Type: schemas.TypeOf[TakeoverResult]()},
		schemas.Entry{Name: "task-diagnose", Tag: "gloss-task-diagnose/v1", Description: "Where a task stands (task_diagnose).", Type: schemas.TypeOf[Diagnosis]()},
		schemas.Entry{Name: "task-search", Tag: "gloss-task-search/v1", Description: "Tasks matching a query (task_search): a bare list, as Chant answers it, so no $schema member.", Type: schemas.TypeOf[SearchResult]()},
		schemas.Entry{Name: "task-add", Tag: "gloss-task-add/v1", Description: "A task created, with its lint (task_add).", Type: schemas.TypeOf[AddResult]()},
		schemas.Entry{Name: "task-split", Tag: "gloss-task-split/v1", Description: "A task split into members (task_split).", Type: schemas.TypeOf[SplitResult]()},
		schemas.Entry{Name: "task-settle", Tag: "gloss-task-settle/v1", Description: "Finished agent runs settled.", Type: schemas.TypeOf[SettleResult]()},
		schemas.Entry{Name: "task-watch", Tag: "gloss-task-watch/v1", Description: "Whether the task watcher runs (task_watch_status).", Type: schemas.TypeOf[WatchStatus]()},
		schemas.Entry{Name: "task-checks", Tag: "gloss-task-checks/v1", Description: "The team's checks a run must pass to land, and their approval in this clone.", Type: schemas.TypeOf[ChecksResult]()},
		schemas.Entry{Name: "task-import", Tag: "gloss-task-import/v1", Description: "What git gloss task import brought over from Chant.", Type: schemas.TypeOf[ImportResult]()},
	)
}
