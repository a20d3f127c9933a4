package gitops

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/gloss-dev/gloss/runenv"
)

// EnvInternal is set in the environment of every git command gloss runs.
// The hooks see it and do nothing, so a `git push` that gloss runs from
// inside a pre-push hook cannot re-enter gloss (the recursion that hung
// CommitLore for 40 seconds and 1,240 hook invocations).
const EnvInternal = runenv.Internal

// GitError is a failed git command, with what it printed on stderr.
type GitError struct {
	Args     []string
	ExitCode int
	Stderr   string
}

func (e *GitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.ExitCode)
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

// Git runs the git CLI in this repository and returns its standard output.
func (r *Repo) Git(ctx context.Context, args ...string) ([]byte, error) {
	return r.GitInput(ctx, nil, args...)
}

// GitInput runs git with stdin fed from in.
func (r *Repo) GitInput(ctx context.Context, in io.Reader, args ...string) ([]byte, error) {
	cmd := r.Command(ctx, args...)
	cmd.Stdin = in
	return runGit(ctx, cmd, args)
}

// GitWalk runs a git command that only reads history (rev-list,
// merge-base) over the blame graph when there is one: git reads parents
// and generations from its commit-graph instead of parsing every commit
// (a merge base and the rev-list of an 800-commit range of git/git: 0.6 s
// of CPU without). It must write no object: they would land in the
// graph's directory.
func (r *Repo) GitWalk(ctx context.Context, args ...string) ([]byte, error) {
	cmd := r.Command(ctx, args...)
	cmd.Env = append(cmd.Env, r.blameGraphEnv()...)
	return runGit(ctx, cmd, args)
}

// runGit runs a prepared git command and returns its standard output.
func runGit(ctx context.Context, cmd *exec.Cmd, args []string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		code := -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if ctx.Err() != nil {
			return nil, fmt.Errorf("git %s: %w", strings.Join(args, " "), ctx.Err())
		} else {
			return nil, fmt.Errorf("run git: %w", err)
		}
		return stdout.Bytes(), &GitError{Args: args, ExitCode: code, Stderr: stderr.String()}
	}
	return stdout.Bytes(), nil
}

// Command prepares a git command bound to this repository. The repository is
// named explicitly (GIT_DIR, GIT_WORK_TREE) so that an environment inherited
// from a hook cannot point git somewhere else.
func (r *Repo) Command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", args...)
	env := make([]string, 0, len(os.Environ())+3)
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_DIR=") || strings.HasPrefix(kv, "GIT_WORK_TREE=") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "GIT_DIR="+r.gitDir, EnvInternal+"=1")
	if r.root != "" {
		env = append(env, "GIT_WORK_TREE="+r.root)
		cmd.Dir = r.root
	} else {
		cmd.Dir = r.gitDir
	}
	cmd.Env = env
	return cmd
}
