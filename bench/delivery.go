package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/treesitter"
)

// The delivery benchmark (issue 26): on a real repository, decisions are
// recorded on functions by an old commit that changed them — years of
// real commits ago — and then, for each function as it is today, the
// agent's pre-edit hook runs for an edit in the middle of its body. It
// counts the decisions in force that reached the agent (recall), and the
// retired ones that did (flagged, superseded, expired, or on a function
// deleted since), which must be none.

// DeliveryRecipe says where to look for functions in a repository.
type DeliveryRecipe struct {
	Name string
	Rev  string   // the commit read as today
	Dirs []string // folders whose files are searched (recursively)
	Ext  string   // the language's file extension
	// Age is how old a commit must be to record on: the decisions were
	// taken this long before Rev.
	Age time.Duration
	// Functions is how many functions get a decision in force.
	Functions int
}

// FzfDelivery is Go: junegunn/fzf at 956562da, its src/ tree.
var FzfDelivery = DeliveryRecipe{Name: "fzf", Rev: "956562da", Dirs: []string{"src"}, Ext: ".go", Age: 2 * 365 * 24 * time.Hour, Functions: 24}

// FlaskDelivery is Python: pallets/flask at 2ac89889, src/flask.
var FlaskDelivery = DeliveryRecipe{Name: "flask", Rev: "2ac89889", Dirs: []string{"src/flask"}, Ext: ".py", Age: 2 * 365 * 24 * time.Hour, Functions: 24}

// DeliveryRecipes are matched against a source repository by the commit
// they read at.
var DeliveryRecipes = []DeliveryRecipe{FzfDelivery, FlaskDelivery}

// decision is one recorded decision and where it should (or must not)
// reach the agent.
type decision struct {
	Text     string // the constraint, unique in the repository
	Function string // the function today (empty for a deleted one)
	File     string // today's file
	OldFile  string // the file at the commit recorded on
	Anchor   string // the anchor at that commit
	Commit   string
	Later    int    // commits newer than Commit that own lines of the function today
	Retired  string // "", flagged, superseded, expired or deleted
	ID       string // the record's id, once written
	editLine string // the body line the pre-edit edits
}

// DeliveryResult is what one repository measured.
type DeliveryResult struct {
	Repo               string
	Functions          int
	InForce, Delivered int
	Retired, Leaked    int
	Missed             []string // what was missed and why
	LaterMedian        int
	AgeMedian          time.Duration
	LargestFile        string
	LargestLines       int
	P50, P95           time.Duration // the pre-edit hook on the largest file, warm, process start included
	CPU50              time.Duration // its median user+system time: what the machine's load does not inflate as much
	Runs               int
}

// DeliveryEnv is a throwaway clone prepared for the benchmark.
type DeliveryEnv struct {
	DeliveryRecipe
	Dir, Binary string
	head        *gitops.Commit
	decisions   []decision
}

