package tasks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"syscall"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/frontmatter"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/runenv"
)

// A run works on its own branch. From `task work` until the run lands,
// the task's state lives on gloss/task/<id>: every state change gloss
// makes (in progress, run log, checks, needs attention, completed) is a
// commit there, in the run's worktree, and none is on the person's
// branch. Reads show the branch's version of the task file (overlayRuns),
// so `task list`, the board and `task show` follow the run. When the run
// lands, the person's branch gets one commit: the branch squashed, the
// agent's work, the task file and the run log together (land). A run
// that does not land leaves the person's branch as it was.

// overlayRuns replaces each task that has a run branch by the branch's
// version of its file: the run's state is there until it lands. A branch
// whose file is missing or does not parse leaves the task as it is.
func (s *Store) overlayRuns(all []*Task) {
	refs, err := s.repo.ListRefs("refs/heads/" + BranchPrefix + "*")
	if err != nil || len(refs) == 0 {
		return
	}
	byID := make(map[string]*Task, len(all))
	for _, t := range all {
		if !t.Archived {
			byID[t.ID] = t
		}
	}
	for _, r := range refs {
		branch := strings.TrimPrefix(r.Name, "refs/heads/")
		t := byID[strings.TrimPrefix(branch, BranchPrefix)]
		if t == nil {
			continue
		}
		data, err := s.repo.ReadFile(r.Target, t.Path)
		if err != nil {
			continue
		}
		doc, err := frontmatter.Parse(data)
		if err != nil {
			continue
		}
		t.fm, t.Body, t.run = doc.FM, doc.Body, branch
		t.decode()
	}
}

// runTree is a run's worktree, opened for gloss to write the task's state
// on its branch. It lives under the git dir, where safepath's resolver
// rightly refuses to write, so its files are written through an os.Root
// of the worktree: no path gloss writes there can leave it, through a
// symbolic link the branch holds or otherwise.
type runTree struct {
	repo *gitops.Repo
	root *os.Root
}

func (rt *runTree) Close() {
	rt.root.Close()
	rt.repo.Close()
}

// write replaces a file of the worktree atomically: a temporary file
// beside it, then a rename.
func (rt *runTree) write(p string, data []byte) error {
	if err := rt.root.MkdirAll(path.Dir(p), 0o755); err != nil {
		return err
	}
	tmp := path.Join(path.Dir(p), "."+path.Base(p)+".gloss-tmp")
	f, err := rt.root.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = rt.root.Rename(tmp, p)
	}
	if err != nil {
		_ = rt.root.Remove(tmp)
	}
	return err
}

// openRunTree opens (making it when missing) the worktree of a task's run
// branch, created from HEAD when the branch does not exist yet.
func (s *Store) openRunTree(ctx context.Context, id string) (*runTree, error) {
	wt, err := s.ensureWorktree(ctx, id, BranchPrefix+id)
	if err != nil {
		return nil, err
	}
	repo, err := gitops.Open(wt)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(wt)
	if err != nil {
		repo.Close()
		return nil, err
	}
	return &runTree{repo: repo, root: root}, nil
}

// persist writes a task's file and records the change: on its run branch
// while it has one, else on the person's branch (save and record, under
// the write lock the caller holds).
func (s *Store) persist(ctx context.Context, t *Task, transition string) error {
	if t.run == "" {
		if err := s.save(t); err != nil {
			return err
		}
		return s.record(ctx, t.ID, transition, t.Path)
	}
	data, err := frontmatter.Render(t.fm, t.Body)
	if err != nil {
		return err
	}
	return s.commitOnRun(ctx, t.ID, transition, map[string][]byte{t.Path: data})
}

// commitOnRun writes files in a run's worktree and commits them on its
// branch, with the trailers every task commit carries. Each file is
// replaced atomically; a writer killed before the commit leaves the new
// bytes in the run's own worktree, which the next commit there takes.
func (s *Store) commitOnRun(ctx context.Context, id, transition string, files map[string][]byte) error {
	rt, err := s.openRunTree(ctx, id)
	if err != nil {
		return err
	}
	defer rt.Close()
	var paths []string
	for p, data := range files {
		if err := rt.write(p, data); err != nil {
			return fmt.Errorf("write %s on %s%s: %w", p, BranchPrefix, id, err)
		}
		paths = append(paths, p)
	}
	if _, err := rt.repo.Git(ctx, append([]string{"add", "--"}, paths...)...); err != nil {
		return err
	}
	subject := fmt.Sprintf("gloss(task): %s %s", id, transition)
	trailers := fmt.Sprintf("Task-Id: %s\nTask-Transition: %s", id, transition)
	args := append([]string{"commit", "--quiet", "--no-verify", "-m", subject, "-m", trailers, "--"}, paths...)
	if _, err := rt.repo.Git(ctx, args...); err != nil {
		var ge *gitops.GitError
		if errors.As(err, &ge) && strings.Contains(ge.Stderr+ge.Error(), "nothing to commit") {
			return nil
		}
		return fmt.Errorf("commit %s on %s%s: %w", transition, BranchPrefix, id, err)
	}
	return nil
}

