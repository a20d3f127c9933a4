package gitops

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	git "github.com/libgit2/git2go/v34"

	"github.com/gloss-dev/gloss/atomicfile"
)

// The blame cache makes `read` cheaper than the `git blame -L` it would
// otherwise run: whole-file blames are kept under <git dir>/gloss/blame,
// keyed by the commit that last changed the file, and the post-commit hook
// derives the new commit's blames from its parent's by passing attribution
// through the commit's diff — the same step git blame itself takes for a
// single-parent commit. Results are identical to Blame; the test suite
// checks that line by line over every file of generated histories.
//
// Equality with git blame relies on using git's own diff with blame's
// settings: Myers (blame ignores diff.algorithm) and the configured indent
// heuristic (blame honours diff.indentHeuristic). When blame is configured
// to ignore revisions (blame.ignoreRevsFile, blame.ignoreRevs) the cache
// steps aside and every call runs git blame.

const (
	blameCacheDir     = "blame"
	blameCacheVersion = "gloss-blame v1"
	// blameCacheMax bounds the number of cached blames; past it the least
	// recently used are dropped.
	blameCacheMax = 4000
	// maxPositionWalk bounds the search for the commit that last changed a
	// file; past it gloss blames at the commit reached.
	maxPositionWalk = 5000
)

// BlameCached is Blame served from the blame cache when it can be. Results
// are the same as Blame's, for committed revisions and for the working tree
// (rev "").
func (r *Repo) BlameCached(ctx context.Context, rev, path string, start, end int) (*Blame, error) {
	wait, settle := r.StartBlameCached(ctx, rev, path, start, end)
	defer settle()
	return wait()
}

// StartBlameCached is BlameCached in steps: it does what needs the
// repository handle now, and when it must run git blame (a cache miss),
// runs it in a goroutine; wait returns the result. Between the two the
// caller may go on using the repository: the goroutine only waits for git
// and writes the cache. settle waits for the background fill a range
// blame hands over to have started; call it before the process may exit.
func (r *Repo) StartBlameCached(ctx context.Context, rev, path string, start, end int) (wait func() (*Blame, error), settle func()) {
	b, job, err := r.planBlame(ctx, rev, path, start, end)
	if job == nil {
		return func() (*Blame, error) { return b, err }, func() {}
	}
	done, settled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(settled)
		var handOver func()
		b, handOver, err = job()
		close(done)
		if handOver != nil {
			handOver()
		}
	}()
	return func() (*Blame, error) {
			<-done
			return b, err
		}, func() {
			<-settled
		}
}

// planBlame answers a cached blame at once, or returns the job that
// answers it by running git (a job touches no libgit2 handle).
func (r *Repo) planBlame(ctx context.Context, rev, path string, start, end int) (*Blame, blameJob, error) {
	path = cleanRepoPath(path)
	if r.blameCacheBypassed(ctx) {
		return nil, func() (*Blame, func(), error) {
			b, err := r.Blame(ctx, rev, path, start, end)
			return b, nil, err
		}, nil
	}
	if rev == "" {
		return r.planWorktree(ctx, path, start, end)
	}
	commit, err := r.ResolveCommit(rev)
	if err != nil {
		return nil, nil, err
	}
	key, err := r.blamePosition(commit, path)
	if err != nil {
		return nil, nil, err
	}
	if e := r.loadBlame(key, path); e != nil {
		b, err := e.slice(start, end)
		return b, nil, err
	}
	if job := r.rangeJob(ctx, commit, key, path, start, end); job != nil {
		return nil, job, nil
	}
	return nil, func() (*Blame, func(), error) {
		e, err := r.fillAt(ctx, key, path)
		if err != nil {
			return nil, nil, err
		}
		b, err := e.slice(start, end)
		return b, nil, err
	}, nil
}

// blameJob runs git blame for a planned blame: it returns the blame and,
// when it leaves work to hand over, the function that hands it over.
type blameJob func() (b *Blame, handOver func(), err error)

