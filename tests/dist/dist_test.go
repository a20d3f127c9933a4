// Package dist tests the release archive `make dist` builds: its checksum,
// that its binary needs no shared library and starts in an empty root, and
// that scripts/install.sh puts it and its man page where git finds them.
//
// The archive is built by the Makefile (it takes minutes on a fresh
// machine), which names it in GLOSS_DIST_ARCHIVE; without it these tests
// skip and say so.
package dist

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
)

// archive returns the archive under test, or skips.
func archive(t testing.TB) string {
	a := os.Getenv("GLOSS_DIST_ARCHIVE")
	if a == "" {
		t.Skip("GLOSS_DIST_ARCHIVE is not set: make test builds the archive with make dist and names it there")
	}
	return a
}

// extract unpacks the archive into a temporary directory and returns the
// directory holding git-gloss.
func extract(t testing.TB, a string) string {
	f, err := os.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(h.Name, "..") {
			t.Fatalf("archive entry %q leaves the archive", h.Name)
		}
		dst := filepath.Join(dir, h.Name)
		if h.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(dst, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, os.FileMode(h.Mode))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, tr); err != nil {
			t.Fatal(err)
		}
		out.Close()
	}
	bins, _ := filepath.Glob(filepath.Join(dir, "*", "git-gloss"))
	if len(bins) != 1 {
		t.Fatalf("archive holds %d git-gloss binaries, want 1", len(bins))
	}
	return filepath.Dir(bins[0])
}

func TestChecksumListed(t *testing.T) {
	a := archive(t)
	sums, err := os.ReadFile(filepath.Join(filepath.Dir(a), "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	want := hex.EncodeToString(sum[:]) + "  " + filepath.Base(a)
	if !strings.Contains(string(sums), want) {
		t.Fatalf("SHA256SUMS does not list %q:\n%s", want, sums)
	}
}

func TestNoSharedLibraries(t *testing.T) {
	dir := extract(t, archive(t))
	out, _ := exec.Command("ldd", filepath.Join(dir, "git-gloss")).CombinedOutput()
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.Contains(line, "not a dynamic executable"), strings.Contains(line, "statically linked"):
		case strings.HasPrefix(line, "linux-vdso"), strings.Contains(line, "ld-linux"), strings.HasPrefix(line, "libc.so"):
		default:
			t.Errorf("git-gloss links %s; want no library beyond the C library", line)
		}
	}
}

// TestRunsInEmptyRoot runs the binary in a chroot that holds only it and a
// test repository: nothing from the build machine is there to lean on.
func TestRunsInEmptyRoot(t *testing.T) {
	dir := extract(t, archive(t))
	if os.Geteuid() != 0 {
		t.Skip("chroot needs root")
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(dir, "git-gloss"), filepath.Join(root, "bin", "git-gloss"), 0o755)
	repo := fixtures.NewRepo(t)
	repo.Commit("add main", map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	if out, err := exec.Command("cp", "-a", repo.Dir, filepath.Join(root, "repo")).CombinedOutput(); err != nil {
		t.Fatalf("copy repository: %v\n%s", err, out)
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("chroot", append([]string{root, "/bin/git-gloss"}, args...)...)
		cmd.Env = []string{"HOME=/", "PATH=/bin"}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git-gloss %s in an empty root: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	if out := run("--version"); !strings.HasPrefix(out, "git-gloss ") {
		t.Errorf("--version printed %q", out)
	}
	if out := run("help", "read"); !strings.Contains(out, "git gloss read") {
		t.Errorf("help read printed %q", out)
	}
	if out := run("-C", "/repo", "schema", "read"); !strings.Contains(out, `"$schema"`) {
		t.Errorf("schema read printed %q", out)
	}
}

// TestInstallScript installs the archive into a temporary prefix and asks
// git for `git gloss --help`, which git answers with the man page.
func TestInstallScript(t *testing.T) {
	a := archive(t)
	if _, err := exec.LookPath("man"); err != nil {
		t.Skip("man is not installed")
	}
	prefix := t.TempDir()
	script := filepath.Join(fixtures.ModuleRoot(), "scripts", "install.sh")
	out, err := exec.Command("bash", script, "--prefix", prefix, a).CombinedOutput()
	if err != nil {
		t.Fatalf("install.sh: %v\n%s", err, out)
	}
	for _, want := range []string{"checksum of", "installed " + prefix + "/bin/git-gloss", "MANPATH"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("install.sh said:\n%s\nwant it to mention %q", out, want)
		}
	}
	repo := fixtures.NewRepo(t)
	cmd := exec.Command("git", "gloss", "--help")
	cmd.Dir = repo.Dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Join(prefix, "bin")+":"+os.Getenv("PATH"),
		"MANPATH="+filepath.Join(prefix, "share", "man")+":", "MANPAGER=cat", "PAGER=cat", "MANWIDTH=80", "GIT_PAGER=cat")
	help, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git gloss --help: %v\n%s", err, help)
	}
	for _, want := range []string{"GIT-GLOSS(1)", "git gloss task ready", "EXIT STATUS"} {
		if !strings.Contains(string(help), want) {
			t.Errorf("git gloss --help does not show the man page (no %q):\n%.600s", want, help)
		}
	}

	// A tampered archive is refused.
	bad := filepath.Join(t.TempDir(), filepath.Base(a))
	data, _ := os.ReadFile(a)
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(bad, data, 0o644); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(filepath.Dir(a), "SHA256SUMS"), filepath.Join(filepath.Dir(bad), "SHA256SUMS"), 0o644)
	out, err = exec.Command("bash", script, "--prefix", t.TempDir(), bad).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "checksum mismatch") {
		t.Fatalf("a tampered archive was not refused: %v\n%s", err, out)
	}
}

