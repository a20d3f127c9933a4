package setup

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gloss-dev/gloss/atomicfile"
)

// Names of the git hooks gloss installs. Each shim runs
// `git gloss hook <name>`; package hooks does the work.
const (
	PrepareCommitMsg = "prepare-commit-msg"
	PostCommit       = "post-commit"
	PrePush          = "pre-push"
	PostRewrite      = "post-rewrite"
)

// Hooks are the git hooks gloss installs.
var Hooks = []string{PrepareCommitMsg, PostCommit, PrePush, PostRewrite}

// HookReadsStdin reports whether git writes data to the standard input of
// hook name: the shim buffers it so that both the chained hook and gloss
// can read it, and gloss reads it in full.
func HookReadsStdin(name string) bool { return name == PrePush || name == PostRewrite }

// blockingHooks are hooks whose exit status git honours: if the chained
// hook refuses, gloss does not run and the refusal stands.
var blockingHooks = map[string]bool{PrePush: true, PrepareCommitMsg: true}

// ShimMarker identifies a hook file written by gloss.
const ShimMarker = "# gloss hook shim"

// ChainedSuffix is appended to an existing hook's name when gloss takes its
// place; the shim runs it first, with the same arguments and input.
const ChainedSuffix = ".gloss-chained"

// Shim returns the script gloss installs as hook name. If git-gloss is not
// on PATH the shim runs the chained hook only, so removing gloss never
// breaks a commit or a push; post-commit then says, once per commit, that
// the commit is not annotated.
func Shim(name string) string {
	return shim(name, shimOptions{})
}

// RepoShim is the shim committed in gloss's own .githooks: when git-gloss
// is not on PATH it falls back to the clone's bin/git-gloss (built by
// make build), so gloss's history is annotated by gloss.
func RepoShim(name string) string {
	return shim(name, shimOptions{dogfood: true})
}

// shimOptions vary the shim for where it is installed.
type shimOptions struct {
	// teamDir, when set, is a hooks folder tracked in the repository
	// (core.hooksPath=.husky): the shim lives in gloss's own folder and
	// runs teamDir/<hook> first instead of a renamed sibling.
	teamDir string
	// forwardOnly makes a shim that runs the team's hook and not gloss:
	// for hooks gloss has no work for, or that the team's hook already
	// runs gloss for.
	forwardOnly bool
	// dogfood adds the fallback to ../bin/git-gloss (see RepoShim).
	dogfood bool
}

func shim(name string, o shimOptions) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/sh\n%s v2 (%s). Installed by \"git gloss init\";\n", ShimMarker, name)
	if o.teamDir != "" {
		fmt.Fprintf(&b, "# it runs the team's hook in %s first. \"git gloss uninstall\" removes it.\nhook=%s\n", o.teamDir, name)
	} else {
		fmt.Fprintf(&b, "# \"git gloss uninstall\" removes it and restores any hook it chained.\nhook=%s\n", name)
	}
	// The shell's own expansions, not dirname: every process a shim
	// starts is paid on every commit.
	b.WriteString("case $0 in */*) here=${0%/*} ;; *) here=. ;; esac\n")
	if o.teamDir != "" {
		fmt.Fprintf(&b, "chained=%s/\"$hook\"\n", shellQuote(o.teamDir))
	} else {
		fmt.Fprintf(&b, "chained=\"$here/$hook%s\"\n", ChainedSuffix)
	}
	if o.forwardOnly {
		b.WriteString(`if [ -x "$chained" ]; then exec "$chained" "$@"; fi
exit 0
`)
		return b.String()
	}
	b.WriteString("status=0\n")
	if HookReadsStdin(name) {
		b.WriteString(`input=$(mktemp "${TMPDIR:-/tmp}/gloss-hook.XXXXXX") || {
  [ -x "$chained" ] && exec "$chained" "$@"
  exit 0
}
trap 'rm -f "$input"' EXIT
cat >"$input"
if [ -x "$chained" ]; then "$chained" "$@" <"$input" || status=$?; fi
`)
	} else {
		b.WriteString(`if [ -x "$chained" ]; then "$chained" "$@" || status=$?; fi
`)
	}
	if blockingHooks[name] {
		b.WriteString(`[ "$status" -ne 0 ] && exit "$status"
`)
	}
	if name == PrepareCommitMsg {
		// gloss only has work here after a `git merge --squash`, which
		// leaves SQUASH_MSG beside the message file, or when the team
		// turned the AI-Share trailer on in .gloss/config.toml (git runs
		// hooks at the top of the working tree): on every other commit
		// the shim does not start git-gloss (hooks.nothingToDo says the
		// same for a direct call). The shell reads the team file itself
		// (grep was a process on every commit); past 2,000 lines it leaves
		// the question to git-gloss.
		b.WriteString(`if [ -n "$1" ]; then
  case $1 in */*) msgdir=${1%/*} ;; *) msgdir=. ;; esac
  share= n=0
  if [ -f .gloss/config.toml ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      n=$((n + 1))
      case $line in *ai_share_trailer*) share=1 ;; esac
      [ -n "$share" ] || [ "$n" -gt 2000 ] && { share=1; break; }
    done <.gloss/config.toml
  fi
  [ ! -e "$msgdir/SQUASH_MSG" ] && [ -z "$share" ] && exit "$status"
fi
`)
	}
	input := ""
	if HookReadsStdin(name) {
		input = ` <"$input"`
	}
	b.WriteString("if command -v git-gloss >/dev/null 2>&1; then\n")
	b.WriteString(`  git-gloss hook "$hook" "$@"` + input + " || status=$?\n")
	if o.dogfood {
		b.WriteString(`elif [ -x "$here/../bin/git-gloss" ]; then
  "$here/../bin/git-gloss" hook "$hook" "$@"` + input + " || status=$?\n")
	}
	if name == PostCommit {
		// One line per commit, from one hook only: the user learns why
		// nothing is annotated without a message from every hook.
		b.WriteString(`else
  echo "gloss: this commit is not annotated: git-gloss is not on PATH (install it, or remove gloss's hooks with: git gloss uninstall)" >&2
`)
	}
	b.WriteString(`fi
exit "$status"
`)
	return b.String()
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// IsShim reports whether the file at path is a gloss shim.
func IsShim(path string) bool {
	data, err := os.ReadFile(path)
	return err == nil && bytes.Contains(data, []byte(ShimMarker))
}

