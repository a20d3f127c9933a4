package tasks

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
)

// record makes a state change a commit: the given paths only (`git commit
// --only`, so whatever else the user has staged stays staged), with
// trailers that say which task changed and how:
//
//	gloss(task): 2026-11-22-001-abc pending -> in_progress
//
//	Task-Id: 2026-11-22-001-abc
//	Task-Transition: pending -> in_progress
//
// With auto_commit = false in .gloss/config.toml the change is left in the
// working tree instead.
func (s *Store) record(ctx context.Context, id, transition string, paths ...string) error {
	if !s.autoCommit() {
		s.committed()
		return nil
	}
	args := append([]string{"add", "-A", "--"}, paths...)
	if _, err := s.gitRetrying(ctx, args...); err != nil {
		s.rollback()
		return fmt.Errorf("stage %s: %w", strings.Join(paths, " "), err)
	}
	fault.Point("tasks:staged")
	subject := fmt.Sprintf("gloss(task): %s %s", id, transition)
	trailers := fmt.Sprintf("Task-Id: %s\nTask-Transition: %s", id, transition)
	args = append([]string{"commit", "--quiet", "--no-verify", "--only", "-m", subject, "-m", trailers, "--"}, paths...)
	if _, err := s.gitRetrying(ctx, args...); err != nil {
		var ge *gitops.GitError
		if errors.As(err, &ge) && strings.Contains(ge.Stderr+ge.Error(), "nothing to commit") {
			s.committed()
			return nil
		}
		s.rollback()
		// Put the index back as it was for these paths, too.
		_, _ = s.repo.Git(ctx, append([]string{"reset", "--quiet", "--"}, paths...)...)
		return fmt.Errorf("commit the change to %s: %w", id, err)
	}
	fault.Point("tasks:committed")
	s.committed()
	return nil
}

// LinkedCommit is a commit that says it works on a task: its subject starts
// "task(<id>):".
type LinkedCommit struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
	Author  string `json:"author"`
	Date    string `json:"date"`
}

// linkedCommits finds the commits of every branch whose subject starts
// "task(<id>):".
func (s *Store) linkedCommits(ctx context.Context, id string) ([]LinkedCommit, error) {
	head, err := s.repo.Head()
	if err != nil || head == "" {
		return []LinkedCommit{}, err
	}
	out, err := s.repo.Git(ctx, "log", "--all", "--fixed-strings", "--grep", "task("+id+"):", "--format=%H%x00%s%x00%an%x00%aI")
	if err != nil {
		return nil, err
	}
	list := []LinkedCommit{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(line, "\x00", 4)
		if len(f) != 4 || !strings.HasPrefix(f[1], "task("+id+"):") {
			continue
		}
		list = append(list, LinkedCommit{ID: f[0], Subject: f[1], Author: f[2], Date: f[3]})
	}
	return list, nil
}
