package agent

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/lazyregexp"
)

// Gemini CLI (https://geminicli.com/docs/hooks/reference): context
// reaches the model from SessionStart, BeforeAgent and AfterTool only, so
// gloss answers after read_file (the agent reads before it replaces) and
// after each write; BeforeModel tells gloss the model, which no other
// payload names.

func init() { register(geminiCLI{}) }

type geminiCLI struct{}

var (
	geminiReadTools = []string{"read_file"}
	geminiEditTools = []string{"write_file", "replace"}
)

func (geminiCLI) Name() string { return Gemini }

func (geminiCLI) Answer(event string, _ Kind, text string) []byte {
	return additionalContext(event, text)
}

func (geminiCLI) Hooks() HookSpec {
	return HookSpec{
		Display: "Gemini CLI", Dir: ".gemini",
		Project: ".gemini/settings.json", Global: ".gemini/settings.json",
		Events: []HookEvent{{Event: "SessionStart"}, {Event: "BeforeAgent"}, {Event: "BeforeModel"},
			{Event: "AfterTool", Matcher: matcher(geminiReadTools, geminiEditTools)}},
		Handler: func(event string) map[string]any {
			return map[string]any{"type": "command", "name": "gloss-" + event, "timeout": 10000} // milliseconds
		},
		Note: "Gemini CLI runs a project's hooks only in a trusted folder, and warns once about new project hooks",
	}
}

type geminiInput struct {
	SessionID      string          `json:"session_id"`
	Cwd            string          `json:"cwd"`
	TranscriptPath string          `json:"transcript_path"`
	Prompt         string          `json:"prompt"`
	Source         string          `json:"source"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	LLMRequest     struct {
		Model string `json:"model"`
	} `json:"llm_request"` // BeforeModel
}

// geminiToolInput is read_file's, write_file's and replace's tool_input,
// as every released version named the fields: read_file took
// absolute_path with a 0-based offset and a limit before it took
// file_path with 1-based start_line and end_line.
type geminiToolInput struct {
	FilePath     string  `json:"file_path"`
	AbsolutePath string  `json:"absolute_path"`
	Path         string  `json:"path"`
	StartLine    int     `json:"start_line"`
	EndLine      int     `json:"end_line"`
	Offset       *int    `json:"offset"`
	Limit        int     `json:"limit"`
	Content      *string `json:"content"`
	OldString    string  `json:"old_string"`
	NewString    string  `json:"new_string"`
	// ExpectedReplacements is how many occurrences replace must find and
	// replace (default 1): with more, every occurrence was replaced.
	ExpectedReplacements int  `json:"expected_replacements"`
	AllowMultiple        bool `json:"allow_multiple"`
}

func (in geminiToolInput) path() string { return firstNonEmpty(in.FilePath, in.AbsolutePath, in.Path) }

// lines is the range a read asked for; nil for the whole file.
func (in geminiToolInput) lines() *LineRange {
	switch {
	case in.StartLine > 0:
		r := &LineRange{Start: in.StartLine, End: max(in.EndLine, in.StartLine)}
		if in.EndLine <= 0 {
			r.End = 0 // to the end of the file
		}
		return r
	case in.Offset != nil && *in.Offset >= 0:
		r := &LineRange{Start: *in.Offset + 1}
		if in.Limit > 0 {
			r.End = *in.Offset + in.Limit
		}
		return r
	}
	return nil
}

func (geminiCLI) Parse(event string, data []byte) (*Payload, error) {
	var r geminiInput
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	p := &Payload{Session: r.SessionID, Cwd: r.Cwd, Transcript: r.TranscriptPath, Prompt: r.Prompt, Tool: r.ToolName,
		Forgot: r.Source == "clear" || r.Source == "compact"}
	var in geminiToolInput
	decodeToolInput(r.ToolInput, &in)
	switch event {
	case "SessionStart":
		p.Kind = KindSessionStart
	case "BeforeAgent":
		p.Kind = KindPrompt
	case "BeforeModel":
		p.Kind, p.Model = KindModel, r.LLMRequest.Model
	case "AfterTool":
		switch {
		case slices.Contains(geminiReadTools, r.ToolName):
			p.Kind = KindAfterRead
			p.Files = []FileOp{{Path: in.path(), Range: in.lines()}}
		case slices.Contains(geminiEditTools, r.ToolName):
			p.Kind = KindPostEdit
			op := FileOp{Path: in.path(), Content: in.Content}
			if in.Content == nil {
				all := in.ExpectedReplacements > 1 || in.AllowMultiple || replacements(r.ToolResponse) > 1
				op.Replaces = []Replace{{Old: in.OldString, New: in.NewString, All: all}}
			}
			if added, ok := fileDiffAdded(r.ToolResponse); ok {
				op.Added = added
			}
			p.Files = []FileOp{op}
		}
	}
	return p, nil
}

var replacementsRE = lazyregexp.New(`\((\d+) replacements?\)`)

// replacements reads how many occurrences replace changed from its
// answer to the model ("Successfully modified file: … (3 replacements)."):
// versions that take no count still report it; 0 when it says nothing.
func replacements(resp json.RawMessage) int {
	var r struct {
		LLMContent json.RawMessage `json:"llmContent"`
	}
	if len(resp) == 0 || resp[0] != '{' || json.Unmarshal(resp, &r) != nil {
		return 0
	}
	var s string
	if json.Unmarshal(r.LLMContent, &s) != nil {
		return 0
	}
	m := replacementsRE.FindStringSubmatch(s)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// fileDiffAdded reads the lines an edit added from Gemini CLI's
// tool_response.returnDisplay.fileDiff (a unified diff of the file, made
// by jsdiff's createPatch).
func fileDiffAdded(resp json.RawMessage) (added []int, ok bool) {
	var r struct {
		ReturnDisplay json.RawMessage `json:"returnDisplay"`
	}
	if json.Unmarshal(resp, &r) != nil || len(r.ReturnDisplay) == 0 || r.ReturnDisplay[0] != '{' {
		return nil, false
	}
	var d struct {
		FileDiff string `json:"fileDiff"`
	}
	if json.Unmarshal(r.ReturnDisplay, &d) != nil || d.FileDiff == "" {
		return nil, false
	}
	files, err := gitops.ParseUnifiedDiff([]byte(d.FileDiff))
	if err != nil || len(files) != 1 || len(files[0].Hunks) == 0 {
		return nil, false
	}
	added = files[0].Added()
	if added == nil {
		added = []int{} // a deletion adds nothing, and says so
	}
	return added, true
}
