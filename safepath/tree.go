package safepath

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/fault"
)

// Tree is the one resolver for paths into a repository's working tree.
// Every front door (CLI flags, MCP arguments, committed config, hooks)
// hands its paths to the same Tree, so the same input gets the same answer
// everywhere, by construction.
//
// Resolve follows symlinks one component at a time, the way the kernel
// would, but inside the tree: a link may point anywhere within the working
// tree, never outside it and never into a git directory (.git, a linked
// worktree's or a submodule's git dir, or the repository's own git dir
// wherever it lives). The result names the file's real location with no
// symlink left in it, so what is checked is what is opened.
//
// Writes go through atomicfile (temporary file, fsync, rename, fsync of the
// directory) and read-modify-write cycles through Update, under a per-file
// lock kept beneath the git dir.
type Tree struct {
	dir     string // the working tree, absolute, symlinks resolved
	root    *os.Root
	gitDirs []string // absolute, symlinks resolved: no path may reach them
	locks   string   // directory of per-file lock files
	durable bool     // sync every write to stable storage (see SetDurable)
}

// maxHops bounds symlink chains, as the kernel's ELOOP does.
const maxHops = 40

// ErrLoop is returned for a symlink chain that does not end.
var ErrLoop = errors.New("too many levels of symbolic links")

// OpenTree opens the working tree at dir. gitDirs are the git directories
// that no path may reach (the repository's git dir and common dir); any
// directory named .git inside the tree is refused as well. locks is the
// directory for lock files (under the git dir, so they are never
// committed).
func OpenTree(dir string, locks string, gitDirs ...string) (*Tree, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, err
	}
	t := &Tree{dir: real, root: root, locks: locks}
	for _, g := range gitDirs {
		if g == "" {
			continue
		}
		if r, err := filepath.EvalSymlinks(g); err == nil {
			g = r
		}
		if a, err := filepath.Abs(g); err == nil {
			t.gitDirs = append(t.gitDirs, a)
		}
	}
	return t, nil
}

// OpenWorkTree opens the working tree at dir, finding its git directories
// from dir/.git itself: a directory, or a "gitdir:" file (a linked worktree
// or a submodule) and the "commondir" it names. Locks go under the common
// git dir. For a tree with no .git at all, nothing but the .git name rule
// guards it and locks go to dir/.git/gloss/locks.
func OpenWorkTree(dir string) (*Tree, error) {
	dot := filepath.Join(dir, ".git")
	gitDir, common := dot, dot
	if data, err := os.ReadFile(dot); err == nil {
		if g, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:"); ok {
			gitDir = strings.TrimSpace(g)
			if !filepath.IsAbs(gitDir) {
				gitDir = filepath.Join(dir, gitDir)
			}
			common = gitDir
			if c, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
				common = strings.TrimSpace(string(c))
				if !filepath.IsAbs(common) {
					common = filepath.Join(gitDir, common)
				}
			}
		}
	}
	return OpenTree(dir, filepath.Join(common, "gloss", "locks"), gitDir, common)
}

// SetDurable makes every write of the tree survive a power loss too
// (fdatasync of the data, fsync of the directory after the rename).
// Without it writes are still atomic and ordered, which is all a killed
// process needs.
func (t *Tree) SetDurable(on bool) { t.durable = on }

// Durable reports whether writes are synced to stable storage.
func (t *Tree) Durable() bool { return t.durable }

// Close releases the tree.
func (t *Tree) Close() error { return t.root.Close() }

// Dir is the working tree's real absolute path.
func (t *Tree) Dir() string { return t.dir }

// Root is an os.Root of the working tree, for callers that open resolved
// paths themselves.
func (t *Tree) Root() *os.Root { return t.root }

