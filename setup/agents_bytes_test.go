package setup

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Install then uninstall gives back the very bytes, however the user laid
// their file out, for every agent's layout.
func TestAgentHooksRoundTripKeepsEveryByte(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"no file":          "",
		"empty object":     "{}",
		"blank":            "  \n",
		"other settings":   "{\n  \"model\": \"opus\",\n  \"env\": {\"A\": \"1\"}\n}\n",
		"compact":          `{"theme":"dark","hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"x"}]}]}}`,
		"tabs":             "{\n\t\"hooks\": {\n\t\t\"SessionStart\": [\n\t\t\t{\"hooks\": [{\"type\": \"command\", \"command\": \"echo hi\"}]}\n\t\t]\n\t}\n}",
		"empty hooks":      "{ \"hooks\": {} }\n",
		"empty arrays":     "{\"hooks\": {\"PreToolUse\": [], \"SessionStart\": [ ], \"sessionStart\": []}}\n",
		"crlf":             "{\r\n  \"hooks\": {\r\n    \"Stop\": [\r\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"s\"}]}\r\n    ]\r\n  }\r\n}\r\n",
		"cursor with user": "{\n  \"version\": 1,\n  \"hooks\": {\n    \"afterFileEdit\": [{\"command\": \"./format.sh\"}],\n    \"stop\": [{\"command\": \"./audit.sh\"}]\n  }\n}\n",
		"spaces in colons": "{ \"hooks\" : { \"UserPromptSubmit\" : [ { \"hooks\" : [ { \"type\" : \"command\" , \"command\" : \"u\" } ] } ] } , \"z\" : [1,2] }",
	}
	for _, agent := range Agents() {
		spec := agentSpecs()[agent]
		if spec.file != nil {
			continue // a file gloss owns whole: TestOwnedFileInstallUninstall
		}
		for name, orig := range files {
			t.Run(agent+"/"+name, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "sub", "hooks.json")
				if name != "no file" {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				target := MCPTarget{Client: agent, Path: path, Global: true}
				ch, err := installAgentHooks(spec, target)
				if err != nil || ch.Action != "added" {
					t.Fatalf("install: %v %+v", err, ch)
				}
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !json.Valid(data) {
					t.Fatalf("install wrote invalid JSON:\n%s", data)
				}
				present, err := glossEntries(data, spec.cursor)
				if err != nil || !sameEntries(present, spec) {
					t.Fatalf("after install, gloss's entries are not the ones it writes (%v):\n%s", err, data)
				}
				if strings.TrimSpace(orig) != "" && strings.Contains(orig, "command") {
					var before, after map[string]any
					_ = json.Unmarshal([]byte(orig), &before)
					_ = json.Unmarshal(data, &after)
					if n, m := countCommands(before), countCommands(after); m != n+len(spec.hooks) {
						t.Errorf("commands before %d, after %d: the user's hooks were not all kept:\n%s", n, m, data)
					}
				}
				again, err := installAgentHooks(spec, target)
				if err != nil || again.Action != "unchanged" {
					t.Errorf("second install: %v %+v", err, again)
				}

				out, err := uninstallAgentHooks(ch, "")
				if err != nil || out.Action != "removed" {
					t.Fatalf("uninstall: %v %+v", err, out)
				}
				got, err := os.ReadFile(path)
				switch {
				case name == "no file":
					if !os.IsNotExist(err) {
						t.Errorf("the file install created is left: %q", got)
					}
					if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
						t.Errorf("the folder install created is left: %v", err)
					}
				case string(got) != orig:
					t.Errorf("after install and uninstall:\n%q\nwant the original bytes:\n%q", got, orig)
				}
			})
		}
	}
}

func countCommands(v any) int {
	n := 0
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "command" {
				n++
			}
			n += countCommands(e)
		}
	case []any:
		for _, e := range x {
			n += countCommands(e)
		}
	}
	return n
}

