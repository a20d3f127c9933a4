package hostile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/runenv"
)

// The orders of issue 28's done-when: two clones and a bare remote; A
// records a prompt holding private text through an agent session; B copies
// the record generation after generation (cherry-pick, then an amend of the
// pick, then a rebase of that, then a carry of a squash of that: each copy
// supersedes the one before), exports its notes, and syncs; A forgets the
// record with --purge and runs sync --purge; at the end B imports the
// export it took. Every interleaving of B's four generations with the three
// events that decide what B knows (its export, A's forget, B's sync) is
// generated: 6 orders of those three times C(7,3) = 35 placements of the
// generations, 210 orders. The default run takes the 12 whose generations
// all come first (the issue's own: copies, export, forget, sync, import,
// in each order of the three) or all last; GLOSS_FORGET_ORDERS=all runs
// all 210 (docs/forget.md has the figures).

// orderStep is one event of an order.
type orderStep string

const (
	stepPick    orderStep = "cherry-pick" // B: a copy of the record (generation 1)
	stepAmend   orderStep = "amend"       // B: amends the newest copy (generation 2)
	stepRebase  orderStep = "rebase"      // B: rebases the newest copy (generation 3)
	stepCarry   orderStep = "carry"       // B: squashes the newest copy without hooks and carries onto it (generation 4; carry syncs)
	stepExport  orderStep = "export"      // B: git gloss export, kept for the end
	stepForget  orderStep = "forget"      // A: forget --purge, then sync --purge
	stepSyncB   orderStep = "sync-B"      // B: git gloss sync
	stepImportB orderStep = "import"      // B: imports the export it took (always last)
)

// forgetOrders generates every order: each permutation of the three
// deciding events, interleaved every way with the four generations in
// their order, then the import.
func forgetOrders() [][]orderStep {
	gens := []orderStep{stepPick, stepAmend, stepRebase, stepCarry}
	var perms [][]orderStep
	var permute func(rest, acc []orderStep)
	permute = func(rest, acc []orderStep) {
		if len(rest) == 0 {
			perms = append(perms, append([]orderStep(nil), acc...))
			return
		}
		for i := range rest {
			next := append(append([]orderStep(nil), rest[:i]...), rest[i+1:]...)
			permute(next, append(acc, rest[i]))
		}
	}
	permute([]orderStep{stepExport, stepForget, stepSyncB}, nil)
	var out [][]orderStep
	for _, p := range perms {
		// Choose which 3 of the 7 places the deciding events take.
		for mask := 0; mask < 1<<7; mask++ {
			if bitsSet(mask) != 3 {
				continue
			}
			order := make([]orderStep, 0, 8)
			gi, pi := 0, 0
			for place := 0; place < 7; place++ {
				if mask&(1<<place) != 0 {
					order = append(order, p[pi])
					pi++
				} else {
					order = append(order, gens[gi])
					gi++
				}
			}
			out = append(out, append(order, stepImportB))
		}
	}
	return out
}

func bitsSet(m int) int {
	n := 0
	for ; m > 0; m &= m - 1 {
		n++
	}
	return n
}

// sampled reports whether an order runs by default: those whose
// generations all come before or all after the deciding events.
func sampled(order []orderStep) bool {
	if os.Getenv(runenv.ForgetOrders) == "all" {
		return true
	}
	gensFirst := order[0] == stepPick && order[3] == stepCarry
	gensLast := order[3] == stepPick && order[6] == stepCarry
	return gensFirst || gensLast
}

// ordersWorld is the two clones and the remote of one order.
type ordersWorld struct {
	t        *testing.T
	remote   string
	a, b     *fixtures.Repo
	secret   string
	ids      []string // the records holding it, on A: the region and the session record
	c0       string
	newest   string // B's newest commit holding a copy
	export   string // B's export, once taken
	n        int
	pickFrom string // the commit the record is on
}

const ordersGo = "package a\n\nfunc A() int {\n\treturn %d\n}\n\nfunc B() int {\n\treturn 0\n}\n"

