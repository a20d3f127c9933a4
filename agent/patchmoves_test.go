package agent_test

import (
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// A Codex apply_patch that moves or deletes a file with a constraint is
// answered with that constraint before it runs (testdata/codex/PreToolUse.json
// follows https://developers.openai.com/codex/hooks; the patch envelope is
// openai/codex codex-rs/apply-patch/apply_patch_tool_instructions.md). The
// moved file's new path is the one the agent writes; its records are at
// the old one.
func TestCodexPatchThatMovesOrDeletesIsAnswered(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	for _, c := range []struct{ name, patch string }{
		{"move", "*** Begin Patch\n*** Update File: lib/parse.go\n*** Move to: lib/text/parse.go\n@@ func Parse(s string) string {\n-\treturn strings.TrimSpace(s)\n+\treturn strings.ToLower(strings.TrimSpace(s))\n }\n*** End Patch\n"},
		{"move without a hunk", "*** Begin Patch\n*** Update File: lib/parse.go\n*** Move to: lib/text/parse.go\n*** End Patch\n"},
		{"delete", "*** Begin Patch\n*** Delete File: lib/parse.go\n*** End Patch\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fx := fixtures.NewRepo(t)
			fx.MustGloss("init")
			fx.Write("lib/parse.go", baseFile)
			fx.MustGloss("annotate", "--file", "lib/parse.go", "--anchor", "Parse", "--constraint", constraint, "--author-kind", "human")
			fx.Commit("lib: add Parse", nil)
			vars := map[string]string{"SESSION": "s1", "TRANSCRIPT": "", "ROOT": fx.Dir, "MODEL": "gpt-5-codex", "PATCH": c.patch}
			got := contextOf(t, "codex", "PreToolUse", hook(t, fx, nil, "codex", "PreToolUse", payload(t, "codex", "PreToolUse", vars)))
			if !strings.Contains(got, constraint) || !strings.Contains(got, "lib/parse.go") {
				t.Errorf("the %s was answered without the file's constraint: %q", c.name, got)
			}
		})
	}
}
