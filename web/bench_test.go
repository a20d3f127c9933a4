package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/why"
)

// BenchmarkFilePage times the file page, warm (the blame cache filled),
// against the whole-file read it is built on, in the same process:
//
//	read        why.Read of the whole file (git gloss read FILE --json)
//	blame-json  the page's JSON twin (git gloss blame FILE --json)
//	page-html   the page as a browser gets it: blame, source (escaped;
//	            the browser highlights it), deps, template
//
// With GLOSS_BENCH_REPO (a clone prepared by the read recipe, see
// bench.FzfRecipe) and GLOSS_BENCH_FILE (default src/terminal.go) it
// measures that file; otherwise a generated history with a 5,200-line
// hot file.
func BenchmarkFilePage(b *testing.B) {
	dir, file := benchTarget(b)
	s, err := New(dir)
	if err != nil {
		b.Fatal(err)
	}
	s.hosts["bench.local"] = true
	h := s.Handler()
	get := func(b *testing.B, url string) int {
		req := httptest.NewRequest(http.MethodGet, url, nil)
		req.Host = "bench.local"
		req.AddCookie(&http.Cookie{Name: s.cookieName(), Value: s.token})
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("%s: %d %s", url, w.Code, w.Body.String())
		}
		return w.Body.Len()
	}
	// Warm: the first request fills the blame cache.
	get(b, "/file/"+file)
	repo, err := gitops.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer repo.Close()
	b.Run("read", func(b *testing.B) {
		defer cpuPerOp(b)()
		for b.Loop() {
			if _, err := why.Read(context.Background(), repo, why.Query{Path: file}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("blame-json", func(b *testing.B) {
		defer cpuPerOp(b)()
		n := 0
		for b.Loop() {
			n = get(b, "/file/"+file+"?format=json")
		}
		b.ReportMetric(float64(n), "bytes")
	})
	b.Run("page-html", func(b *testing.B) {
		defer cpuPerOp(b)()
		n := 0
		for b.Loop() {
			n = get(b, "/file/"+file)
		}
		b.ReportMetric(float64(n), "bytes")
	})
}

// cpuPerOp reports the process's CPU time (user+system) per operation:
// on a machine others load, it is steadier than wall time.
func cpuPerOp(b *testing.B) func() {
	before := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuTime()-before)/float64(b.N)/1e6, "cpu-ms/op")
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var benchHistory = fixtures.HistoryOptions{Commits: 300, Files: 6, Lines: 300, HotLines: 5200, EditsPerFile: 3, FilesPerEdit: 1, Seed: 5}

var (
	benchOnce sync.Once
	benchDir  string
	benchHot  string
	benchErr  error
)

func benchTarget(b *testing.B) (dir, file string) {
	if dir := os.Getenv("GLOSS_BENCH_REPO"); dir != "" {
		file = os.Getenv("GLOSS_BENCH_FILE")
		if file == "" {
			file = "src/terminal.go"
		}
		return dir, file
	}
	benchOnce.Do(func() {
		benchDir = filepath.Join(os.TempDir(), fmt.Sprintf("gloss-web-bench-%d-%d-%d", benchHistory.Commits, benchHistory.HotLines, benchHistory.Seed))
		marker := filepath.Join(benchDir, ".git", "gloss-bench-hot")
		if data, err := os.ReadFile(marker); err == nil {
			benchHot = strings.TrimSpace(string(data))
			return
		}
		_ = os.RemoveAll(benchDir)
		benchHot, benchErr = fixtures.GenerateHistory(benchDir, benchHistory)
		if benchErr == nil {
			benchErr = os.WriteFile(marker, []byte(benchHot), 0o644)
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDir, benchHot
}
