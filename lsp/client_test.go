package lsp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
)

// TestVSCodeProtocolClient runs tests/lsp-client/server.test.mjs: the
// server driven by vscode-jsonrpc and vscode-languageserver-protocol (the
// libraries VS Code's language client uses, installed from the committed
// lockfile), over every capability it announces and malformed messages.
func TestVSCodeProtocolClient(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not installed; `make test` installs it (the protocol client suite cannot be skipped)")
	}
	dir := filepath.Join(fixtures.ModuleRoot(), "tests", "lsp-client")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "vscode-languageserver-protocol")); err != nil {
		npm := exec.Command("npm", "ci", "--no-audit", "--no-fund")
		npm.Dir = dir
		if out, err := npm.CombinedOutput(); err != nil {
			t.Fatalf("npm ci: %v\n%s", err, out)
		}
	}
	fx := newShop(t)
	// An agent's commit: Discount's lines are claude's (GLOSS_AGENT).
	fx.Write("shop.go", shopV2+"\n// Discount is ten percent off.\nfunc Discount(total int) int {\n\treturn total - total/10\n}\n")
	commit := fx.Command("git", "commit", "-q", "-am", "shop: Discount")
	commit.Env = append(commit.Env, "GLOSS_AGENT=claude", "GLOSS_MODEL=claude-opus-4")
	if out, err := commit.CombinedOutput(); err != nil {
		t.Fatalf("agent commit: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "--test", "--test-reporter=spec", "server.test.mjs")
	cmd.Dir = dir
	cmd.Env = append(fx.Env, "LSPTEST_BIN="+fixtures.Binary(t), "LSPTEST_REPO="+fx.Dir, "LSPTEST_OUTSIDE="+t.TempDir())
	out, err := cmd.CombinedOutput()
	t.Logf("node --test:\n%s", out)
	if err != nil {
		t.Fatalf("protocol client suite failed: %v", err)
	}
}
