package forge_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/forge"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/why"
)

// EnvScaleCommits sets the size of the scale benchmark's repository: that
// many commits, every one annotated. The default keeps `make test` (every
// benchmark once) quick; docs/speed.md's figures are for 100000.
const EnvScaleCommits = "GLOSS_SCALE_COMMITS"

const (
	scaleFiles = 1000 // files of the generated repository; commit i edits file i % scaleFiles
	scaleFuncs = 10   // functions per file
	// sparseRef holds only the notes of the commits that touch the file the
	// read benchmark reads: the same answer from a ref 1,000 times smaller.
	sparseRef = "refs/notes/scale/sparse"
	readFile  = "src/d00/f0000.go"
)

func scaleCommits() int {
	if n, err := strconv.Atoi(os.Getenv(EnvScaleCommits)); err == nil && n > 0 {
		return n
	}
	return 10000
}

var (
	scaleOnce sync.Once
	scaleDir  string
	scaleErr  error
	scaleTook time.Duration
)

// TestMain removes the generated repository, shared by the scale
// benchmarks, when the package's tests and benchmarks are done.
func TestMain(m *testing.M) {
	code := m.Run()
	if scaleDir != "" {
		os.RemoveAll(scaleDir)
	}
	os.Exit(code)
}

// scaleRepo generates, once per test process, a repository of
// scaleCommits() commits, each annotated (one region and one summary
// record), written with two `git fast-import` streams — the commits, then
// the notes trees (fast-import fans them out as git does) — instead of one
// `git notes add` per commit.
func scaleRepo(b *testing.B) string {
	b.Helper()
	scaleOnce.Do(func() {
		start := time.Now()
		scaleDir, scaleErr = os.MkdirTemp("", "gloss-scale-")
		if scaleErr == nil {
			scaleErr = generateScale(filepath.Join(scaleDir, "repo"), scaleCommits())
		}
		scaleTook = time.Since(start)
	})
	if scaleErr != nil {
		b.Fatal(scaleErr)
	}
	b.Logf("%d annotated commits generated in %s", scaleCommits(), scaleTook.Round(time.Millisecond))
	return filepath.Join(scaleDir, "repo")
}

func git(dir string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = fixtures.Env(filepath.Join(filepath.Dir(dir), "home"), "")
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

// fileName spreads the files over 32 directories: fast-import writes
// every tree on a changed path anew, and one flat directory of 1,000
// entries rewritten per commit would make generation ten times slower.
func fileName(f int) string { return fmt.Sprintf("src/d%02d/f%04d.go", f/32, f) }

// fileContent renders a generated Go file: scaleFuncs functions of five
// lines each, function k returning vals[k].
func fileContent(f int, vals []int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package src\n\n")
	for k, v := range vals {
		fmt.Fprintf(&b, "// Fn%d is function %d of file %d.\nfunc Fn%d() int {\n\treturn %d\n}\n\n", k, k, f, k, v)
	}
	return b.String()
}

func generateScale(dir string, n int) error {
	if err := os.MkdirAll(filepath.Join(filepath.Dir(dir), "home"), 0o755); err != nil {
		return err
	}
	if _, err := git(filepath.Dir(dir), nil, "init", "-q", "-b", "main", dir); err != nil {
		return err
	}
	marks := filepath.Join(filepath.Dir(dir), "marks")
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeCommits(pw, n)) }()
	if _, err := git(dir, pr, "fast-import", "--quiet", "--export-marks="+marks); err != nil {
		return err
	}
	ids, err := readMarks(marks, n)
	if err != nil {
		return err
	}
	pr, pw = io.Pipe()
	go func() { pw.CloseWithError(writeNotes(pw, ids)) }()
	if _, err := git(dir, pr, "fast-import", "--quiet"); err != nil {
		return err
	}
	_, err = git(dir, nil, "reset", "-q", "--hard", "main")
	return err
}

// writeCommits streams n commits; commit i (mark i+1) sets function
// (i / scaleFiles) % scaleFuncs of file i % scaleFiles to return i.
func writeCommits(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	vals := make([][]int, scaleFiles)
	for f := range vals {
		vals[f] = make([]int, scaleFuncs)
	}
	base := int64(1700000000)
	for i := 0; i < n; i++ {
		f, k := i%scaleFiles, (i/scaleFiles)%scaleFuncs
		vals[f][k] = i
		content := fileContent(f, vals[f])
		msg := fmt.Sprintf("change %d: Fn%d of %s", i, k, fileName(f))
		fmt.Fprintf(bw, "commit refs/heads/main\nmark :%d\ncommitter %s <%s> %d +0000\ndata %d\n%s\n",
			i+1, fixtures.UserName, fixtures.UserEmail, base+int64(i), len(msg), msg)
		if i > 0 {
			fmt.Fprintf(bw, "from :%d\n", i)
		}
		fmt.Fprintf(bw, "M 100644 inline %s\ndata %d\n%s\n", fileName(f), len(content), content)
	}
	return bw.Flush()
}