// blameCacheBypassed reports whether git blame is configured in a way the
// cache does not reproduce (ignored revisions), or gloss.blameCache is
// false. It reads config in-process: this check runs on every cached blame.
func (r *Repo) blameCacheBypassed(context.Context) bool {
	cfg, err := r.r.Config()
	if err != nil {
		return true
	}
	defer cfg.Free()
	if on, err := cfg.LookupBool("gloss.blameCache"); err == nil && !on {
		return true
	}
	for _, key := range []string{"blame.ignoreRevsFile", "blame.ignoreRevs"} {
		if v, err := cfg.LookupString(key); err == nil && v != "" {
			return true
		}
	}
	return false
}

// fillAt blames path at key, the commit that last changed it, whole, and
// caches the result.
func (r *Repo) fillAt(ctx context.Context, key, path string) (*blameEntry, error) {
	b, err := r.Blame(ctx, key, path, 0, 0)
	if err != nil {
		return nil, err
	}
	e := entryFromBlame(b)
	r.storeBlame(key, path, e)
	return e, nil
}

// blamePosition finds the commit whose blame of path equals commit's: it
// follows first parents while each commit has one parent holding the same
// version of the file (git blame passes every line of such a commit to its
// parent). It stops at the commit that changed the file, a merge, or a root.
// Positions found by a long walk are remembered, so the next lookup from a
// descendant is short.
func (r *Repo) blamePosition(commit, path string) (string, error) {
	id, err := oid(commit)
	if err != nil {
		return "", err
	}
	c, err := r.r.LookupCommit(id)
	if err != nil {
		return "", fmt.Errorf("read commit %s: %w", commit, err)
	}
	blob, ok := blobAt(c, path)
	if !ok {
		c.Free()
		return "", fmt.Errorf("%s at %s: %w", path, ShortID(commit), ErrNotFound)
	}
	steps := 0
	for {
		cur := c.Id().String()
		if k, ok := r.loadPosition(cur, path); ok {
			c.Free()
			if steps > 0 {
				r.storePosition(commit, path, k)
			}
			return k, nil
		}
		if c.ParentCount() != 1 || steps >= maxPositionWalk {
			break
		}
		p := c.Parent(0)
		if p == nil {
			break
		}
		pb, ok := blobAt(p, path)
		if !ok || pb != blob {
			p.Free()
			break
		}
		c.Free()
		c = p
		steps++
	}
	key := c.Id().String()
	c.Free()
	if steps > 8 {
		r.storePosition(commit, path, key)
	}
	return key, nil
}

func blobAt(c *git.Commit, path string) (string, bool) {
	t, err := c.Tree()
	if err != nil {
		return "", false
	}
	defer t.Free()
	e, err := t.EntryByPath(path)
	if err != nil || e.Type != git.ObjectBlob {
		return "", false
	}
	return e.Id.String(), true
}

