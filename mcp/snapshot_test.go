package mcp_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// update rewrites the tool snapshots: go test ./mcp/ -run TestToolSnapshots -update
var update = flag.Bool("update", false, "rewrite the MCP tool snapshots in testdata/tools")

const snapshotDir = "testdata/tools"

// TestToolSnapshots holds every MCP tool — its description, input schema
// and output schema, as tools/list gives them with every toolset, the
// dynamic-toolset tools and output schemas on — to its snapshot in
// testdata/tools/<name>.json, so that a changed tool is a reviewed diff,
// never a surprise to a client. A new tool needs a snapshot, a removed one
// takes its snapshot away. -update writes them.
func TestToolSnapshots(t *testing.T) {
	fx := newRepo(t)
	tools := map[string][]byte{}
	for _, args := range [][]string{{"--toolsets", "all", "--output-schemas"}, {"--dynamic-toolsets", "--output-schemas"}} {
		var res struct {
			Result struct {
				Tools []json.RawMessage `json:"tools"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(toolsListLine(t, fx.Dir, args...)), &res); err != nil {
			t.Fatal(err)
		}
		for _, raw := range res.Result.Tools {
			var tool struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(raw, &tool); err != nil || tool.Name == "" {
				t.Fatalf("a tool without a name: %s", raw)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, raw, "", "  "); err != nil {
				t.Fatal(err)
			}
			pretty.WriteByte('\n')
			if prev, ok := tools[tool.Name]; ok && !bytes.Equal(prev, pretty.Bytes()) {
				t.Errorf("%s differs between %v and the toolsets before", tool.Name, args)
			}
			tools[tool.Name] = pretty.Bytes()
		}
	}
	if len(tools) < 40 {
		t.Fatalf("tools/list gave %d tools", len(tools))
	}
	if *update {
		writeSnapshots(t, tools)
		return
	}
	var names []string
	for name, got := range tools {
		names = append(names, name)
		want, err := os.ReadFile(filepath.Join(snapshotDir, name+".json"))
		switch {
		case err != nil:
			t.Errorf("%s has no snapshot: run go test ./mcp/ -run TestToolSnapshots -update and review the new file", name)
		case !bytes.Equal(got, want):
			t.Errorf("%s differs from its snapshot (go test ./mcp/ -run TestToolSnapshots -update, then review the diff):\n%s", name, firstDifference(want, got))
		}
	}
	files, _ := filepath.Glob(filepath.Join(snapshotDir, "*.json"))
	for _, f := range files {
		if _, ok := tools[strings.TrimSuffix(filepath.Base(f), ".json")]; !ok {
			t.Errorf("%s is the snapshot of no tool: remove it (or run -update)", f)
		}
	}
	sort.Strings(names)
	t.Logf("%d tools checked: %s", len(names), strings.Join(names, " "))
}

func writeSnapshots(t *testing.T, tools map[string][]byte) {
	t.Helper()
	if err := os.RemoveAll(snapshotDir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(snapshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range tools {
		if err := os.WriteFile(filepath.Join(snapshotDir, name+".json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("wrote %d snapshots to %s", len(tools), snapshotDir)
}

// firstDifference shows the first line where two snapshots part.
func firstDifference(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n  snapshot: " + wl + "\n  now:      " + gl
		}
	}
	return "(same lines)"
}
