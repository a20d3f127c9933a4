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
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/treesitter"
	"github.com/gloss-dev/gloss/why"
)

// Env is a repository prepared for benchmarking: long history, a hot file
// that every commit touches, and a gloss note on every commit.
type Env struct {
	// Binary, when set, is a built git-gloss; cases that time the command
	// itself (process start included) against the git command use it.
	Binary  string
	Dir     string
	Repo    *gitops.Repo
	HotFile string
	Commits []string // newest first
	NoteRef string
}

// benchRecord is a small record for the append case.
type benchRecord struct {
	notes.Header
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
	env := &Env{Dir: dir, Repo: repo, HotFile: hot, NoteRef: notes.Annotations}
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
		changes, err := annotateHistory(repo, log, env.HotFile, maxNotes)
		if err != nil {
			return nil, err
		}
		if _, err := repo.CommitNotes(snap, changes, nil, "bench notes"); err != nil {
			return nil, err
		}
	}
	return env, nil
}

// annotateHistory writes, for each of the newest max commits, an annotation
// of each region it changed in the hot file, the way the post-commit hook
// would have: about 1 KB of intent, constraints and reasoning each.
func annotateHistory(repo *gitops.Repo, log []*gitops.Commit, hot string, max int) ([]gitops.NoteChange, error) {
	var changes []gitops.NoteChange
	for i, c := range log {
		if i >= max || len(c.Parents) == 0 {
			break
		}
		diff, err := repo.DiffTrees(c.Parents[0], c.ID, gitops.DiffOptions{Hunks: true, Paths: []string{hot}, NoRenames: true})
		if err != nil {
			return nil, err
		}
		var note []byte
		for _, ch := range diff {
			for _, h := range ch.Hunks {
				r := annotate.Region{Header: notes.NewHeader(annotate.Schema), Kind: annotate.KindRegion, Commit: c.ID, File: hot,
					Lines:       annotate.Lines{Start: h.NewStart, End: h.NewStart + max0(h.NewLines-1)},
					Intent:      "keep the counters in step with the request rate",
					Reasoning:   strings.Repeat("the rate is sampled every second and smoothed; ", 12),
					Constraints: []annotate.Constraint{{Text: "never block the request path", Source: "author"}},
					Author:      annotate.Author{Kind: "agent", Name: "bench"}, Source: annotate.SourceHook}
				line, err := notes.Marshal(r)
				if err != nil {
					return nil, err
				}
				note = append(append(note, line...), '\n')
			}
		}
		if len(note) > 0 {
			changes = append(changes, gitops.NoteChange{Object: c.ID, Data: note})
		}
	}
	return changes, nil
}

func max0(n int) int { return max(n, 0) }

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
	anchor, lines := e.hotAnchor()
	cases := []Case{
		{
			Name: "read --anchor (in process) vs blame -L of its lines",
			Gloss: func() error {
				_, err := why.Read(ctx, e.Repo, why.Query{Path: e.HotFile, Anchor: anchor, Rev: "HEAD"})
				return err
			},
			Git: func() error { return e.git(nil, "blame", "--porcelain", "-L", lines, "HEAD", "--", e.HotFile) },
		},
		{
			Name: fmt.Sprintf("summary of %s vs git log --notes of it", path.Dir(e.HotFile)),
			Gloss: func() error {
				_, err := why.Summary(ctx, e.Repo, why.SummaryQuery{Path: path.Dir(e.HotFile)})
				return err
			},
			Git: func() error {
				return e.git(nil, "log", "--notes="+e.NoteRef, "--format=%H%x00%N", "--", path.Dir(e.HotFile))
			},
		},
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
			Name: "blame with attribution, whole hot file, warm (in process)",
			Gloss: func() error {
				_, err := attribution.Blame(ctx, e.Repo, attribution.BlameQuery{Path: e.HotFile, Rev: "HEAD"})
				return err
			},
			Git: func() error { return e.git(nil, "blame", "--porcelain", "HEAD", "--", e.HotFile) },
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
	if e.Binary != "" {
		cases = append([]Case{{
			Name: "git gloss read --anchor vs git blame -L (processes)",
			Gloss: func() error {
				return e.run(e.Binary, "read", e.HotFile, "--anchor", anchor, "--rev", "HEAD", "--json")
			},
			Git: func() error { return e.git(nil, "blame", "--porcelain", "-L", lines, "HEAD", "--", e.HotFile) },
		}}, cases...)
	}
	// Specs: a repository of its own next to this one (built once).
	cases = append(cases, specsCase(e.Dir+"-specs"))
	return cases
}

// hotAnchor picks a function in the middle of the hot file and the range
// of its lines, as "A,B" for git blame -L.
func (e *Env) hotAnchor() (string, string) {
	content, err := e.Repo.ReadFile("HEAD", e.HotFile)
	if err != nil {
		return "", "1,40"
	}
	anchors := treesitter.Outline(e.HotFile, content)
	if len(anchors) == 0 {
		n := strings.Count(string(content), "\n")
		return "", fmt.Sprintf("%d,%d", n/2, n/2+40)
	}
	a := anchors[len(anchors)/2]
	return a.Name, fmt.Sprintf("%d,%d", a.Start, a.End)
}

// run runs a program in the environment's repository.
func (e *Env) run(name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = e.Dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
	return nil
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
