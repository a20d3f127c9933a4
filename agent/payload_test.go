package agent

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestParsePatchFindsFilesAndHunks(t *testing.T) {
	ops := ParsePatch("*** Begin Patch\n*** Add File: new.go\n+package x\n*** Update File: a.go\n*** Move to: b.go\n@@ func F() {\n-\told()\n+\tnew1()\n+\tnew2()\n }\n*** Delete File: c.go\n*** End Patch\n")
	if len(ops) != 2 || ops[0].Path != "new.go" || ops[1].Path != "b.go" {
		t.Fatalf("ops = %+v", ops)
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
