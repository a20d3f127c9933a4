package annotate_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/fixtures"
)

// commitFunc adds a Go file with one function and stages an intent for it
// first, the way an agent would.
func commitFunc(t *testing.T, fx *fixtures.Repo, name, intent string) string {
	t.Helper()
	file := "pkg/" + strings.ToLower(name) + ".go"
	fx.MustGloss("annotate", "--file", file, "--anchor", name, "--intent", intent)
	return fx.Commit("add "+name, map[string]string{file: fmt.Sprintf("package pkg\n\n// %s does its job.\nfunc %s() int {\n\treturn %d\n}\n", name, name, len(name))})
}

// readIntent returns the intents read back for an anchor of a file.
func readIntent(t *testing.T, fx *fixtures.Repo, file, anchor string) []string {
	t.Helper()
	res := read(t, fx, file, "--anchor", anchor)
	return intents(res)
}

func sourcesOf(t *testing.T, fx *fixtures.Repo, file, anchor string) []string {
	t.Helper()
	var out []string
	for _, r := range read(t, fx, file, "--anchor", anchor).Regions {
		out = append(out, r.Source)
	}
	return out
}

func TestAmendKeepsAnnotations(t *testing.T) {
	fx := newRepo(t)
	fx.MustGloss("annotate", "--file", "server/server.go", "--anchor", "Server.Handle", "--intent", "routes in one place")
	fx.Commit("server: API", map[string]string{"server/server.go": serverV1})
	// Amend: shift everything down and change list.
	v2 := strings.Replace(serverV1, "import \"net/http\"\n", "import \"net/http\"\n\n// Version of the API.\nconst Version = 2\n", 1)
	v2 = strings.Replace(v2, `"[]"`, `"[ ]"`, 1)
	fx.Write("server/server.go", v2)
	fx.Git("commit", "-q", "-a", "--amend", "--no-edit")

	res := read(t, fx, "server/server.go", "--anchor", "Server.Handle")
	if len(res.Regions) != 1 || res.Regions[0].Intent != "routes in one place" || res.Regions[0].Source != annotate.SourceAmend {
		t.Fatalf("after amend: %+v", res.Regions)
	}
	if l := res.Regions[0].Lines; l.Start != 11 || l.End != 14 {
		t.Errorf("lines not remapped to the amended commit: %+v", l)
	}
	// The amend's own change (the Version lines) was captured.
	if got := intents(read(t, fx, "server/server.go", "--lines", "5:6")); len(got) != 1 || got[0] != "server: API" {
		t.Errorf("Version lines: %v", got)
	}
	if got := readIntent(t, fx, "server/server.go", "Server.list"); len(got) != 1 {
		t.Errorf("Server.list has %d records after amend, want 1 (no duplicates): %v", len(got), got)
	}
}

func TestInteractiveRebaseRewordSquashFixupDropReorder(t *testing.T) {
	fx := newRepo(t)
	c := map[string]string{}
	for _, n := range []string{"Alpha", "Beta", "Gamma", "Delta", "Eps", "Fix"} {
		c[n] = commitFunc(t, fx, n, "why "+n)
	}
	base := fx.Git("rev-parse", c["Alpha"]+"~1")
	short := func(n string) string { return c[n][:12] }
	todo := strings.Join([]string{
		"pick " + short("Eps"), "fixup " + short("Fix"),
		"reword " + short("Alpha"), "pick " + short("Beta"), "squash " + short("Gamma"),
		"drop " + short("Delta"),
	}, "\n") + "\n"
	dir := t.TempDir()
	todoFile := filepath.Join(dir, "todo")
	if err := os.WriteFile(todoFile, []byte(todo), 0o644); err != nil {
		t.Fatal(err)
	}
	editor := filepath.Join(dir, "editor.sh")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\ncase \"$(head -1 \"$1\")\" in\n  'add Alpha') sed -i '1s/.*/add Alpha, reworded/' \"$1\" ;;\nesac\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := fx.Command("git", "rebase", "-i", base)
	cmd.Env = append(cmd.Env, "GIT_SEQUENCE_EDITOR=cp "+todoFile, "GIT_EDITOR="+editor)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("rebase: %v\n%s", err, out)
	}
	if subj := fx.Git("log", "--format=%s", "-4"); !strings.Contains(subj, "add Alpha, reworded") {
		t.Fatalf("reword did not happen:\n%s", subj)
	}
	for _, n := range []string{"Alpha", "Beta", "Gamma", "Eps", "Fix"} {
		got := readIntent(t, fx, "pkg/"+strings.ToLower(n)+".go", n)
		if len(got) != 1 || got[0] != "why "+n {
			t.Errorf("%s after rebase: %v", n, got)
		}
		if src := sourcesOf(t, fx, "pkg/"+strings.ToLower(n)+".go", n); len(src) != 1 || src[0] != annotate.SourceRebase {
			t.Errorf("%s source = %v, want rebase", n, src)
		}
	}
	if _, err := os.Stat(fx.Path("pkg/delta.go")); err == nil {
		t.Error("dropped commit's file still there")
	}
	// The rebase added no hook records of its own: each region has one.
	if log := fx.Read(".git/gloss/hooks.log"); strings.Contains(log, "error") {
		t.Errorf("hook errors during rebase:\n%s", log)
	}
}

