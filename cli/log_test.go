package cli_test

import (
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// TestLogShowsReadableRecordsUnderEachCommit: git gloss log passes its
// arguments to git log and prints one readable line per record under the
// commit it belongs to, never the raw JSON.
func TestLogShowsReadableRecordsUnderEachCommit(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("first", map[string]string{"README": "hi\n"})
	fx.MustGloss("init", "--no-mcp")
	fx.MustGloss("annotate", "--file", "lib.go", "--anchor", "Parse", "--intent", "parse without allocating",
		"--constraint", "no allocation per token", "--author-name", "claude", "--model", "opus")
	fx.Commit("lib: parser", map[string]string{"lib.go": "package lib\n\n// Parse parses.\nfunc Parse() {}\n"})
	fx.Commit("docs", map[string]string{"README": "hello\n"})

	out := fx.MustGloss("log", "--oneline")
	// Each commit's block: its line, then the indented record lines.
	blocks := map[string][]string{}
	subject := ""
	for _, l := range fixtures.Lines(out) {
		if !strings.HasPrefix(l, "    ") {
			_, subject, _ = strings.Cut(l, " ")
			subject = strings.TrimPrefix(subject, "(HEAD -> main) ")
			continue
		}
		blocks[subject] = append(blocks[subject], l)
	}
	parser := strings.Join(blocks["lib: parser"], "\n")
	if !strings.Contains(parser, "    gloss: lib.go Parse (lines 3-4): parse without allocating [agent opus, 1 constraint(s)]") {
		t.Errorf("the annotation is not under its commit:\n%s", out)
	}
	if strings.Contains(strings.Join(blocks["docs"], "\n"), "lib.go") || len(blocks["first"]) != 0 {
		t.Errorf("records under the wrong commit:\n%s", out)
	}
	if strings.Contains(out, `"$schema"`) || strings.Contains(out, "Notes (") {
		t.Errorf("raw records in the log:\n%s", out)
	}
	// git log's own arguments: a path limits the commits, medium format
	// by default.
	out = fx.MustGloss("log", "--", "README")
	if strings.Contains(out, "lib: parser") || !strings.Contains(out, "Author: ") || !strings.Contains(out, "    docs") {
		t.Errorf("log -- README:\n%s", out)
	}
	if _, err := fx.Gloss("log", "--no-such-flag"); fixtures.ExitCode(err) != 2 {
		t.Errorf("a flag git log refuses: exit %d, want 2", fixtures.ExitCode(err))
	}
}
