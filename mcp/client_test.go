package mcp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// TestTypeScriptSDKClient runs tests/mcp-client/server.test.mjs: the
// official MCP TypeScript SDK client, installed from the committed
// package.json and lockfile with npm ci, drives the real server.
func TestTypeScriptSDKClient(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not installed; `make test` installs it (the TypeScript client suite cannot be skipped)")
	}
	dir := filepath.Join(fixtures.ModuleRoot(), "tests", "mcp-client")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		npm := exec.Command("npm", "ci", "--no-audit", "--no-fund")
		npm.Dir = dir
		if out, err := npm.CombinedOutput(); err != nil {
			t.Fatalf("npm ci: %v\n%s", err, out)
		}
	}
	fx := newRepo(t)
	fx.MustGloss("init", "--no-mcp")
	fx.Git("config", "--unset", "gloss.setupVersion") // a setup from an older gloss: projectNote due

	cmd := exec.Command("node", "--test", "--test-reporter=spec", "server.test.mjs")
	cmd.Dir = dir
	cmd.Env = append(fx.Env, "GLOSS_BIN="+fixtures.TestSwitches(t), "GLOSS_REPO="+fx.Dir)
	out, err := cmd.CombinedOutput()
	t.Logf("node --test:\n%s", out)
	if err != nil {
		t.Fatalf("TypeScript SDK client suite failed: %v", err)
	}
}
