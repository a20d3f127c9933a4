package gitops

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	git "github.com/libgit2/git2go/v34"
)

// Worktree blame: what `git blame -- path` prints for a file with
// uncommitted changes, derived from the cached blame of HEAD.

// blameWorktree blames the working-tree file: the blame of HEAD passed
// through the diff from HEAD to the working tree, with changed lines
// uncommitted — what `git blame -- path` prints.
func (r *Repo) blameWorktree(ctx context.Context, path string, start, end int) (*Blame, error) {
	head, err := r.Head()
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(r.root, filepath.FromSlash(path))); err != nil || head == "" {
		return r.Blame(ctx, "", path, start, end)
	}
	key, err := r.blamePosition(head, path)
	if err != nil {
		if IsNotFound(err) {
			return r.Blame(ctx, "", path, start, end) // not in HEAD: all uncommitted
		}
		return nil, err
	}
	base := r.loadBlame(key, path)
	if base == nil {
		if base, err = r.fillAt(ctx, key, path); err != nil {
			return nil, err
		}
	}
	return r.worktreeFrom(ctx, head, path, base, start, end)
}

// planWorktree is planBlame for the working tree: a miss on part of a
// large file becomes a range job; the rest is answered now.
func (r *Repo) planWorktree(ctx context.Context, path string, start, end int) (*Blame, blameJob, error) {
	head, err := r.Head()
	if err == nil && head != "" && r.root != "" {
		if key, err := r.blamePosition(head, path); err == nil && !r.hasBlame(key, path) {
			if job := r.rangeJob(ctx, "", key, path, start, end); job != nil {
				return nil, job, nil
			}
		}
	}
	b, err := r.blameWorktree(ctx, path, start, end)
	return b, nil, err
}

// worktreeFrom is the working-tree blame from base, the blame of head.
func (r *Repo) worktreeFrom(ctx context.Context, head, path string, base *blameEntry, start, end int) (*Blame, error) {
	attrs := r.attributeFiles(path)
	switch same, converts := r.worktreeMatches(head, path, attrs); {
	case same && !converts:
		return base.slice(start, end)
	case same:
		// head's bytes, but an attribute may convert them (text or eol
		// on a file with CRLF, ident): git diff trusts the index for a
		// file whose stat has not changed since it was staged, so it
		// sees no change where git blame, converting the file, does.
		if r.checkAttr(ctx, path, "text", "eol", "crlf", "ident", "filter", "working-tree-encoding") {
			return r.Blame(ctx, "", path, start, end)
		}
		return base.slice(start, end)
	}
	if namesDriver(attrs) && r.checkAttr(ctx, path, "filter", "working-tree-encoding") {
		return r.Blame(ctx, "", path, start, end)
	}
	files, err := r.commitDiff(ctx, head, "", []string{path}, false)
	if err != nil {
		return nil, err
	}
	e := base
	for _, f := range files {
		if f.Binary {
			return r.Blame(ctx, "", path, start, end)
		}
		if f.NewPath == path {
			e = base.pass(f.Ranges(), Uncommitted, path, BlameCommit{
				Author: "Not Committed Yet", AuthorTime: time.Now().UTC(),
				Summary: "Version of " + path + " from " + path,
			})
		}
	}
	return e.slice(start, end)
}

// worktreeMatches reports whether the working-tree file is, byte for byte,
// the version in head (same), so that running git diff can be skipped,
// and whether git's clean conversion could still change it (converts):
// git blame compares what that conversion makes of the file. It cannot
// change anything with no attributes file that could name a filter,
// ident, encoding or eol for it, and no carriage return autocrlf could
// strip. attrs are the attributes files that could apply to path
// (attributeFiles).
func (r *Repo) worktreeMatches(head, path string, attrs []string) (same, converts bool) {
	full := filepath.Join(r.root, filepath.FromSlash(path))
	if info, err := os.Lstat(full); err != nil || !info.Mode().IsRegular() {
		return false, false
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return false, false
	}
	want, err := r.BlobAt(head, path)
	if err != nil || want == "" {
		return false, false
	}
	odb, err := r.r.Odb()
	if err != nil {
		return false, false
	}
	defer odb.Free()
	got, err := odb.Hash(data, git.ObjectBlob)
	if err != nil || got.String() != want {
		return false, false
	}
	if bytes.IndexByte(data, '\r') >= 0 && r.autocrlf() {
		// core.autocrlf converts by configuration, which no attribute
		// check sees: git diff decides.
		return false, false
	}
	return true, attributesMayConvert(attrs, data)
}

