package gitops

import (
	"bytes"
	"context"
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	git "github.com/libgit2/git2go/v34"
)

// Configuration is read in process through libgit2: starting `git config`
// costs a few milliseconds a key, and `git gloss status` (the first call an
// agent makes) reads a dozen keys. libgit2 reads the same files in the same
// order (system, XDG, global, local, with include and includeIf), and
// re-reads a file that changed on disk before each lookup, so a value
// written a moment ago by git is seen. What libgit2 does not know is the
// environment git uses to override configuration (`git -c`, GIT_CONFIG_*
// files); when any of it is set, git itself answers, as it always did.
// Writes always go through git.

// cliConfigEnv are the variables that make git read configuration libgit2
// does not see.
var cliConfigEnv = []string{"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG"}

// configInProcess reports whether libgit2 sees the configuration git sees.
func configInProcess() bool {
	for _, k := range cliConfigEnv {
		if os.Getenv(k) != "" {
			return false
		}
	}
	honourNoSystem()
	return true
}

var noSystemOnce sync.Once

// honourNoSystem applies GIT_CONFIG_NOSYSTEM (test suites and sandboxes set
// it) to libgit2, which does not read the variable: the system level's
// search path is emptied once, before any configuration is loaded.
func honourNoSystem() {
	noSystemOnce.Do(func() {
		if v := os.Getenv("GIT_CONFIG_NOSYSTEM"); v != "" && v != "0" && !strings.EqualFold(v, "false") {
			_ = git.SetSearchPath(git.ConfigLevelSystem, "")
		}
	})
}

// ConfigGet returns the value of key and whether it is set. With several
// values, the last one wins, as in git.
func (r *Repo) ConfigGet(ctx context.Context, key string) (string, bool, error) {
	if configInProcess() {
		vals, err := r.configEntries(key, false)
		if err != nil || len(vals) == 0 {
			return "", false, err
		}
		return vals[len(vals)-1][1], true, nil
	}
	out, err := r.Git(ctx, "config", "--get", key)
	if err != nil {
		if isExit(err, 1) {
			return "", false, nil
		}
		return "", false, err
	}
	return strings.TrimRight(string(out), "\n"), true, nil
}

// ConfigGetAll returns every value of a multi-valued key.
func (r *Repo) ConfigGetAll(ctx context.Context, key string) ([]string, error) {
	if configInProcess() {
		kv, err := r.configEntries(key, false)
		var vals []string
		for _, p := range kv {
			vals = append(vals, p[1])
		}
		return vals, err
	}
	out, err := r.Git(ctx, "config", "-z", "--get-all", key)
	if err != nil {
		if isExit(err, 1) {
			return nil, nil
		}
		return nil, err
	}
	return splitZ(out), nil
}

// ConfigMatching returns all keys matching a regular expression (as
// `git config --get-regexp`) with their values, in file order.
func (r *Repo) ConfigMatching(ctx context.Context, pattern string) ([][2]string, error) {
	if configInProcess() {
		return r.configEntries(pattern, true)
	}
	out, err := r.Git(ctx, "config", "-z", "--get-regexp", pattern)
	if err != nil {
		if isExit(err, 1) {
			return nil, nil
		}
		return nil, err
	}
	var kv [][2]string
	for _, rec := range splitZ(out) {
		k, v, _ := strings.Cut(rec, "\n")
		kv = append(kv, [2]string{k, v})
	}
	return kv, nil
}

