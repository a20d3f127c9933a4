package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/why"
)

// shopV1 is the file as the first commit writes it; Total's decision is
// recorded then.
const shopV1 = `package shop

// Total adds up the cart.
func Total(items []int) int {
	sum := 0
	for _, it := range items {
		sum += it
	}
	return sum
}

// Tax is the tax on a total.
func Tax(total int) int {
	return total / 5
}
`

// shopV2 rewrites Total's body: its lines now blame to a later commit
// than the one its decision was recorded by.
const shopV2 = `package shop

// Total adds up the cart.
func Total(items []int) int {
	var sum int
	for i := range items {
		sum += items[i]
	}
	return max(sum, 0)
}

// Tax is the tax on a total.
func Tax(total int) int {
	return total / 5
}
`

const totalConstraint = "must never return a negative total"

// newShop is a repository set up with gloss where Total's constraint was
// recorded by a commit whose lines a later commit rewrote.
func newShop(t testing.TB) *fixtures.Repo {
	t.Helper()
	fx := fixtures.NewRepo(t)
	fx.MustGloss("init", "--no-mcp")
	fx.Write("shop.go", shopV1)
	fx.MustGloss("annotate", "--file", "shop.go", "--anchor", "Total",
		"--intent", "sum the cart in integer cents",
		"--constraint", totalConstraint,
		"--rejected", "float64 prices | rounding errors on every sum",
		"--risk", "an overflow on a huge cart")
	fx.Git("add", "shop.go")
	fx.Git("commit", "-q", "-m", "shop: Total and Tax")
	fx.Commit("shop: Total clamps at zero", map[string]string{"shop.go": shopV2})
	return fx
}

// recordID is the id of the record of Total that holds its constraint,
// as read --json gives it.
func recordID(t *testing.T, fx *fixtures.Repo) string {
	t.Helper()
	out := fx.MustGloss("read", "shop.go", "--anchor", "Total", "--json")
	var res why.ReadResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Regions {
		for _, c := range r.Constraints {
			if c.Text == totalConstraint {
				return r.ID
			}
		}
	}
	t.Fatalf("no record with the constraint in read --json: %s", out)
	return ""
}

func TestHoverFollowsTheFunctionAndTheRepository(t *testing.T) {
	t.Parallel()
	fx := newShop(t)
	s := startSession(t, fx, "")
	u := s.open(fx, "shop.go", shopV2)

	// Line 7 (sum += items[i]) was written by the second commit; the
	// decision was recorded by the first on Total's old lines.
	md := s.mustHover(u, 7)
	for _, want := range []string{totalConstraint, "Total", "float64 prices", "an overflow on a huge cart", "written by human"} {
		if !strings.Contains(md, want) {
			t.Errorf("hover inside Total lacks %q:\n%s", want, md)
		}
	}
	if strings.Index(md, totalConstraint) > strings.Index(md, "float64 prices") {
		t.Errorf("constraints must come before rejected alternatives:\n%s", md)
	}
	if tax := s.mustHover(u, 14); strings.Contains(tax, totalConstraint) {
		t.Errorf("hover in Tax shows Total's constraint:\n%s", tax)
	}

	// Ten unsaved lines above: the same statement is now line 17.
	edited := strings.Replace(shopV2, "// Total adds up the cart.\n", strings.Repeat("// unsaved\n", 10)+"// Total adds up the cart.\n", 1)
	s.change(u, 2, edited)
	md = s.mustHover(u, 17)
	if !strings.Contains(md, totalConstraint) || !strings.Contains(md, "written by human") {
		t.Errorf("after inserting ten lines, hover on Total's body lacks its constraint or author:\n%s", md)
	}
	if md := s.mustHover(u, 5); !strings.Contains(md, "not committed yet") {
		t.Errorf("hover on an inserted line should say it is not committed yet:\n%s", md)
	}

	// Flagging the record: the server sees the notes ref move and the
	// hover stops showing it, without a restart.
	fx.MustGloss("flag", recordID(t, fx), "--reason", "carts may carry refunds now")
	deadline := time.Now().Add(15 * time.Second)
	for {
		md = s.mustHover(u, 17)
		if !strings.Contains(md, totalConstraint) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("hover still shows the flagged record:\n%s\n%s", md, s.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		s.client.mu.Lock()
		refreshed := s.client.refreshes
		s.client.mu.Unlock()
		if refreshed > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not ask the client to refresh its code lenses after the flag")
		}
	}
}

