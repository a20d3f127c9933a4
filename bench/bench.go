// Package bench measures gloss against the git CLI doing the same job on
// the same repository in the same run, and reports the ratio. The cases
// here are shared by the `go test -bench` benchmarks and by the compare
// harness (go run ./bench/cmd/compare), which prints a table.
package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// Env is a repository prepared for benchmarking: long history, a hot file
// that every commit touches, and a gloss note on every commit.
type Env struct {
	Dir     string
	Repo    *gitops.Repo
	HotFile string
	Commits []string // newest first
	NoteRef string
}

// benchRecord is what the benchmark stores on each commit: about the size
// of a real annotation.
type benchRecord struct {
	notes.Header
	File   string `json:"file"`
	Intent string `json:"intent"`
}

// Prepare opens dir (generating a history there first if it does not
// exist) and attaches one note to each of the newest maxNotes commits.
func Prepare(dir string, opts fixtures.HistoryOptions, maxNotes int) (*Env, error) {
	hot := ""
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		h, err := fixtures.GenerateHistory(dir, opts)
		if err != nil {
			return nil, err
		}
		hot = h
	}
	repo, err := gitops.Open(dir)
	if err != nil {
		return nil, err
	}
	env := &Env{Dir: dir, Repo: repo, HotFile: hot, NoteRef: "refs/notes/gloss/bench"}
	log, err := repo.Log("HEAD", gitops.LogOptions{})
	if err != nil {
		return nil, err
	}
	for _, c := range log {
		env.Commits = append(env.Commits, c.ID)
	}
	if env.HotFile == "" {
		env.HotFile, err = hottestFile(repo, log)
		if err != nil {
			return nil, err
		}
	}
	snap, err := repo.ReadNotes(env.NoteRef)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	if snap.Tip == "" {
		var changes []gitops.NoteChange
		for i, c := range env.Commits {
			if i >= maxNotes {
				break
			}
			line, err := notes.Marshal(benchRecord{Header: notes.NewHeader("gloss/bench/v1"), File: env.HotFile,
				Intent: strings.Repeat("why this change was made; ", 40)})
			if err != nil {
				return nil, err
			}
			changes = append(changes, gitops.NoteChange{Object: c, Data: append(line, '\n')})
		}
		if _, err := repo.CommitNotes(snap, changes, nil, "bench notes"); err != nil {
			return nil, err
		}
	}
	return env, nil
}

// hottestFile picks the file changed by the most of the newest 300
// commits of a real repository.
func hottestFile(repo *gitops.Repo, log []*gitops.Commit) (string, error) {
	counts := map[string]int{}
	for i, c := range log {
		if i >= 300 || len(c.Parents) != 1 {
			continue
		}
		changes, err := repo.DiffTrees(c.Parents[0], c.ID, gitops.DiffOptions{NoRenames: true})
		if err != nil {
			return "", err
		}
		for _, ch := range changes {
			if ch.Status == gitops.Modified {
				counts[ch.Path]++
			}
		}
	}
	best, n := "", 0
	for p, c := range counts {
		if c > n || (c == n && p < best) {
			best, n = p, c
		}
	}
	if best == "" {
		return "", fmt.Errorf("no modified file in recent history")
	}
	return best, nil
}

// Close releases the repository.
func (e *Env) Close() { e.Repo.Close() }

// Case is one job done both ways.
type Case struct {
	Name  string
	Gloss func() error // gloss doing the job
	Git   func() error // the git CLI doing the same job
}

