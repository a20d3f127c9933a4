package gitops

import (
	"bytes"
	"context"
	"errors"
	"strings"
)

// Configuration goes through the git CLI rather than libgit2: reads then
// see every include, conditional include and scope exactly as git does, and
// a value written a moment ago is never hidden by a cached snapshot.

// ConfigGet returns the value of key and whether it is set.
func (r *Repo) ConfigGet(ctx context.Context, key string) (string, bool, error) {
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
