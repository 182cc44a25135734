package safefile

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// bypasses are the functions of package os that open, read or write a
// file by name. The programs call safefile instead.
var bypasses = map[string]bool{"ReadFile": true, "WriteFile": true, "Create": true, "OpenFile": true, "Open": true, "CreateTemp": true}

// gatedDirs are the trees, relative to the module root, whose files read
// and write beside the package only through safefile: the programs, and the
// packages that read files a flag names (keys, trusted roots, ImageConfigs)
// or a dependency source's entries.
var gatedDirs = []string{"lintcmd", "examples", "xpkg/verify", "xpkg/deps", "xpkg/imageconfig"}

// generators are the folders of go generate's programs, which read and
// write the repository's own files, never a package's.
var generators = map[string]bool{"gen": true, "gendesc": true}

// TestNoBypass is the guard of the file layer: no non-test file of
// gatedDirs calls os.ReadFile, os.WriteFile, os.Create,
// os.OpenFile, os.Open or os.CreateTemp. A new file flag, configuration key
// or output file must go through Read, Open or Write, which refuse links,
// FIFOs and devices, cap the bytes and write atomically.
func TestNoBypass(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	files := 0
	for _, d := range gatedDirs {
		err := filepath.WalkDir(filepath.Join(root, d), func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() {
				if generators[e.Name()] || e.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			files++
			for _, bad := range bypassesIn(t, p) {
				t.Errorf("%s: calls %s: read and write files beside the package through internal/safefile (Read, Open, Write)", bad.pos, bad.call)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 20 {
		t.Fatalf("checked %d files: the walk did not find the trees %v", files, gatedDirs)
	}
}

type bypass struct {
	pos  token.Position
	call string
}

// bypassesIn returns the calls of bypasses in the Go file p, through
// whatever name it imports package os as.
func bypassesIn(t *testing.T, p string) []bypass {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, imp := range f.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); path == "os" {
			name := "os"
			if imp.Name != nil {
				name = imp.Name.Name
			}
			names[name] = true
		}
	}
	var out []bypass
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && names[id.Name] && bypasses[sel.Sel.Name] {
			out = append(out, bypass{fset.Position(sel.Pos()), id.Name + "." + sel.Sel.Name})
		}
		return true
	})
	return out
}

// TestBypassesIn checks the guard itself on a file that calls os.ReadFile
// under another name.
func TestBypassesIn(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "x.go")
	src := "package x\n\nimport sys \"os\"\n\nvar _, _ = sys.ReadFile(\"f\")\nvar _ = sys.Getenv\n"
	if err := Write(t.Context(), p, []byte(src), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	got := bypassesIn(t, p)
	if len(got) != 1 || got[0].call != "sys.ReadFile" || got[0].pos.Line != 5 {
		t.Errorf("bypassesIn = %+v, want sys.ReadFile at line 5", got)
	}
}
