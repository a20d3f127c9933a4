package archtest

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// The environment's contracts are spelled once, in package runenv (see its
// doc): these tests hold the module, its scripts and its docs to it.

// envName is a GLOSS_ variable's name as it appears in any text.
var envName = regexp.MustCompile(`\bGLOSS_[A-Z0-9_]*[A-Z0-9]`)

// declaredEnv returns the GLOSS_ names runenv declares, by constant name.
func declaredEnv(t *testing.T) map[string]string {
	t.Helper()
	root := fixtures.ModuleRoot()
	fset := token.NewFileSet()
	out := map[string]string{}
	files, _ := filepath.Glob(filepath.Join(root, "runenv", "*.go"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					if s, _ := strconv.Unquote(lit.Value); envName.MatchString(s) && envName.FindString(s) == s {
						out[s] = vs.Names[i].Name
					}
				}
			}
		}
	}
	if len(out) < 10 {
		t.Fatalf("runenv declares only %d GLOSS_ names: %v", len(out), out)
	}
	return out
}

// trackedFiles lists the module's files under git, relative to its root.
func trackedFiles(t *testing.T) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = fixtures.ModuleRoot()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" && !strings.Contains(f, "node_modules/") && !strings.Contains(f, "/vendor/") {
			files = append(files, f)
		}
	}
	return files
}

// TestEnvSpelledInRunenvOnly: no non-test Go file outside runenv holds a
// string literal naming a GLOSS_ variable; it uses runenv's constant. (A
// test may spell a name: it checks the contract from outside.)
func TestEnvSpelledInRunenvOnly(t *testing.T) {
	t.Parallel()
	root := fixtures.ModuleRoot()
	fset := token.NewFileSet()
	checked := 0
	for _, f := range trackedFiles(t) {
		if !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") || strings.HasPrefix(f, "runenv/") || strings.Contains(f, "testdata/") {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			continue // deleted in the working tree
		}
		file, err := parser.ParseFile(fset, filepath.Join(root, f), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(file, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.Contains(lit.Value, "GLOSS_") {
				t.Errorf("%s spells %s: use runenv's constant", fset.Position(lit.Pos()), lit.Value)
			}
			return true
		})
	}
	if checked < 100 {
		t.Fatalf("checked only %d Go files", checked)
	}
}

// TestEveryEnvNameIsDeclared: every GLOSS_ name any file of the module
// mentions — code, tests, scripts, CI files, docs — is one runenv
// declares, so a test cannot set a variable nobody reads, nor a doc
// promise one.
func TestEveryEnvNameIsDeclared(t *testing.T) {
	t.Parallel()
	root := fixtures.ModuleRoot()
	declared := declaredEnv(t)
	for _, f := range trackedFiles(t) {
		switch filepath.Ext(f) {
		case ".go", ".sh", ".md", ".mjs", ".js", ".ts", ".yml", ".yaml", ".toml", "":
		default:
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil || bytes.IndexByte(data, 0) >= 0 {
			continue // deleted in the working tree, or a binary
		}
		for _, name := range envName.FindAllString(string(data), -1) {
			if _, ok := declared[name]; !ok {
				t.Errorf("%s mentions %s, which runenv does not declare: declare it there (and in docs/design.md's table), or use the name it has", f, name)
			}
		}
	}
}

// TestDesignDocListsTheEnvironment: docs/design.md's table of the
// environment lists exactly what runenv declares.
func TestDesignDocListsTheEnvironment(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(fixtures.ModuleRoot(), "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## The environment\n")
	if !ok {
		t.Fatal(`docs/design.md has no "## The environment" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `(GLOSS_[A-Z0-9_]+)`")
	var listed []string
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		listed = append(listed, m[1])
	}
	declared := declaredEnv(t)
	for name, c := range declared {
		if !slices.Contains(listed, name) {
			t.Errorf("docs/design.md's environment table lacks %s (runenv.%s)", name, c)
		}
	}
	for _, name := range listed {
		if _, ok := declared[name]; !ok {
			t.Errorf("docs/design.md's environment table lists %s, which runenv does not declare", name)
		}
	}
}

// testSwitches are the runenv names only a build with the glosstest tag
// may read: the release binary has no fault injection, no MCP debug
// tools, no profiling (tests/dist checks the binary itself).
var testSwitches = []string{"HookFault", "AgentFault", "KillAt", "MCPDebugTools", "CPUProfile"}

// TestTestSwitchesOnlyInTestBuilds: a non-test file that names a test
// switch is built only with the glosstest tag.
func TestTestSwitchesOnlyInTestBuilds(t *testing.T) {
	t.Parallel()
	root := fixtures.ModuleRoot()
	fset := token.NewFileSet()
	for _, f := range trackedFiles(t) {
		if !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") || strings.HasPrefix(f, "runenv/") {
			continue
		}
		file, err := parser.ParseFile(fset, filepath.Join(root, f), nil, parser.ParseComments)
		if err != nil {
			continue // deleted in the working tree
		}
		tagged := false
		for _, cg := range file.Comments {
			if cg.Pos() > file.Package {
				break
			}
			for _, c := range cg.List {
				if c.Text == "//go:build glosstest" {
					tagged = true
				}
			}
		}
		ast.Inspect(file, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok || tagged {
				return !tagged
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "runenv" && slices.Contains(testSwitches, sel.Sel.Name) {
				t.Errorf("%s reads the test switch runenv.%s without //go:build glosstest", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}
