package mcp_test

import (
	"strings"
	"testing"
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
