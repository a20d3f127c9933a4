// Package tasks keeps work items as committed markdown files under
// .gloss/tasks/ — modelled on Chant, with its data-loss bugs designed out.
// Readiness and blocking are computed on read and never written; every
// state change gloss makes is a commit with Task-Id and Task-Transition
// trailers (or a working-tree change when the team turns auto-commit off);
// agent runs happen in git worktrees under the git dir, started from a
// command in personal git config only.
package tasks

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/gloss-dev/gloss/config"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/frontmatter"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/lazyregexp"
	"github.com/gloss-dev/gloss/safepath"
)

// Where tasks live, relative to the repository root.
const (
	Dir        = ".gloss/tasks"
	ArchiveDir = ".gloss/tasks/archive"
	LogsDir    = ".gloss/tasks/logs"
)

// Types and statuses, as Chant writes them.
var (
	Types    = []string{"code", "task", "driver", "documentation", "research", "group"}
	Statuses = []string{"pending", "in_progress", "paused", "completed", "failed", "needs_attention", "ready", "blocked", "cancelled"}
)

// Task is one work item.
type Task struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Status    string   `json:"status"`
	Type      string   `json:"type"`
	DependsOn []string `json:"depends_on"`
	Labels    []string `json:"labels"`
	// Every key Chant's chant_spec_get sends is there, absent values
	// empty ([] or "") where Chant sends null: gloss's outputs hold no null
	// (one type per member, see schemas/nonull.go).
	TargetFiles []string  `json:"target_files"`
	Context     []string  `json:"context"`
	Prompt      string    `json:"prompt"`
	Branch      string    `json:"branch"`
	Commits     []string  `json:"commits"`
	CompletedAt string    `json:"completed_at"`
	Model       string    `json:"model"`
	Approval    *Approval `json:"approval,omitempty" jsonschema:"Chant's approval gate: required and not approved, a pending task is blocked"`

	Path     string    `json:"-"` // repository-relative
	Archived bool      `json:"-"`
	Body     []byte    `json:"-"`
	ModTime  time.Time `json:"-"`
	fm       *yaml.Node
	parseErr error
	run      string // the run branch that holds the task's state until it lands ("" when none)
}

// Settings is the [tasks] table of .gloss/config.toml.
type Settings struct {
	// AutoCommit makes every state change a commit (the default). Off, the
	// changes are left in the working tree for the team to commit.
	AutoCommit *bool `toml:"auto_commit"`
	// Lint thresholds and vocabulary.
	Lint LintSettings `toml:"lint"`
	// Checks a run must pass to land: name = command (see checks.go for
	// why each runs only once the person approved its exact text).
	Checks map[string]string `toml:"checks"`
	// CheckTimeout bounds each check (a Go duration; default 30m).
	CheckTimeout string `toml:"check_timeout"`
}

// Store is the tasks of one repository.
type Store struct {
	repo     *gitops.Repo
	tree     *safepath.Tree // the one resolver and per-file locks
	root     *os.Root       // tree.Root()
	settings Settings
	agent    string // personal git config gloss.agent

	// The write lock: held (re-entrantly) by every change to task files,
	// from the read that decides it to the commit that records it.
	mu    sync.Mutex
	depth int
	lock  *os.File          // the held lock file, which also keeps the write journal
	undo  map[string][]byte // bytes of the files saved under the lock, nil for new files
}

// Open reads the settings and opens the tasks folder of a repository.
func Open(ctx context.Context, repo *gitops.Repo) (*Store, error) {
	if repo.Root() == "" {
		return nil, fault.Usagef("tasks need a working tree; this repository is bare")
	}
	cfg, err := config.Load(ctx, repo)
	if err != nil {
		return nil, err
	}
	s := &Store{repo: repo}
	if err := cfg.Section("tasks", &s.settings); err != nil {
		return nil, err
	}
	s.settings.Lint.defaults()
	s.agent, _ = cfg.Personal("agent")
	tree, err := safepath.ForRepo(repo)
	if err != nil {
		return nil, err
	}
	s.tree, s.root = tree, tree.Root()
	return s, nil
}

