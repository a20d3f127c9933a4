package tasks

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Process is one run in task_work_list.
type Process struct {
	ProcessID   string `json:"process_id" jsonschema:"<task id>-<pid>, as task_work_start returned it"`
	TaskID      string `json:"spec_id"`
	Title       string `json:"title"`
	PID         int    `json:"pid"`
	Status      string `json:"status" jsonschema:"running, exited or stale"`
	ExitCode    *int   `json:"exit_code,omitempty"`
	LogModified string `json:"log_modified,omitempty"`
	Branch      string `json:"branch"`
	Warning     string `json:"warning,omitempty"`
}

// WorkList is task_work_list's answer.
type WorkList struct {
	Schema    string         `json:"$schema"`
	Processes []Process      `json:"processes"`
	Summary   map[string]int `json:"summary"`
}

// runIDs lists the tasks that have run state.
func (s *Store) runIDs() ([]string, error) {
	dir, err := s.repo.GlossDir()
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(filepath.Join(dir, "run"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() && fileIDPattern.MatchString(e.Name()) {
			ids = append(ids, e.Name())
		}
	}
	slices.SortFunc(ids, CompareIDs)
	return ids, err
}

// Work lists agent runs; finished ones only with includeCompleted.
func (s *Store) Work(includeCompleted bool) (*WorkList, error) {
	ids, err := s.runIDs()
	if err != nil {
		return nil, err
	}
	res := &WorkList{Schema: schemaTag, Processes: []Process{}, Summary: map[string]int{"running": 0, "exited": 0, "stale": 0}}
	for _, id := range ids {
		run, err := s.loadRun(id)
		if err != nil {
			continue
		}
		p := Process{ProcessID: fmt.Sprintf("%s-%d", id, run.PID), TaskID: id, PID: run.PID, Branch: run.Branch, ExitCode: run.ExitCode}
		if t, err := s.Resolve(id); err == nil {
			p.Title = t.Title
		}
		if mod, ok := s.logModified(id); ok {
			p.LogModified = mod.UTC().Format(time.RFC3339)
		}
		switch {
		case s.running(id):
			p.Status = "running"
		case run.State == "exited":
			p.Status = "exited"
		default:
			p.Status, p.Warning = "stale", "process_dead"
		}
		res.Summary[p.Status]++
		if p.Status == "running" || includeCompleted || p.Status == "stale" {
			res.Processes = append(res.Processes, p)
		}
	}
	return res, nil
}

// Only keeps the run with this process id (or task id).
func (w *WorkList) Only(processID string) *WorkList {
	if processID == "" {
		return w
	}
	out := &WorkList{Schema: w.Schema, Processes: []Process{}, Summary: map[string]int{"running": 0, "exited": 0, "stale": 0}}
	for _, p := range w.Processes {
		if p.ProcessID == processID || p.TaskID == processID {
			out.Processes = append(out.Processes, p)
			out.Summary[p.Status]++
		}
	}
	return out
}