// Resolve validates p — relative to the tree, or absolute inside it — and
// returns its real location as a clean slash-separated path relative to
// the tree. Components that do not exist yet are taken as they are (a
// file about to be created). Refused, as fault.Usage errors: what Clean
// refuses, symlinks leading outside the tree, anything whose real location
// is inside a git directory, and symlink loops.
func (t *Tree) Resolve(p string) (string, error) {
	rel, err := Clean(t.dir, p)
	if err != nil {
		return "", err
	}
	real, err := t.follow(rel)
	if err != nil {
		return "", refuse(p, err)
	}
	if err := t.checkGitDir(real); err != nil {
		return "", refuse(p, err)
	}
	return real, nil
}

// ResolveIn is Resolve for a path that must stay inside scope, a folder
// relative to the tree (the store an operation owns: the notebook, the
// task folder). p is relative to scope. The result is relative to the tree.
func (t *Tree) ResolveIn(scope, p string) (string, error) {
	realScope, err := t.Resolve(scope)
	if err != nil {
		return "", err
	}
	if filepath.IsAbs(p) {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", refuse(p, ErrEscape)
		}
		p = abs
	} else {
		if _, err := Clean(t.dir, p); err != nil {
			return "", err
		}
		p = path.Join(scope, filepath.ToSlash(p))
	}
	real, err := t.Resolve(p)
	if err != nil {
		return "", err
	}
	if !Within(real, realScope) {
		return "", refuse(p, ErrEscape)
	}
	return real, nil
}

// Within reports whether the clean relative path rel is dir or below it.
func Within(rel, dir string) bool {
	return dir == "." || rel == dir || strings.HasPrefix(rel, dir+"/")
}

// follow resolves every symlink in rel, component by component, and
// returns the real relative path. It never leaves the tree.
func (t *Tree) follow(rel string) (string, error) {
	if rel == "." {
		return ".", nil
	}
	todo := strings.Split(rel, "/")
	var done []string
	hops := 0
	for len(todo) > 0 {
		comp := todo[0]
		todo = todo[1:]
		switch comp {
		case ".", "":
			continue
		case "..":
			if len(done) == 0 {
				return "", ErrEscape
			}
			done = done[:len(done)-1]
			continue
		}
		cur := path.Join(append(append([]string{}, done...), comp)...)
		st, err := t.root.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && st.Mode()&fs.ModeSymlink == 0) {
			// Missing components stay as given; the rest cannot be links.
			done = append(done, comp)
			if err != nil {
				done = append(done, todo...)
				return cleanJoin(done)
			}
			continue
		}
		if err != nil {
			return "", err
		}
		if hops++; hops > maxHops {
			return "", ErrLoop
		}
		target, err := t.root.Readlink(cur)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			r, err := filepath.Rel(t.dir, filepath.Clean(target))
			if err != nil || r == ".." || strings.HasPrefix(r, "../") {
				return "", ErrEscape
			}
			done = nil
			target = filepath.ToSlash(r)
		}
		todo = append(strings.Split(filepath.ToSlash(target), "/"), todo...)
	}
	return cleanJoin(done)
}

func cleanJoin(parts []string) (string, error) {
	if len(parts) == 0 {
		return ".", nil
	}
	p := path.Clean(strings.Join(parts, "/"))
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", ErrEscape
	}
	return p, nil
}

// checkGitDir refuses a real path that is, or is inside, a git directory.
func (t *Tree) checkGitDir(real string) error {
	for _, part := range strings.Split(real, "/") {
		if strings.EqualFold(part, ".git") {
			return ErrGitDir
		}
	}
	abs := filepath.Join(t.dir, filepath.FromSlash(real))
	for _, g := range t.gitDirs {
		if abs == g || strings.HasPrefix(abs, g+string(filepath.Separator)) {
			return ErrGitDir
		}
	}
	return nil
}

// ReadFile reads the file at p (resolved first). limit bounds how much is
// read; 0 means no bound. A missing file is fault.NotFound, and also
// fs.ErrNotExist to errors.Is.
func (t *Tree) ReadFile(p string, limit int64) ([]byte, error) {
	real, err := t.Resolve(p)
	if err != nil {
		return nil, err
	}
	return t.ReadReal(real, limit)
}

