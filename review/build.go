package review

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gloss-dev/gloss/agent"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/forge"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/why"
)

// Options says what to review and how much of it.
type Options struct {
	// Range is "A..B", "A" (A..HEAD) or "" (see resolveRange).
	Range string
	// Remote is the remote whose default branch is the base when no range
	// is given, and whose notes Fetch brings in. "" is origin.
	Remote string
	// Fetch brings the remote's gloss notes in first (a CI clone has none),
	// and its sessions when the team shares them.
	Fetch bool
	// Env reads the environment; nil is os.Getenv.
	Env func(string) string
	// MaxFiles bounds the files examined (attributed line by line, their
	// decisions looked up): the ones with the most changed lines. 0 is
	// DefaultMaxFiles.
	MaxFiles int
	// Workers examine files in parallel; 0 is the number of CPUs.
	Workers int
	// Limits bound the lists of the report; the zero value is Default.
	Limits Limits
}

// DefaultMaxFiles is how many changed files a review examines.
const DefaultMaxFiles = 1000

// fileWork is one changed file while the report is built.
type fileWork struct {
	change         gitops.Change
	added, deleted int
	examined       bool
	auth           FileAuthorship
	decisions      []Decision
	recorded       []Decision
}

// Build reviews a range.
func Build(ctx context.Context, repo *gitops.Repo, opts Options) (*Report, error) {
	opts = opts.withDefaults()
	rep := newReport()
	if opts.Fetch {
		if err := fetch(ctx, repo, opts.Remote); err != nil {
			return nil, err
		}
	}
	step := stepTimer()
	base, head, from, err := resolveRange(ctx, repo, opts.Range, opts.Remote, opts.Env)
	if err != nil {
		return nil, err
	}
	rep.Range = Range{Base: base, Head: head, BaseFrom: from}
	if base == head {
		rep.Notes = append(rep.Notes, fmt.Sprintf("nothing to review: %s is the merge base itself (%s)", gitops.ShortID(head), from))
		return rep, nil
	}
	step("range")
	// The range's commits and git gloss ci check run beside the diff and
	// the files: they are mostly git processes of their own.
	var commits []string
	var chk *forge.CheckReport
	var commitsErr, chkErr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); commits, commitsErr = rangeCommits(ctx, repo, base, head) }()
	go func() { defer wg.Done(); chk, chkErr = check(ctx, repo, base, head, opts.Remote) }()
	files, err := changedFiles(ctx, repo, base, head, opts.MaxFiles, rep)
	wg.Wait()
	if err = errors.Join(err, commitsErr, chkErr); err != nil {
		return nil, err
	}
	step("diff, commits and check")
	rep.Range.Commits = len(commits)
	rep.Check = Check{Failed: chk.Failed, Findings: chk.Findings, Notes: chk.Notes}
	if err := examineFiles(ctx, repo, rep, files, commits, opts.Workers); err != nil {
		return nil, err
	}
	step("files")
	collect(rep, files)
	if rep.Sessions, err = sessionsOf(repo, commits); err != nil {
		return nil, err
	}
	if rep.Specs, err = specsOf(repo, head, files, chk.Findings); err != nil {
		return nil, err
	}
	rep.Tasks = tasksOf(repo, base, head, files)
	rep.ReadFirst = readFirst(files)
	bound(rep, opts.Limits)
	step("sessions, specs and tasks")
	return rep, nil
}

func (o Options) withDefaults() Options {
	if o.Env == nil {
		o.Env = os.Getenv
	}
	if o.Remote == "" {
		o.Remote = "origin"
	}
	if o.MaxFiles <= 0 {
		o.MaxFiles = DefaultMaxFiles
	}
	if o.Workers <= 0 {
		o.Workers = runtime.NumCPU()
	}
	o.Limits = o.Limits.orDefault()
	return o
}

// newReport is an empty report, every list present.
func newReport() *Report {
	return &Report{Schema: Schema, Decisions: []Decision{}, Recorded: []Decision{}, Specs: []Spec{}, Tasks: []Task{},
		ReadFirst: []FileRank{}, Cut: []Cut{}, Notes: []string{},
		Authorship: Authorship{Agents: []attribution.AgentLines{}, Files: []FileAuthorship{}},
		Sessions:   Sessions{List: []Session{}},
		Check:      Check{Findings: []forge.Finding{}, Notes: []string{}}}
}

