package hostile

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// forgetWorld is a bare remote and two clones with gloss set up, sharing a
// commit whose annotation holds a planted secret.
type forgetWorld struct {
	t       *testing.T
	remote  string
	a, b    *fixtures.Repo
	c       *fixtures.Repo // a third clone that stays away until the end
	secret  string
	id      string // the record holding the secret
	c0, c1  string
	oldDump string // an export B took before the forget
	n       int
}

const goFile = "package a\n\nfunc A() int {\n\treturn %d\n}\n"

func newForgetWorld(t *testing.T, seed uint64) *forgetWorld {
	t.Helper()
	w := &forgetWorld{t: t, remote: fixtures.NewBare(t), secret: fmt.Sprintf("PLANTED-SECRET-%d-sk_live_4eC39HqLyjWDarjtT1zdp7dc", seed)}
	s := fixtures.NewRepo(t)
	w.c0 = s.Commit("c0", map[string]string{"a.go": fmt.Sprintf(goFile, 0)})
	w.c1 = s.Commit("c1", map[string]string{"a.go": fmt.Sprintf(goFile, 1)})
	s.Git("push", "-q", w.remote, "main")
	w.a, w.b, w.c = fixtures.Clone(t, w.remote), fixtures.Clone(t, w.remote), fixtures.Clone(t, w.remote)
	for _, r := range []*fixtures.Repo{w.a, w.b, w.c} {
		r.MustGloss("init")
	}
	var out struct {
		Written []string `json:"written"`
	}
	if err := json.Unmarshal([]byte(w.a.MustGloss("annotate", "--json", "--commit", w.c1, "--file", "a.go", "-L", "3:5", "--intent", "uses "+w.secret)), &out); err != nil || len(out.Written) != 1 {
		t.Fatalf("annotate: %v %+v", err, out)
	}
	w.id = out.Written[0]
	w.a.MustGloss("annotate", "--commit", w.c1, "--file", "a.go", "-L", "3:5", "--intent", "a record that stays")
	w.a.MustGloss("sync")
	w.b.MustGloss("sync")
	w.c.MustGloss("sync")
	w.oldDump = filepath.Join(t.TempDir(), "before-forget.jsonl")
	w.b.MustGloss("export", "--output", w.oldDump)
	return w
}

// liveHolds reports whether any gloss notes ref of r holds the secret now.
func (w *forgetWorld) liveHolds(r *fixtures.Repo) bool {
	w.t.Helper()
	dump := filepath.Join(w.t.TempDir(), "now.jsonl")
	r.MustGloss("export", "--output", dump)
	data, err := os.ReadFile(dump)
	if err != nil {
		w.t.Fatal(err)
	}
	return strings.Contains(string(data), w.secret)
}

// The other clone's operations, run in many orders: each may copy the
// record (while B has not heard of the forget) or try to bring it back.
func (w *forgetWorld) opsB() map[string]func() {
	b := w.b
	return map[string]func(){
		"sync":   func() { b.MustGloss("sync") },
		"import": func() { b.MustGloss("import", w.oldDump) },
		"annotate": func() {
			w.n++
			c := b.Commit(fmt.Sprintf("b%d", w.n), map[string]string{"b.txt": fmt.Sprint(w.n)})
			b.MustGloss("annotate", "--commit", c, "--intent", fmt.Sprintf("B's record %d", w.n))
		},
		"cherry-pick": func() { // the post-commit hook copies c1's records (source cherry-pick)
			w.n++
			b.Git("checkout", "-q", "-B", fmt.Sprintf("pick%d", w.n), w.c0)
			b.Git("cherry-pick", "-x", w.c1)
			b.Git("checkout", "-q", "main")
		},
		"amend": func() { // post-rewrite carries the branch tip's records
			w.n++
			b.Git("checkout", "-q", "-B", fmt.Sprintf("amend%d", w.n), w.c1)
			b.Git("commit", "-q", "--amend", "-m", fmt.Sprintf("c1 reworded %d", w.n))
			b.Git("checkout", "-q", "main")
		},
		"rebase": func() { // git copies the note (notes.rewriteRef), post-rewrite carries it
			w.n++
			base := fmt.Sprintf("base%d", w.n)
			b.Git("checkout", "-q", "-B", base, w.c0)
			b.Commit("new base "+base, map[string]string{"z.txt": base})
			b.Git("checkout", "-q", "-B", fmt.Sprintf("rebased%d", w.n), w.c1)
			b.Git("rebase", "-q", "--onto", base, w.c0)
			b.Git("checkout", "-q", "main")
		},
		"carry": func() { // a squash made on the server, carried
			w.n++
			b.Git("checkout", "-q", "-B", fmt.Sprintf("squash%d", w.n), w.c0)
			b.Git("checkout", w.c1, "--", "a.go")
			b.Git("commit", "-q", "--no-verify", "-m", fmt.Sprintf("squash %d", w.n))
			b.MustGloss("carry", "--from", w.c0+".."+w.c1, "--to", "HEAD")
			b.Git("checkout", "-q", "main")
		},
	}
}

