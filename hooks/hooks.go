// Package hooks is gloss's third front door: the code behind the git hook
// shims, reached as `git gloss hook <name>`. It owns the rules every hook
// follows, so that the capabilities behind it need not:
//
//   - an internal error, a panic or a timeout never fails the user's git
//     command: it is reported on one line and logged, and the hook exits 0;
//   - only pre-push may refuse, and only when a capability says the push
//     must be blocked (a strict spec policy with real drift);
//   - every hook has a time limit (git config gloss.hookTimeout);
//   - a git command that gloss itself runs never re-enters gloss's hooks.
package hooks

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gloss-dev/gloss/agent"
	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/capture"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/guard"
	"github.com/gloss-dev/gloss/reconcile"
	"github.com/gloss-dev/gloss/review"
	"github.com/gloss-dev/gloss/setup"
)

// Invocation is one run of a hook: what git passed it.
type Invocation struct {
	Name   string
	Args   []string
	Input  []byte // standard input, read in full (setup.HookReadsStdin)
	Repo   *gitops.Repo
	Stderr io.Writer // where messages for the user go
	// Config holds the personal gloss.* git config, read once per hook
	// (keys lowercased, as git prints them).
	Config map[string]string

	deferOnce sync.Once
	deferIt   bool
	// note is said after the outcome in hooks.log (why a commit's work
	// went to the worker).
	note string
}

// Handler does one hook's work. An error fails nothing unless it is a
// *Block returned from pre-push.
type Handler func(ctx context.Context, inv *Invocation) error

// Block is the one error that makes a hook fail: pre-push refusing a push.
// Message tells the user what to run.
type Block struct{ Message string }

func (b *Block) Error() string { return b.Message }

// handlers maps a hook name to the work it does, in order. Capabilities
// are wired in here, in one place.
var handlers = map[string][]Handler{
	setup.PrepareCommitMsg: {noteSquash, addShareTrailer},
	setup.PostCommit:       {postCommit},
	setup.PrePush:          {validatePushInput, checkSpecs},
	setup.PostRewrite:      {finishRewritten, carryAnnotations, carryAttribution},
}

// nothingToDo tells, before the repository is opened, that a hook has no
// work this time: every commit runs prepare-commit-msg, and its handlers
// only act after a `git merge --squash` or when the team turned the
// AI-Share trailer on. A handler added to such a hook must extend its
// check.
var nothingToDo = map[string]func(dir string, args []string) bool{
	setup.PrepareCommitMsg: func(dir string, args []string) bool {
		// git passes the message file, in the git dir where a squash
		// merge leaves SQUASH_MSG; a relative path is relative to dir.
		if len(args) == 0 {
			return false
		}
		msg := args[0]
		if !filepath.IsAbs(msg) {
			msg = filepath.Join(dir, msg)
		}
		_, err := os.Stat(filepath.Join(filepath.Dir(msg), "SQUASH_MSG"))
		return errors.Is(err, fs.ErrNotExist) && !mentionsTrailer(dir)
	},
}

// mentionsTrailer is the cheap first look for the AI-Share setting: the
// team file (git runs hooks at the top of the working tree) names it.
// The handler then reads the file properly.
func mentionsTrailer(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, ".gloss", "config.toml"))
	return err == nil && bytes.Contains(data, []byte(review.TrailerSetting))
}

// Known reports whether gloss has a hook of this name.
func Known(name string) bool {
	_, ok := handlers[name]
	return ok
}

// defaultTimeout is each hook's time limit unless gloss.hookTimeout says
// otherwise. pre-push gets longer: it may compare many files.
var defaultTimeout = map[string]time.Duration{
	setup.PrepareCommitMsg: 5 * time.Second,
	setup.PostCommit:       10 * time.Second,
	setup.PrePush:          30 * time.Second,
	setup.PostRewrite:      10 * time.Second,
}

