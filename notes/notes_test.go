package notes_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// The tests start copies of this test binary as independent writer
// processes; TestMain turns such a copy into a writer.
const (
	envRole   = "GLOSS_NOTES_TEST_ROLE"
	envRepo   = "GLOSS_NOTES_TEST_REPO"
	envObject = "GLOSS_NOTES_TEST_OBJECT"
	envWriter = "GLOSS_NOTES_TEST_WRITER"
	envCount  = "GLOSS_NOTES_TEST_COUNT"
	testRef   = "refs/notes/gloss/test"
)

type testRecord struct {
	notes.Header
	Writer int `json:"writer"`
	Seq    int `json:"seq"`
}

func TestMain(m *testing.M) {
	if os.Getenv(envRole) == "writer" {
		os.Exit(runWriter())
	}
	os.Exit(m.Run())
}

// runWriter appends count records, one write each, printing the id of each
// record once its write has returned.
func runWriter() int {
	repo, err := gitops.Open(os.Getenv(envRepo))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer repo.Close()
	store := notes.Open(repo, testRef)
	writer, _ := strconv.Atoi(os.Getenv(envWriter))
	count, _ := strconv.Atoi(os.Getenv(envCount))
	for i := 0; count == 0 || i < count; i++ {
		rec := testRecord{Header: notes.NewHeader("gloss/test/v1"), Writer: writer, Seq: i}
		if err := store.Append(context.Background(), os.Getenv(envObject), rec); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(rec.ID)
	}
	return 0
}

func writerCmd(t *testing.T, dir, object string, writer, count int) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envRole+"=writer", envRepo+"="+dir, envObject+"="+object,
		envWriter+"="+strconv.Itoa(writer), envCount+"="+strconv.Itoa(count))
	return cmd
}

func openRepo(t *testing.T, dir string) *gitops.Repo {
	t.Helper()
	r, err := gitops.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

func TestConcurrentWritersLoseNothing(t *testing.T) {
	fx := fixtures.NewRepo(t)
	head := fx.Commit("base", map[string]string{"f": "x\n"})
	const writers, each = 8, 50

	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			out, err := writerCmd(t, fx.Dir, head, w, each).CombinedOutput()
			if err != nil {
				errs <- fmt.Errorf("writer %d: %v\n%s", w, err, out)
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	store := notes.Open(openRepo(t, fx.Dir), testRef)
	got, err := store.Read([]string{head})
	if err != nil {
		t.Fatal(err)
	}
	recs := got[head]
	if len(recs) != writers*each {
		t.Fatalf("read %d records, want %d", len(recs), writers*each)
	}
	seen := map[string]bool{}
	for _, r := range recs {
		var tr testRecord
		if err := r.Decode(&tr); err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprintf("%d/%d", tr.Writer, tr.Seq)
		if seen[key] {
			t.Errorf("record %s stored twice", key)
		}
		seen[key] = true
	}
	if out := fx.Git("fsck", "--no-progress", "--no-dangling", "--strict"); out != "" {
		t.Errorf("git fsck: %s", out)
	}
}

func TestKilledWriterLeavesRepositoryConsistent(t *testing.T) {
	fx := fixtures.NewRepo(t)
	head := fx.Commit("base", map[string]string{"f": "x\n"})
	completed := map[string]bool{}

	for round := 0; round < 8; round++ {
		cmd := writerCmd(t, fx.Dir, head, round, 0) // writes until killed
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill at a different moment each round, mid-stream: counted from
		// the first acknowledged write, so a loaded machine that is slow to
		// start the writer still gets writes in before the kill.
		kill := func() { _ = cmd.Process.Signal(syscall.SIGKILL) }
		safety := time.AfterFunc(60*time.Second, kill)
		buf := new(strings.Builder)
		_, _ = readAll(stdout, buf, func() { time.AfterFunc(time.Duration(5+round*23)*time.Millisecond, kill) })
		_ = cmd.Wait()
		safety.Stop()
		// Only ids printed in full (with their newline) were acknowledged.
		lines := strings.Split(buf.String(), "\n")
		for _, id := range lines[:len(lines)-1] {
			completed[id] = true
		}
	}
	if len(completed) == 0 {
		t.Fatal("no write completed before the kills; the test proves nothing")
	}
	if out, err := fx.GitErr("fsck", "--no-progress", "--no-dangling", "--strict"); err != nil || strings.Contains(out, "error") {
		t.Fatalf("git fsck after kills: %v\n%s", err, out)
	}
	got, err := notes.Open(openRepo(t, fx.Dir), testRef).Read([]string{head})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, r := range got[head] {
		have[r.ID] = true
	}
	for id := range completed {
		if !have[id] {
			t.Errorf("acknowledged record %s is missing", id)
		}
	}
	// And the ref is still writable: no lock was left behind for good.
	if err := notes.Open(openRepo(t, fx.Dir), testRef).Append(context.Background(), head, testRecord{Header: notes.NewHeader("gloss/test/v1")}); err != nil {
		t.Errorf("append after kills: %v", err)
	}
}

// readAll copies r into w, calling first once the first line is complete.
func readAll(r interface{ Read([]byte) (int, error) }, w *strings.Builder, first func()) (int, error) {
	buf := make([]byte, 4096)
	total := 0
	for {
		n, err := r.Read(buf)
		w.Write(buf[:n])
		total += n
		if first != nil && strings.Contains(w.String(), "\n") {
			first()
			first = nil
		}
		if err != nil {
			return total, err
		}
	}
}

func TestParseToleratesConcatenationAndDamage(t *testing.T) {
	note := []byte(`{"$schema":"gloss/test/v1","id":"A","ts":"2026-01-01T00:00:00Z"}

{"$schema":"gloss/test/v1","id":"B","supersedes":["A"]}
not json at all
{"id":"C"}
["array"]
{"$schema":"gloss/test/v1","id":"A"}
{"$schema":"gloss/test/v1","id":"D"}`)
	recs, bad := notes.Parse(note)
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.ID)
	}
	if strings.Join(ids, ",") != "A,B,D" || bad != 3 {
		t.Errorf("Parse ids = %v bad = %d, want A,B,D and 3 bad", ids, bad)
	}
	var resolved []string
	for _, r := range notes.Resolve(recs) {
		resolved = append(resolved, r.ID)
	}
	if strings.Join(resolved, ",") != "B,D" {
		t.Errorf("Resolve = %v, want B,D", resolved)
	}
}

