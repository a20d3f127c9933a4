package spec

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"lukechampine.com/blake3"

	"github.com/gloss-dev/gloss/gitops"
)

// File is one file of a Tree.
type File struct {
	Path      string
	Blob      string // git blob id when it is known to match the content ("" for modified or untracked files)
	Untracked bool
}

// Tree is the set of files specs are matched against: a commit's tree, or
// the working tree (tracked files plus untracked files that are not
// ignored; files deleted from the working tree are listed apart).
type Tree struct {
	Rev      string   // the commit, or "" for the working tree
	Files    []File   // sorted by path
	Deleted  []string // in the commit the working tree was compared with, but gone from it
	repo     *gitops.Repo
	root     string
	byPath   map[string]int
	hashMu   sync.Mutex
	hashMemo map[string]string

	layoutOnce sync.Once
	layout     Layout
	layoutErr  error
}

// Lookup returns the file at p.
func (t *Tree) Lookup(p string) (File, bool) {
	i, ok := t.byPath[p]
	if !ok {
		return File{}, false
	}
	return t.Files[i], true
}

// Has reports whether p exists in the tree.
func (t *Tree) Has(p string) bool { _, ok := t.byPath[p]; return ok }

// WorktreeTree lists the working tree of repo and how it differs from
// rev (a commit id; "" for a branch with no commit yet). One stat pass
// over the working tree does both: the files are rev's tree, changed by
// `git diff --name-status -M rev` (modified, added, deleted, renamed) plus
// the untracked files that are not ignored. Files the diff does not name
// have rev's content, so their git blob id is known without reading them.
func WorktreeTree(ctx context.Context, repo *gitops.Repo, rev string) (*Tree, []gitops.Change, error) {
	if repo.IsBare() {
		return nil, nil, fmt.Errorf("specs need a working tree; this repository is bare")
	}
	if rev == "" {
		return worktreeUnborn(ctx, repo)
	}
	var (
		diff, others []byte
		entries      []gitops.TreeEntry
		err1, err2   error
		err3         error
		wg           sync.WaitGroup
	)
	wg.Add(3)
	go func() {
		defer wg.Done()
		diff, err1 = repo.Git(ctx, "diff", "--name-status", "-z", "-M", "--no-ext-diff", rev, "--")
	}()
	go func() {
		defer wg.Done()
		others, err2 = repo.Git(ctx, "ls-files", "-z", "-o", "--exclude-standard")
	}()
	go func() {
		defer wg.Done()
		entries, err3 = repo.ListFiles(rev, "")
	}()
	wg.Wait()
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			return nil, nil, fmt.Errorf("list the working tree: %w", err)
		}
	}
	t := &Tree{repo: repo, root: repo.Root()}
	changes := parseNameStatus(diff)
	// What the diff says about each path: gone, or content unknown.
	gone := map[string]bool{}
	dirty := map[string]bool{}
	for _, c := range changes {
		switch c.Status {
		case gitops.Deleted:
			gone[c.Path] = true
			t.Deleted = append(t.Deleted, c.Path)
		case gitops.Renamed:
			gone[c.OldPath] = true
			dirty[c.Path] = true
		default:
			dirty[c.Path] = true
		}
	}
	// rev's files in tree order (byte order of paths, as git sorts them),
	// then the new ones merged in.
	t.Files = make([]File, 0, len(entries)+len(dirty))
	inTree := make(map[string]bool, len(dirty))
	for _, e := range entries {
		if e.Mode == 0o160000 || gone[e.Path] {
			continue
		}
		f := File{Path: e.Path, Blob: e.ID}
		if dirty[e.Path] {
			f.Blob = ""
			inTree[e.Path] = true
		}
		t.Files = append(t.Files, f)
	}
	var extra []File
	for p := range dirty {
		if !inTree[p] {
			extra = append(extra, File{Path: p})
		}
	}
	for _, p := range splitZ(others) {
		if strings.HasSuffix(p, "/") {
			continue // an untracked repository inside this one
		}
		extra = append(extra, File{Path: p, Untracked: true})
		changes = append(changes, gitops.Change{Status: gitops.Untracked, Path: p})
	}
	t.Files = append(t.Files, extra...)
	t.finish()
	return t, changes, nil
}

// parseNameStatus reads `git diff --name-status -z` output.
func parseNameStatus(out []byte) []gitops.Change {
	f := splitZ(out)
	var changes []gitops.Change
	for i := 0; i < len(f); i++ {
		st := f[i]
		if st == "" {
			continue
		}
		switch st[0] {
		case 'R', 'C':
			if i+2 >= len(f) {
				return changes
			}
			status := gitops.Renamed
			if st[0] == 'C' {
				status = gitops.Copied
			}
			changes = append(changes, gitops.Change{Status: status, OldPath: f[i+1], Path: f[i+2]})
			i += 2
		default:
			if i+1 >= len(f) {
				return changes
			}
			status := gitops.Modified
			switch st[0] {
			case 'A':
				status = gitops.Added
			case 'D':
				status = gitops.Deleted
			case 'T':
				status = gitops.TypeChange
			}
			changes = append(changes, gitops.Change{Status: status, Path: f[i+1]})
			i++
		}
	}
	return changes
}

