package hostile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// echoWorld is a repository where every toolset has something to answer
// about: a Go file, a spec, a task, a note and a .noma document.
func echoWorld(t *testing.T) *fixtures.Repo {
	t.Helper()
	r := fixtures.NewRepo(t)
	r.Commit("base", map[string]string{
		"a.go":           "package a\n\nfunc A() int {\n\treturn 1\n}\n",
		"doc/plan.noma":  "---\nnoma: \"0.1\"\ntitle: Plan\n---\n\n# Plan {#plan}\n\nText. {#p1}\n",
		"README.md":      "# demo\n",
		".gitattributes": "",
	})
	r.MustGloss("init", "--no-mcp")
	r.MustGloss("spec", "new", "s", "--govern", "a.go")
	r.MustGloss("task", "add", "a task", "-c", "a criterion")
	r.MustGloss("note", "create", "n", "-m", "a note")
	return r
}

// toolList asks a server for its tools and their input schemas.
type toolSchema struct {
	Name        string `json:"name"`
	InputSchema struct {
		Properties map[string]struct {
			Type  any `json:"type"`
			Items *struct {
				Type any `json:"type"`
			} `json:"items"`
		} `json:"properties"`
		Required []string `json:"required"`
	} `json:"inputSchema"`
}

// plausible is a value for an argument that the tool would accept, so that
// a call fails (if it does) because of the one argument made huge.
var plausible = map[string]any{
	"path": "a.go", "file": "doc/plan.noma", "spec_path": ".gloss/specs/s.spec.yaml", "query": "task",
	"name": "echo-probe", "content": "x", "id": "p1", "title": "t", "intent": "x", "files": []string{"a.go"},
	"op": map[string]any{"op": "delete_block", "id": "p1"}, "ops": []any{map[string]any{"op": "delete_block", "id": "p1"}},
	"status": "open", "criteria": []string{"c"}, "text": "x", "tag": "t", "tags": []string{"t"}, "from": "notes/n.md", "to": "notes/m.md",
}

// TestRepliesBoundWhatTheyQuote is issue 28's point: no reply quotes a
// huge argument in full. Every tool of every toolset is called once per
// string argument (or list of strings) set to 70,000 characters, the other
// required arguments plausible; the reply must stay under 16 KiB, where
// quoting the argument once would be 70 KB (a 500 kB web search query
// came back as 1.5 MB, get_changed_artifacts quoted 4 times, gloss_deps,
// gloss_history, gloss_summary and task_search twice).
func TestRepliesBoundWhatTheyQuote(t *testing.T) {
	t.Parallel()
	r := echoWorld(t)
	big := strings.Repeat("a", 70000)
	list := mcpLines(t, r, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	var lr struct {
		Result struct {
			Tools []toolSchema `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(list[0]), &lr); err != nil || len(lr.Result.Tools) < 20 {
		t.Fatalf("tools/list: %v (%d tools)", err, len(lr.Result.Tools))
	}
	var calls []string
	var names []string
	id := 0
	for _, tool := range lr.Result.Tools {
		props := make([]string, 0, len(tool.InputSchema.Properties))
		for p := range tool.InputSchema.Properties {
			props = append(props, p)
		}
		sort.Strings(props)
		for _, p := range props {
			schema := tool.InputSchema.Properties[p]
			var huge any
			switch {
			case schema.Type == "string":
				huge = big
			case schema.Type == "array" && schema.Items != nil && schema.Items.Type == "string":
				huge = []string{big}
			default:
				continue
			}
			args := map[string]any{}
			for _, req := range tool.InputSchema.Required {
				if v, ok := plausible[req]; ok {
					args[req] = v
				}
			}
			args[p] = huge
			id++
			calls = append(calls, call(id, tool.Name, args))
			names = append(names, tool.Name+"."+p)
		}
	}
	replies := mcpLines(t, r, calls...)
	if len(replies) != len(calls) {
		t.Fatalf("%d replies to %d calls", len(replies), len(calls))
	}
	var over []string
	for _, line := range replies {
		var resp struct {
			ID int `json:"id"`
		}
		_ = json.Unmarshal([]byte(line), &resp)
		if resp.ID < 1 || resp.ID > len(names) {
			t.Errorf("reply with id %d: %.200s", resp.ID, line)
			continue
		}
		if len(line) > 16<<10 {
			over = append(over, fmt.Sprintf("%s: %d bytes (%.1f× the argument)", names[resp.ID-1], len(line), float64(len(line))/float64(len(big))))
		}
	}
	slices.Sort(over)
	for _, o := range over {
		t.Error(o)
	}
	t.Logf("%d tools, %d huge arguments, %d replies over 16 KiB", len(lr.Result.Tools), len(calls), len(over))
}

// TestWebSearchBoundsItsQuery: the web view's search with a 500 kB query
// answers in a page that does not quote it (it came back as 1.5 MB).
func TestWebSearchBoundsItsQuery(t *testing.T) {
	t.Parallel()
	r := echoWorld(t)
	base, stop := startServe(t, r)
	defer stop()
	q := strings.Repeat("a", 500<<10)
	for _, page := range []struct{ path, format string }{{"/notebook/search", ""}, {"/notebook/search", "json"}, {"/tasks", ""}} {
		u := *base
		u.Path = page.path
		v := base.Query()
		v.Set("q", q)
		if page.format != "" {
			v.Set("format", page.format)
		}
		u.RawQuery = v.Encode()
		resp, err := http.Get(u.String())
		if err != nil {
			t.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if n > 64<<10 {
			t.Errorf("%s (format %q) with a 500 kB q: %d bytes (status %d)", page.path, page.format, n, resp.StatusCode)
		}
	}
}

// startServe runs `git gloss serve` on r and returns its URL (with the
// token) and a function that stops it.
func startServe(t *testing.T, r *fixtures.Repo) (*url.URL, func()) {
	t.Helper()
	cmd := r.Command(fixtures.Binary(t), "serve")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		stop()
		t.Fatalf("serve printed no URL: %v", err)
	}
	u, err := url.Parse(strings.TrimSpace(line))
	if err != nil {
		stop()
		t.Fatalf("serve printed %q: %v", line, err)
	}
	return u, stop
}
