package agent_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/capture"
	"github.com/gloss-dev/gloss/fixtures"
)

// Gemini CLI's read_file before file_path (absolute_path, a 0-based
// offset and a limit: testdata/gemini/AfterTool.read_file.absolute_path.json
// says where each field comes from) gets the read region's records.
func TestGeminiOlderReadFileGetsContext(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewRepo(t)
	fx.MustGloss("init")
	fx.Write("lib/parse.go", baseFile)
	fx.MustGloss("annotate", "--file", "lib/parse.go", "--anchor", "Parse", "--constraint", constraint, "--author-kind", "human")
	fx.Commit("lib: add Parse", nil)
	vars := map[string]string{"SESSION": "s1", "TRANSCRIPT": "", "ROOT": fx.Dir, "FILE": "lib/parse.go", "OFFSET": "4", "LIMIT": "4"}
	got := contextOf(t, "gemini", "AfterTool", hook(t, fx, nil, "gemini", "AfterTool", payload(t, "gemini", "AfterTool.read_file.absolute_path", vars)))
	if !strings.Contains(got, constraint) {
		t.Errorf("read_file with absolute_path, offset 4, limit 4 (Parse's lines 5-8) got %q", got)
	}
	// A slice that holds none of Parse's lines brings nothing of it.
	vars["OFFSET"], vars["LIMIT"] = "9", "4"
	if got := contextOf(t, "gemini", "AfterTool", hook(t, fx, nil, "gemini", "AfterTool", payload(t, "gemini", "AfterTool.read_file.absolute_path", vars))); strings.Contains(got, constraint) {
		t.Errorf("read_file of lines 10-13 delivered Parse's constraint: %q", got)
	}
}

// A replace that changes several occurrences and reports no fileDiff
// (older versions' returnDisplay; testdata/gemini/AfterTool.replace.*.json)
// captures every line it wrote, with expected_replacements (older
// versions) and with allow_multiple (0.61).
func TestGeminiReplaceWithoutFileDiffCapturesEveryOccurrence(t *testing.T) {
	t.Parallel()
	before := "package lib\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 1\n}\n"
	after := strings.ReplaceAll(before, "\treturn 1\n", "\treturn 2\n")
	for _, fixture := range []string{"AfterTool.replace.expected_replacements", "AfterTool.replace.allow_multiple"} {
		t.Run(fixture, func(t *testing.T) {
			t.Parallel()
			fx := fixtures.NewRepo(t)
			fx.Commit("base", map[string]string{"lib/n.go": before})
			fx.Write("lib/n.go", after)
			vars := map[string]string{"SESSION": "s1", "TRANSCRIPT": "", "ROOT": fx.Dir, "FILE": "lib/n.go", "OLD": "\treturn 1\n", "NEW": "\treturn 2\n", "COUNT": strconv.Itoa(2)}
			hook(t, fx, nil, "gemini", "AfterTool", payload(t, "gemini", fixture, vars))
			edits, err := capture.PendingEdits(openRepo(t, fx))
			if err != nil {
				t.Fatal(err)
			}
			var lines []int
			for _, e := range edits {
				for _, r := range e.Lines {
					for l := r.Start; l <= r.End; l++ {
						lines = append(lines, l)
					}
				}
			}
			if len(lines) != 2 || lines[0] != 4 || lines[1] != 8 {
				t.Errorf("captured lines %v, want [4 8] (both return 2)", lines)
			}
		})
	}
}