// examineFiles attributes the examined files and looks up their
// decisions, on workers.
func examineFiles(ctx context.Context, repo *gitops.Repo, rep *Report, files []*fileWork, commits []string, workers int) error {
	inRange := make(map[string]bool, len(commits))
	for _, c := range commits {
		inRange[c] = true
	}
	withDecisions := hasAnnotations(repo)
	if !withDecisions {
		rep.Notes = append(rep.Notes, "this clone has no gloss annotations: no decisions to look up (a CI clone fetches them with --fetch)")
	}
	base, head := rep.Range.Base, rep.Range.Head
	return forEachFile(ctx, repo, files, workers, func(ctx context.Context, ex *examiner, f *fileWork) error {
		return examine(ctx, ex, f, base, head, inRange, withDecisions)
	})
}

// check runs git gloss ci check over the range, on its own handle of the
// repository (it runs beside the rest), without fetching: Build fetched
// already.
func check(ctx context.Context, repo *gitops.Repo, base, head, remote string) (*forge.CheckReport, error) {
	r, err := reopen(repo)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return forge.Check(ctx, r, forge.CheckOptions{Base: base, MergeBase: true, Head: head, Remote: remote, NoFetch: true,
		Env: func(string) string { return "" }})
}

// reopen opens another handle of repo, for another goroutine.
func reopen(repo *gitops.Repo) (*gitops.Repo, error) {
	dir := repo.Root()
	if dir == "" {
		dir = repo.GitDir()
	}
	return gitops.Open(dir)
}

// stepTimer logs how long each step of a review took (git gloss -v).
func stepTimer() func(name string) {
	last := time.Now()
	return func(name string) {
		slog.Debug("review step", "step", name, "took", time.Since(last).Round(time.Millisecond))
		last = time.Now()
	}
}

// fetch brings in the remote's gloss notes, and its sessions when the
// team shares them.
func fetch(ctx context.Context, repo *gitops.Repo, remote string) error {
	if _, err := notes.FetchWith(ctx, repo, remote, notes.FetchOptions{Sessions: agent.SyncSessions(repo)}); err != nil {
		return fmt.Errorf("fetch gloss notes from %s: %w", remote, err)
	}
	return nil
}

// rangeCommits lists base..head, newest first.
func rangeCommits(ctx context.Context, repo *gitops.Repo, base, head string) ([]string, error) {
	out, err := repo.GitWalk(ctx, "rev-list", head, "^"+base)
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// changedFiles diffs base..head and picks the files to examine: the
// maxFiles with the most changed lines. The files' hunks come from the
// repository's hunk cache when it has them: a review asked again, or of
// a range that shares file versions with one reviewed before, diffs only
// what it has not seen.
func changedFiles(ctx context.Context, repo *gitops.Repo, base, head string, maxFiles int, rep *Report) ([]*fileWork, error) {
	changes, err := repo.DiffTreesCached(ctx, base, head, gitops.DiffOptions{})
	if err != nil {
		return nil, err
	}
	files := make([]*fileWork, 0, len(changes))
	for _, ch := range changes {
		f := &fileWork{change: ch}
		for _, h := range ch.Hunks {
			f.added += h.NewLines
			f.deleted += h.OldLines
		}
		files = append(files, f)
		rep.Range.Insertions += f.added
		rep.Range.Deletions += f.deleted
	}
	rep.Range.Files = len(files)
	bySize := append([]*fileWork(nil), files...)
	sort.SliceStable(bySize, func(i, j int) bool {
		return bySize[i].added+bySize[i].deleted > bySize[j].added+bySize[j].deleted
	})
	for i, f := range bySize {
		f.examined = i < maxFiles && !f.change.Binary
	}
	if len(files) > maxFiles {
		rep.Cut = append(rep.Cut, Cut{What: "files examined", Shown: maxFiles, Total: len(files),
			LeftOut: "the files with the fewest changed lines: counted, not attributed, no decisions looked up"})
	}
	return files, nil
}

// hasAnnotations reports whether the clone has any annotation notes.
func hasAnnotations(repo *gitops.Repo) bool {
	tip, err := repo.RefTarget(notes.Annotations)
	return err == nil && tip != ""
}

// examiner is one worker's handle of the repository (a gitops.Repo is for
// one goroutine) and the reads it makes on it, as one batch: a why.Reader
// opens the notes and the decisions index once for all its files.
type examiner struct {
	repo   *gitops.Repo
	reader *why.Reader
}

// forEachFile runs fn on the examined files, on workers that each open
// the repository. The first error stops the rest.
func forEachFile(ctx context.Context, repo *gitops.Repo, files []*fileWork, workers int, fn func(context.Context, *examiner, *fileWork) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := make(chan *fileWork)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	fail := func(err error) {
		once.Do(func() { first = err; cancel() })
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := reopen(repo)
			if err != nil {
				fail(err)
				for range work {
				}
				return
			}
			defer r.Close()
			ex := &examiner{repo: r, reader: why.NewReader(r)}
			defer ex.reader.Close()
			for f := range work {
				if ctx.Err() != nil {
					continue
				}
				if err := fn(ctx, ex, f); err != nil {
					fail(err)
				}
			}
		}()
	}
	for _, f := range files {
		if f.examined {
			work <- f
		}
	}
	close(work)
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return first
}