// git runs the git CLI in the environment's repository.
func (e *Env) git(stdin io.Reader, args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir = e.Dir
	cmd.Stdin = stdin
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// Cases returns the comparisons the harness runs.
func (e *Env) Cases() []Case {
	ctx := context.Background()
	blamed := e.blamedCommits()
	var batch strings.Builder // cat-file --batch input, built outside the timing
	for _, p := range e.notePaths(blamed) {
		fmt.Fprintf(&batch, "%s:%s\n", e.NoteRef, p)
	}
	return []Case{
		{
			Name: fmt.Sprintf("read notes of %d blamed commits", len(blamed)),
			Gloss: func() error {
				_, err := notes.Open(e.Repo, e.NoteRef).Read(blamed)
				return err
			},
			Git: func() error {
				// What Chronicle shipped: one `git notes show` per commit.
				for _, c := range blamed {
					cmd := exec.Command("git", "notes", "--ref", e.NoteRef, "show", c)
					cmd.Dir = e.Dir
					_ = cmd.Run() // commits without a note exit 1
				}
				return nil
			},
		},
		{
			Name: fmt.Sprintf("read notes of %d commits (vs cat-file --batch)", len(blamed)),
			Gloss: func() error {
				_, err := notes.Open(e.Repo, e.NoteRef).Read(blamed)
				return err
			},
			Git: func() error {
				return e.git(strings.NewReader(batch.String()), "cat-file", "--batch")
			},
		},
		{
			Name:  "log -- hot file",
			Gloss: func() error { _, err := e.Repo.Log("HEAD", gitops.LogOptions{Path: e.HotFile}); return err },
			Git:   func() error { return e.git(nil, "log", "--format=%H", "--", e.HotFile) },
		},
		{
			Name:  "blame 40 lines of the hot file",
			Gloss: func() error { _, err := e.Repo.Blame(ctx, "HEAD", e.HotFile, 400, 440); return err },
			Git:   func() error { return e.git(nil, "blame", "--porcelain", "-L", "400,440", "HEAD", "--", e.HotFile) },
		},
		{
			Name: "blame 40 lines of the hot file, cache warm",
			Gloss: func() error {
				_, err := e.Repo.BlameCached(ctx, "HEAD", e.HotFile, 400, 440)
				return err
			},
			Git: func() error { return e.git(nil, "blame", "--porcelain", "-L", "400,440", "HEAD", "--", e.HotFile) },
		},
		{
			Name:  "diff HEAD~50..HEAD with renames",
			Gloss: func() error { _, err := e.Repo.DiffTrees("HEAD~50", "HEAD", gitops.DiffOptions{}); return err },
			Git:   func() error { return e.git(nil, "diff", "--name-status", "-M", "HEAD~50", "HEAD") },
		},
		{
			Name: "append one note record",
			Gloss: func() error {
				return notes.Open(e.Repo, "refs/notes/gloss/bench-append").Append(ctx, e.Commits[0],
					benchRecord{Header: notes.NewHeader("gloss/bench/v1"), Intent: "x"})
			},
			Git: func() error {
				return e.git(strings.NewReader(`{"$schema":"gloss/bench/v1","id":"x","intent":"x"}`),
					"notes", "--ref", "refs/notes/gloss/bench-git-append", "append", "-F", "-", e.Commits[0])
			},
		},
	}
}

// blamedCommits are the commits blame names for the hot file: the set a
// `read` of the whole file needs notes for.
func (e *Env) blamedCommits() []string {
	b, err := e.Repo.Blame(context.Background(), "HEAD", e.HotFile, 0, 0)
	if err != nil {
		return e.Commits[:min(100, len(e.Commits))]
	}
	var ids []string
	for c := range b.Commits {
		ids = append(ids, c)
	}
	slices.Sort(ids)
	return ids
}

// notePaths finds where each commit's note sits in the notes tree (its
// fanout path), for cat-file.
func (e *Env) notePaths(commits []string) []string {
	out, err := exec.Command("git", "-C", e.Dir, "ls-tree", "-r", "--name-only", e.NoteRef).Output()
	if err != nil {
		return commits
	}
	byID := map[string]string{}
	for _, p := range strings.Split(string(out), "\n") {
		byID[strings.ReplaceAll(p, "/", "")] = p
	}
	paths := make([]string, 0, len(commits))
	for _, c := range commits {
		if p, ok := byID[c]; ok {
			paths = append(paths, p)
		}
	}
	return paths
}

// Result is one measured case.
type Result struct {
	Name        string
	Gloss, Git  time.Duration // medians
	Ratio       float64       // Git / Gloss: above 1 means gloss is faster
	Runs        int
	GlossErr    error
	GitErr      error
	Description string
}

// Measure runs both sides of c alternately, runs times each after one
// warm-up, and returns the medians.
func Measure(c Case, runs int) Result {
	r := Result{Name: c.Name, Runs: runs}
	if r.GlossErr = c.Gloss(); r.GlossErr != nil {
		return r
	}
	if r.GitErr = c.Git(); r.GitErr != nil {
		return r
	}
	var g, k []time.Duration
	for i := 0; i < runs; i++ {
		start := time.Now()
		if err := c.Gloss(); err != nil {
			r.GlossErr = err
			return r
		}
		g = append(g, time.Since(start))
		start = time.Now()
		if err := c.Git(); err != nil {
			r.GitErr = err
			return r
		}
		k = append(k, time.Since(start))
	}
	r.Gloss, r.Git = median(g), median(k)
	if r.Gloss > 0 {
		r.Ratio = float64(r.Git) / float64(r.Gloss)
	}
	return r
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// DefaultDir is where the harness keeps its generated repository between
// runs.
func DefaultDir() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("gloss-bench-%d-%d", fixtures.DefaultHistory.Commits, fixtures.DefaultHistory.Seed))
}