// newOrdersWorld: A's agent (Claude Code, through its hooks) gets a prompt
// with private text (a customer's name: nothing the redactor removes),
// edits A(), and A commits; a teammate's record on the same commit stays.
func newOrdersWorld(t *testing.T, name string) *ordersWorld {
	t.Helper()
	w := &ordersWorld{t: t, remote: fixtures.NewBare(t), secret: "customer Quillfeather-" + strings.NewReplacer("/", "", " ", "").Replace(name)}
	s := fixtures.NewRepo(t)
	w.c0 = s.Commit("c0", map[string]string{"a.go": fmt.Sprintf(ordersGo, 0)})
	s.Git("push", "-q", w.remote, "main")
	w.a, w.b = fixtures.Clone(t, w.remote), fixtures.Clone(t, w.remote)
	for _, r := range []*fixtures.Repo{w.a, w.b} {
		r.MustGloss("init", "--no-mcp")
		// A loaded machine must not make a hook give up: the copies are
		// what this test is about.
		r.Git("config", "gloss.hookTimeout", "5m")
	}
	w.a.MustGloss("agent", "install", "--agent", "claude")
	// Nor an agent hook (its budget is 1.5 s by default).
	w.a.Write(".gloss/config.toml", "[agent]\ntimeout_ms = 120000\n")
	hook := func(event string, fields map[string]any) {
		fields["session_id"], fields["cwd"], fields["hook_event_name"] = "s-orders", w.a.Dir, event
		in, _ := json.Marshal(fields)
		cmd := w.a.Command(fixtures.Binary(t), "agent", "hook", "--agent", "claude", event)
		cmd.Stdin = bytes.NewReader(in)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("agent hook %s: %v\n%s", event, err, out)
		}
	}
	hook("SessionStart", map[string]any{"source": "startup"})
	hook("UserPromptSubmit", map[string]any{"prompt": "make A return one for " + w.secret + ", who asked"})
	w.a.Write("a.go", fmt.Sprintf(ordersGo, 1))
	hook("PostToolUse", map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": w.a.Path("a.go"), "old_string": "return 0\n}\n\nfunc B", "new_string": "return 1\n}\n\nfunc B"}, "tool_response": map[string]any{}})
	w.a.Git("commit", "-q", "-am", "A returns one")
	w.pickFrom = w.a.Git("rev-parse", "HEAD")
	w.a.MustGloss("annotate", "--commit", w.pickFrom, "--file", "a.go", "--anchor", "B", "--intent", "a record that stays")
	w.a.Git("push", "-q", "origin", "main")
	for _, rec := range exportRecords(t, w.a) {
		if strings.Contains(string(rec.Record), w.secret) {
			var h struct {
				ID string `json:"id"`
			}
			_ = json.Unmarshal(rec.Record, &h)
			w.ids = append(w.ids, h.ID)
		}
	}
	if len(w.ids) != 2 {
		t.Fatalf("setup: %d records hold the text on A, want the region and the session record:\n%s\n%s", len(w.ids), exportOf(t, w.a), w.a.Read(".git/gloss/hooks.log"))
	}
	if !stateHolds(t, w.a, w.secret) {
		t.Fatal("setup: A's session state does not hold the prompt")
	}
	w.a.MustGloss("sync")
	w.b.Git("pull", "-q", "origin", "main")
	w.b.MustGloss("sync")
	w.newest = w.pickFrom
	return w
}

type exported struct {
	Ref    string          `json:"ref"`
	Object string          `json:"object"`
	Record json.RawMessage `json:"record"`
}

func exportRecords(t *testing.T, r *fixtures.Repo) []exported {
	t.Helper()
	var out []exported
	for _, l := range strings.Split(strings.TrimSpace(exportOf(t, r)), "\n") {
		var e exported
		if json.Unmarshal([]byte(l), &e) == nil {
			out = append(out, e)
		}
	}
	return out
}

// stateHolds reports whether any file under r's git dir, outside the
// object store, holds text (the session state, queues, caches, logs).
func stateHolds(t *testing.T, r *fixtures.Repo, text string) bool {
	t.Helper()
	found := false
	gitDir := filepath.Join(r.Dir, ".git")
	_ = filepath.WalkDir(gitDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || found {
			return nil
		}
		if d.IsDir() && p == filepath.Join(gitDir, "objects") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			if data, err := os.ReadFile(p); err == nil && bytes.Contains(data, []byte(text)) {
				t.Logf("%s holds it", p)
				found = true
			}
		}
		return nil
	})
	return found
}

