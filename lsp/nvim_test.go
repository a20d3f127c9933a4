package lsp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
)

// TestNeovim drives the real server from a real editor: Neovim from
// Debian's packages (0.7), headless, with `git gloss lsp` as its language
// server (testdata/nvim.lua). Hovering inside a function whose decision an
// older commit recorded on other lines shows the constraint and who wrote
// the line; ten unsaved lines typed above keep the hover on the function;
// after `git gloss flag`, the hover no longer shows the record.
func TestNeovim(t *testing.T) {
	t.Parallel()
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Fatal("nvim is not installed; `make test` installs it (scripts/deps.sh: Debian's neovim)")
	}
	fx := newShop(t)
	outFile := filepath.Join(t.TempDir(), "out.json")
	script, err := filepath.Abs("testdata/nvim.lua")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", "luafile "+script)
	cmd.Dir = fx.Dir
	cmd.Env = append(fx.Env,
		"LSPTEST_BIN="+fixtures.Binary(t), "LSPTEST_REPO="+fx.Dir, "LSPTEST_FILE="+fx.Path("shop.go"),
		"LSPTEST_OUT="+outFile, "LSPTEST_RECORD="+recordID(t, fx), "LSPTEST_CONSTRAINT="+totalConstraint)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, out)
	}
	data, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatalf("nvim wrote no result: %v", err)
	}
	var got struct {
		Hovers   map[string]string `json:"hovers"`
		Errors   []string          `json:"errors"`
		Modified bool              `json:"modified"`
		Flag     string            `json:"flag"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("result %s: %v", data, err)
	}
	if len(got.Errors) > 0 {
		t.Errorf("errors in Neovim: %q", got.Errors)
	}
	first, shifted, after := got.Hovers["first"], got.Hovers["shifted"], got.Hovers["after_flag"]
	for _, want := range []string{totalConstraint, "`Total`", "written by human"} {
		if !strings.Contains(first, want) {
			t.Errorf("first hover lacks %q:\n%s", want, first)
		}
		if !strings.Contains(shifted, want) {
			t.Errorf("hover after ten unsaved lines lacks %q:\n%s", want, shifted)
		}
	}
	if !got.Modified {
		t.Errorf("the ten lines were saved; the test is about an unsaved buffer")
	}
	if !strings.Contains(got.Flag, "flagged") {
		t.Errorf("git gloss flag: %s", got.Flag)
	}
	if after == "" || strings.Contains(after, totalConstraint) || !strings.Contains(after, "`Total`") {
		t.Errorf("after the flag, the hover should answer for Total without the flagged record:\n%s", after)
	}
}