// readRunFile reads a file of the task's run branch ("" and false when it
// has none, or no such file there).
func (s *Store) readRunFile(t *Task, p string) ([]byte, bool) {
	if t.run == "" {
		return nil, false
	}
	data, err := s.repo.ReadFile("refs/heads/"+t.run, p)
	return data, err == nil
}

// land puts a finished run on the person's branch as one commit: the run
// branch squashed (the agent's commits, the task file as completed, the
// run log), with a message naming the task and its transition. gloss's
// own hooks carry the squashed commits' annotations and attribution onto
// it, as for any `git merge --squash`. Staged changes of the person's
// would be swept into that commit, so they stop the landing; a conflict
// puts the working tree back and is reported. On success the branch and
// its worktree are removed: their work is on the person's branch.
func (s *Store) land(ctx context.Context, t *Task, from string, subjects []string) error {
	unlock, err := s.lockFiles(syscall.LOCK_EX)
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := s.repo.Git(ctx, "diff", "--cached", "--quiet"); err != nil {
		return fault.Conflictf("not landed: your index holds staged changes, which the task's commit would take along; commit or unstage them, then git gloss task finalize %s", t.ID)
	}
	branch := BranchPrefix + t.ID
	if _, err := s.repo.Git(ctx, "merge", "--squash", "--quiet", branch); err != nil {
		_, _ = s.repo.Git(ctx, "reset", "--merge")
		return fault.Conflictf("could not merge %s: %v (nothing was changed; merge it by hand, then finalize again)", branch, err)
	}
	// The task file as merged, completed: the transition is part of the
	// one commit.
	done, err := s.read(t.Path)
	if err == nil && done.parseErr == nil {
		err = completed(done)
	}
	var data []byte
	if err == nil {
		data, err = frontmatter.Render(done.fm, done.Body)
	}
	if err == nil {
		err = s.tree.WriteFile(t.Path, data, 0o644)
	}
	if err == nil {
		_, err = s.repo.Git(ctx, "add", "--", t.Path)
	}
	if err != nil {
		_, _ = s.repo.Git(ctx, "reset", "--merge")
		return fmt.Errorf("mark %s completed: %w", t.ID, err)
	}
	body := "Work of the run on " + branch + ", squashed:"
	if len(subjects) > 0 {
		body += "\n\n" + strings.Join(subjects, "\n")
	}
	trailers := fmt.Sprintf("Task-Id: %s\nTask-Transition: %s -> completed", t.ID, from)
	if err := s.commitWithHooks(ctx, "commit", "--quiet", "--no-verify", "-m", fmt.Sprintf("task(%s): %s", t.ID, t.Title), "-m", body, "-m", trailers); err != nil {
		_, _ = s.repo.Git(ctx, "reset", "--merge")
		return fmt.Errorf("commit the landing of %s: %w", branch, err)
	}
	// The worktree goes when it holds nothing uncommitted (git refuses
	// otherwise, and so it stays for a person), then the branch.
	if wt, err := s.worktreePath(t.ID); err == nil {
		if _, err := os.Stat(wt); err == nil {
			if err := s.repo.RemoveWorktree(ctx, wt); err != nil {
				return nil
			}
		}
	}
	_, _ = s.repo.Git(ctx, "branch", "-D", branch)
	return nil
}

// commitWithHooks runs a git commit with git's hooks, gloss's among them
// (a git that gloss runs is otherwise marked internal and its hooks stand
// aside): the landing is a `git merge --squash`, whose commit gloss's
// prepare-commit-msg and post-commit hooks carry the squashed commits'
// annotations and line attribution onto, as for a person's squash.
// --no-verify still leaves out the person's pre-commit and commit-msg.
func (s *Store) commitWithHooks(ctx context.Context, args ...string) error {
	cmd := s.repo.Command(ctx, args...)
	// The hooks open the repository from their working directory (the
	// command's, the work tree's root): libgit2 refuses GIT_WORK_TREE.
	env := cmd.Env[:0:0]
	for _, kv := range cmd.Env {
		if !strings.HasPrefix(kv, runenv.Internal+"=") && !strings.HasPrefix(kv, "GIT_DIR=") && !strings.HasPrefix(kv, "GIT_WORK_TREE=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// runSubjects lists the run branch's commits since the person's branch,
// oldest first, as "- <short id> <subject>".
func (s *Store) runSubjects(ctx context.Context, branch string) []string {
	out, err := s.repo.Git(ctx, "log", "--reverse", "--format=- %h %s", "HEAD.."+branch)
	if err != nil {
		return nil
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}