// ReadResolved leaves out, per object, the records another record of the
// same note supersedes; Read keeps them.
func TestReadResolvedDropsSuperseded(t *testing.T) {
	fx := fixtures.NewRepo(t)
	head := fx.Commit("base", map[string]string{"f": "x\n"})
	repo, err := gitops.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	store := notes.Open(repo, testRef)
	old := testRecord{Header: notes.NewHeader("gloss/test/v1"), Seq: 1}
	fix := testRecord{Header: notes.NewHeader("gloss/test/v1"), Seq: 2}
	fix.Supersedes = []string{old.ID}
	if err := store.Append(context.Background(), head, old, fix); err != nil {
		t.Fatal(err)
	}
	ids := func(recs map[string][]notes.Record) string {
		var out []string
		for _, r := range recs[head] {
			out = append(out, r.ID)
		}
		return strings.Join(out, ",")
	}
	all, err := store.Read([]string{head})
	if err != nil || ids(all) != old.ID+","+fix.ID {
		t.Errorf("Read = %s, %v; want both records", ids(all), err)
	}
	live, err := store.ReadResolved([]string{head})
	if err != nil || ids(live) != fix.ID {
		t.Errorf("ReadResolved = %s, %v; want %s alone", ids(live), err, fix.ID)
	}
}

func TestMarshalRequiresHeader(t *testing.T) {
	if _, err := notes.Marshal(map[string]string{"id": "x"}); err == nil {
		t.Error("record without $schema accepted")
	}
	if _, err := notes.Marshal(map[string]string{"$schema": "s"}); err == nil {
		t.Error("record without id accepted")
	}
	line, err := notes.Marshal(testRecord{Header: notes.NewHeader("gloss/test/v1"), Writer: 1})
	if err != nil || strings.Contains(string(line), "\n") {
		t.Errorf("Marshal = %q, %v", line, err)
	}
	if !strings.Contains(string(line), `"writer":1`) {
		t.Errorf("Marshal lost fields: %s", line)
	}
}

func TestNewIDIsSortableAndUnique(t *testing.T) {
	seen := map[string]bool{}
	prev := ""
	for i := 0; i < 1000; i++ {
		id := notes.NewID(time.UnixMilli(int64(1_700_000_000_000 + i)))
		if len(id) != 26 || seen[id] {
			t.Fatalf("bad or duplicate id %q", id)
		}
		if id <= prev {
			t.Fatalf("ids not time-ordered: %s after %s", id, prev)
		}
		seen[id], prev = true, id
	}
}

func TestMergeLines(t *testing.T) {
	got := string(notes.MergeLines([]byte("a\nb\n\n"), []byte("b\nc\na\nd")))
	if got != "a\nb\nc\nd\n" {
		t.Errorf("MergeLines = %q", got)
	}
}

func TestMergeRefUnionsDivergedRefs(t *testing.T) {
	fx := fixtures.NewRepo(t)
	c1 := fx.Commit("one", nil)
	c2 := fx.Commit("two", nil)
	repo := openRepo(t, fx.Dir)
	ctx := context.Background()
	ours := notes.Open(repo, "refs/notes/gloss/test")
	theirs := notes.Open(repo, "refs/notes/gloss/theirs")
	rec := func(n string) testRecord {
		h := notes.NewHeader("gloss/test/v1")
		h.ID = n
		return testRecord{Header: h}
	}
	must(t, ours.Append(ctx, c1, rec("shared")))
	// theirs starts from ours, then both diverge.
	tip, _ := repo.RefTarget(ours.Ref())
	must(t, repo.UpdateRef(theirs.Ref(), tip, "", "branch"))
	must(t, ours.Append(ctx, c1, rec("ours-1")))
	must(t, theirs.Append(ctx, c1, rec("theirs-1")))
	must(t, theirs.Append(ctx, c2, rec("theirs-2")))

	res, err := notes.MergeRef(ctx, repo, ours.Ref(), theirs.Ref())
	if err != nil || res.Action != "merged" {
		t.Fatalf("MergeRef = %+v, %v", res, err)
	}
	all, _, err := ours.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	ids := func(rs []notes.Record) string {
		var s []string
		for _, r := range rs {
			s = append(s, r.ID)
		}
		return strings.Join(s, ",")
	}
	if ids(all[c1]) != "shared,ours-1,theirs-1" || ids(all[c2]) != "theirs-2" {
		t.Errorf("merged: c1=%s c2=%s", ids(all[c1]), ids(all[c2]))
	}
	theirTip, _ := repo.RefTarget(theirs.Ref())
	if ok, _ := repo.IsAncestor(theirTip, res.Tip); !ok {
		t.Error("merge commit does not have the merged tip as a parent")
	}
	again, err := notes.MergeRef(ctx, repo, ours.Ref(), theirs.Ref())
	if err != nil || again.Action != "none" {
		t.Errorf("second merge = %+v, %v; want none", again, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