// UpdateBlameCache derives the blames of the files commit changed from its
// parent's cached blames, so that reading them stays fast. Files whose
// parent blame is not cached are left for the first read. Merges and root
// commits are skipped (their blame combines several parents). The
// post-commit hook calls this; it runs git's diff only for the files it can
// derive, and no git at all when there are none.
func (r *Repo) UpdateBlameCache(ctx context.Context, commit string) error {
	if r.blameCacheBypassed(ctx) {
		return nil
	}
	c, err := r.LookupCommit(commit)
	if err != nil {
		return err
	}
	if len(c.Parents) != 1 {
		return nil
	}
	parent := c.Parents[0]
	changes, err := r.DiffTrees(parent, c.ID, DiffOptions{NoRenames: true})
	if err != nil {
		return err
	}
	var added, deleted, derive []string
	for _, ch := range changes {
		switch ch.Status {
		case Added:
			added = append(added, ch.Path)
		case Deleted:
			deleted = append(deleted, ch.Path)
		case Modified:
			if key, err := r.blamePosition(parent, ch.Path); err == nil && r.hasBlame(key, ch.Path) {
				derive = append(derive, ch.Path)
			}
		}
	}
	// An added file is new — all its lines are the commit's — unless git
	// pairs it with a deleted one as a rename; only then does git decide.
	if len(deleted) > 0 && len(added) > 0 {
		derive = append(append(derive, added...), deleted...)
		added = nil
	}
	if len(derive) == 0 && len(added) == 0 {
		return nil
	}
	meta, err := r.blameMeta(ctx, c)
	if err != nil {
		return err
	}
	for _, p := range added {
		data, err := r.ReadFile(c.ID, p)
		if err != nil {
			return err
		}
		r.storeBlame(c.ID, p, newFileEntry(c.ID, p, CountLines(data), meta))
	}
	if len(derive) == 0 {
		return nil
	}
	files, err := r.commitDiff(ctx, parent, c.ID, derive, true)
	if err != nil {
		return err
	}
	for _, f := range files {
		if f.newPath == "" || f.binary {
			continue
		}
		var e *blameEntry
		if f.oldPath == "" {
			data, err := r.ReadFile(c.ID, f.newPath)
			if err != nil {
				return err
			}
			e = newFileEntry(c.ID, f.newPath, CountLines(data), meta)
		} else {
			key, err := r.blamePosition(parent, f.oldPath)
			if err != nil {
				continue
			}
			prev := r.loadBlame(key, f.oldPath)
			if prev == nil {
				continue
			}
			e = prev.pass(f.hunks, c.ID, f.newPath, meta)
		}
		r.storeBlame(c.ID, f.newPath, e)
	}
	return nil
}

func (r *Repo) hasBlame(commit, path string) bool {
	_, err := os.Stat(r.blameFile("e", commit, path))
	return err == nil
}

// blameMeta describes commit as git blame does: the author's name (through
// .mailmap when there is one, which only git applies) and the subject as
// %s joins it.
func (r *Repo) blameMeta(ctx context.Context, c *Commit) (BlameCommit, error) {
	if !r.hasMailmap() {
		return BlameCommit{Author: c.AuthorName, AuthorTime: c.AuthorTime.UTC(), Summary: gitSubject(c.Message)}, nil
	}
	out, err := r.Git(ctx, "show", "-s", "--format=%aN%x00%at%x00%s", c.ID)
	if err != nil {
		return BlameCommit{}, err
	}
	f := strings.SplitN(strings.TrimRight(string(out), "\n"), "\x00", 3)
	if len(f) != 3 {
		return BlameCommit{}, fmt.Errorf("describe %s: unexpected output", c.ID)
	}
	sec, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return BlameCommit{}, fmt.Errorf("describe %s: %w", c.ID, err)
	}
	return BlameCommit{Author: f[0], AuthorTime: time.Unix(sec, 0).UTC(), Summary: f[2]}, nil
}

// hasMailmap reports whether author names may be rewritten by a mailmap.
func (r *Repo) hasMailmap() bool {
	if r.root != "" {
		if _, err := os.Stat(filepath.Join(r.root, ".mailmap")); err == nil {
			return true
		}
	}
	cfg, err := r.r.Config()
	if err != nil {
		return true
	}
	defer cfg.Free()
	for _, k := range []string{"mailmap.file", "mailmap.blob"} {
		if v, err := cfg.LookupString(k); err == nil && v != "" {
			return true
		}
	}
	return false
}

// gitSubject is what git's %s prints: the first paragraph of the message,
// its lines joined by spaces.
func gitSubject(msg string) string {
	para, _, _ := strings.Cut(strings.TrimLeft(msg, "\n"), "\n\n")
	return strings.Join(strings.Fields(para), " ")
}

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
	if r.worktreeMatches(head, path) {
		return base.slice(start, end)
	}
	files, err := r.commitDiff(ctx, head, "", []string{path}, false)
	if err != nil {
		return nil, err
	}
	e := base
	for _, f := range files {
		if f.binary {
			return r.Blame(ctx, "", path, start, end)
		}
		if f.newPath == path {
			e = base.pass(f.hunks, Uncommitted, path, BlameCommit{
				Author: "Not Committed Yet", AuthorTime: time.Now().UTC(),
				Summary: "Version of " + path + " from " + path,
			})
		}
	}
	return e.slice(start, end)
}

