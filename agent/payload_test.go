package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParsePatchFindsFilesAndHunks(t *testing.T) {
	// The envelope's grammar: openai/codex codex-rs/apply-patch/apply_patch_tool_instructions.md.
	ops := ParsePatch("*** Begin Patch\n*** Add File: new.go\n+package x\n*** Update File: a.go\n*** Move to: b.go\n@@ func F() {\n-\told()\n+\tnew1()\n+\tnew2()\n }\n*** Delete File: c.go\n*** End Patch\n")
	if len(ops) != 3 || ops[0].Path != "new.go" || ops[1].Path != "b.go" || ops[1].From != "a.go" || ops[1].Before() != "a.go" {
		t.Fatalf("ops = %+v", ops)
	}
	if ops[2].Path != "c.go" || !ops[2].Delete || ops[2].Before() != "c.go" || len(ops[2].Hunks) != 0 {
		t.Errorf("the deleted file = %+v", ops[2])
	}
	h := ops[1].Hunks[0]
	if !reflect.DeepEqual(h.Old, []string{"\told()", "}"}) || !reflect.DeepEqual(h.New, []string{"\tnew1()", "\tnew2()", "}"}) || !reflect.DeepEqual(h.Added, []bool{true, true, false}) {
		t.Errorf("hunk = %+v", h)
	}
}

func TestLocateRanges(t *testing.T) {
	content := "a\nb\nc\nb\n"
	if got := locate(content, "b\n", false); !reflect.DeepEqual(got, []LineRange{{Start: 2, End: 2}}) {
		t.Errorf("first = %v", got)
	}
	if got := locate(content, "b\n", true); !reflect.DeepEqual(got, []LineRange{{Start: 2, End: 2}, {Start: 4, End: 4}}) {
		t.Errorf("all = %v", got)
	}
	if got := locate(content, "b\nc", false); !reflect.DeepEqual(got, []LineRange{{Start: 2, End: 3}}) {
		t.Errorf("partial last line = %v", got)
	}
	if rs, whole := beforeRanges(content, FileOp{Replaces: []Replace{{Old: "zzz"}}}); !whole || rs != nil {
		t.Errorf("not found must mean the whole file, got %v", rs)
	}
}

func TestRelPathStaysInTheTree(t *testing.T) {
	root := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Skip(err)
	}
	for _, c := range []struct {
		cwd, p, want string
		ok           bool
	}{
		{root, "a/b.go", "a/b.go", true},
		{root, filepath.Join(root, "a.go"), "a.go", true},
		{root, filepath.Join(link, "a.go"), "a.go", true},
		{root, "../x.go", "", false},
		{root, "/etc/passwd", "", false},
		{root, root, "", false},
	} {
		got, ok := RelPath(root, c.cwd, c.p)
		if got != c.want || ok != c.ok {
			t.Errorf("RelPath(%q) = %q %v", c.p, got, ok)
		}
	}
}

func TestPromptBeforePicksThePromptAnEditAnswered(t *testing.T) {
	s := &Session{Prompts: []Prompt{{Time: "2026-01-01T10:00:00Z", Summary: "first"}, {Time: "2026-01-01T11:00:00Z", Summary: "second"}}}
	for at, want := range map[string]string{"2026-01-01T10:30:00Z": "first", "2026-01-01T11:00:00Z": "second", "2026-01-01T12:00:00Z": "second", "2026-01-01T09:00:00Z": "second"} {
		if got := s.PromptBefore(at); got != want {
			t.Errorf("PromptBefore(%s) = %q, want %q", at, got, want)
		}
	}
}