// Close releases the store.
func (s *Store) Close() {
	if s.tree != nil {
		s.tree.Close()
	}
}

// Repo is the repository the store works in.
func (s *Store) Repo() *gitops.Repo { return s.repo }

func (s *Store) autoCommit() bool { return s.settings.AutoCommit == nil || *s.settings.AutoCommit }

// idPattern matches a task id, with optional member suffixes (.1, .1.2).
var idPattern = lazyregexp.New(`^\d{4}-\d{2}-\d{2}-[0-9a-z]{3}-[0-9a-z]{3}(\.\d+)*$`)

// ValidID reports whether s is a well-formed task id.
func ValidID(s string) bool { return idPattern.MatchString(s) }

// load reads every task, active and archived. A file that does not parse
// is still listed, with its error, so lint and diagnose can report it.
func (s *Store) load() ([]*Task, error) {
	unlock, err := s.lockFiles(syscall.LOCK_SH)
	if err != nil {
		return nil, err
	}
	defer unlock()
	paths, odd, err := s.taskFiles()
	if err != nil {
		return nil, err
	}
	// Read on every core: thousands of small files are mostly system calls.
	out := make([]*Task, len(paths))
	errs := make([]error, len(paths))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(paths)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(paths); i = int(next.Add(1) - 1) {
				out[i], errs[i] = s.read(paths[i])
				if errs[i] == nil {
					out[i].Archived = strings.HasPrefix(paths[i], ArchiveDir+"/")
					if odd[paths[i]] && out[i].parseErr == nil {
						out[i].parseErr = fmt.Errorf("file name %q is not a usable task id (letters, digits, '.', '_' and '-'; ids look like 2026-11-22-001-k3x)", path.Base(paths[i]))
					}
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b *Task) int { return CompareIDs(a.ID, b.ID) })
	s.overlayRuns(out)
	return out, nil
}

// fileIDPattern is what a task file's name may be, besides a date id:
// Chant accepts any file name as an id (project prefixes such as
// auth-2026-01-22-001-x7m, hand-named tasks such as fix-login).
var fileIDPattern = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// taskFiles lists the task files: every *.md below .gloss/tasks (the logs
// folder aside), the archive at any depth — gloss's flat archive, and the
// dated folders (archive/2026-02-13/<id>.md) Chant writes, so an archived
// dependency still counts as done. odd marks the files whose name is no
// usable id: they are listed with a problem, never skipped in silence.
func (s *Store) taskFiles() (paths []string, odd map[string]bool, err error) {
	if _, err := s.tree.Resolve(Dir); err != nil {
		return nil, nil, fmt.Errorf("the task folder: %w", err)
	}
	odd = map[string]bool{}
	err = fs.WalkDir(s.root.FS(), Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == Dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() {
			if p == LogsDir || (p != Dir && strings.HasPrefix(d.Name(), ".")) {
				return fs.SkipDir
			}
			return nil
		}
		name := d.Name()
		if !strings.HasSuffix(name, ".md") || strings.HasPrefix(name, ".") {
			return nil
		}
		// A symbolic link is listed too: read reports it as a problem.
		paths = append(paths, p)
		if !fileIDPattern.MatchString(strings.TrimSuffix(name, ".md")) {
			odd[p] = true
		}
		return nil
	})
	return paths, odd, err
}

// lockFiles takes the lock that keeps readers from seeing the task
// directory in the middle of a merge, which deletes and re-creates the
// files it changes: shared to read, exclusive to merge.
func (s *Store) lockFiles(how int) (func(), error) {
	dir, err := s.repo.GlossDir()
	if err != nil {
		return nil, err
	}
	return lockFile(filepath.Join(dir, "tasks-files.lock"), how)
}