// worktreeMatches reports whether the working-tree file is, byte for byte,
// the version in head, so that its blame is head's and running git diff
// can be skipped. git compares what its clean conversion makes of the
// file, so the shortcut is taken only when that conversion cannot change
// anything: no attributes file that could name a filter, ident, encoding
// or eol for it, and no carriage return autocrlf could strip.
func (r *Repo) worktreeMatches(head, path string) bool {
	full := filepath.Join(r.root, filepath.FromSlash(path))
	if info, err := os.Lstat(full); err != nil || !info.Mode().IsRegular() {
		return false
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return false
	}
	want, err := r.BlobAt(head, path)
	if err != nil || want == "" {
		return false
	}
	odb, err := r.r.Odb()
	if err != nil {
		return false
	}
	defer odb.Free()
	got, err := odb.Hash(data, git.ObjectBlob)
	if err != nil || got.String() != want {
		return false
	}
	if bytes.IndexByte(data, '\r') >= 0 && r.autocrlf() {
		return false
	}
	return !r.attributesMayConvert(path, data)
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
func (r *Repo) attributesMayConvert(path string, data []byte) bool {
	files := r.attributeFiles(path)
	if len(files) == 0 {
		return false
	}
	if bytes.IndexByte(data, '\r') >= 0 || bytes.Contains(data, []byte("$Id")) {
		return true
	}
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

// fileDiff is one file of a parsed `git diff -U0`.
type fileDiff struct {
	oldPath, newPath string // "" for an added or deleted side
	binary           bool
	hunks            []Hunk
}

// commitDiff runs git's own diff between from and to (to "" is the working
// tree) with the settings blame uses, and parses its hunks.
func (r *Repo) commitDiff(ctx context.Context, from, to string, paths []string, renames bool) ([]fileDiff, error) {
	args := []string{"diff", "-U0", "--no-color", "--no-ext-diff", "--no-textconv", "--diff-algorithm=myers",
		"--src-prefix=a/", "--dst-prefix=b/", "--no-relative"}
	if renames {
		args = append(args, "-M")
	} else {
		args = append(args, "--no-renames")
	}
	args = append(args, from)
	if to != "" {
		args = append(args, to)
	}
	if len(paths) > 0 {
		args = append(append(args, "--"), paths...)
	}
	out, err := r.Git(ctx, args...)
	if err != nil {
		return nil, err
	}
	return parseUnifiedDiff(out)
}

// parseUnifiedDiff reads the file headers and hunk headers of git's diff
// output; the changed lines themselves are not needed.
func parseUnifiedDiff(out []byte) ([]fileDiff, error) {
	var files []fileDiff
	var cur *fileDiff
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case bytes.HasPrefix(line, []byte("diff --git ")):
			files = append(files, fileDiff{})
			cur = &files[len(files)-1]
		case cur == nil:
		case bytes.HasPrefix(line, []byte("--- ")):
			cur.oldPath = diffPath(string(line[4:]), "a/")
		case bytes.HasPrefix(line, []byte("+++ ")):
			cur.newPath = diffPath(string(line[4:]), "b/")
		case bytes.HasPrefix(line, []byte("rename from ")):
			cur.oldPath = unquote(string(line[len("rename from "):]))
		case bytes.HasPrefix(line, []byte("rename to ")):
			cur.newPath = unquote(string(line[len("rename to "):]))
		case bytes.HasPrefix(line, []byte("Binary files ")):
			cur.binary = true
		case bytes.HasPrefix(line, []byte("@@ ")):
			h, err := parseHunkHeader(string(line))
			if err != nil {
				return nil, err
			}
			cur.hunks = append(cur.hunks, h)
		}
	}
	return files, sc.Err()
}