// Run runs hook name in the repository at dir ("" for the current
// directory) and returns its exit code. It never returns non-zero except
// for a pre-push Block.
func Run(ctx context.Context, dir, name string, args []string, stdin io.Reader, stderr io.Writer) int {
	if guard.Reentered() {
		return 0 // a git command run by gloss itself: do not recurse
	}
	if idle, ok := nothingToDo[name]; ok && idle(dir, args) {
		return 0
	}
	start := time.Now()
	repo, err := gitops.Open(dir)
	if err != nil {
		fmt.Fprintf(stderr, "gloss: %s hook skipped: %v\n", name, err)
		return 0
	}
	// A handler cut off by the time limit still runs in its goroutine
	// until the process exits: freeing the repository under it crashed
	// the hook (SIGSEGV in libgit2). Only a finished run closes it.
	finished := true
	defer func() {
		if finished {
			repo.Close()
		}
	}()

	inv := &Invocation{Name: name, Args: args, Repo: repo, Stderr: stderr, Config: map[string]string{}}
	if stdin != nil && setup.HookReadsStdin(name) {
		inv.Input, _ = io.ReadAll(io.LimitReader(stdin, 64<<20))
	}
	if kv, err := repo.ConfigMatching(ctx, `^gloss\.`); err == nil {
		for _, p := range kv {
			inv.Config[p[0]] = p[1]
		}
	}
	timeout, bad := hookTimeout(inv.Config, name)
	if bad != "" && name != setup.PrepareCommitMsg {
		// One line per git command: a silently ignored setting is worse,
		// and post-commit speaks for the commit prepare-commit-msg began.
		fmt.Fprintf(stderr, "gloss: ignoring git config gloss.hookTimeout=%q (want a duration such as 20s or 500ms); using %s\n", bad, timeout)
	}
	// The door's rules (package guard): the time limit, a panic turned
	// into an error, and in test builds the failure runenv.HookFault
	// injects ("error", "panic", "sleep").
	err = guard.Run(ctx, guard.GitHooks, timeout, func(ctx context.Context) error { return runHandlers(ctx, inv) })
	var late *guard.TimeoutError
	if errors.As(err, &late) {
		finished = false
		err = fmt.Errorf("%w (raise git config gloss.hookTimeout)", err)
	}

	var block *Block
	code, outcome := 0, "ok"
	switch {
	case errors.As(err, &block) && name == setup.PrePush:
		fmt.Fprintln(stderr, block.Message)
		code, outcome = 1, "blocked: "+firstLine(block.Message)
	case err != nil:
		outcome = "error: " + err.Error()
		fmt.Fprintf(stderr, "gloss: %s hook: %v (git continues; details in %s)\n", name, err, logPath(repo))
	}
	if inv.note != "" {
		outcome += "; " + inv.note
	}
	logRun(repo, name, time.Since(start), outcome)
	return code
}

