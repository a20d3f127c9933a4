package agent_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/capture"
	"github.com/gloss-dev/gloss/fixtures"
)

// Claude Code's NotebookEdit (in the matcher gloss installs) is captured:
// the real CLI's payload (testdata/claude/notebook, see its README) marks
// the edited cell's lines in the .ipynb as the agent's, for the source
// written as one string (as Claude Code 2.1 writes it) and as a list of
// lines (as Jupyter does).
func TestNotebookEditIsCaptured(t *testing.T) {
	t.Parallel()
	fixtures.Binary(t)
	data, err := os.ReadFile("testdata/claude/notebook/PostToolUse-NotebookEdit.json")
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		ToolResponse struct {
			UpdatedFile string `json:"updated_file"`
		} `json:"tool_response"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	asList := strings.Replace(p.ToolResponse.UpdatedFile, `"source": "x = 2\nprint(x * 21)"`, "\"source\": [\n    \"x = 2\\n\",\n    \"print(x * 21)\"\n   ]", 1)
	for name, c := range map[string]struct {
		file string
		want []string
	}{
		"one string":    {p.ToolResponse.UpdatedFile, []string{`"source": "x = 2\nprint(x * 21)"`}},
		"list of lines": {asList, []string{`"x = 2\n",`, `"print(x * 21)"`}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fx := fixtures.NewRepo(t)
			fx.Write("analysis.ipynb", c.file)
			hook(t, fx, nil, "claude", "PostToolUse", bytes.ReplaceAll(data, []byte("/tmp/gloss-capture/repo"), []byte(fx.Dir)))
			edits, err := capture.PendingEdits(openRepo(t, fx))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			lines := strings.Split(c.file, "\n")
			for _, e := range edits {
				for _, r := range e.Lines {
					for l := r.Start; l <= r.End; l++ {
						got = append(got, strings.TrimSpace(lines[l-1]))
					}
				}
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("captured %q, want %q", got, c.want)
			}
		})
	}
}