func diffPath(s, prefix string) string {
	if s == "/dev/null" {
		return ""
	}
	s = unquote(s)
	return strings.TrimPrefix(s, prefix)
}

// unquote undoes git's C-style quoting of unusual paths.
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

// parseHunkHeader reads "@@ -a[,b] +c[,d] @@".
func parseHunkHeader(line string) (Hunk, error) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return Hunk{}, fmt.Errorf("bad hunk header %q", line)
	}
	os, ol, err1 := rangeOf(strings.TrimPrefix(f[1], "-"))
	ns, nl, err2 := rangeOf(strings.TrimPrefix(f[2], "+"))
	if err1 != nil || err2 != nil {
		return Hunk{}, fmt.Errorf("bad hunk header %q", line)
	}
	return Hunk{OldStart: os, OldLines: ol, NewStart: ns, NewLines: nl}, nil
}

func rangeOf(s string) (start, count int, err error) {
	a, b, found := strings.Cut(s, ",")
	if start, err = strconv.Atoi(a); err != nil {
		return 0, 0, err
	}
	count = 1
	if found {
		count, err = strconv.Atoi(b)
	}
	return start, count, err
}

// blameEntry is a whole-file blame, stored as runs of lines that share a
// commit and have consecutive original line numbers.
type blameEntry struct {
	lines   int
	runs    []blameRun
	commits []string
	paths   []string
	meta    map[string]BlameCommit
}

type blameRun struct {
	start, count, commit, origStart, path int // commit and path index the tables
}

func entryFromBlame(b *Blame) *blameEntry {
	e := &blameEntry{meta: map[string]BlameCommit{}}
	ci, pi := map[string]int{}, map[string]int{}
	index := func(tab *[]string, idx map[string]int, v string) int {
		if i, ok := idx[v]; ok {
			return i
		}
		idx[v] = len(*tab)
		*tab = append(*tab, v)
		return idx[v]
	}
	for _, l := range b.Lines {
		c := index(&e.commits, ci, l.Commit)
		p := index(&e.paths, pi, l.OrigPath)
		if n := len(e.runs); n > 0 {
			last := &e.runs[n-1]
			if last.commit == c && last.path == p && last.start+last.count == l.Line && last.origStart+last.count == l.OrigLine {
				last.count++
				continue
			}
		}
		e.runs = append(e.runs, blameRun{start: l.Line, count: 1, commit: c, origStart: l.OrigLine, path: p})
	}
	e.lines = len(b.Lines)
	for c, m := range b.Commits {
		e.meta[c] = m
	}
	return e
}

func newFileEntry(commit, path string, lines int, meta BlameCommit) *blameEntry {
	e := &blameEntry{lines: lines, commits: []string{commit}, paths: []string{path}, meta: map[string]BlameCommit{commit: meta}}
	if lines > 0 {
		e.runs = []blameRun{{start: 1, count: lines, commit: 0, origStart: 1, path: 0}}
	}
	return e
}

// pass derives the blame of the new version of a file from e, the blame of
// its old version, and the hunks between them: lines outside the hunks
// keep their attribution (shifted to their new line numbers), lines a hunk
// added belong to commit, at their own line numbers in path.
func (e *blameEntry) pass(hunks []Hunk, commit, path string, meta BlameCommit) *blameEntry {
	old := e.expand()
	var out []BlameLine
	oldLine := 1 // next old line not yet placed
	add := func(b BlameLine) {
		b.Line = len(out) + 1
		out = append(out, b)
	}
	for _, h := range hunks {
		// unchanged lines before the hunk's old side
		oldEnd := h.OldStart // lines < OldStart are before the change (OldStart is the line after which a pure insertion goes)
		if h.OldLines > 0 {
			oldEnd = h.OldStart - 1
		}
		for ; oldLine <= oldEnd && oldLine <= len(old); oldLine++ {
			add(old[oldLine-1])
		}
		oldLine += h.OldLines
		for i := 0; i < h.NewLines; i++ {
			add(BlameLine{Commit: commit, OrigLine: h.NewStart + i, OrigPath: path})
		}
	}
	for ; oldLine <= len(old); oldLine++ {
		add(old[oldLine-1])
	}
	b := &Blame{Lines: out, Commits: map[string]BlameCommit{}}
	for c, m := range e.meta {
		b.Commits[c] = m
	}
	b.Commits[commit] = meta
	n := entryFromBlame(b)
	n.dropUnusedMeta()
	return n
}