func TestCodeLensAndRecordsPage(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewRepo(t)
	fx.MustGloss("init", "--no-mcp")
	fx.Write("shop.go", shopV1)
	fx.MustGloss("annotate", "--file", "shop.go", "--anchor", "Total", "--constraint", totalConstraint, "--risk", "an overflow on a huge cart")
	fx.Git("add", "shop.go")
	fx.Git("commit", "-q", "-m", "shop: Total and Tax")
	s := startSession(t, fx, "")
	u := s.open(fx, "shop.go", shopV1)
	ls := s.lenses(u)
	if len(ls) != 1 {
		t.Fatalf("want one lens (Total), got %+v", ls)
	}
	l := ls[0]
	if l.Range.Start.Line != 2 || !strings.Contains(l.Command.Title, "1 constraint") || !strings.Contains(l.Command.Title, "1 risk") {
		t.Errorf("lens = line %d %q, want line 3 (its doc comment) with 1 constraint and 1 risk", l.Range.Start.Line+1, l.Command.Title)
	}
	res, err := s.server.ExecuteCommand(s.ctx(), &protocol.ExecuteCommandParams{Command: l.Command.Command, Arguments: l.Command.Arguments})
	if err != nil {
		t.Fatalf("executeCommand: %v\n%s", err, s.stderr)
	}
	if !strings.Contains(string(res), totalConstraint) {
		t.Errorf("the records page lacks the constraint: %s", res)
	}
	s.client.mu.Lock()
	shown := s.client.shown
	s.client.mu.Unlock()
	if len(shown) != 1 || !strings.Contains(string(shown[0]), "/.git/gloss/lsp/") {
		t.Errorf("showDocument = %v, want the records page under .git/gloss/lsp", shown)
	}
}

func TestUnsavedEditInsideAConstrainedFunction(t *testing.T) {
	t.Parallel()
	fx := newShop(t)
	s := startSession(t, fx, "")
	u := s.open(fx, "shop.go", shopV2)
	s.diagnostics(u, func(d []protocol.Diagnostic) bool { return len(d) == 0 })
	s.change(u, 2, strings.Replace(shopV2, "return max(sum, 0)", "return sum", 1))
	d := s.diagnostics(u, func(d []protocol.Diagnostic) bool { return len(d) > 0 })
	if len(d) != 1 || d[0].Severity != protocol.DiagnosticSeverityInformation || d[0].Range.Start.Line != 8 {
		t.Fatalf("want one information diagnostic on line 9, got %+v", d)
	}
	if msg, _ := d[0].Message.(protocol.String); !strings.Contains(string(msg), totalConstraint) {
		t.Errorf("diagnostic = %q, want the constraint", msg)
	}
	// An edit in Tax, which has no decision, says nothing.
	s.change(u, 3, strings.Replace(shopV2, "total / 5", "total / 4", 1))
	s.diagnostics(u, func(d []protocol.Diagnostic) bool { return len(d) == 0 })
}

// TestHoverLinksToServe: while git gloss serve runs for the repository,
// the hover links to the file's page there; once it stops, it does not.
func TestHoverLinksToServe(t *testing.T) {
	t.Parallel()
	fx := newShop(t)
	serve := fx.Command(fixtures.Binary(t), "serve")
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	info := filepath.Join(fx.Dir, ".git", "gloss", "serve.json")
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(info); err == nil {
			break
		}
		if time.Now().After(deadline) {
			_ = serve.Process.Kill()
			t.Fatal("git gloss serve left no .git/gloss/serve.json")
		}
	}
	s := startSession(t, fx, "")
	u := s.open(fx, "shop.go", shopV2)
	md := s.mustHover(u, 7)
	if !strings.Contains(md, "(http://127.0.0.1:") || !strings.Contains(md, "/file/shop.go?token=") || !strings.Contains(md, "#L7)") {
		t.Errorf("hover lacks the link to serve's page of the file:\n%s", md)
	}
	_ = serve.Process.Signal(syscall.SIGTERM)
	_ = serve.Wait()
	if _, err := os.Stat(info); !os.IsNotExist(err) {
		t.Errorf("serve.json is still there after serve stopped: %v", err)
	}
	if md := s.mustHover(u, 7); strings.Contains(md, "127.0.0.1") {
		t.Errorf("hover still links to a serve that stopped:\n%s", md)
	}
}

// TestSpecDrift: a file whose spec drifted says so, at information level,
// and the hover names the spec.
func TestSpecDrift(t *testing.T) {
	t.Parallel()
	fx := newShop(t)
	fx.MustGloss("spec", "new", "shop", "--govern", "shop.go")
	fx.Git("add", ".gloss")
	fx.Git("commit", "-q", "-m", "spec: shop")
	fx.MustGloss("spec", "mark", "shop.go")
	fx.Commit("shop: tax is a quarter", map[string]string{"shop.go": strings.Replace(shopV2, "total / 5", "total / 4", 1)})
	if out := fx.MustGloss("spec", "status", "--json"); !strings.Contains(out, `"drifted"`) {
		t.Fatalf("the spec should have drifted: %s", out)
	}
	s := startSession(t, fx, "")
	u := s.open(fx, "shop.go", fx.Read("shop.go"))
	d := s.diagnostics(u, func(d []protocol.Diagnostic) bool { return len(d) > 0 })
	msg, _ := d[0].Message.(protocol.String)
	if len(d) != 1 || d[0].Severity != protocol.DiagnosticSeverityInformation || !strings.Contains(string(msg), ".gloss/specs/shop.spec.yaml") || !strings.Contains(string(msg), "drifted") {
		t.Errorf("want one information diagnostic naming the drifted spec, got %+v", d)
	}
	if md := s.mustHover(u, 14); !strings.Contains(md, "spec `.gloss/specs/shop.spec.yaml` governs this file — **drifted**") {
		t.Errorf("hover does not name the drifted spec:\n%s", md)
	}
}
