package xpkg_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// TestParserOptionsPartialLimits checks that a partly filled parser.Limits
// given through WithParserOptions keeps the parser's other defaults: here
// MaxDocuments alone must not lift the default MaxDepth.
func TestParserOptionsPartialLimits(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "package.yaml")
	deep := "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: c\n---\n" +
		"apiVersion: v1\nkind: X\nspec: " + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "\n"
	if err := os.WriteFile(file, []byte(deep), 0o600); err != nil {
		t.Fatal(err)
	}
	pkg, err := xpkg.Open(t.Context(), file, xpkg.WithParserOptions(parser.WithLimits(parser.Limits{MaxDocuments: 10})))
	if err != nil {
		t.Fatal(err)
	}
	var le *limit.Error
	if len(pkg.Errors) != 1 || !errors.As(pkg.Errors[0], &le) || le.Limit != "MaxDepth" {
		t.Fatalf("document errors %v, want one MaxDepth limit error", pkg.Errors)
	}
}

// TestOpenDirectoryMetaYAML checks that a package directory whose meta
// object is not in crossplane.yaml opens (crossplane xpkg build finds the
// meta object in any YAML file), and that the linter notes the file's name
// (XP008, info) and nothing worse.
func TestOpenDirectoryMetaYAML(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	meta := "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: c\n"
	if err := os.WriteFile(filepath.Join(dir, "meta.yaml"), []byte(meta), 0o600); err != nil {
		t.Fatal(err)
	}
	pkg, err := xpkg.Open(t.Context(), dir)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if pkg.SourceKind != xpkg.SourceDirectory || len(pkg.Meta) != 1 || pkg.Meta[0].Pos.File != "meta.yaml" {
		t.Fatalf("kind %v, meta %v", pkg.SourceKind, pkg.Meta)
	}
	res, err := rules.LintPackage(t.Context(), pkg)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range res.Diagnostics {
		found = found || d.RuleID == "XP008"
		if d.Severity.String() == "error" {
			t.Errorf("error diagnostic %v", d)
		}
	}
	if !found {
		t.Errorf("no XP008 among %v", res.Diagnostics)
	}
}