// read parses one task file. A symbolic link is not followed: it is
// listed with a problem, like a file whose frontmatter does not parse,
// so one odd file never stops every task command.
func (s *Store) read(p string) (*Task, error) {
	if st, err := s.root.Lstat(p); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		t := &Task{ID: strings.TrimSuffix(path.Base(p), ".md"), Path: p, Status: "pending", Type: "code",
			parseErr: fmt.Errorf("%s is a symbolic link; task files must be regular files", p)}
		return t, nil
	}
	f, err := safepath.OpenRegular(s.root, p)
	if errors.Is(err, safepath.ErrNotRegular) {
		// A named pipe would block every task command: listed with a
		// problem, never opened for reading.
		return &Task{ID: strings.TrimSuffix(path.Base(p), ".md"), Path: p, Status: "pending", Type: "code", parseErr: err}, nil
	}
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fault.NotFoundf("task file %s not found", p)
		}
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	t := Parse(p, data)
	if st, err := f.Stat(); err == nil {
		t.ModTime = st.ModTime()
	}
	return t, nil
}

// Parse reads a task file's bytes (from the working tree, or from a
// commit, as a review of a range does). A file whose frontmatter does not
// parse gives a pending task with the problem kept.
func Parse(p string, data []byte) *Task {
	t := &Task{ID: strings.TrimSuffix(path.Base(p), ".md"), Path: p}
	doc, err := frontmatter.Parse(data)
	if err != nil {
		t.parseErr = err
		t.Body = data
		t.Status, t.Type = "pending", "code"
		return t
	}
	t.fm, t.Body = doc.FM, doc.Body
	t.decode()
	return t
}

// problem says why a task file cannot be used: "" when it parses.
func (t *Task) problem() string {
	if t.parseErr == nil {
		return ""
	}
	return t.parseErr.Error()
}

// decode fills the fields from the frontmatter and body.
func (t *Task) decode() {
	fm := t.fm
	t.Type = orDefault(frontmatter.String(fm, "type"), "code")
	t.Status = orDefault(frontmatter.String(fm, "status"), "pending")
	t.DependsOn = frontmatter.Strings(fm, "depends_on")
	t.Labels = frontmatter.Strings(fm, "labels")
	t.TargetFiles = frontmatter.Strings(fm, "target_files")
	t.Context = frontmatter.Strings(fm, "context")
	t.Prompt = frontmatter.String(fm, "prompt")
	t.Branch = frontmatter.String(fm, "branch")
	t.Commits = frontmatter.Strings(fm, "commits")
	t.CompletedAt = frontmatter.String(fm, "completed_at")
	t.Model = frontmatter.String(fm, "model")
	t.Approval = decodeApproval(fm)
	t.Title = titleOf(t.Body)
	if t.DependsOn == nil {
		t.DependsOn = []string{}
	}
	if t.Labels == nil {
		t.Labels = []string{}
	}
}

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

// titleOf is the first "# " line.
func titleOf(body []byte) string {
	inFence := false
	for _, line := range strings.Split(string(body), "\n") {
		if isFence(line) {
			inFence = !inFence
			continue
		}
		if !inFence && strings.HasPrefix(line, "# ") {
			return strings.TrimSpace(line[2:])
		}
	}
	return ""
}

func isFence(line string) bool {
	l := strings.TrimSpace(line)
	return strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~")
}

// set writes a frontmatter field (nil or empty removes it).
func (t *Task) set(key string, value any) error {
	if t.fm == nil {
		t.fm = frontmatter.NewMapping()
	}
	switch v := value.(type) {
	case nil:
		frontmatter.Delete(t.fm, key)
		return nil
	case string:
		if v == "" {
			frontmatter.Delete(t.fm, key)
			return nil
		}
	case []string:
		if len(v) == 0 {
			frontmatter.Delete(t.fm, key)
			return nil
		}
	}
	if err := frontmatter.Set(t.fm, key, value); err != nil {
		return err
	}
	t.decode()
	return nil
}

// save writes the task file atomically.
func (s *Store) save(t *Task) error {
	data, err := frontmatter.Render(t.fm, t.Body)
	if err != nil {
		return err
	}
	return s.writeFile(t.Path, data)
}

