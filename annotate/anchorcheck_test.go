package annotate_test

import (
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// TestAnchorsGlossCannotPlaceAreRefused: an anchor in a language gloss
// cannot parse was accepted and then spread over the whole file, and a
// mistyped anchor was accepted silently; both are refused now, the typo
// with the name it was probably meant to be.
func TestAnchorsGlossCannotPlaceAreRefused(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)
	fx.Commit("add code", map[string]string{"server/server.go": serverV1, "run.bash": "#!/bin/bash\nfoo() {\n  echo x\n}\n"})

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--file", "run.bash", "--anchor", "foo"}, 2, "gloss finds no anchors in this language; use --lines A:B instead (anchors work in Go (.go)"},
		{[]string{"--file", "server/server.go", "--anchor", "Server.Handel"}, 3, `did you mean "Server.Handle"?`},
		{[]string{"--file", "server/server.go", "--anchor", "Nothing"}, 3, "git gloss summary server/server.go lists its anchors"},
		{[]string{"--commit", "HEAD", "--file", "server/server.go", "--anchor", "Server.lst"}, 3, `did you mean "Server.list"?`},
		{[]string{"--commit", "HEAD", "--file", "run.bash", "--anchor", "foo"}, 2, "gloss finds no anchors in this language"},
	} {
		out, err := fx.Gloss(append([]string{"annotate", "--intent", "x"}, c.args...)...)
		if code := fixtures.ExitCode(err); code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("annotate %v: exit %d, want %d with %q:\n%s", c.args, code, c.code, c.want, out)
		}
	}
	// Nothing was staged by the refused calls; a line range still works.
	fx.MustGloss("annotate", "--file", "run.bash", "--lines", "2:4", "--intent", "greets")
	if out := fx.MustGloss("annotate", "--pending", "--json"); strings.Count(out, `"file"`) != 1 {
		t.Errorf("pending after refusals: %s", out)
	}
	// A file not written yet is left to the commit to resolve.
	fx.MustGloss("annotate", "--file", "lib/new.go", "--anchor", "New", "--intent", "x")
}