// configEntries lists the entries named key (or, with match, whose name
// matches the regular expression key) in git's order: by level from
// system to local, in file order within a level. Names are spelled as
// git config prints them (section and key lower case).
func (r *Repo) configEntries(key string, match bool) ([][2]string, error) {
	if match {
		// git matches the pattern case-sensitively against the
		// canonical (lower-cased) name; libgit2's own regex dialect is
		// POSIX, so gloss filters with Go's instead.
		if _, err := regexp.Compile(key); err != nil {
			return nil, err
		}
	}
	cfg, err := r.r.Config()
	if err != nil {
		return nil, err
	}
	defer cfg.Free()
	var it *git.ConfigIterator
	if match {
		it, err = cfg.NewIterator()
	} else {
		it, err = cfg.NewMultivarIterator(key, "")
	}
	if err != nil {
		if git.IsErrorCode(err, git.ErrorCodeNotFound) {
			return nil, nil
		}
		return nil, err
	}
	defer it.Free()
	var re *regexp.Regexp
	if match {
		re = regexp.MustCompile(key)
	}
	type entry struct {
		level git.ConfigLevel
		kv    [2]string
	}
	var entries []entry
	for {
		e, err := it.Next()
		if err != nil {
			if git.IsErrorCode(err, git.ErrorCodeIterOver) {
				break
			}
			return nil, err
		}
		if re != nil && !re.MatchString(e.Name) {
			continue
		}
		entries = append(entries, entry{e.Level, [2]string{e.Name, e.Value}})
	}
	slices.SortStableFunc(entries, func(a, b entry) int { return int(a.level) - int(b.level) })
	out := make([][2]string, len(entries))
	for i, e := range entries {
		out[i] = e.kv
	}
	return out, nil
}

// ConfigSet sets key to value in the repository's local config.
func (r *Repo) ConfigSet(ctx context.Context, key, value string) error {
	_, err := r.Git(ctx, "config", "--local", key, value)
	return err
}

// ConfigAdd adds one more value to a multi-valued key in the local config.
func (r *Repo) ConfigAdd(ctx context.Context, key, value string) error {
	_, err := r.Git(ctx, "config", "--local", "--add", key, value)
	return err
}

// ConfigUnsetValue removes the local values of key equal to value, leaving
// its other values alone. Removing a value that is not there is not an error.
func (r *Repo) ConfigUnsetValue(ctx context.Context, key, value string) error {
	_, err := r.Git(ctx, "config", "--local", "--fixed-value", "--unset-all", key, value)
	if err != nil && isExit(err, 5) {
		return nil
	}
	return err
}

// LocalConfigGetAll is ConfigGetAll restricted to the repository's own
// config file, for checks of what gloss itself wrote there.
func (r *Repo) LocalConfigGetAll(ctx context.Context, key string) ([]string, error) {
	out, err := r.Git(ctx, "config", "--local", "-z", "--get-all", key)
	if err != nil {
		if isExit(err, 1) {
			return nil, nil
		}
		return nil, err
	}
	return splitZ(out), nil
}

func splitZ(out []byte) []string {
	var vals []string
	for _, v := range bytes.Split(out, []byte{0}) {
		if len(v) > 0 {
			vals = append(vals, string(v))
		}
	}
	return vals
}

func isExit(err error, code int) bool {
	var ge *GitError
	return errors.As(err, &ge) && ge.ExitCode == code
}

// Durable reports whether gloss's writes are synced to stable storage (the
// working tree's, the capture store's, the post-commit queue's): `git
// config gloss.fsync true|false` when set, else whatever the repository
// asks of git itself — a core.fsync that covers refs or the index (all,
// committed, added, reference, index) means yes. Git's own default syncs
// neither, and neither does gloss then: every write is still atomic and
// safe against a killed process. Every writer of a post-commit asks, so
// the handle reads the setting once, as libgit2 keeps the core settings
// it read when it opened.
func (r *Repo) Durable() bool {
	r.durableOnce.Do(func() { r.durable = r.readDurable() })
	return r.durable
}

// readDurable is Durable, read from the configuration.
func (r *Repo) readDurable() bool {
	if v, ok := r.LookupConfig("gloss.fsync"); ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "yes", "on", "1":
			return true
		case "false", "no", "off", "0":
			return false
		}
	}
	v, _ := r.LookupConfig("core.fsync")
	for _, c := range strings.Split(v, ",") {
		switch strings.TrimSpace(c) {
		case "all", "committed", "added", "reference", "index":
			return true
		}
	}
	return false
}

// LookupConfig reads one configuration value through libgit2, in process:
// for settings read on hot paths, where starting `git config` would cost
// more than the work itself.
func (r *Repo) LookupConfig(key string) (string, bool) {
	cfg, err := r.r.Config()
	if err != nil {
		return "", false
	}
	defer cfg.Free()
	v, err := cfg.LookupString(key)
	if err != nil {
		return "", false
	}
	return v, true
}
