package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function outside tests may be, counted from
// its func keyword to its closing brace: longer ones are split, and help
// texts are vars (docs/architecture.md, "Guards").
const maxFuncLines = 60

// TestNoFunctionOver60Lines fails naming each function outside tests, in the
// main module, longer than maxFuncLines.
func TestNoFunctionOver60Lines(t *testing.T) {
	long, err := longFuncs(moduleRoot(t), maxFuncLines)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range long {
		t.Errorf("%s: %s is %d lines, over %d: move help text to a var, or a coherent part to a helper", f.pos, f.name, f.lines, maxFuncLines)
	}
}

// TestLongFuncsFindsA61LineFunction shows the guard fails: a function of 61
// lines in a module of its own is named, one of 60 is not.
func TestLongFuncsFindsA61LineFunction(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/long\n")
	write("long.go", "package long\n\n"+funcOfLines("Long", 61)+"\n"+funcOfLines("Fits", 60))
	write("long_test.go", "package long\n\n"+funcOfLines("LongTest", 80))
	long, err := longFuncs(dir, maxFuncLines)
	if err != nil {
		t.Fatal(err)
	}
	if len(long) != 1 || long[0].name != "Long" || long[0].lines != 61 || long[0].pos != "long.go:3" {
		t.Fatalf("longFuncs = %+v, want only Long, 61 lines at long.go:3", long)
	}
}

// funcOfLines is the source of a function named name exactly n lines long.
func funcOfLines(name string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "func %s() {\n", name)
	for range n - 2 {
		b.WriteString("\t_ = 0\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// longFunc is a function over the limit: where it starts (relative to the
// module root), its name (Type.Method for a method) and its length.
type longFunc struct {
	pos   string
	name  string
	lines int
}

// longFuncs parses every non-test .go file of the module at root (skipping
// testdata, hidden folders and nested modules such as integration/) and
// returns the functions longer than limit lines, by file and line.
func longFuncs(root string, limit int) ([]longFunc, error) {
	var long []longFunc
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return skipDir(root, path, d.Name())
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			start, end := fset.Position(fn.Pos()), fset.Position(fn.End())
			if n := end.Line - start.Line + 1; n > limit {
				rel, _ := filepath.Rel(root, path)
				long = append(long, longFunc{fmt.Sprintf("%s:%d", filepath.ToSlash(rel), start.Line), funcName(fn), n})
			}
		}
		return nil
	})
	sort.Slice(long, func(i, j int) bool { return long[i].pos < long[j].pos })
	return long, err
}

// skipDir says whether the walk leaves a folder out: testdata, hidden and
// underscore folders (the go tool ignores them too), node_modules, and any
// folder with its own go.mod, another module.
func skipDir(root, path, name string) error {
	if path == root {
		return nil
	}
	if name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return filepath.SkipDir
	}
	if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
		return filepath.SkipDir
	}
	return nil
}

// funcName is fn's name, with its receiver's type for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch r := t.(type) {
	case *ast.IndexExpr:
		t = r.X
	case *ast.IndexListExpr:
		t = r.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// moduleRoot is the main module's folder: this package's, two up.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at the module root %s: %v", root, err)
	}
	return root
}
