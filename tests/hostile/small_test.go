package hostile

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gloss-dev/gloss/fixtures"
)

// mcpLines sends raw lines to one `git gloss mcp` (after the handshake)
// and returns its reply lines by the order they came.
func mcpLines(t *testing.T, r *fixtures.Repo, lines ...string) []string {
	t.Helper()
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for _, l := range lines {
		in.WriteString(l + "\n")
	}
	cmd := r.Command(fixtures.Binary(t), "mcp", "--toolsets", "all")
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("mcp: %v", err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")[1:] // the initialize answer aside
}

func call(id int, tool string, args any) string {
	data, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	return string(data)
}

// The smaller sharp edges: a note name that climbs out of its folder, a
// huge path echoed back in full, a request id that is not UTF-8.
func TestSmallerEdges(t *testing.T) {
	t.Parallel()
	r := fixtures.NewRepo(t)
	r.Commit("base", map[string]string{"README.md": "# demo\n"})
	r.MustGloss("init", "--no-mcp")
	// The 4 MiB path for gloss_read; 64 KiB (already far over
	// every bound) for the rest keeps the test quick.
	huge := strings.Repeat("a/", (4<<20-8192)/2) + "x.go"
	big := huge[:64<<10]
	replies := mcpLines(t, r,
		call(1, "create_note", map[string]any{"name": "../escape.md", "folder": "notes", "content": "x"}),
		call(2, "gloss_read", map[string]any{"path": huge}),
		call(3, "read_doc", map[string]any{"file": big}),
		call(4, "create_note", map[string]any{"name": big, "content": "x"}),
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"tools/list\"}",
		call(5, "gloss_read", map[string]any{"path": "README.md", "anchor": big}),
		call(6, "task_get", map[string]any{"id": big}),
		call(7, "read_note", map[string]any{"path": big}),
		call(8, "gloss_annotate", map[string]any{"file": big, "intent": "x"}),
		call(9, "patch_block", map[string]any{"file": "README.md", "op": map[string]any{"op": "delete_block", "id": big}}),
		call(10, "spec_status", map[string]any{"spec_path": big}),
	)
	if len(replies) != 11 {
		t.Fatalf("%d replies to 11 requests", len(replies))
	}
	for i, line := range replies {
		if !utf8.ValidString(line) || !json.Valid([]byte(line)) {
			t.Errorf("reply %d is not valid JSON (UTF-8): %.200q", i+1, line)
			continue
		}
		var resp struct {
			ID     any `json:"id"`
			Result struct {
				IsError bool `json:"isError"`
			} `json:"result"`
			Error *struct{ Code int } `json:"error"`
		}
		_ = json.Unmarshal([]byte(line), &resp)
		switch {
		case resp.ID == nil:
			if resp.Error == nil || resp.Error.Code != -32600 {
				t.Errorf("the request with an invalid id got %.300s, want id null and -32600", line)
			}
		case !resp.Result.IsError && resp.Error == nil && !strings.Contains(line, `\"ok\":false`):
			t.Errorf("request %v was accepted: %.300s", resp.ID, line)
		}
		if len(line) > 16<<10 {
			t.Errorf("reply %v is %d bytes: user input echoed unbounded", resp.ID, len(line))
		}
	}
	if _, err := os.Stat(r.Path(".gloss/notebook/escape.md")); err == nil {
		t.Errorf("create_note wrote escape.md outside its folder")
	}
	out, err := r.Gloss("note", "create", "../escape", "--folder", "notes", "-m", "x")
	if err == nil {
		t.Errorf("note create ../escape was accepted: %s", out)
	}
	if out, err := r.Gloss("read", huge[:100<<10]); err == nil || len(out) > 16<<10 {
		t.Errorf("read of a 100 KiB path: %v, %d bytes of answer", err, len(out))
	}
}