func (e *blameEntry) dropUnusedMeta() {
	used := map[string]bool{}
	for _, r := range e.runs {
		used[e.commits[r.commit]] = true
	}
	for c := range e.meta {
		if !used[c] {
			delete(e.meta, c)
		}
	}
}

func (e *blameEntry) expand() []BlameLine {
	out := make([]BlameLine, 0, e.lines)
	for _, r := range e.runs {
		for i := 0; i < r.count; i++ {
			out = append(out, BlameLine{Line: r.start + i, Commit: e.commits[r.commit], OrigLine: r.origStart + i, OrigPath: e.paths[r.path]})
		}
	}
	return out
}

// slice returns lines start..end (0,0 for all) as a Blame, with the
// metadata of the commits those lines name.
func (e *blameEntry) slice(start, end int) (*Blame, error) {
	if start <= 0 {
		start, end = 1, e.lines
	}
	if end < start {
		end = start
	}
	if start > e.lines {
		return nil, fmt.Errorf("blame: line %d is past the end of the file (%d lines)", start, e.lines)
	}
	end = min(end, e.lines)
	b := &Blame{Commits: map[string]BlameCommit{}}
	i := sort.Search(len(e.runs), func(i int) bool { return e.runs[i].start+e.runs[i].count > start })
	for ; i < len(e.runs) && e.runs[i].start <= end; i++ {
		r := e.runs[i]
		c := e.commits[r.commit]
		b.Commits[c] = e.meta[c]
		for l := max(r.start, start); l < r.start+r.count && l <= end; l++ {
			b.Lines = append(b.Lines, BlameLine{Line: l, Commit: c, OrigLine: r.origStart + (l - r.start), OrigPath: e.paths[r.path]})
		}
	}
	return b, nil
}

// Storage: one file per (commit, path) under <git dir>/gloss/blame, in a
// small line format that loads in well under a millisecond.

func cacheKey(commit, path string) string {
	h := sha1.Sum([]byte(commit + "\x00" + path))
	return hex.EncodeToString(h[:])
}

func (r *Repo) blameFile(kind, commit, path string) string {
	k := cacheKey(commit, path)
	return filepath.Join(r.commonDir, "gloss", blameCacheDir, kind, k[:2], k[2:])
}

func (r *Repo) loadBlame(commit, path string) *blameEntry {
	p := r.blameFile("e", commit, path)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	e, err := decodeEntry(data)
	if err != nil {
		_ = os.Remove(p) // unreadable: drop it and blame afresh
		return nil
	}
	now := time.Now()
	_ = os.Chtimes(p, now, now) // least recently used goes first
	return e
}

func (r *Repo) storeBlame(commit, path string, e *blameEntry) {
	p := r.blameFile("e", commit, path)
	if err := atomicfile.Write(p, e.encode(), 0o644); err == nil {
		r.trimBlameCache()
	}
}

func (r *Repo) loadPosition(commit, path string) (string, bool) {
	data, err := os.ReadFile(r.blameFile("p", commit, path))
	if err != nil || len(data) < 40 {
		return "", false
	}
	return string(data[:40]), true
}

func (r *Repo) storePosition(commit, path, key string) {
	_ = atomicfile.Write(r.blameFile("p", commit, path), []byte(key+"\n"), 0o644)
}