func runHandlers(ctx context.Context, inv *Invocation) error {
	var errs []error
	for _, h := range handlers[inv.Name] {
		if err := h(ctx, inv); err != nil {
			var block *Block
			if errors.As(err, &block) {
				return err
			}
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// hookTimeout returns the time limit of hook name: gloss.hookTimeout (a Go
// duration, or plain seconds) when valid, else the default. An invalid
// value is returned as bad, for a warning.
func hookTimeout(cfg map[string]string, name string) (d time.Duration, bad string) {
	v, ok := cfg["gloss.hooktimeout"]
	if !ok {
		return defaultTimeout[name], ""
	}
	for _, s := range []string{v, v + "s"} {
		if d, err := time.ParseDuration(strings.TrimSpace(s)); err == nil && d > 0 {
			return d, ""
		}
	}
	return defaultTimeout[name], v
}

func logPath(repo *gitops.Repo) string {
	return filepath.Join(repo.CommonDir(), "gloss", "hooks.log")
}

// logRun appends one line per hook run to <git dir>/gloss/hooks.log.
func logRun(repo *gitops.Repo, name string, took time.Duration, outcome string) {
	if _, err := repo.GlossDir(); err == nil {
		guard.AppendLog(logPath(repo), name, fmt.Sprintf("%dms", took.Milliseconds()), outcome)
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// ParsePushInput reads pre-push's standard input: a line per ref about to
// be pushed.
func ParsePushInput(in []byte) ([]reconcile.PushUpdate, error) {
	var out []reconcile.PushUpdate
	sc := bufio.NewScanner(strings.NewReader(string(in)))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 4 {
			return nil, fmt.Errorf("unexpected pre-push input line %q", sc.Text())
		}
		out = append(out, reconcile.PushUpdate{LocalRef: f[0], LocalSHA: f[1], RemoteRef: f[2], RemoteSHA: f[3]})
	}
	return out, sc.Err()
}

// Rewrite is one line of post-rewrite input: a commit and its replacement.
type Rewrite struct{ Old, New string }

// ParseRewriteInput reads post-rewrite's standard input.
func ParseRewriteInput(in []byte) ([]Rewrite, error) {
	var out []Rewrite
	sc := bufio.NewScanner(strings.NewReader(string(in)))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) < 2 {
			return nil, fmt.Errorf("unexpected post-rewrite input line %q", sc.Text())
		}
		out = append(out, Rewrite{f[0], f[1]})
	}
	return out, sc.Err()
}

func validatePushInput(_ context.Context, inv *Invocation) error {
	_, err := ParsePushInput(inv.Input)
	return err
}

// checkSpecs is the pre-push reconciliation check: for each pushed range,
// the specs its changes affect are validated and those whose governed
// files drifted since their last reconciliation are reported — a warning,
// or a block under a strict policy (coverage.policy, or git config
// gloss.prepush warn|strict|off, which wins).
func checkSpecs(ctx context.Context, inv *Invocation) error {
	mode := strings.ToLower(strings.TrimSpace(inv.Config["gloss.prepush"]))
	if mode == "off" || inv.Repo.IsBare() {
		return nil
	}
	if mode != "" && mode != "warn" && mode != "strict" {
		fmt.Fprintf(inv.Stderr, "gloss: git config gloss.prepush=%q is not warn, strict or off; using the specs' coverage.policy\n", mode)
		mode = ""
	}
	updates, err := ParsePushInput(inv.Input)
	if err != nil {
		return err
	}
	remote := ""
	if len(inv.Args) > 0 {
		remote = inv.Args[0]
	}
	rep, err := reconcile.CheckPush(ctx, inv.Repo, remote, updates, mode)
	if err != nil {
		return err
	}
	if rep.Block {
		return &Block{Message: rep.Message}
	}
	if rep.Message != "" {
		fmt.Fprintln(inv.Stderr, rep.Message)
	}
	return nil
}

// carryAnnotations carries annotation records from the rewritten commits
// to their replacements.
func carryAnnotations(ctx context.Context, inv *Invocation) error {
	if len(inv.Args) == 0 || (inv.Args[0] != "amend" && inv.Args[0] != "rebase") {
		return fmt.Errorf("post-rewrite: unexpected argument %v (want amend or rebase)", inv.Args)
	}
	rewrites, err := ParseRewriteInput(inv.Input)
	if err != nil {
		return err
	}
	pairs := make([][2]string, len(rewrites))
	for i, rw := range rewrites {
		pairs[i] = [2]string{rw.Old, rw.New}
	}
	// What the agents wrote is the amend's: it takes the captured edits
	// (outside a rebase; the commits a rebase replays are not new work).
	var work []annotate.AgentWork
	if !inv.Repo.RebaseInProgress() {
		if head, err := inv.Repo.Head(); err == nil && head != "" {
			var taken *capture.Taken
			c, err := inv.Repo.LookupCommit(head)
			if err == nil {
				taken, err = capture.TakeEdits(inv.Repo, c)
			}
			if err != nil {
				fmt.Fprintf(inv.Stderr, "gloss: agent edits not read: %v\n", err)
			}
			if inv.Args[0] == "amend" && len(rewrites) > 0 {
				cw := agent.ForCommit(inv.Repo, taken)
				work = cw.Work
				defer func() { _ = cw.RecordSessions(ctx, inv.Repo, head) }()
			}
		}
	}
	return annotate.PostRewrite(ctx, inv.Repo, inv.Args[0], pairs, inv.annotator(), work)
}

// carryAttribution carries line attribution from the rewritten commits to
// their replacements.
func carryAttribution(ctx context.Context, inv *Invocation) error {
	rewrites, err := ParseRewriteInput(inv.Input)
	if err != nil || len(inv.Args) == 0 {
		return err
	}
	pairs := make([][2]string, len(rewrites))
	for i, rw := range rewrites {
		pairs[i] = [2]string{rw.Old, rw.New}
	}
	return attribution.PostRewrite(ctx, inv.Repo, inv.Args[0], pairs)
}

// postCommit does the new commit's work (job.go): decided at once, then
// run at once or, when the hook defers (deferred.go), queued for a
// detached worker. The worker is started for a deferred job, and for the
// jobs a worker that died left queued.
func postCommit(ctx context.Context, inv *Invocation) error {
	head, err := inv.Repo.Head()
	if err != nil || head == "" {
		return err
	}
	p, err := prepareCommit(ctx, inv, head)
	deferIt := inv.deferred() || inv.waits(ctx, p.job)
	worker, qerr := queueJob(ctx, inv, p.job, deferIt)
	err = errors.Join(err, qerr)
	if !deferIt {
		err = errors.Join(err, p.job.run(ctx, inv.Repo, false))
	}
	if worker {
		err = errors.Join(err, startWorker(ctx, inv.Repo))
	}
	return errors.Join(err, p.work.RecordSessions(ctx, inv.Repo, head))
}

// noteSquash remembers the commits of a squash merge for post-commit.
func noteSquash(ctx context.Context, inv *Invocation) error {
	return annotate.PrepareCommitMsg(ctx, inv.Repo)
}

// addShareTrailer adds the AI-Share trailer to the message when the team
// turned it on ([review] ai_share_trailer in .gloss/config.toml).
func addShareTrailer(ctx context.Context, inv *Invocation) error {
	if len(inv.Args) == 0 {
		return nil
	}
	msg, err := filepath.Abs(inv.Args[0])
	if err != nil {
		return err
	}
	source := ""
	if len(inv.Args) > 1 {
		source = inv.Args[1]
	}
	return review.AddTrailer(ctx, inv.Repo, msg, source)
}

// annotator is the personal annotator command, from git config only:
// never from a committed file.
func (inv *Invocation) annotator() string {
	return strings.TrimSpace(inv.Config["gloss.annotator"])
}