// BenchmarkStart pairs the archive's git-gloss --version with git --version:
// the process start every hook and agent hook pays. Each iteration starts
// all three commands in turn, so that a busy moment of the machine weighs
// on each alike, and the medians are reported beside the mean: a start
// time is judged by its p50.
func BenchmarkStart(b *testing.B) {
	dir := extract(b, archive(b))
	bin := filepath.Join(dir, "git-gloss")
	// --version takes the fast path the hooks take (cli/fast.go); -v
	// --version goes through the parser, as a command a person types does.
	cmds := []struct {
		metric string
		argv   []string
	}{
		{"gloss-p50-ms", []string{bin, "--version"}},
		{"gloss-parser-p50-ms", []string{bin, "-v", "--version"}},
		{"git-p50-ms", []string{"git", "--version"}},
	}
	took := make([][]time.Duration, len(cmds))
	for b.Loop() {
		for i, c := range cmds {
			start := time.Now()
			if err := exec.Command(c.argv[0], c.argv[1:]...).Run(); err != nil {
				b.Fatal(err)
			}
			took[i] = append(took[i], time.Since(start))
		}
	}
	p50 := make([]float64, len(cmds))
	for i, c := range cmds {
		slices.Sort(took[i])
		p50[i] = float64(took[i][len(took[i])/2].Microseconds()) / 1000
		b.ReportMetric(p50[i], c.metric)
	}
	b.ReportMetric(p50[0]/p50[2], "gloss/git")
}

func copyFile(t testing.TB, src, dst string, mode os.FileMode) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, mode); err != nil {
		t.Fatal(err)
	}
}

