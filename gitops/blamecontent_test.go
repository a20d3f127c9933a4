package gitops_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
)

// TestBlameContentEqualsGitBlame edits a file over a history of commits,
// then blames buffers that differ from HEAD (lines inserted, deleted and
// rewritten, none saved) and compares each with git blame of the same
// content in the working tree. Every line is unique, so that any line
// diff is the same diff and the two blames must agree line for line.
func TestBlameContentEqualsGitBlame(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 9))
	fx := fixtures.NewRepo(t)
	repo := open(t, fx.Dir)
	next := 0
	fresh := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			next++
			out[i] = fmt.Sprintf("line %d of the history", next)
		}
		return out
	}
	edit := func(lines []string) []string {
		out := slices.Clone(lines)
		for e := 0; e < 1+rng.IntN(4); e++ {
			i := rng.IntN(len(out) + 1)
			switch rng.IntN(3) {
			case 0:
				out = slices.Insert(out, i, fresh(1+rng.IntN(5))...)
			case 1:
				if len(out) > 5 && i < len(out) {
					out = slices.Delete(out, i, min(len(out), i+1+rng.IntN(3)))
				}
			case 2:
				if i < len(out) {
					out[i] = fresh(1)[0]
				}
			}
		}
		return out
	}
	lines := fresh(40)
	for c := 0; c < 12; c++ {
		lines = edit(lines)
		fx.Commit(fmt.Sprintf("change %d", c), map[string]string{"src/a.go": strings.Join(lines, "\n") + "\n"})
	}
	for trial := 0; trial < 20; trial++ {
		buffer := edit(lines)
		if trial%7 == 0 {
			buffer = lines // HEAD's own version, the common case
		}
		content := strings.Join(buffer, "\n") + "\n"
		if trial%5 == 4 {
			content = strings.TrimSuffix(content, "\n") // a last line without its newline
		}
		fx.Write("src/a.go", content)
		want, err := repo.Blame(ctx, "", "src/a.go", 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := repo.BlameContent(ctx, "src/a.go", []byte(content), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Lines) != len(want.Lines) {
			t.Fatalf("trial %d: %d lines blamed, git blame %d", trial, len(got.Lines), len(want.Lines))
		}
		for i := range want.Lines {
			if got.Lines[i] != want.Lines[i] {
				t.Fatalf("trial %d line %d: content blame %+v, git blame %+v", trial, i+1, got.Lines[i], want.Lines[i])
			}
		}
		// A range of the buffer is the same range of the whole.
		if n := len(got.Lines); n > 10 {
			part, err := repo.BlameContent(ctx, "src/a.go", []byte(content), 4, n-3)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(part.Lines, got.Lines[3:n-3]) {
				t.Fatalf("trial %d: the range 4..%d differs from the whole file's", trial, n-3)
			}
		}
	}
	// A file HEAD does not have is all uncommitted.
	b, err := repo.BlameContent(ctx, "src/new.go", []byte("a\nb\n"), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Lines) != 2 || b.Lines[0].Commit != gitops.Uncommitted || b.Lines[1].Commit != gitops.Uncommitted {
		t.Fatalf("new file: %+v", b.Lines)
	}
}