func readMarks(path string, n int) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ids := make([]string, n)
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		mark, id, _ := strings.Cut(line, " ")
		i, err := strconv.Atoi(strings.TrimPrefix(mark, ":"))
		if err != nil || i < 1 || i > n {
			return nil, fmt.Errorf("bad mark line %q", line)
		}
		ids[i-1] = id
	}
	return ids, nil
}

// noteFor is commit i's note: a region record for the function it changed
// and a summary record, as the post-commit hook writes them.
func noteFor(i int, id string) ([]byte, error) {
	f, k := i%scaleFiles, (i/scaleFiles)%scaleFuncs
	start := 3 + 5*k
	ts := time.Unix(1700000000+int64(i), 0).UTC()
	h := notes.Header{Schema: annotate.Schema, ID: notes.NewID(ts), Time: ts.Format(time.RFC3339)}
	author := annotate.Author{Kind: "human", Name: fixtures.UserName}
	region := annotate.Region{Header: h, Kind: annotate.KindRegion, Commit: id, File: fileName(f),
		Anchor: &annotate.Anchor{Kind: "function", Name: fmt.Sprintf("Fn%d", k), Signature: fmt.Sprintf("func Fn%d() int", k)},
		Lines:  annotate.Lines{Start: start, End: start + 3}, Intent: fmt.Sprintf("Fn%d returns %d for change %d", k, i, i),
		Constraints: []annotate.Constraint{{Text: "keeps returning an int", Source: "author"}}, Author: author, Source: annotate.SourceHook}
	h.ID = notes.NewID(ts.Add(time.Millisecond))
	summary := annotate.Summary{Header: h, Kind: annotate.KindSummary, Commit: id, Intent: fmt.Sprintf("change %d", i),
		Files: []string{fileName(f)}, Author: author, Source: annotate.SourceHook}
	var out []byte
	for _, rec := range []any{region, summary} {
		line, err := notes.Marshal(rec)
		if err != nil {
			return nil, err
		}
		out = append(append(out, line...), '\n')
	}
	return out, nil
}

// writeNotes streams two notes refs: every commit annotated, and the
// sparse ref with the notes of readFile's commits only.
func writeNotes(w io.Writer, ids []string) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	for _, ref := range []string{notes.Annotations, sparseRef} {
		msg := "gloss: generated notes"
		fmt.Fprintf(bw, "commit %s\ncommitter %s <%s> 1800000000 +0000\ndata %d\n%s\n", ref, fixtures.UserName, fixtures.UserEmail, len(msg), msg)
		for i, id := range ids {
			if ref == sparseRef && i%scaleFiles != 0 {
				continue
			}
			note, err := noteFor(i, id)
			if err != nil {
				return err
			}
			fmt.Fprintf(bw, "N inline %s\ndata %d\n%s\n", id, len(note), note)
		}
	}
	return bw.Flush()
}

func openScale(b *testing.B, dir string) *gitops.Repo {
	b.Helper()
	repo, err := gitops.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(repo.Close)
	return repo
}

// notesBytes is the packed size of everything the notes ref reaches that
// the branches do not: what a clone downloads for gloss's notes.
func notesBytes(b *testing.B, dir, ref string) float64 {
	b.Helper()
	objs, err := git(dir, nil, "rev-list", "--objects", ref, "--not", "--branches")
	if err != nil {
		b.Fatal(err)
	}
	var in bytes.Buffer
	for _, l := range strings.Split(strings.TrimSpace(string(objs)), "\n") {
		id, _, _ := strings.Cut(l, " ")
		in.WriteString(id + "\n")
	}
	out, err := git(dir, &in, "cat-file", "--batch-check=%(objectsize:disk)")
	if err != nil {
		b.Fatal(err)
	}
	total := 0
	for _, f := range strings.Fields(string(out)) {
		n, _ := strconv.Atoi(f)
		total += n
	}
	return float64(total)
}