// TestInstallFromARelease serves a release (the archive, SHA256SUMS) from a
// web server on loopback, as a release page would, and installs it with
// install.sh --version: the checksum is checked, the provenance step says
// what it could check (with a gh that refuses, the archive is refused),
// and git gloss --help then shows the man page. A release that does not
// exist, or whose archive was tampered with, is refused.
func TestInstallFromARelease(t *testing.T) {
	a := archive(t)
	if _, err := exec.LookPath("man"); err != nil {
		t.Skip("man is not installed")
	}
	name := filepath.Base(a)
	version := strings.TrimPrefix(strings.Split(name, "_linux_")[0], "git-gloss_")
	release := t.TempDir()
	if err := os.MkdirAll(filepath.Join(release, version), 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, a, filepath.Join(release, version, name), 0o644)
	copyFile(t, filepath.Join(filepath.Dir(a), "SHA256SUMS"), filepath.Join(release, version, "SHA256SUMS"), 0o644)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var served []string
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		served = append(served, r.URL.Path)
		mu.Unlock()
		http.FileServer(http.Dir(release)).ServeHTTP(w, r)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	base := "http://" + ln.Addr().String()
	script := filepath.Join(fixtures.ModuleRoot(), "scripts", "install.sh")

	// No gh or cosign on PATH: only the checksum is checked, and it says so.
	noTools := t.TempDir()
	for _, tool := range []string{"bash", "curl", "tar", "sha256sum", "awk", "find", "mktemp", "cp", "install", "id", "uname", "dirname", "basename", "sed", "ls", "head", "rm", "mkdir", "cat", "tr", "grep", "manpath", "gzip"} {
		if p, err := exec.LookPath(tool); err == nil {
			_ = os.Symlink(p, filepath.Join(noTools, tool))
		}
	}
	prefix := t.TempDir()
	cmd := exec.Command("bash", script, "--version", version, "--from", base, "--prefix", prefix)
	cmd.Env = append(os.Environ(), "PATH="+noTools)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("install.sh --version %s: %v\n%s", version, err, out)
	}
	for _, want := range []string{"downloading " + name, "checksum of " + name + " verified", "build provenance not checked: neither gh nor cosign", "gh attestation verify " + name, "installed " + prefix + "/bin/git-gloss"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("install.sh said:\n%s\nwant it to mention %q", out, want)
		}
	}
	mu.Lock()
	if !slices.Contains(served, "/"+version+"/"+name) || !slices.Contains(served, "/"+version+"/SHA256SUMS") {
		t.Errorf("the loopback release served %v", served)
	}
	mu.Unlock()
	help := exec.Command("git", "gloss", "--help")
	help.Dir = fixtures.NewRepo(t).Dir
	help.Env = append(os.Environ(), "PATH="+filepath.Join(prefix, "bin")+":"+os.Getenv("PATH"),
		"MANPATH="+filepath.Join(prefix, "share", "man")+":", "MANPAGER=cat", "PAGER=cat", "MANWIDTH=80", "GIT_PAGER=cat")
	page, err := help.CombinedOutput()
	if err != nil || !strings.Contains(string(page), "GIT-GLOSS(1)") {
		t.Errorf("git gloss --help after install --version: %v\n%.400s", err, page)
	}

	// --require-provenance refuses when nothing can check it.
	cmd = exec.Command("bash", script, "--version", version, "--from", base, "--prefix", t.TempDir(), "--require-provenance")
	cmd.Env = append(os.Environ(), "PATH="+noTools)
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "--require-provenance") {
		t.Errorf("--require-provenance without gh or cosign: %v\n%s", err, out)
	}
	// A gh whose verification fails: the archive is refused.
	gh := filepath.Join(noTools, "gh")
	if err := os.WriteFile(gh, []byte("#!/bin/sh\necho \"$@\" >> \""+filepath.Join(t.TempDir(), "gh.args")+"\"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command("bash", script, "--version", version, "--from", base, "--prefix", t.TempDir())
	cmd.Env = append(os.Environ(), "PATH="+noTools)
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "does not verify") {
		t.Errorf("an archive whose provenance does not verify was installed: %v\n%s", err, out)
	}
	_ = os.Remove(gh)
	// A release that does not exist.
	cmd = exec.Command("bash", script, "--version", "v0.0.0-none", "--from", base, "--prefix", t.TempDir())
	cmd.Env = append(os.Environ(), "PATH="+noTools)
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "no git-gloss_v0.0.0-none_linux_") {
		t.Errorf("a missing release: %v\n%s", err, out)
	}
	// A tampered archive on the server.
	data, _ := os.ReadFile(a)
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(filepath.Join(release, version, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command("bash", script, "--version", version, "--from", base, "--prefix", t.TempDir())
	cmd.Env = append(os.Environ(), "PATH="+noTools)
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "checksum mismatch") {
		t.Errorf("a tampered release archive was not refused: %v\n%s", err, out)
	}
}