func (w *ordersWorld) run(step orderStep) {
	w.t.Helper()
	a, b := w.a, w.b
	w.n++
	branch := fmt.Sprintf("%s-%d", step, w.n)
	switch step {
	case stepPick: // copy 1: the post-commit hook carries the picked commit's records
		b.Git("checkout", "-q", "-B", branch, w.c0)
		b.Git("cherry-pick", "-x", w.pickFrom)
		w.newest = b.Git("rev-parse", "HEAD")
	case stepAmend: // the newest copy, amended: post-rewrite carries it
		b.Git("checkout", "-q", "-B", branch, w.newest)
		b.Git("commit", "-q", "--amend", "-m", "amended "+branch)
		w.newest = b.Git("rev-parse", "HEAD")
	case stepRebase: // the newest copy, rebased onto a new base
		b.Git("checkout", "-q", "-B", "base-"+branch, w.c0)
		b.Commit("new base "+branch, map[string]string{"z" + branch + ".txt": branch})
		base := b.Git("rev-parse", "HEAD")
		b.Git("checkout", "-q", "-B", branch, w.newest)
		b.Git("rebase", "-q", "--onto", base, w.newest+"~1")
		w.newest = b.Git("rev-parse", "HEAD")
	case stepCarry: // a squash made without hooks (as a forge would), carried
		from := w.newest
		b.Git("checkout", "-q", "-B", branch, w.c0)
		b.Git("checkout", from, "--", "a.go")
		b.Git("commit", "-q", "--no-verify", "-m", "squash "+branch)
		b.MustGloss("carry", "--from", from+"~1.."+from, "--to", "HEAD")
		w.newest = b.Git("rev-parse", "HEAD")
	case stepExport:
		w.export = filepath.Join(w.t.TempDir(), "b-export.jsonl")
		b.MustGloss("export", "--output", w.export)
	case stepForget:
		a.MustGloss(append(append([]string{"forget"}, w.ids...), "--reason", "a customer's name in a prompt", "--purge")...)
		a.MustGloss("sync", "--purge")
	case stepSyncB:
		b.MustGloss("sync")
	case stepImportB:
		out := b.MustGloss("import", w.export)
		if !strings.Contains(out, "imported") {
			w.t.Errorf("import printed %q", out)
		}
	}
	b.Git("checkout", "-q", "main")
}

// TestForgetEveryOrder: after each order and the documented steps (A:
// sync --purge; B: sync; both: sync --prune-now; the remote: git gc
// --prune=now), no object reachable from any ref or reflog on A, B or the
// remote holds the text, no object at all does, A's session state holds
// it nowhere, and the teammate's record is on both clones.
func TestForgetEveryOrder(t *testing.T) {
	t.Parallel()
	orders := forgetOrders()
	if len(orders) != 210 {
		t.Fatalf("%d orders generated, want 210", len(orders))
	}
	ran := 0
	for i, order := range orders {
		if !sampled(order) {
			continue
		}
		ran++
		names := make([]string, len(order))
		for j, s := range order {
			names[j] = string(s)
		}
		name := fmt.Sprintf("%03d-%s", i, strings.Join(names, ","))
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := newOrdersWorld(t, fmt.Sprint(i))
			for _, step := range order {
				if step == stepImportB && w.export == "" {
					continue
				}
				w.run(step)
			}
			w.documentedSteps()
			w.check(names)
		})
	}
	t.Logf("%d of %d orders run (GLOSS_FORGET_ORDERS=all for every one)", ran, len(orders))
}

// documentedSteps are docs/forget.md's "What the team runs".
func (w *ordersWorld) documentedSteps() {
	w.a.MustGloss("sync", "--purge")
	w.b.MustGloss("sync")
	w.a.MustGloss("sync", "--prune-now")
	w.b.MustGloss("sync", "--prune-now")
	if cmd := gitCmd(w.t, w.remote, "gc", "--quiet", "--prune=now"); cmd.Run() != nil {
		w.t.Fatal("gc on the remote failed")
	}
}

func (w *ordersWorld) check(order []string) {
	t := w.t
	for name, r := range map[string]*fixtures.Repo{"A": w.a, "B": w.b} {
		dump := exportOf(t, r)
		if strings.Contains(dump, w.secret) {
			t.Errorf("%s's notes hold the text after %v", name, order)
		}
		if !strings.Contains(dump, "a record that stays") {
			t.Errorf("%s lost the teammate's record after %v", name, order)
		}
	}
	for name, dir := range map[string]string{"A": w.a.Dir, "B": w.b.Dir, "remote": w.remote} {
		if found := reachableHolds(t, dir, w.secret); len(found) > 0 {
			t.Errorf("%s: the text is in %v after %v", name, found, order)
		}
		all := gitCmd(t, dir, "cat-file", "--batch-all-objects", "--batch")
		if data, err := all.Output(); err != nil || strings.Contains(string(data), w.secret) {
			t.Errorf("%s: an object still holds the text after the prune (err %v), order %v", name, err, order)
		}
	}
	if stateHolds(t, w.a, w.secret) {
		t.Errorf("A's state under its git dir holds the text after %v", order)
	}
}