// reachableHolds greps every object reachable from any ref (and reflog) of
// the repository at dir, and git grep over every commit, for the secret.
func reachableHolds(t *testing.T, dir, secret string) []string {
	t.Helper()
	git := func(stdin string, args ...string) string {
		cmd := gitCmd(t, dir, args...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v in %s: %v", args, dir, err)
		}
		return string(out)
	}
	var found []string
	objs := git("", "rev-list", "--objects", "--all", "--reflog")
	var ids []string
	for _, l := range strings.Split(strings.TrimSpace(objs), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			ids = append(ids, f[0])
		}
	}
	if len(ids) == 0 {
		t.Fatalf("%s: no objects", dir)
	}
	if strings.Contains(git(strings.Join(ids, "\n")+"\n", "cat-file", "--batch"), secret) {
		found = append(found, "an object reachable from a ref or reflog")
	}
	commits := strings.Fields(git("", "rev-list", "--all"))
	cmd := gitCmd(t, dir, append([]string{"grep", "-l", secret}, commits...)...)
	if out, err := cmd.Output(); err == nil && len(out) > 0 {
		found = append(found, "git grep over rev-list --all: "+strings.SplitN(string(out), "\n", 2)[0])
	}
	return found
}

// TestForgottenRecordNeverComesBack is issue 17's done-when: A forgets and
// purges a record holding a planted secret; B, which had it, edits,
// imports an export taken before the forget, cherry-picks, amends,
// rebases, carries and syncs in many orders, while A syncs with and without
// --purge in between. The record never comes back on either clone, and
// after the documented steps (A: sync --purge; B: sync; both: --prune-now;
// the remote: git gc --prune=now) no object reachable from any ref on A, B
// or the remote holds the secret, nor any object at all after the prune.
func TestForgottenRecordNeverComesBack(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint("order-", seed), func(t *testing.T) {
			t.Parallel()
			w := newForgetWorld(t, seed)
			a := w.a
			// B copies the record around before it hears of the forget.
			ops := w.opsB()
			ops["cherry-pick"]()
			ops["amend"]()
			ops["rebase"]()
			// The original and a copy per rewrite, at least.
			if n := strings.Count(exportOf(t, w.b), w.secret); n < 4 {
				t.Fatalf("setup: B holds the secret in %d record(s), want the original and 3 copies", n)
			}
			out := a.MustGloss("forget", w.id, "--reason", "a live API key in an intent", "--purge")
			if !strings.Contains(out, "purged") || w.liveHolds(a) {
				t.Fatalf("forget --purge:\n%s", out)
			}
			names := []string{"sync", "import", "annotate", "cherry-pick", "amend", "rebase", "carry", "a-sync", "a-sync-purge", "sync"}
			rng := rand.New(rand.NewPCG(seed, 17))
			rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
			var done []string
			for _, name := range names {
				switch name {
				case "a-sync":
					a.MustGloss("sync")
				case "a-sync-purge":
					a.MustGloss("sync", "--purge")
				default:
					ops[name]()
				}
				done = append(done, name)
				if w.liveHolds(a) {
					t.Fatalf("the record came back on A after %v", done)
				}
			}
			// C wrote a record of its own while away.
			w.c.MustGloss("annotate", "--commit", w.c0, "--intent", "C's record")
			// The documented steps.
			out = a.MustGloss("sync", "--purge")
			w.b.MustGloss("sync")
			w.c.MustGloss("sync")
			a.MustGloss("sync", "--prune-now")
			w.b.MustGloss("sync", "--prune-now")
			w.c.MustGloss("sync", "--prune-now")
			for name, r := range map[string]*fixtures.Repo{"A": a, "B": w.b, "C": w.c} {
				if w.liveHolds(r) {
					t.Errorf("%s still holds the secret in its notes after %v", name, done)
				}
			}
			if cmd := gitCmd(t, w.remote, "gc", "--quiet", "--prune=now"); cmd.Run() != nil {
				t.Fatal("gc on the remote failed")
			}
			for name, dir := range map[string]string{"A": a.Dir, "B": w.b.Dir, "C": w.c.Dir, "remote": w.remote} {
				if found := reachableHolds(t, dir, w.secret); len(found) > 0 {
					t.Errorf("%s: the secret is still in %v (order %v; last A sync --purge:\n%s)", name, found, done, out)
				}
				all := gitCmd(t, dir, "cat-file", "--batch-all-objects", "--batch")
				if data, err := all.Output(); err != nil || strings.Contains(string(data), w.secret) {
					t.Errorf("%s: an unreachable object still holds the secret after the prune (err %v)", name, err)
				}
			}
			// Everything else survived all of it, on both clones.
			for name, r := range map[string]*fixtures.Repo{"A": a, "B": w.b, "C": w.c} {
				dump := exportOf(t, r)
				for _, want := range []string{"a record that stays", "B's record ", "C's record"} {
					if !strings.Contains(dump, want) {
						t.Errorf("%s lost %q (order %v)", name, want, done)
					}
				}
			}
		})
	}
}