// BenchmarkScale measures gloss on a repository whose every commit is
// annotated (GLOSS_SCALE_COMMITS, default 10000; docs/speed.md reports
// 100000): read with the full notes ref and with a sparse one (the same
// answer: read's cost must not grow with the number of annotated commits),
// ci check over the last ten commits, and sync with one new record on
// each side.
func BenchmarkScale(b *testing.B) {
	dir := scaleRepo(b)
	ctx := context.Background()
	n := scaleCommits()

	b.Run("notes-size", func(b *testing.B) {
		var size float64
		for i := 0; i < b.N; i++ {
			size = notesBytes(b, dir, notes.Annotations)
		}
		b.ReportMetric(size/1e6, "MB")
		b.ReportMetric(size/float64(n), "B/commit")
	})

	readBench := func(ref string, q why.Query) func(b *testing.B) {
		return func(b *testing.B) {
			repo := openScale(b, dir)
			read := func() *why.ReadResult {
				res, err := why.Read(ctx, repo, q)
				if err != nil {
					b.Fatal(err)
				}
				return res
			}
			// The ref under test stands in for the annotations ref.
			full, err := repo.RefTarget(notes.Annotations)
			if err != nil {
				b.Fatal(err)
			}
			if ref != notes.Annotations {
				tip, err := repo.RefTarget(ref)
				if err != nil {
					b.Fatal(err)
				}
				if err := repo.UpdateRef(notes.Annotations, tip, full, "bench: sparse notes"); err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { _ = repo.UpdateRef(notes.Annotations, full, tip, "bench: full notes") })
			}
			if res := read(); len(res.Regions) == 0 { // also warms the blame cache
				b.Fatalf("read found nothing: %+v", res.Notes)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				read()
			}
		}
	}
	// Fn0 of readFile: its last change is commit n - n%(scaleFiles*scaleFuncs)
	// or so; lines 3-6 either way.
	byLines := why.Query{Path: readFile, Lines: &annotate.Lines{Start: 3, End: 6}, Rev: "HEAD"}
	b.Run("read-lines-full-notes", readBench(notes.Annotations, byLines))
	b.Run("read-lines-sparse-notes", readBench(sparseRef, byLines))
	// An anchor query also searches the file's last 100 changes for older
	// records of the anchor: a walk of history, not of notes.
	b.Run("read-anchor-full-notes", readBench(notes.Annotations, why.Query{Path: readFile, Anchor: "Fn0", Rev: "HEAD"}))

	b.Run("ci-check", func(b *testing.B) {
		repo := openScale(b, dir)
		for i := 0; i < b.N; i++ {
			rep, err := forge.Check(ctx, repo, forge.CheckOptions{Base: "HEAD~10", NoFetch: true})
			if err != nil || rep.Failed {
				b.Fatalf("check: %v %+v", err, rep)
			}
		}
	})

	b.Run("sync-one-record-each-side", func(b *testing.B) {
		root := b.TempDir()
		remote := filepath.Join(root, "remote.git")
		if _, err := git(root, nil, "clone", "-q", "--bare", dir, remote); err != nil {
			b.Fatal(err)
		}
		if _, err := git(remote, nil, "fetch", "-q", dir, "+refs/notes/gloss/*:refs/notes/gloss/*"); err != nil {
			b.Fatal(err)
		}
		clone := func(name string) (*gitops.Repo, string) {
			d := filepath.Join(root, name)
			if _, err := git(root, nil, "clone", "-q", "--no-checkout", remote, d); err != nil {
				b.Fatal(err)
			}
			repo := openScale(b, d)
			if _, err := notes.Fetch(ctx, repo, "origin"); err != nil {
				b.Fatal(err)
			}
			return repo, d
		}
		mine, _ := clone("mine")
		theirs, _ := clone("theirs")
		head, err := mine.ResolveCommit("HEAD")
		if err != nil {
			b.Fatal(err)
		}
		parent, _ := mine.ResolveCommit("HEAD~1")
		add := func(repo *gitops.Repo, commit, intent string) {
			rec := annotate.Summary{Header: notes.NewHeader(annotate.Schema), Kind: annotate.KindSummary, Commit: commit, Intent: intent, Files: []string{}, Source: annotate.SourceAgent}
			if err := notes.Open(repo, notes.Annotations).Append(ctx, commit, rec); err != nil {
				b.Fatal(err)
			}
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			add(theirs, parent, fmt.Sprintf("theirs %d", i))
			if _, err := notes.Sync(ctx, theirs, notes.SyncOptions{}); err != nil {
				b.Fatal(err)
			}
			add(mine, head, fmt.Sprintf("mine %d", i))
			b.StartTimer()
			res, err := notes.Sync(ctx, mine, notes.SyncOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if len(res.Merged) != 1 || res.Merged[0].Action != "merged" || len(res.Pushed) != 1 {
				b.Fatalf("sync did not merge and push: %+v", res)
			}
		}
	})
}
