package cli

import (
	"bytes"
	"io"
	"reflect"
	"strings"
	"testing"
)

// The fast path must read its shapes exactly as the parser does, and
// leave every other command line to the parser.
func TestFastCommandReadsAsTheParserDoes(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"hook", "post-commit"},
		{"hook", "prepare-commit-msg", ".git/COMMIT_EDITMSG", "message"},
		{"hook", "post-rewrite", "rebase"},
		{"hook", "pre-push", "origin", "https://example.com/r.git"},
		{"agent", "hook", "--agent", "gemini", "AfterTool"},
		{"agent", "hook", "--agent=codex", "PreToolUse"},
		{"agent", "hook", "SessionStart"},
	} {
		if fastCommand(args) == nil {
			t.Errorf("%q: not taken by the fast path", args)
			continue
		}
		var c CLI
		parser, err := newParser(&c, io.Discard, io.Discard, func(int) {})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parser.Parse(args); err != nil {
			t.Fatalf("%q: kong: %v", args, err)
		}
		switch args[0] {
		case "hook":
			want := &HookCmd{Name: args[1], Args: args[2:]}
			if len(c.Hook.Args) == 0 {
				c.Hook.Args = []string{}
			}
			if !reflect.DeepEqual(&c.Hook, want) {
				t.Errorf("%q: kong read %+v, the fast path %+v", args, c.Hook, want)
			}
		case "agent":
			if got := agentHookArgs(args[2:]); !reflect.DeepEqual(got, &c.Agent.Hook) {
				t.Errorf("%q: kong read %+v, the fast path %+v", args, c.Agent.Hook, got)
			}
		}
	}
}

func TestFastCommandLeavesTheRestToTheParser(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		nil,
		{"hook"},
		{"hook", "--help"},
		{"hook", "bogus"},
		{"hook", "post-commit", "--json", "-C", "x"}, // kong reads these as gloss's flags
		{"-C", "dir", "hook", "post-commit"},
		{"--version", "status"},
		{"agent", "hook", "--help"},
		{"agent", "hook", "--agent"},
		{"agent", "hook", "--agent", "claude"},
		{"agent", "hook", "--agent", "--json", "X"},
		{"agent", "hook", "A", "B"},
		{"agent", "hook", "--agent", "claude", "-v"},
		{"status"},
	} {
		if fastCommand(args) != nil {
			t.Errorf("%q: taken by the fast path; the parser should read it", args)
		}
	}
}

// --version prints the same line either way.
func TestVersionFastAndParsed(t *testing.T) {
	t.Parallel()
	var fast, parsed bytes.Buffer
	if code := Run([]string{"--version"}, strings.NewReader(""), &fast, io.Discard); code != 0 {
		t.Fatalf("--version exited %d", code)
	}
	if code := Run([]string{"-v", "--version"}, strings.NewReader(""), &parsed, io.Discard); code != 0 {
		t.Fatalf("-v --version exited %d", code)
	}
	if fast.String() != parsed.String() || !strings.HasPrefix(fast.String(), "git-gloss ") {
		t.Errorf("--version printed %q, through the parser %q", fast.String(), parsed.String())
	}
}
