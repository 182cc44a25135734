// Package apicheck describes the exported API of the module's public
// packages, one line per exported name with its signature, as Go's own
// api/go1.*.txt files do. The description is checked in (api/xpkgkit.txt)
// and a test fails when the API changes without it being updated in the
// same commit. Regenerate it with
//
//	go test ./internal/apicheck -update
//
// (or go run ./internal/apicheck/cmd/apidump > api/xpkgkit.txt).
//
// It reads the packages' syntax (go/parser, go/printer): signatures are
// printed as written, with the package names the source uses, so that the
// tool needs nothing beyond the standard library and no type-checking of
// the dependencies.
package apicheck

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Dump returns the API description of every public package of the module
// rooted at root (the directory of its go.mod): one line per exported
// name, sorted. Public packages are those outside internal/, examples/,
// testdata/ and nested modules.
func Dump(root string) ([]string, error) {
	modPath, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	var lines []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		name := d.Name()
		if rel != "." {
			switch {
			case name == "internal", name == "examples", name == "testdata", name == "vendor",
				strings.HasPrefix(name, "."), strings.HasPrefix(name, "_"):
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module
			}
		}
		importPath := modPath
		if rel != "." {
			importPath = path.Join(modPath, rel)
		}
		pkgLines, err := dumpDir(p, importPath)
		if err != nil {
			return err
		}
		lines = append(lines, pkgLines...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(lines)
	return slices.Compact(lines), nil
}

// modulePath reads the module path from a go.mod file.
func modulePath(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", fmt.Errorf("apicheck: %s has no module line", gomod)
}

// dumpDir describes the non-test, non-main package in dir, if any.
func dumpDir(dir, importPath string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if f.Name.Name == "main" || f.Name.Name == "documentation" {
			continue
		}
		files = append(files, f)
	}
	d := &dumper{fset: fset, prefix: "pkg " + importPath + ", "}
	for _, f := range files {
		for _, decl := range f.Decls {
			d.decl(decl)
		}
	}
	return d.lines, nil
}

type dumper struct {
	fset   *token.FileSet
	prefix string
	lines  []string
}

func (d *dumper) add(format string, args ...any) {
	d.lines = append(d.lines, d.prefix+fmt.Sprintf(format, args...))
}

var space = regexp.MustCompile(`\s*\n\s*`)

// node prints n on one line.
func (d *dumper) node(n any) string {
	var b bytes.Buffer
	if err := printer.Fprint(&b, d.fset, n); err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	s := space.ReplaceAllString(b.String(), " ")
	s = strings.ReplaceAll(s, ", )", ")")
	s = strings.ReplaceAll(s, ", }", " }")
	s = strings.ReplaceAll(s, "( ", "(")
	return s
}

func (d *dumper) decl(decl ast.Decl) {
	switch decl := decl.(type) {
	case *ast.FuncDecl:
		d.funcDecl(decl)
	case *ast.GenDecl:
		for _, spec := range decl.Specs {
			switch spec := spec.(type) {
			case *ast.TypeSpec:
				d.typeSpec(spec)
			case *ast.ValueSpec:
				d.valueSpec(decl.Tok, spec)
			}
		}
	}
}

func (d *dumper) funcDecl(fn *ast.FuncDecl) {
	if !fn.Name.IsExported() {
		return
	}
	sig := d.node(fn.Type)
	sig = strings.TrimPrefix(sig, "func")
	if fn.Recv == nil {
		d.add("func %s%s", fn.Name.Name, sig)
		return
	}
	recv := fn.Recv.List[0].Type
	base := recv
	if star, ok := base.(*ast.StarExpr); ok {
		base = star.X
	}
	switch b := base.(type) {
	case *ast.IndexExpr:
		base = b.X
	case *ast.IndexListExpr:
		base = b.X
	}
	if id, ok := base.(*ast.Ident); !ok || !id.IsExported() {
		return
	}
	d.add("method (%s) %s%s", d.node(recv), fn.Name.Name, sig)
}

func (d *dumper) typeSpec(ts *ast.TypeSpec) {
	if !ts.Name.IsExported() {
		return
	}
	name := ts.Name.Name
	if ts.TypeParams != nil {
		name += d.node(ts.TypeParams)
		name = strings.Replace(name, "(", "[", 1)
	}
	if ts.Assign.IsValid() {
		d.add("type %s = %s", name, d.node(ts.Type))
		return
	}
	switch t := ts.Type.(type) {
	case *ast.StructType:
		d.add("type %s struct", name)
		for _, f := range t.Fields.List {
			typ := d.node(f.Type)
			if len(f.Names) == 0 {
				if embeddedExported(f.Type) {
					d.add("type %s struct, embedded %s", name, typ)
				}
				continue
			}
			for _, n := range f.Names {
				if n.IsExported() {
					d.add("type %s struct, %s %s", name, n.Name, typ)
				}
			}
		}
	case *ast.InterfaceType:
		d.add("type %s interface { %s }", name, d.methodNames(t))
		for _, m := range t.Methods.List {
			if len(m.Names) == 0 {
				d.add("type %s interface, embedded %s", name, d.node(m.Type))
				continue
			}
			for _, n := range m.Names {
				if n.IsExported() {
					d.add("type %s interface, %s%s", name, n.Name, strings.TrimPrefix(d.node(m.Type), "func"))
				} else {
					d.add("type %s interface, unexported methods", name)
				}
			}
		}
	default:
		d.add("type %s %s", name, d.node(ts.Type))
	}
}

// methodNames lists an interface's method names, exported or not.
func (d *dumper) methodNames(t *ast.InterfaceType) string {
	var names []string
	for _, m := range t.Methods.List {
		for _, n := range m.Names {
			names = append(names, n.Name)
		}
		if len(m.Names) == 0 {
			names = append(names, d.node(m.Type))
		}
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// embeddedExported reports whether an embedded field's type name is
// exported.
func embeddedExported(t ast.Expr) bool {
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.SelectorExpr:
			return x.Sel.IsExported()
		case *ast.Ident:
			return x.IsExported()
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		default:
			return false
		}
	}
}

func (d *dumper) valueSpec(tok token.Token, vs *ast.ValueSpec) {
	for i, n := range vs.Names {
		if !n.IsExported() {
			continue
		}
		line := tok.String() + " " + n.Name
		if vs.Type != nil {
			line += " " + d.node(vs.Type)
		}
		if tok == token.CONST && i < len(vs.Values) {
			if lit, ok := vs.Values[i].(*ast.BasicLit); ok {
				line += " = " + lit.Value
			}
		}
		d.add("%s", line)
	}
}
