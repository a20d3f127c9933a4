package setup

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/gitops"
)

// A hooks folder tracked in the repository (core.hooksPath=.husky, or a
// team's .githooks) is the team's: a shim written there, or a hook renamed
// to chain it, would be committed by the next `git commit -a` and taken
// from every teammate. gloss leaves such a folder untouched. It installs
// its shims in a folder of its own under the git dir, points this clone's
// core.hooksPath there, and every shim there runs the team's hook of the
// same name first, so the team's hooks keep running exactly as before.
// Uninstall puts core.hooksPath back.

// forwardedHooks are the other hooks git runs; in a team folder's place
// gloss forwards each to the team's hook of that name.
var forwardedHooks = []string{
	"applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit",
	"pre-merge-commit", "commit-msg", "pre-rebase", "post-checkout",
	"post-merge", "pre-auto-gc", "sendemail-validate", "push-to-checkout",
	"pre-receive", "update", "proc-receive", "post-receive", "post-update",
	"p4-changelist", "p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit",
}

// hotHooks run on every ref or index change; a forwarder costs a process
// each time, so they are forwarded only if the team has them.
var hotHooks = []string{"reference-transaction", "post-index-change"}

// ownHooksDir is the folder gloss installs into in place of a team folder.
func ownHooksDir(repo *gitops.Repo) string {
	return filepath.Join(repo.CommonDir(), "gloss", "hooks")
}

// inWorkTree reports whether dir is inside the working tree, where files
// can be committed (and not inside the git dir).
func inWorkTree(repo *gitops.Repo, dir string) bool {
	root := repo.Root()
	if root == "" {
		return false
	}
	for _, git := range []string{repo.GitDir(), repo.CommonDir()} {
		if within(git, dir) {
			return false
		}
	}
	// A folder named inside the tree is the team's even when a committed
	// link takes it out of the tree: gloss must not write through it.
	return within(root, dir) || lexicallyWithin(root, dir)
}

// lexicallyWithin is within without resolving links in p.
func lexicallyWithin(parent, p string) bool {
	rel, err := filepath.Rel(filepath.Clean(parent), filepath.Clean(p))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func within(parent, p string) bool {
	rel, err := filepath.Rel(resolve(parent), resolve(p))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func resolve(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// teamRunsGloss reports whether the team folder already has gloss shims
// for every hook gloss needs (as gloss's own repository does): then the
// team's hooks are gloss's and there is nothing to install.
func teamRunsGloss(dir string) bool {
	for _, name := range Hooks {
		if !IsShim(filepath.Join(dir, name)) {
			return false
		}
	}
	return true
}

// takeOverTeamHooks switches this clone from the team folder dir to
// gloss's own folder, recording how to switch back.
func takeOverTeamHooks(ctx context.Context, repo *gitops.Repo, m *manifest, dir string) error {
	team, _, err := repo.ConfigGet(ctx, "core.hooksPath")
	if err != nil {
		return err
	}
	if team == "" || strings.HasPrefix(team, "~") {
		team = dir // git resolved it; the absolute path runs the same hooks
	}
	local, err := repo.LocalConfigGetAll(ctx, "core.hooksPath")
	if err != nil {
		return err
	}
	m.TeamHooks = team
	m.HooksPathPrev = nil
	if len(local) > 0 {
		m.HooksPathPrev = &local[len(local)-1]
	}
	own := ownHooksDir(repo)
	if err := os.MkdirAll(own, 0o755); err != nil {
		return err
	}
	return repo.ConfigSet(ctx, "core.hooksPath", own)
}

// teamHookPath is where the team's hook name is for a checkout at root
// (git resolves a relative core.hooksPath where it runs the hook, the top
// of the working tree).
func teamHookPath(root string, m *manifest, name string) string {
	if filepath.IsAbs(m.TeamHooks) {
		return filepath.Join(m.TeamHooks, name)
	}
	return filepath.Join(root, m.TeamHooks, name)
}

// teamShim is the shim for hook name in gloss's own folder. It only
// forwards when gloss has no work for the hook, or when the team's hook
// is itself a gloss shim (gloss would run twice).
func teamShim(root string, m *manifest, name string) string {
	forward := !slices.Contains(Hooks, name) || IsShim(teamHookPath(root, m, name))
	return shim(name, shimOptions{teamDir: m.TeamHooks, forwardOnly: forward})
}

// installTeamHook writes gloss's shim for one of its hooks in its own
// folder and says what it did.
func installTeamHook(dir, name, content string) (string, error) {
	p := filepath.Join(dir, name)
	data, err := os.ReadFile(p)
	switch {
	case err == nil && string(data) == content:
		return "unchanged", nil
	case err == nil:
		return "updated", writeExecutable(p, content)
	case !errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("read hook %s: %w", p, err)
	}
	return "installed", writeExecutable(p, content)
}

// installTeamForwarders writes the forwarders for the hooks gloss has no
// work for.
func installTeamForwarders(repo *gitops.Repo, m *manifest) error {
	names := slices.Clone(forwardedHooks)
	for _, h := range hotHooks {
		if _, err := os.Stat(teamHookPath(repo.Root(), m, h)); err == nil {
			names = append(names, h)
		}
	}
	for _, name := range names {
		if err := writeExecutable(filepath.Join(ownHooksDir(repo), name), teamShim(repo.Root(), m, name)); err != nil {
			return err
		}
	}
	return nil
}

// restoreTeamHooks removes gloss's own folder and points core.hooksPath
// back at the team folder.
func restoreTeamHooks(ctx context.Context, repo *gitops.Repo, m *manifest) error {
	own := ownHooksDir(repo)
	entries, err := os.ReadDir(own)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, e := range entries {
		if p := filepath.Join(own, e.Name()); IsShim(p) {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
	}
	_ = os.Remove(own) // only if empty: never what someone else put there
	local, err := repo.LocalConfigGetAll(ctx, "core.hooksPath")
	if err != nil {
		return err
	}
	if !slices.Contains(local, own) {
		return nil // changed since: not gloss's to undo
	}
	if m.HooksPathPrev != nil {
		return repo.ConfigSet(ctx, "core.hooksPath", *m.HooksPathPrev)
	}
	if err := repo.ConfigUnsetValue(ctx, "core.hooksPath", own); err != nil {
		return fmt.Errorf("restore core.hooksPath: %w", err)
	}
	return nil
}