// examine attributes one file's added lines and looks up its decisions.
func examine(ctx context.Context, ex *examiner, f *fileWork, base, head string, inRange map[string]bool, withDecisions bool) error {
	if err := attribute(ctx, ex.repo, f, head); err != nil {
		return err
	}
	if !withDecisions {
		return nil
	}
	if err := lookupDecisions(ctx, ex.reader, f, base, head, inRange); err != nil {
		return err
	}
	return reintroductions(ex.repo, f, base, head)
}

// collect puts the files' findings into the report.
func collect(rep *Report, files []*fileWork) {
	agents := map[[2]string]int{}
	for _, f := range files {
		a := f.auth
		a.Path, a.Status, a.Added, a.Deleted, a.Examined, a.Binary = f.change.Path, f.change.Status, f.added, f.deleted, f.examined, f.change.Binary
		if f.change.Status == gitops.Renamed || f.change.Status == gitops.Copied {
			a.OldPath = f.change.OldPath
		}
		rep.Authorship.Files = append(rep.Authorship.Files, a)
		t := &rep.Authorship.Totals
		t.Human, t.AI, t.Mixed, t.Unknown = t.Human+a.Human, t.AI+a.AI, t.Mixed+a.Mixed, t.Unknown+a.Unknown
		for _, ag := range a.Agents {
			agents[[2]string{ag.Agent, ag.Model}] += ag.Lines
		}
		for i := range f.decisions {
			f.decisions[i].Rank = rankOf(&f.decisions[i])
		}
		for i := range f.recorded {
			f.recorded[i].Rank = rankOf(&f.recorded[i])
		}
		rep.Decisions = append(rep.Decisions, f.decisions...)
		rep.Recorded = append(rep.Recorded, f.recorded...)
	}
	rep.Authorship.Agents = agentList(agents)
	sortDecisions(rep.Decisions)
	sortDecisions(rep.Recorded)
	sort.SliceStable(rep.Authorship.Files, func(i, j int) bool {
		a, b := rep.Authorship.Files[i], rep.Authorship.Files[j]
		if a.AI+a.Mixed != b.AI+b.Mixed {
			return a.AI+a.Mixed > b.AI+b.Mixed
		}
		if a.Added != b.Added {
			return a.Added > b.Added
		}
		return a.Path < b.Path
	})
}

func agentList(m map[[2]string]int) []attribution.AgentLines {
	out := []attribution.AgentLines{}
	for k, n := range m {
		out = append(out, attribution.AgentLines{Agent: k[0], Model: k[1], Lines: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Lines != out[j].Lines {
			return out[i].Lines > out[j].Lines
		}
		if out[i].Agent != out[j].Agent {
			return out[i].Agent < out[j].Agent
		}
		return out[i].Model < out[j].Model
	})
	return out
}
