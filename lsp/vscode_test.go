package lsp_test

import (
	"archive/zip"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
)

// TestVSCodeExtensionPackages builds editors/vscode from its lockfile
// (TypeScript, vscode-languageclient) and packages it with @vscode/vsce,
// then checks the .vsix: the compiled extension that starts `git gloss
// lsp`, its manifest, and the language client it needs at run time.
func TestVSCodeExtensionPackages(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Fatal("npm is not installed; `make test` installs it (the extension must build)")
	}
	dir := filepath.Join(fixtures.ModuleRoot(), "editors", "vscode")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@vscode", "vsce")); err != nil {
		run("npm", "ci", "--no-audit", "--no-fund")
	}
	vsix := filepath.Join(t.TempDir(), "gloss.vsix")
	run("npx", "tsc", "-p", ".")
	run("npx", "vsce", "package", "--skip-license", "--out", vsix)

	zr, err := zip.OpenReader(vsix)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		files[f.Name] = f
	}
	read := func(name string) string {
		f := files[name]
		if f == nil {
			t.Fatalf("%s is not in the package", name)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		data, _ := io.ReadAll(rc)
		return string(data)
	}
	var manifest struct {
		Main        string            `json:"main"`
		Engines     map[string]string `json:"engines"`
		Contributes struct {
			Configuration struct {
				Properties map[string]any `json:"properties"`
			} `json:"configuration"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal([]byte(read("extension/package.json")), &manifest); err != nil {
		t.Fatal(err)
	}
	main := "extension/" + strings.TrimPrefix(manifest.Main, "./")
	if js := read(main); !strings.Contains(js, `'gloss', 'lsp'`) || !strings.Contains(js, "vscode-languageclient/node") {
		t.Errorf("%s does not start git gloss lsp through vscode-languageclient:\n%s", main, js)
	}
	read("extension/node_modules/vscode-languageclient/package.json")
	for _, k := range []string{"gloss.agentLines", "gloss.hoverTokens", "gloss.gitPath"} {
		if manifest.Contributes.Configuration.Properties[k] == nil {
			t.Errorf("setting %s is not contributed", k)
		}
	}
	if manifest.Engines["vscode"] == "" {
		t.Errorf("no vscode engine in the manifest")
	}
	for name := range files {
		if strings.HasPrefix(name, "extension/src/") || strings.HasSuffix(name, ".vsix") {
			t.Errorf("%s should not be packaged", name)
		}
	}
}
