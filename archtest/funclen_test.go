package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// maxFuncLines bounds a function, from its func line to its closing
// brace: a longer one does several things, which stages or rule tables
// name and test one by one (noma's directive rules, tasks' lint stages,
// attribution's compute stages).
const maxFuncLines = 120

// longFuncs are the functions still over the bound, by file and name,
// with their length when listed: the list only shrinks. A function that
// grows past its listed length fails, and one brought under the bound
// must leave the list.
var longFuncs = map[string]int{
	"tasks/import.go:Store.ImportChant": 136,
}

func TestNoLongFunctions(t *testing.T) {
	t.Parallel()
	root := fixtures.ModuleRoot()
	fset := token.NewFileSet()
	seen := map[string]bool{}
	for _, f := range trackedFiles(t) {
		if !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") || strings.Contains(f, "testdata/") {
			continue
		}
		file, err := parser.ParseFile(fset, filepath.Join(root, f), nil, 0)
		if err != nil {
			continue // deleted in the working tree
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			n := fset.Position(fn.Body.End()).Line - fset.Position(fn.Pos()).Line + 1
			key := f + ":" + funcName(fn)
			listed, ok := longFuncs[key]
			seen[key] = ok
			switch {
			case ok && n > listed:
				t.Errorf("%s has %d lines, more than the %d it is listed with: split it into named steps", key, n, listed)
			case ok && n <= maxFuncLines:
				t.Errorf("%s has %d lines now: remove it from longFuncs", key, n)
			case !ok && n > maxFuncLines:
				t.Errorf("%s has %d lines, over %d: split it into named steps, each testable", key, n, maxFuncLines)
			}
		}
	}
	for key := range longFuncs {
		if !seen[key] {
			t.Errorf("longFuncs lists %s, which is gone: remove it", key)
		}
	}
}

// funcName is a function's name, Type.Method for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}