// ReadReal reads a path Resolve returned.
func (t *Tree) ReadReal(real string, limit int64) ([]byte, error) {
	data, err := ReadRegular(t.root, real, limit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &fault.Error{Kind: fault.NotFound, Err: noSuchFile(real)}
	}
	return data, err
}

// WriteReal replaces the file at a path Resolve returned, atomically. An
// existing file keeps its permissions; a new one gets mode.
func (t *Tree) WriteReal(real string, data []byte, mode os.FileMode) error {
	if st, err := t.root.Stat(real); err == nil {
		if st.IsDir() {
			return fault.Usagef("%s is a directory", real)
		}
		mode = st.Mode().Perm()
	}
	return atomicfile.WriteVisible(t.root, real, data, mode, t.durable)
}

// WriteFile resolves p and replaces it atomically.
func (t *Tree) WriteFile(p string, data []byte, mode os.FileMode) error {
	real, err := t.Resolve(p)
	if err != nil {
		return err
	}
	return t.WriteReal(real, data, mode)
}

// Lock takes the per-file lock of a resolved path. Every writer of that
// file takes it around its read-modify-write, so none loses another's
// change. The lock lives under the git dir and dies with its holder.
func (t *Tree) Lock(real string) (unlock func(), err error) {
	f, err := t.LockFile(real)
	if err != nil {
		return nil, err
	}
	return func() { f.Close() }, nil
}

// LockFile is Lock returning the locked file itself, for a writer that
// keeps a journal in it; closing the file releases the lock.
func (t *Tree) LockFile(real string) (*os.File, error) {
	if t.locks == "" {
		return nil, errors.New("no lock directory for this working tree")
	}
	return atomicfile.LockFile(t.lockPath(real), syscall.LOCK_EX)
}

// HasJournal reports whether the lock file of real holds a journal, so a
// reader knows it must take the lock and let the writer's recovery run.
func (t *Tree) HasJournal(real string) bool {
	st, err := os.Stat(t.lockPath(real))
	return err == nil && st.Size() > 0
}

func (t *Tree) lockPath(real string) string {
	sum := sha256.Sum256([]byte(real))
	return filepath.Join(t.locks, hex.EncodeToString(sum[:12])+".lock")
}

// noSuchFile is a missing file: fault.NotFound's message, and
// fs.ErrNotExist to errors.Is, so callers need not translate.
type noSuchFile string

func (p noSuchFile) Error() string        { return fault.Quote(string(p)) + ": no such file" }
func (p noSuchFile) Is(target error) bool { return target == fs.ErrNotExist }

// RepoPath validates p as the name of a file in the repository's history
// (the file a record is about), which need not exist in the working tree.
// p is relative to the root (or absolute inside it). Refused as Resolve
// refuses: what Clean refuses (".." escapes, a .git component), and, as
// far as the working tree has its components, a symlink leading out of
// the tree or into a git directory. It returns p clean, as commits name
// it — not where its links lead.
func (t *Tree) RepoPath(p string) (string, error) {
	rel, err := Clean(t.dir, p)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return "", refuse(p, ErrEmpty)
	}
	if _, err := t.Resolve(rel); err != nil {
		return "", err
	}
	return rel, nil
}

// CreateFile writes a new file at p, creating its folders, and refuses
// (fault.Conflict) when something is already there: for the templates
// `spec new` and `doc new` write, which must never replace a person's work.
func (t *Tree) CreateFile(p string, data []byte, mode os.FileMode) (string, error) {
	real, err := t.Resolve(p)
	if err != nil {
		return "", err
	}
	if _, err := t.root.Lstat(real); err == nil {
		return "", fault.Conflictf("%s already exists; gloss does not overwrite it", real)
	}
	if dir := path.Dir(real); dir != "." {
		if err := t.root.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("create %s: %w", dir, err)
		}
	}
	return real, t.WriteReal(real, data, mode)
}