// autocrlf reports whether core.autocrlf asks git to convert line endings.
func (r *Repo) autocrlf() bool {
	cfg, err := r.r.Config()
	if err != nil {
		return true
	}
	defer cfg.Free()
	v, err := cfg.LookupString("core.autocrlf")
	return err == nil && v != "" && v != "false"
}

// attributesMayConvert reports whether git's clean conversion could make
// the working-tree file differ from data. Conversion comes from attributes
// only: text/eol/crlf turn CRLF into LF (nothing to do without a '\r'),
// ident collapses "$Id: ...$" (nothing without "$Id"), and a filter or a
// working-tree-encoding can do anything. So with no attributes file that
// could apply, or with data free of '\r' and "$Id" and no attributes file
// naming a filter or an encoding, the file is what git would hash. Real
// projects nearly all have a .gitattributes (git.git's sets diff drivers
// and whitespace rules), and taking the shortcut there saves a git diff
// process on every warm read. Macros live in the same files, so a macro
// that sets a filter names it there too.
func attributesMayConvert(files []string, data []byte) bool {
	if len(files) == 0 {
		return false
	}
	if bytes.IndexByte(data, '\r') >= 0 || bytes.Contains(data, []byte("$Id")) {
		return true
	}
	return namesDriver(files)
}

// namesDriver reports whether one of the attributes files names a filter
// or a working-tree encoding (or cannot be read).
func namesDriver(files []string) bool {
	for _, f := range files {
		content, err := os.ReadFile(f)
		if err != nil {
			return true
		}
		if bytes.Contains(content, []byte("filter")) || bytes.Contains(content, []byte("encoding")) {
			return true
		}
	}
	return false
}

// checkAttr reports whether one of the attributes applies to path (is
// set, or has a value), as git check-attr says. git blame converts the
// file itself, while git diff trusts the index for a file whose stat has
// not changed since it was staged, so after the attributes change the
// two disagree until the file is staged again; gloss answers with git
// blame's own output for such a file. A question git cannot answer counts
// as yes.
func (r *Repo) checkAttr(ctx context.Context, path string, attrs ...string) bool {
	out, err := r.Git(ctx, append(append([]string{"check-attr", "-z"}, attrs...), "--", path)...)
	if err != nil {
		return true
	}
	// -z: path, attribute, value, each ended by NUL.
	f := strings.Split(string(out), "\x00")
	for i := 0; i+2 < len(f); i += 3 {
		if v := f[i+2]; v != "unspecified" && v != "unset" {
			return true
		}
	}
	return false
}

// attributeFiles lists the gitattributes files that exist and could apply
// to path: in the work tree on its way, in the git dir, in the user's or
// the system's configuration, core.attributesFile.
func (r *Repo) attributeFiles(path string) []string {
	candidates := []string{filepath.Join(r.commonDir, "info", "attributes"), "/etc/gitattributes"}
	dir := r.root
	candidates = append(candidates, filepath.Join(dir, ".gitattributes"))
	parts := strings.Split(path, "/")
	for _, p := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, p)
		candidates = append(candidates, filepath.Join(dir, ".gitattributes"))
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		candidates = append(candidates, filepath.Join(x, "git", "attributes"))
	}
	if h, err := os.UserHomeDir(); err == nil {
		candidates = append(candidates, filepath.Join(h, ".config", "git", "attributes"))
	}
	if cfg, err := r.r.Config(); err == nil {
		if v, err := cfg.LookupString("core.attributesFile"); err == nil && v != "" {
			if rest, ok := strings.CutPrefix(v, "~/"); ok {
				if h, err := os.UserHomeDir(); err == nil {
					v = filepath.Join(h, rest)
				}
			}
			if !filepath.IsAbs(v) {
				v = filepath.Join(r.root, v)
			}
			candidates = append(candidates, v)
		}
		cfg.Free()
	}
	var files []string
	for _, c := range candidates {
		if _, err := os.Stat(c); err == nil {
			files = append(files, c)
		}
	}
	return files
}
