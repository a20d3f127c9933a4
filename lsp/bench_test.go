package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/runenv"
	"github.com/gloss-dev/gloss/treesitter"
)

// BenchmarkEditor times what an editor waits for, through the real
// `git gloss lsp` process over stdio:
//
//	first  didOpen of the file, then its code lenses and a hover: the
//	       first answers after opening (a new session each time, so no
//	       answer of the server is cached; gloss's caches under the git
//	       dir are warm, as in a repository in use)
//	hover      a hover on a line not hovered before, in an open file
//	lens       the code lenses again, the file unchanged (the editor asks
//	           on scrolling, switching tabs, after a save)
//	lens-edit  the code lenses of a new version of the file (each edit
//	           makes one: nothing the server computed is reused)
//	git-blame  beside them, what an editor's plain gutter blame runs for
//	           one line: git blame --porcelain -L N,N, a whole process
//
// Each reports p50 and p95 in ms. With GLOSS_BENCH_REPO (a clone prepared
// by the read recipe: bench.FzfRecipe, fzf at 956562da) and
// GLOSS_BENCH_FILE (default src/terminal.go, 8,839 lines) it measures that
// file (docs/editors.md); otherwise the test repository of lsp_test.go.
func BenchmarkEditor(b *testing.B) {
	fx, file := benchRepo(b)
	text, err := os.ReadFile(fx.Path(file))
	if err != nil {
		b.Fatal(err)
	}
	lines := hoverLines(file, text)
	b.Run("first", func(b *testing.B) {
		var ds []time.Duration
		for b.Loop() {
			s := startSession(b, fx, "")
			start := time.Now()
			u := s.open(fx, file, string(text))
			s.lenses(u)
			s.mustHover(u, lines[0])
			ds = append(ds, time.Since(start))
			s.close()
		}
		report(b, ds)
	})
	s := startSession(b, fx, "")
	u := s.open(fx, file, string(text))
	s.lenses(u)
	b.Run("hover", func(b *testing.B) {
		var ds []time.Duration
		i := 0
		for b.Loop() {
			l := lines[i%len(lines)] + i/len(lines)
			i++
			start := time.Now()
			s.mustHover(u, l)
			ds = append(ds, time.Since(start))
		}
		report(b, ds)
	})
	b.Run("lens", func(b *testing.B) {
		var ds []time.Duration
		for b.Loop() {
			start := time.Now()
			if len(s.lenses(u)) == 0 {
				b.Fatal("no code lens")
			}
			ds = append(ds, time.Since(start))
		}
		report(b, ds)
	})
	b.Run("git-blame", func(b *testing.B) { gitBlame(b, fx, file, lines) })
	b.Run("lens-edit", func(b *testing.B) {
		var ds []time.Duration
		version := int32(1)
		for b.Loop() {
			version++
			s.change(u, version, string(text))
			start := time.Now()
			if len(s.lenses(u)) == 0 {
				b.Fatal("no code lens")
			}
			ds = append(ds, time.Since(start))
		}
		report(b, ds)
	})
}

// gitBlame times git blame of the hovered lines, as processes.
func gitBlame(b *testing.B, fx *fixtures.Repo, file string, lines []int) {
	var ds []time.Duration
	i := 0
	for b.Loop() {
		l := lines[i%len(lines)] + i/len(lines)
		i++
		start := time.Now()
		fx.Git("blame", "--porcelain", "-L", fmt.Sprintf("%d,%d", l, l), "--", file)
		ds = append(ds, time.Since(start))
	}
	report(b, ds)
}

// benchRepo is the repository measured and the file in it.
func benchRepo(b *testing.B) (*fixtures.Repo, string) {
	dir := os.Getenv(runenv.BenchRepo)
	if dir == "" {
		fx := newShop(b)
		return fx, "shop.go"
	}
	file := os.Getenv(runenv.BenchFile)
	if file == "" {
		file = "src/terminal.go"
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		b.Fatal(err)
	}
	return &fixtures.Repo{T: b, Dir: abs, Env: fixtures.Env(b.TempDir(), filepath.Dir(fixtures.Binary(b)))}, file
}

// hoverLines are lines inside the file's functions, spread over it: the
// middle line of every function, longest functions first.
func hoverLines(file string, text []byte) []int {
	anchors := treesitter.Outline(file, text)
	slices.SortStableFunc(anchors, func(a, b treesitter.Anchor) int { return (b.End - b.Start) - (a.End - a.Start) })
	var out []int
	for _, a := range anchors {
		if a.End-a.Start >= 4 {
			out = append(out, (a.Start+a.End)/2)
		}
	}
	if len(out) == 0 {
		out = []int{1 + strings.Count(string(text), "\n")/2}
	}
	return out
}

// report adds p50 and p95 in milliseconds.
func report(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(ds[len(ds)/2]), "p50-ms")
	b.ReportMetric(ms(ds[min(len(ds)-1, len(ds)*95/100)]), "p95-ms")
	b.ReportMetric(0, "ns/op")
}