// Resolve finds a task from a full or partial id, in Chant's order: exact
// id; unique suffix; a 3-character sequence of today's date; unique
// substring. Archived tasks are included.
func (s *Store) Resolve(partial string) (*Task, error) {
	all, err := s.load()
	if err != nil {
		return nil, err
	}
	return resolveIn(all, partial)
}

func resolveIn(all []*Task, partial string) (*Task, error) {
	q := strings.TrimSpace(partial)
	if q == "" {
		return nil, fault.Usagef("a task id is required")
	}
	for _, t := range all {
		if t.ID == q {
			return t, nil
		}
	}
	pick := func(match func(id string) bool) ([]*Task, bool) {
		var hits []*Task
		for _, t := range all {
			if match(t.ID) {
				hits = append(hits, t)
			}
		}
		return hits, len(hits) > 0
	}
	if hits, ok := pick(func(id string) bool { return strings.HasSuffix(id, q) }); ok && len(hits) == 1 {
		return hits[0], nil
	}
	if len(q) == 3 {
		today := time.Now().UTC().Format("2006-01-02") + "-" + q + "-"
		if hits, ok := pick(func(id string) bool { return strings.HasPrefix(id, today) }); ok && len(hits) == 1 {
			return hits[0], nil
		}
	}
	hits, _ := pick(func(id string) bool { return strings.Contains(id, q) })
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return nil, fault.NotFoundf("Task not found: %s", q)
	}
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	return nil, fault.Conflictf("Ambiguous task ID '%s'. Matches: %s", q, strings.Join(ids, ", "))
}

// CompareIDs orders ids by date and sequence, a driver before its members,
// members numerically (.2 before .10).
func CompareIDs(a, b string) int {
	ab, am, _ := strings.Cut(a, ".")
	bb, bm, _ := strings.Cut(b, ".")
	if c := strings.Compare(ab, bb); c != 0 {
		return c
	}
	as, bs := strings.Split(am, "."), strings.Split(bm, ".")
	if am == "" {
		as = nil
	}
	if bm == "" {
		bs = nil
	}
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, _ := strconv.Atoi(as[i])
		y, _ := strconv.Atoi(bs[i])
		if x != y {
			return x - y
		}
	}
	return len(as) - len(bs)
}

// base36 writes n in base 36, zero-padded to width.
func base36(n int64, width int) string {
	s := strconv.FormatInt(n, 36)
	for len(s) < width {
		s = "0" + s
	}
	return s
}

// newID allocates the next id for today (UTC): the sequence counts every
// task of the date, archived ones too, and a lock under the git dir with an
// exclusive file creation makes two concurrent allocations differ.
func (s *Store) newID() (string, func(), error) {
	dir, err := s.repo.GlossDir()
	if err != nil {
		return "", nil, err
	}
	release, err := lockFile(filepath.Join(dir, "tasks.lock"), syscall.LOCK_EX)
	if err != nil {
		return "", nil, err
	}
	all, err := s.load()
	if err != nil {
		release()
		return "", nil, err
	}
	date := time.Now().UTC().Format("2006-01-02")
	seq := int64(0)
	for _, t := range all {
		if !strings.HasPrefix(t.ID, date+"-") || !ValidID(strings.SplitN(t.ID, ".", 2)[0]) {
			continue // a hand-named task (fix-login) has no sequence
		}
		if n, err := strconv.ParseInt(t.ID[11:14], 36, 64); err == nil && n > seq {
			seq = n
		}
	}
	suffix := make([]byte, 3)
	for i := range suffix {
		n, err := rand.Int(rand.Reader, big.NewInt(36))
		if err != nil {
			release()
			return "", nil, err
		}
		suffix[i] = "0123456789abcdefghijklmnopqrstuvwxyz"[n.Int64()]
	}
	return fmt.Sprintf("%s-%s-%s", date, base36(seq+1, 3), suffix), release, nil
}