// toolInputs are a documented tool_input of every tool an installed
// matcher names, per agent: Claude Code's from
// https://docs.claude.com/en/docs/claude-code/sdk/sdk-typescript (Edit,
// MultiEdit, Write, NotebookEdit), Codex's from
// https://developers.openai.com/codex/hooks (apply_patch's command; Edit
// and Write as Claude Code's), Gemini CLI's from
// https://geminicli.com/docs/tools/file-system (read_file, write_file,
// replace).
var toolInputs = map[string]map[string]string{
	Claude: {
		"Edit":         `{"file_path": "a.go", "old_string": "x", "new_string": "y"}`,
		"MultiEdit":    `{"file_path": "a.go", "edits": [{"old_string": "x", "new_string": "y"}]}`,
		"Write":        `{"file_path": "a.go", "content": "y\n"}`,
		"NotebookEdit": `{"notebook_path": "a.ipynb", "cell_id": "c1", "new_source": "y = 1", "edit_mode": "replace"}`,
	},
	Codex: {
		"apply_patch": `{"command": "*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** End Patch\n"}`,
		"Edit":        `{"file_path": "a.go", "old_string": "x", "new_string": "y"}`,
		"Write":       `{"file_path": "a.go", "content": "y\n"}`,
	},
	"copilot": {
		"edit":   `{"path": "a.go", "old_str": "x", "new_str": "y"}`,
		"create": `"{\"path\": \"a.go\", \"file_text\": \"y\\n\"}"`, // older versions: the arguments as a JSON string
	},
	"opencode": {
		"read":        `{"filePath": "a.go", "offset": 1, "limit": 20}`,
		"edit":        `{"filePath": "a.go", "oldString": "x", "newString": "y"}`,
		"write":       `{"filePath": "a.go", "content": "y\n"}`,
		"apply_patch": `{"patchText": "*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** End Patch\n"}`,
	},
	Gemini: {
		"read_file":  `{"file_path": "a.go"}`,
		"write_file": `{"file_path": "a.go", "content": "y\n"}`,
		"replace":    `{"file_path": "a.go", "old_string": "x", "new_string": "y"}`,
	},
	Cursor: {
		"Read": `{"file_path": "a.go"}`,
	},
}

// Every tool an installed matcher lists is one gloss answers or captures:
// a tool in the matcher the parser did not know would run the hook for
// nothing and leave the agent's lines to the person (NotebookEdit did).
func TestEveryMatchedToolIsParsed(t *testing.T) {
	for _, name := range Names() {
		a, _ := Lookup(name)
		for _, ev := range a.Hooks().Events {
			if ev.Matcher == "" {
				continue
			}
			for _, tool := range strings.Split(ev.Matcher, "|") {
				in, ok := toolInputs[name][tool]
				if !ok {
					t.Errorf("%s %s: no documented tool_input for %s in this test", name, ev.Event, tool)
					continue
				}
				data := fmt.Sprintf(`{"session_id": "s", "cwd": "/r", "hook_event_name": %q, "tool_name": %q, "tool_input": %s}`, ev.Event, tool, in)
				if name == "copilot" {
					data = fmt.Sprintf(`{"sessionId": "s", "cwd": "/r", "toolName": %q, "toolArgs": %s}`, tool, in)
				}
				if name == "opencode" { // the payload of gloss's own plugin (opencode-plugin.js)
					data = fmt.Sprintf(`{"session_id": "s", "cwd": "/r", "hook_event_name": %q, "tool": %q, "args": %s}`, ev.Event, tool, in)
				}
				p, err := Parse(name, ev.Event, []byte(data))
				if err != nil {
					t.Fatal(err)
				}
				if p.Kind == KindIgnored || len(p.Files) != 1 || !strings.HasPrefix(p.Files[0].Path, "a.") {
					t.Errorf("%s %s %s: kind %s, files %+v", name, ev.Event, tool, p.Kind, p.Files)
				}
			}
		}
	}
}

// The OpenCode plugin gloss installs forwards exactly the tools its matcher
// names (it filters in JavaScript; the matcher is what the parser reads).
func TestOpenCodePluginForwardsTheMatchedTools(t *testing.T) {
	a, _ := Lookup("opencode")
	var m string
	for _, ev := range a.Hooks().Events {
		if ev.Event == "tool.execute.after" {
			m = ev.Matcher
		}
	}
	quoted := `"` + strings.ReplaceAll(m, "|", `", "`) + `"`
	if m == "" || !strings.Contains(string(OpenCodePlugin()), "["+quoted+"]") {
		t.Errorf("the plugin does not forward [%s]", quoted)
	}
	if !strings.Contains(string(OpenCodePlugin()), OwnedFileMark) {
		t.Error("the plugin lacks the owned-file mark")
	}
}
