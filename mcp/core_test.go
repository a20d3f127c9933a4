package mcp_test

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// The MCP tool returns the very bytes `git gloss status --json` prints.
func TestStatusToolMatchesCLI(t *testing.T) {
	fx := newRepo(t)
	fx.MustGloss("init", "--no-mcp")
	session := fx.StartMCP()
	res := session.Call("gloss_status", nil)
	if res.IsError {
		t.Fatalf("gloss_status failed: %s", res.Text)
	}
	cli := strings.TrimRight(fx.MustGloss("status", "--json"), "\n")
	if res.Text != cli {
		t.Errorf("MCP and CLI differ:\nmcp %s\ncli %s", res.Text, cli)
	}
	if res.Raw.StructuredContent == nil {
		t.Error("no structuredContent")
	}
}

// One session, a commit and a configuration change made outside it
// between two calls: the second call sees both.
func TestSessionSeesChangesMadeBetweenCalls(t *testing.T) {
	t.Parallel()
	fx := newRepo(t)
	fx.MustGloss("init", "--no-mcp")
	session := fx.StartMCP()
	before := gjson.Parse(session.Call("gloss_status", nil).Text)
	fx.MustGloss("annotate", "--file", "b.txt", "--intent", "keep b apart from a", "--author-kind", "human")
	fx.Commit("second", map[string]string{"b.txt": "b\n"})
	fx.Git("config", "--add", "remote.up.url", "https://example.com/up.git")
	after := gjson.Parse(session.Call("gloss_status", nil).Text)
	head := strings.TrimSpace(fx.Git("rev-parse", "HEAD"))
	if got := after.Get("repository.head").String(); got != head || got == before.Get("repository.head").String() {
		t.Errorf("head after an outside commit = %s, want %s", got, head)
	}
	if !after.Get("config.fetch_refspecs.up").Exists() {
		t.Errorf("a remote added outside the session is not seen: %s", after.Get("config"))
	}
	read := session.Call("gloss_read", map[string]any{"path": "b.txt", "lines": "1:1"})
	if !strings.Contains(read.Text, "keep b apart from a") {
		t.Errorf("gloss_read does not see the commit made outside the session: %s", read.Text)
	}
}