// worktreeUnborn lists the working tree of a branch with no commit: the
// index and untracked files, every one of them new.
func worktreeUnborn(ctx context.Context, repo *gitops.Repo) (*Tree, []gitops.Change, error) {
	out, err := repo.Git(ctx, "ls-files", "-z", "-t", "-c", "-o", "--exclude-standard")
	if err != nil {
		return nil, nil, fmt.Errorf("list the working tree: %w", err)
	}
	t := &Tree{repo: repo, root: repo.Root()}
	var changes []gitops.Change
	seen := map[string]bool{}
	for _, rec := range splitZ(out) {
		if len(rec) < 3 {
			continue
		}
		tag, p := rec[0], rec[2:]
		if seen[p] || strings.HasSuffix(p, "/") {
			continue
		}
		seen[p] = true
		if _, err := os.Lstat(filepath.Join(t.root, filepath.FromSlash(p))); err != nil {
			continue
		}
		untracked := tag == '?'
		t.Files = append(t.Files, File{Path: p, Untracked: untracked})
		status := gitops.Added
		if untracked {
			status = gitops.Untracked
		}
		changes = append(changes, gitops.Change{Status: status, Path: p})
	}
	t.finish()
	return t, changes, nil
}

// CommitTree lists the files of a commit.
func CommitTree(repo *gitops.Repo, rev string) (*Tree, error) {
	id, err := repo.ResolveCommit(rev)
	if err != nil {
		return nil, err
	}
	entries, err := repo.ListFiles(id, "")
	if err != nil {
		return nil, err
	}
	t := &Tree{Rev: id, repo: repo, byPath: map[string]int{}}
	for _, e := range entries {
		if e.Mode == 0o160000 {
			continue
		}
		t.Files = append(t.Files, File{Path: e.Path, Blob: e.ID})
	}
	t.finish()
	return t, nil
}

func (t *Tree) finish() {
	byPath := func(a, b File) int { return strings.Compare(a.Path, b.Path) }
	if !slices.IsSortedFunc(t.Files, byPath) {
		slices.SortFunc(t.Files, byPath)
	}
	slices.Sort(t.Deleted)
	t.byPath = make(map[string]int, len(t.Files))
	for i, f := range t.Files {
		t.byPath[f.Path] = i
	}
	t.hashMemo = map[string]string{}
}

func splitZ(out []byte) []string {
	var res []string
	for _, part := range bytes.Split(out, []byte{0}) {
		if len(part) > 0 {
			res = append(res, string(part))
		}
	}
	return res
}

// ReadFile returns a file's content.
func (t *Tree) ReadFile(p string) ([]byte, error) {
	f, ok := t.Lookup(p)
	if !ok {
		return nil, fmt.Errorf("%s: %w", p, os.ErrNotExist)
	}
	if t.Rev != "" {
		return t.repo.ReadBlob(f.Blob)
	}
	full := filepath.Join(t.root, filepath.FromSlash(p))
	st, err := os.Lstat(full)
	if err != nil {
		return nil, err
	}
	if st.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(full)
		return []byte(target), err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	return os.ReadFile(full)
}

// hashFile is the lowercase hex BLAKE3 of a file's content, streamed.
func (t *Tree) hashFile(p string) (string, error) {
	if t.Rev != "" {
		data, err := t.ReadFile(p)
		if err != nil {
			return "", err
		}
		return HashBytes(data), nil
	}
	full := filepath.Join(t.root, filepath.FromSlash(p))
	st, err := os.Lstat(full)
	if err != nil {
		return "", err
	}
	if st.Mode()&os.ModeSymlink != 0 || !st.Mode().IsRegular() {
		data, err := t.ReadFile(p)
		if err != nil {
			return "", err
		}
		return HashBytes(data), nil
	}
	f, err := os.Open(full)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := blake3.New(32, nil)
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// HashBytes is the lowercase hex BLAKE3-256 of data, as NotarAI writes it.
func HashBytes(data []byte) string {
	sum := blake3.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Hashes returns the BLAKE3 of each path, hashing on every core. Paths
// that cannot be read are returned in failed with the reason; they are
// never silently treated as changed or unchanged.
func (t *Tree) Hashes(paths []string) (hashes map[string]string, failed map[string]error) {
	hashes = make(map[string]string, len(paths))
	failed = map[string]error{}
	var todo []string
	t.hashMu.Lock()
	for _, p := range paths {
		if h, ok := t.hashMemo[p]; ok {
			hashes[p] = h
		} else {
			todo = append(todo, p)
		}
	}
	t.hashMu.Unlock()
	if len(todo) == 0 {
		return hashes, failed
	}
	workers := min(runtime.GOMAXPROCS(0), len(todo))
	type result struct {
		p, h string
		err  error
	}
	jobs := make(chan string)
	results := make(chan result, len(todo))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range jobs {
				h, err := t.hashFile(p)
				results <- result{p, h, err}
			}
		}()
	}
	for _, p := range todo {
		jobs <- p
	}
	close(jobs)
	wg.Wait()
	close(results)
	t.hashMu.Lock()
	defer t.hashMu.Unlock()
	for r := range results {
		if r.err != nil {
			failed[r.p] = r.err
			continue
		}
		hashes[r.p] = r.h
		t.hashMemo[r.p] = r.h
	}
	return hashes, failed
}

// Glob expands a pattern set to the files of the tree, sorted.
func (t *Tree) Glob(set GlobSet) []string {
	var out []string
	for _, f := range t.Files {
		if set.Match(f.Path) {
			out = append(out, f.Path)
		}
	}
	return out
}
