package apiserver

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/linttest"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
)

func parseFile(t *testing.T, path string) *parser.Package {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := parser.Parse(context.Background(), f, parser.WithFile(path))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCEL checks the CEL rules of a package's CRDs on its examples
// (XP408) and composed resources (XP409): the wants are in the files.
func TestCEL(t *testing.T) {
	t.Parallel()
	dir := "testdata/cel"
	pkg := parseFile(t, filepath.Join(dir, "package.yaml"))
	ex := parseFile(t, filepath.Join(dir, "examples", "examples.yaml"))
	set := []*linter.Rule{rules.Lookup("XP408"), rules.Lookup("XP409")}
	opts := append([]linter.Option{linter.WithRuleSet(set...), rules.WithExamples(ex)}, LintOptions()[1:]...)
	res, err := linter.Lint(context.Background(), pkg, append([]linter.Option{linter.WithRuleSet(rules.Builtin()...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	var inPkg, inEx []linter.Diagnostic
	for _, d := range res.Diagnostics {
		d.Pos.File = filepath.Base(d.Pos.File)
		if filepath.Base(d.Pos.File) == "examples.yaml" {
			inEx = append(inEx, d)
		} else {
			inPkg = append(inPkg, d)
		}
	}
	for file, diags := range map[string][]linter.Diagnostic{"package.yaml": inPkg, "examples/examples.yaml": inEx} {
		f, err := linttest.ReadFixture(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range linttest.Check(f, diags) {
			t.Errorf("%s: %s", file, p)
		}
	}
}