// HookStatus describes one hook slot.
type HookStatus struct {
	Name      string `json:"name"`
	Path      string `json:"path"`
	Installed bool   `json:"installed"`         // a gloss shim is in place
	Current   bool   `json:"current"`           // and it is this version's shim
	Chained   string `json:"chained,omitempty"` // the pre-existing hook gloss runs first
}

// hookStatus reports the hook slot name in dir; want is the shim this
// version installs there.
func hookStatus(dir, name, want string) HookStatus {
	p := filepath.Join(dir, name)
	st := HookStatus{Name: name, Path: p}
	data, err := os.ReadFile(p)
	if err == nil && bytes.Contains(data, []byte(ShimMarker)) {
		st.Installed = true
		st.Current = string(data) == want || string(data) == RepoShim(name)
		if _, err := os.Stat(p + ChainedSuffix); err == nil {
			st.Chained = p + ChainedSuffix
		}
	}
	return st
}

// installHook puts the shim in place, moving a foreign hook aside to be
// chained, and says what it did: "installed", "updated" (an older gloss
// shim refreshed) or "unchanged".
func installHook(dir, name string) (string, error) {
	p := filepath.Join(dir, name)
	shim := Shim(name)
	data, err := os.ReadFile(p)
	switch {
	case err == nil && bytes.Contains(data, []byte(ShimMarker)):
		if string(data) == shim {
			return "unchanged", nil
		}
		// An older gloss shim: refresh it and keep the chain as it is.
		return "updated", writeExecutable(p, shim)
	case err == nil:
		chained := p + ChainedSuffix
		if _, err := os.Stat(chained); err == nil {
			return "", fmt.Errorf("hook %s exists and so does %s; move one of them away and run init again", p, chained)
		}
		if err := os.Rename(p, chained); err != nil {
			return "", fmt.Errorf("chain existing hook %s: %w", p, err)
		}
	case !errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("read hook %s: %w", p, err)
	}
	return "installed", writeExecutable(p, shim)
}

// removeHook deletes gloss's shim and puts a chained hook back in its place.
func removeHook(dir, name string) (bool, error) {
	p := filepath.Join(dir, name)
	if !IsShim(p) {
		return false, nil
	}
	if err := os.Remove(p); err != nil {
		return false, err
	}
	chained := p + ChainedSuffix
	if _, err := os.Stat(chained); err == nil {
		if err := os.Rename(chained, p); err != nil {
			return true, fmt.Errorf("restore chained hook %s: %w", chained, err)
		}
	}
	return true, nil
}

func writeExecutable(path, content string) error {
	return atomicfile.Write(path, []byte(content), 0o755)
}