// trimBlameCache keeps the cache under blameCacheMax entries, dropping the
// least recently used. It runs on a small fraction of writes.
func (r *Repo) trimBlameCache() {
	if time.Now().UnixNano()%64 != 0 {
		return
	}
	type f struct {
		path string
		mod  time.Time
	}
	var all []f
	root := filepath.Join(r.commonDir, "gloss", blameCacheDir)
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil {
			all = append(all, f{p, info.ModTime()})
		}
		return nil
	})
	if len(all) <= blameCacheMax {
		return
	}
	sort.Slice(all, func(i, j int) bool { return all[i].mod.Before(all[j].mod) })
	for _, x := range all[:len(all)-blameCacheMax*3/4] {
		_ = os.Remove(x.path)
	}
}

func (e *blameEntry) encode() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\nn %d\n", blameCacheVersion, e.lines)
	for _, c := range e.commits {
		m := e.meta[c]
		fmt.Fprintf(&b, "c %s %d %s\t%s\n", c, m.AuthorTime.Unix(), strconv.Quote(m.Author), strconv.Quote(m.Summary))
	}
	for _, p := range e.paths {
		fmt.Fprintf(&b, "p %s\n", strconv.Quote(p))
	}
	for _, r := range e.runs {
		fmt.Fprintf(&b, "r %d %d %d %d %d\n", r.start, r.count, r.commit, r.origStart, r.path)
	}
	return b.Bytes()
}

var errBadEntry = errors.New("bad blame cache entry")

func decodeEntry(data []byte) (*blameEntry, error) {
	e := &blameEntry{meta: map[string]BlameCommit{}}
	lines := bytes.Split(data, []byte{'\n'})
	if len(lines) < 2 || string(lines[0]) != blameCacheVersion {
		return nil, errBadEntry
	}
	for _, raw := range lines[1:] {
		if len(raw) < 2 {
			continue
		}
		line := string(raw[2:])
		switch raw[0] {
		case 'n':
			n, err := strconv.Atoi(line)
			if err != nil {
				return nil, errBadEntry
			}
			e.lines = n
		case 'c':
			id, rest, _ := strings.Cut(line, " ")
			ts, rest, _ := strings.Cut(rest, " ")
			author, summary, _ := strings.Cut(rest, "\t")
			sec, err1 := strconv.ParseInt(ts, 10, 64)
			a, err2 := strconv.Unquote(author)
			s, err3 := strconv.Unquote(summary)
			if err1 != nil || err2 != nil || err3 != nil {
				return nil, errBadEntry
			}
			e.commits = append(e.commits, id)
			e.meta[id] = BlameCommit{Author: a, AuthorTime: time.Unix(sec, 0).UTC(), Summary: s}
		case 'p':
			p, err := strconv.Unquote(line)
			if err != nil {
				return nil, errBadEntry
			}
			e.paths = append(e.paths, p)
		case 'r':
			var v [5]int
			f := strings.Fields(line)
			if len(f) != 5 {
				return nil, errBadEntry
			}
			for i := range v {
				n, err := strconv.Atoi(f[i])
				if err != nil {
					return nil, errBadEntry
				}
				v[i] = n
			}
			r := blameRun{start: v[0], count: v[1], commit: v[2], origStart: v[3], path: v[4]}
			if r.commit >= len(e.commits) || r.path >= len(e.paths) {
				return nil, errBadEntry
			}
			e.runs = append(e.runs, r)
		}
	}
	return e, nil
}

// LoadCached returns what StoreCached kept under kind and key, or nil. It
// lets the layers above keep their own rebuildable results (the outline of
// a file version, for one) beside the blames, under the same size bound.
func (r *Repo) LoadCached(kind, key string) []byte {
	p := r.blameFile("x"+kind, key, "")
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	now := time.Now()
	_ = os.Chtimes(p, now, now) // least recently used goes first
	return data
}

// StoreCached keeps data under kind and key; a failure only costs the next
// reader the work again.
func (r *Repo) StoreCached(kind, key string, data []byte) {
	if err := atomicfile.Write(r.blameFile("x"+kind, key, ""), data, 0o644); err == nil {
		r.trimBlameCache()
	}
}