func TestInstructionsRoundTripKeepsEveryByte(t *testing.T) {
	t.Parallel()
	for name, orig := range map[string]string{
		"no file":        "",
		"empty":          "",
		"no newline":     "# Rules\n\nBe brief.",
		"newline":        "# Rules\n",
		"blank line":     "# Rules\n\n",
		"crlf":           "# Rules\r\n\r\nBe brief.\r\n",
		"only spaces":    "   ",
		"marker in text": "Use <!-- gloss:end --> never.\n",
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			p := filepath.Join(root, "AGENTS.md")
			if name != "no file" {
				if err := os.WriteFile(p, []byte(orig), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ic, err := installInstructions(root, "AGENTS.md")
			if err != nil || ic.Action != "added" {
				t.Fatalf("install: %v %+v", err, ic)
			}
			data, _ := os.ReadFile(p)
			if !strings.HasPrefix(string(data), orig) || strings.Count(string(data), InstructionsBegin) != 1 {
				t.Fatalf("after install:\n%q", data)
			}
			if again, err := installInstructions(root, "AGENTS.md"); err != nil || again.Action != "unchanged" {
				t.Errorf("second install: %v %+v", err, again)
			}
			if _, err := uninstallInstructions(root, ic); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(p)
			switch {
			case name == "no file":
				if !os.IsNotExist(err) {
					t.Errorf("AGENTS.md install created is left: %q", got)
				}
			case string(got) != orig:
				t.Errorf("after install and uninstall: %q, want %q", got, orig)
			}
		})
	}
}

// An agent whose hooks are a file gloss writes whole (OpenCode's plugin,
// Copilot CLI's .github/hooks/gloss.json): install creates it and its
// folders, leaves a file of the user's by the same name untouched, brings
// an older one of its own up to date; uninstall removes what it created,
// folders included, and nothing it did not.
func TestOwnedFileInstallUninstall(t *testing.T) {
	t.Parallel()
	n := 0
	for _, name := range Agents() {
		if spec := agentSpecs()[name]; spec.file != nil {
			n++
			t.Run(name, func(t *testing.T) { ownedFileRoundTrip(t, spec) })
		}
	}
	if n < 2 {
		t.Errorf("%d agents with a file of gloss's own, want OpenCode's and Copilot CLI's", n)
	}
}

func ownedFileRoundTrip(t *testing.T, spec agentSpec) {
	root := t.TempDir()
	path := filepath.Join(root, filepath.FromSlash(spec.project))
	top := filepath.Join(root, strings.Split(spec.project, "/")[0])
	target := MCPTarget{Client: spec.name, Path: path, root: root}

	ch, err := installAgentHooks(spec, target)
	if err != nil || ch.Action != "added" || len(ch.CreatedDirs) != strings.Count(spec.project, "/") {
		t.Fatalf("install: %v %+v", err, ch)
	}
	if got, _ := os.ReadFile(path); string(got) != string(spec.file) {
		t.Fatalf("install wrote %q", got)
	}
	if again, err := installAgentHooks(spec, target); err != nil || again.Action != "unchanged" {
		t.Errorf("second install: %v %+v", err, again)
	}
	older := strings.Replace(string(spec.file), "agent hook", "agent  hook", 1)
	if err := os.WriteFile(path, []byte(older), 0o644); err != nil {
		t.Fatal(err)
	}
	if up, err := installAgentHooks(spec, target); err != nil || up.Action != "updated" {
		t.Errorf("install over an older file of gloss's: %v %+v", err, up)
	}
	if out, err := uninstallAgentHooks(ch, root); err != nil || out.Action != "removed" {
		t.Fatalf("uninstall: %v %+v", err, out)
	}
	if _, err := os.Stat(top); !os.IsNotExist(err) {
		t.Errorf("the folders install created are left: %v", err)
	}

	// The user's own file of that name: never touched, either way.
	mine := "{\"version\": 1, \"hooks\": {}}\n"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	if ch, err := installAgentHooks(spec, target); err != nil || ch.Action != "refused" || ch.Error == "" {
		t.Errorf("install over the user's file: %v %+v", err, ch)
	}
	if out, err := uninstallAgentHooks(AgentChange{Agent: spec.name, Path: path, Created: true}, root); err != nil || out.Action != "absent" {
		t.Errorf("uninstall of the user's file: %v %+v", err, out)
	}
	if got, _ := os.ReadFile(path); string(got) != mine {
		t.Errorf("the user's file changed: %q", got)
	}
}