func TestCherryPickCarriesAnnotations(t *testing.T) {
	for _, withX := range []bool{true, false} {
		t.Run(fmt.Sprint("x=", withX), func(t *testing.T) {
			fx := newRepo(t)
			fx.Git("checkout", "-q", "-b", "side")
			fx.MustGloss("annotate", "--file", "docs/notes.md", "--lines", "3:4", "--intent", "the two rules that matter")
			fx.MustGloss("annotate", "--file", "pkg/g.go", "--anchor", "G", "--intent", "why G")
			picked := fx.Commit("add G and notes", map[string]string{
				"pkg/g.go":      "package pkg\n\nfunc G() int { return 7 }\n",
				"docs/notes.md": "# Notes\n\nrule one\nrule two\n",
			})
			fx.Git("checkout", "-q", "main")
			// main moves on so that the pick lands on different lines.
			fx.Commit("main: header", map[string]string{"docs/notes.md": "# Notes\n\nintro\nmore intro\n"})
			args := []string{"cherry-pick"}
			if withX {
				args = append(args, "-x")
			}
			cmd := fx.Command("git", append(args, picked)...)
			if out, err := cmd.CombinedOutput(); err != nil {
				// A conflict in notes.md is expected: resolve it by taking both.
				fx.Write("docs/notes.md", "# Notes\n\nintro\nmore intro\nrule one\nrule two\n")
				fx.Git("add", "docs/notes.md")
				cont := fx.Command("git", "-c", "core.editor=true", "cherry-pick", "--continue")
				if out2, err := cont.CombinedOutput(); err != nil {
					t.Fatalf("cherry-pick: %v\n%s\n%s", err, out, out2)
				}
			}
			if got := readIntent(t, fx, "pkg/g.go", "G"); len(got) != 1 || got[0] != "why G" {
				t.Errorf("G after cherry-pick: %v", got)
			}
			if src := sourcesOf(t, fx, "pkg/g.go", "G"); len(src) != 1 || src[0] != annotate.SourceCherryPick {
				t.Errorf("source = %v, want cherry-pick", src)
			}
			res := read(t, fx, "docs/notes.md", "--lines", "5:6")
			found := false
			for _, r := range res.Regions {
				if r.Intent == "the two rules that matter" {
					found = true
				}
			}
			if !found {
				t.Errorf("line-range annotation not carried to its new lines: %v", intents(res))
			}
		})
	}
}

func TestSquashMergeKeepsTheUnion(t *testing.T) {
	fx := newRepo(t)
	fx.Git("checkout", "-q", "-b", "feat")
	commitFunc(t, fx, "Hotel", "why Hotel")
	commitFunc(t, fx, "India", "why India")
	fx.Git("checkout", "-q", "main")
	fx.Commit("main moves", map[string]string{"README.md": "todo service, v2\n"})
	fx.Git("merge", "-q", "--squash", "feat")
	fx.Git("commit", "-q", "-m", "feature: hotel and india (squashed)")
	for _, n := range []string{"Hotel", "India"} {
		got := readIntent(t, fx, "pkg/"+strings.ToLower(n)+".go", n)
		if len(got) != 1 || got[0] != "why "+n {
			t.Errorf("%s after squash merge: %v", n, got)
		}
		if src := sourcesOf(t, fx, "pkg/"+strings.ToLower(n)+".go", n); len(src) != 1 || src[0] != annotate.SourceSquash {
			t.Errorf("%s source = %v, want squash", n, src)
		}
	}
}