// PrepareDelivery clones src into dir at the recipe's revision, sets gloss
// up and records the decisions. A dir from an earlier run is replaced.
func PrepareDelivery(ctx context.Context, rc DeliveryRecipe, src, dir, binary string) (*DeliveryEnv, error) {
	e := &DeliveryEnv{DeliveryRecipe: rc, Dir: dir, Binary: binary}
	binDir = filepath.Dir(binary)
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := run(ctx, "", "git", "clone", "-q", "--no-checkout", src, dir); err != nil {
		return nil, err
	}
	_ = run(ctx, dir, "git", "remote", "remove", "origin") // a push must never reach the source
	if err := run(ctx, dir, "git", "checkout", "-q", "-B", "gloss-bench", rc.Rev); err != nil {
		return nil, err
	}
	if err := run(ctx, dir, binary, "init", "--no-mcp"); err != nil {
		return nil, err
	}
	repo, err := gitops.Open(dir)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	if e.head, err = repo.LookupCommit("HEAD"); err != nil {
		return nil, err
	}
	if err := e.choose(ctx, repo); err != nil {
		return nil, err
	}
	if err := e.record(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

// candidate is a function of today's file that an old commit changed.
type candidate struct {
	file, name, oldFile, oldName, commit string
	later                                int
	start, end                           int // today
}

// choose finds the functions to record on: for each file of the recipe's
// folders, each function today whose lines an old commit (older than
// Age) changed, with the newest such commit; and functions such an old
// commit changed that no longer exist (the deleted ones).
func (e *DeliveryEnv) choose(ctx context.Context, repo *gitops.Repo) error {
	files, err := repo.ListFiles("HEAD", "")
	if err != nil {
		return err
	}
	cutoff := e.head.AuthorTime.Add(-e.Age)
	var live, gone []candidate
	for _, f := range files {
		if !strings.HasSuffix(f.Path, e.Ext) || strings.HasSuffix(f.Path, "_test.go") || !e.inDirs(f.Path) {
			continue
		}
		l, g, err := e.candidates(ctx, repo, f.Path, cutoff)
		if err != nil {
			return err
		}
		live, gone = append(live, l...), append(gone, g...)
	}
	// The most edited since first, one or two per file so that every
	// file counts, then by name: the same choice on every run.
	sort.SliceStable(live, func(i, j int) bool {
		if live[i].later != live[j].later {
			return live[i].later > live[j].later
		}
		return live[i].file+live[i].name < live[j].file+live[j].name
	})
	perFile := map[string]int{}
	var picked []candidate
	for round := 1; round <= 3 && len(picked) < e.Functions; round++ {
		for _, c := range live {
			if len(picked) == e.Functions {
				break
			}
			if perFile[c.file] < round && !slices.ContainsFunc(picked, func(p candidate) bool { return p.file == c.file && p.name == c.name }) {
				perFile[c.file]++
				picked = append(picked, c)
			}
		}
	}
	if len(picked) < e.Functions {
		return fmt.Errorf("%s: only %d functions changed by a commit older than %s", e.Name, len(picked), cutoff.Format("2006-01-02"))
	}
	for i, c := range picked {
		d := decision{Text: fmt.Sprintf("%s decision %d: %s must keep its contract", e.Name, i+1, c.name), Function: c.name, File: c.file,
			OldFile: c.oldFile, Anchor: c.oldName, Commit: c.commit, Later: c.later}
		content, err := os.ReadFile(filepath.Join(e.Dir, c.file))
		if err != nil {
			return err
		}
		if d.editLine = middleLine(string(content), c.start, c.end); d.editLine == "" {
			continue
		}
		e.decisions = append(e.decisions, d)
	}
	// Retired decisions, on functions that have one in force too: two
	// flagged, two superseded (by a decision that is then in force), two
	// expired; and three on functions deleted since.
	for i, kind := range []string{"flagged", "flagged", "superseded", "superseded", "expired", "expired"} {
		base := e.decisions[(i*5)%len(e.decisions)]
		base.Text = fmt.Sprintf("%s retired %d (%s): %s once had to stay as it was", e.Name, i+1, kind, base.Function)
		base.Retired = kind
		e.decisions = append(e.decisions, base)
	}
	sort.SliceStable(gone, func(i, j int) bool { return gone[i].file+gone[i].oldName < gone[j].file+gone[j].oldName })
	for i, c := range gone {
		if i == 3 {
			break
		}
		e.decisions = append(e.decisions, decision{Text: fmt.Sprintf("%s retired deleted %d: %s must keep its contract", e.Name, i+1, c.oldName),
			File: c.file, OldFile: c.oldFile, Anchor: c.oldName, Commit: c.commit, Retired: "deleted"})
	}
	return nil
}

func (e *DeliveryEnv) inDirs(p string) bool {
	for _, d := range e.Dirs {
		if strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// candidates are a file's functions an old commit changed: those that
// exist today (with the newest such commit and how many commits since
// own lines of them), and those that do not any more.
func (e *DeliveryEnv) candidates(ctx context.Context, repo *gitops.Repo, file string, cutoff time.Time) (live, gone []candidate, err error) {
	todaySrc, err := os.ReadFile(filepath.Join(e.Dir, file))
	if err != nil {
		return nil, nil, err
	}
	today := map[string]treesitter.Anchor{}
	for _, a := range treesitter.Outline(file, todaySrc) {
		if a.Kind == "function" || a.Kind == "method" {
			today[a.Name] = a
		}
	}
	log, err := repo.LogFollowPaths(ctx, "HEAD", file)
	if err != nil {
		return nil, nil, err
	}
	blame, err := repo.Blame(ctx, "HEAD", file, 0, 0)
	if err != nil {
		return nil, nil, err
	}
	// Only the file's own history under git's rename detection: git log
	// --follow also takes a file split out of another (the other still
	// there) for a rename, and gloss does not follow code into another
	// file. Such functions are left out of the sample, as deleted.
	renames, err := repo.Renames(ctx, "HEAD")
	if err != nil {
		return nil, nil, err
	}
	found := map[string]bool{}
	for _, v := range log {
		if v.Path != file && gitops.FollowRename(renames, v.Path) != file {
			break // older versions are another file's
		}
		c, err := repo.LookupCommit(v.Commit)
		if err != nil || !c.AuthorTime.Before(cutoff) || len(c.Parents) != 1 {
			continue
		}
		src, err := repo.ReadFile(v.Commit, v.Path)
		if err != nil {
			continue
		}
		changed := changedLines(ctx, repo, v)
		for _, a := range treesitter.Outline(v.Path, src) {
			if found[a.Name] || (a.Kind != "function" && a.Kind != "method") || !touches(changed, a.Start, a.End) {
				continue
			}
			found[a.Name] = true
			now, ok := today[a.Name]
			if !ok {
				// Gone by name; deleted only if its code is nowhere in
				// today's file (a function renamed keeps its lines, and
				// its decisions are in force under its new name).
				if survives(linesOf(src, a.Start, a.End), todaySrc) < 0.2 {
					gone = append(gone, candidate{file: file, oldFile: v.Path, oldName: a.Name, commit: v.Commit})
				}
				continue
			}
			later := map[string]bool{}
			for _, l := range blame.Lines {
				if l.Line >= now.Start && l.Line <= now.End {
					if m, ok := blame.Commits[l.Commit]; ok && m.AuthorTime.After(c.AuthorTime) {
						later[l.Commit] = true
					}
				}
			}
			live = append(live, candidate{file: file, name: a.Name, oldFile: v.Path, oldName: a.Name, commit: v.Commit,
				later: len(later), start: now.Start, end: now.End})
		}
	}
	return live, gone, nil
}

// changedLines are the new-side lines a commit changed in its version of
// the file (git diff -U0 against its parent, through gloss's own parser).
func changedLines(ctx context.Context, repo *gitops.Repo, v gitops.FileVersion) [][2]int {
	old := v.Path
	if v.OldPath != "" {
		old = v.OldPath
	}
	diffs, err := repo.Diff(ctx, "-M", v.Commit+"^", v.Commit, "--", old, v.Path)
	if err != nil {
		return nil
	}
	var rs [][2]int
	for _, f := range diffs {
		for _, h := range f.Ranges() {
			if h.NewLines > 0 {
				rs = append(rs, [2]int{h.NewStart, h.NewStart + h.NewLines - 1})
			}
		}
	}
	return rs
}

// linesOf returns lines start..end of src.
func linesOf(src []byte, start, end int) []string {
	lines := strings.Split(string(src), "\n")
	if start < 1 || end > len(lines) || start > end {
		return nil
	}
	return lines[start-1 : end]
}

// survives is the share of a function's substantial lines (12 characters
// or more, once trimmed) that are still somewhere in content.
func survives(lines []string, content []byte) float64 {
	n, in := 0, 0
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if len(t) < 12 {
			continue
		}
		n++
		if bytes.Contains(content, []byte(t)) {
			in++
		}
	}
	if n == 0 {
		return 1 // nothing to tell by: not taken for deleted
	}
	return float64(in) / float64(n)
}

func touches(rs [][2]int, start, end int) bool {
	for _, r := range rs {
		if r[0] <= end && start <= r[1] {
			return true
		}
	}
	return false
}

// middleLine picks a line near the middle of lines start..end that is
// unique in the file (an Edit's old_string must be), preferring long ones.
func middleLine(content string, start, end int) string {
	lines := strings.Split(content, "\n")
	mid := (start + end) / 2
	for d := 0; d <= end-start; d++ {
		for _, l := range []int{mid + d, mid - d} {
			if l <= start || l >= end || l > len(lines) {
				continue
			}
			t := lines[l-1]
			if len(strings.TrimSpace(t)) >= 8 && strings.Count(content, t) == 1 {
				return t
			}
		}
	}
	return ""
}

// record writes the decisions on their old commits, and retires those
// that are to be retired.
func (e *DeliveryEnv) record(ctx context.Context) error {
	for i := range e.decisions {
		d := &e.decisions[i]
		args := []string{"annotate", "--commit", d.Commit, "--file", d.OldFile, "--anchor", d.Anchor,
			"--constraint", d.Text, "--rejected", "rewriting it from scratch | callers rely on its behaviour",
			"--risk", "a change here reaches every caller", "--author-kind", "human", "--json"}
		if d.Retired == "expired" {
			args = append(args, "--expires", "2020-01-01")
		}
		out, err := output(ctx, e.Dir, e.Binary, args...)
		if err != nil {
			return fmt.Errorf("record %q: %w", d.Text, err)
		}
		var res struct {
			Written []string `json:"written"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Written) == 0 {
			return fmt.Errorf("record %q: %s", d.Text, out)
		}
		d.ID = res.Written[0]
	}
	for i := range e.decisions {
		d := &e.decisions[i]
		switch d.Retired {
		case "flagged":
			if _, err := output(ctx, e.Dir, e.Binary, "flag", d.ID, "--reason", "no longer true"); err != nil {
				return err
			}
		case "superseded":
			// A later decision replaces it, recorded on today's code.
			repl := decision{Text: fmt.Sprintf("%s replacement for %s: %s keeps the newer contract", e.Name, d.ID[:8], d.Function),
				Function: d.Function, File: d.File, editLine: d.editLine, Commit: e.head.ID}
			out, err := output(ctx, e.Dir, e.Binary, "annotate", "--commit", "HEAD", "--file", d.File, "--anchor", d.Function,
				"--constraint", repl.Text, "--supersedes", d.ID, "--author-kind", "human", "--json")
			if err != nil {
				return err
			}
			var res struct {
				Written []string `json:"written"`
			}
			_ = json.Unmarshal([]byte(out), &res)
			if len(res.Written) > 0 {
				repl.ID = res.Written[0]
			}
			e.decisions = append(e.decisions, repl)
		}
	}
	return nil
}

// Measure runs the pre-edit hook for each function with a decision in
// force, and for the files of the deleted ones, and counts what reached
// the agent; then times the hook on the largest file (runs rounds, the
// first one a warm-up).
func (e *DeliveryEnv) Measure(ctx context.Context, runs int) (*DeliveryResult, error) {
	res := &DeliveryResult{Repo: e.Name, Runs: runs}
	answers := map[string]string{} // function key -> the hook's answer
	answer := func(file, line string) (string, time.Duration, error) {
		key := file + "\x00" + line
		if a, ok := answers[key]; ok {
			return a, 0, nil
		}
		a, took, err := e.preEdit(ctx, file, line, fmt.Sprintf("bench-%d", time.Now().UnixNano()))
		answers[key] = a
		return a, took, err
	}
	functions := map[string]bool{}
	var laters []int
	var ages []time.Duration
	for _, d := range e.decisions {
		if d.Retired == "deleted" {
			continue
		}
		got, _, err := answer(d.File, d.editLine)
		if err != nil {
			return nil, err
		}
		delivered := strings.Contains(got, d.Text)
		if d.Retired == "" {
			res.InForce++
			if !functions[d.File+d.Function] && d.Commit != e.head.ID {
				functions[d.File+d.Function] = true
				laters = append(laters, d.Later)
				if c, err := lookupTime(e.Dir, d.Commit); err == nil {
					ages = append(ages, e.head.AuthorTime.Sub(c))
				}
			}
			if delivered {
				res.Delivered++
			} else {
				res.Missed = append(res.Missed, fmt.Sprintf("%s %s (recorded at %.8s on %s#%s): %s", d.File, d.Function, d.Commit, d.OldFile, d.Anchor, e.why(ctx, d)))
			}
			continue
		}
		res.Retired++
		if delivered {
			res.Leaked++
			res.Missed = append(res.Missed, fmt.Sprintf("retired (%s) but delivered: %s %s", d.Retired, d.File, d.Function))
		}
	}
	// A deleted function's decision reaches no edit of its file: an edit
	// of every function with a decision in the file, and a Write of the
	// whole file.
	for _, d := range e.decisions {
		if d.Retired != "deleted" {
			continue
		}
		res.Retired++
		got, _, err := e.preEditWrite(ctx, d.File)
		if err != nil {
			return nil, err
		}
		for key, a := range answers {
			if strings.HasPrefix(key, d.File+"\x00") {
				got += a
			}
		}
		if strings.Contains(got, d.Text) {
			res.Leaked++
			res.Missed = append(res.Missed, fmt.Sprintf("retired (deleted) but delivered: %s#%s", d.OldFile, d.Anchor))
		}
	}
	res.Functions = len(functions)
	res.LaterMedian = medianInt(laters)
	slices.Sort(ages)
	if len(ages) > 0 {
		res.AgeMedian = ages[len(ages)/2]
	}
	return res, e.timeLargest(ctx, res, runs)
}

// why says what a read of the function shows of a missed decision: its
// state, or that it is not found at all.
func (e *DeliveryEnv) why(ctx context.Context, d decision) string {
	content, err := os.ReadFile(filepath.Join(e.Dir, d.File))
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(string(content), "\n")
	at := slices.Index(lines, d.editLine) + 1
	out, err := output(ctx, e.Dir, e.Binary, "read", d.File, "--lines", fmt.Sprintf("%d:%d", at, at), "--all", "--json")
	if err != nil {
		return err.Error()
	}
	var r struct {
		Regions []struct {
			ID     string `json:"id"`
			Status *struct {
				State string `json:"state"`
			} `json:"status"`
		} `json:"regions"`
		Stats struct {
			Decisions, DecisionsReturned int
		} `json:"stats"`
	}
	_ = json.Unmarshal([]byte(out), &r)
	for _, reg := range r.Regions {
		if reg.ID == d.ID {
			if reg.Status != nil {
				return "read finds it " + reg.Status.State
			}
			return fmt.Sprintf("read finds it in force (%d decisions here): the hook's budget left it out", r.Stats.Decisions)
		}
	}
	return "read does not find it for that line"
}

// timeLargest times the pre-edit hook for the functions of the largest
// file with decisions in force.
func (e *DeliveryEnv) timeLargest(ctx context.Context, res *DeliveryResult, runs int) error {
	byFile := map[string][]decision{}
	for _, d := range e.decisions {
		if d.Retired == "" {
			byFile[d.File] = append(byFile[d.File], d)
		}
	}
	for f := range byFile {
		data, err := os.ReadFile(filepath.Join(e.Dir, f))
		if err != nil {
			return err
		}
		if n := bytes.Count(data, []byte("\n")); n > res.LargestLines || n == res.LargestLines && f < res.LargestFile {
			res.LargestFile, res.LargestLines = f, n
		}
	}
	var times, cpu []time.Duration
	for round := 0; round <= runs; round++ {
		for _, d := range byFile[res.LargestFile] {
			before := cpuOfChildren()
			_, took, err := e.preEdit(ctx, d.File, d.editLine, fmt.Sprintf("bench-time-%d-%d", round, time.Now().UnixNano()))
			if err != nil {
				return err
			}
			if round > 0 {
				times = append(times, took)
				cpu = append(cpu, cpuOfChildren()-before)
			}
		}
	}
	slices.Sort(times)
	slices.Sort(cpu)
	if n := len(times); n > 0 {
		res.P50, res.P95, res.CPU50 = times[n/2], times[min(n-1, (n*95+99)/100-1)], cpu[n/2]
	}
	return nil
}

// preEdit runs Claude Code's PreToolUse hook for an Edit of one line of
// file, as a whole process, and returns what it told the agent.
func (e *DeliveryEnv) preEdit(ctx context.Context, file, line, session string) (string, time.Duration, error) {
	in := map[string]any{"session_id": session, "cwd": e.Dir, "hook_event_name": "PreToolUse", "transcript_path": "",
		"tool_name": "Edit", "tool_input": map[string]any{"file_path": filepath.Join(e.Dir, file), "old_string": line, "new_string": line + " "}}
	return e.hook(ctx, in)
}

// preEditWrite is the hook for a Write of the whole of an existing file.
func (e *DeliveryEnv) preEditWrite(ctx context.Context, file string) (string, time.Duration, error) {
	content, err := os.ReadFile(filepath.Join(e.Dir, file))
	if err != nil {
		return "", 0, err
	}
	in := map[string]any{"session_id": fmt.Sprintf("bench-w-%d", time.Now().UnixNano()), "cwd": e.Dir, "hook_event_name": "PreToolUse",
		"transcript_path": "", "tool_name": "Write", "tool_input": map[string]any{"file_path": filepath.Join(e.Dir, file), "content": string(content) + "\n"}}
	return e.hook(ctx, in)
}

func (e *DeliveryEnv) hook(ctx context.Context, in map[string]any) (string, time.Duration, error) {
	data, _ := json.Marshal(in)
	cmd := exec.CommandContext(ctx, e.Binary, "agent", "hook", "--agent", "claude", "PreToolUse")
	cmd.Dir, cmd.Stdin = e.Dir, bytes.NewReader(data)
	var out bytes.Buffer
	cmd.Stdout = &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return "", 0, fmt.Errorf("pre-edit hook: %w", err)
	}
	took := time.Since(start)
	var ans struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	_ = json.Unmarshal(out.Bytes(), &ans)
	return ans.HookSpecificOutput.AdditionalContext, took, nil
}

// cpuOfChildren is the user and system time of this process's finished
// children: the hook processes (and what they ran), measured as one.
func cpuOfChildren() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func lookupTime(dir, commit string) (time.Time, error) {
	out, err := output(context.Background(), dir, "git", "show", "-s", "--format=%aI", commit)
	if err != nil {
		return time.Time{}, err
	}
	return time.Parse(time.RFC3339, strings.TrimSpace(out))
}

func medianInt(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// DeliveryRecipeFor finds the recipe whose revision the source has.
func DeliveryRecipeFor(ctx context.Context, src string) (DeliveryRecipe, bool) {
	for _, rc := range DeliveryRecipes {
		if run(ctx, src, "git", "cat-file", "-e", rc.Rev+"^{commit}") == nil {
			return rc, true
		}
	}
	return DeliveryRecipe{}, false
}