func exportOf(t *testing.T, r *fixtures.Repo) string {
	t.Helper()
	dump := filepath.Join(t.TempDir(), "e.jsonl")
	r.MustGloss("export", "--output", dump)
	data, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// gitCmd prepares git in dir (a clone or the bare remote) with a clean
// environment.
func gitCmd(t *testing.T, dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = fixtures.Env(t.TempDir(), "")
	return cmd
}

// TestForgetRefusals: an unknown id is not found (exit 3) and a forget
// without a reason is a usage error (exit 2); neither writes a tombstone.
func TestForgetRefusals(t *testing.T) {
	t.Parallel()
	r := fixtures.NewRepo(t)
	c := r.Commit("c", nil)
	out := r.MustGloss("annotate", "--json", "--commit", c, "--intent", "x")
	var res struct {
		Written []string `json:"written"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Written) != 1 {
		t.Fatalf("annotate: %v %s", err, out)
	}
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"forget", "01NOSUCHRECORD0000000000000", "--reason", "x"}, 3},
		{[]string{"forget", res.Written[0]}, 2},
		{[]string{"forget", res.Written[0], "--reason", "  "}, 2},
	} {
		out, err := r.Gloss(c.args...)
		var ee *exec.ExitError
		if !asExit(err, &ee) || ee.ExitCode() != c.code {
			t.Errorf("%v: %v, want exit %d\n%s", c.args, err, c.code, out)
		}
	}
	if _, err := r.GitErr("rev-parse", "--verify", "-q", "refs/notes/gloss/forgotten"); err == nil {
		t.Error("a refused forget wrote a tombstone")
	}
}
