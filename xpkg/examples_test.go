package xpkg_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

const exampleMeta = "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: example\n"

// writeExamplesPackage writes a package directory with the given example
// files and returns its path.
func writeExamplesPackage(t *testing.T, examples map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crossplane.yaml"), []byte(exampleMeta), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "examples"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range examples {
		if err := os.WriteFile(filepath.Join(dir, "examples", name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestExamplesCrossplaneRefuses checks that each example crossplane xpkg
// build cannot parse (its examples parser, and its file reader that
// appends a document end marker to every file) is an XP001 error at the
// example's file and line, and that what it parses draws nothing.
func TestExamplesCrossplaneRefuses(t *testing.T) {
	t.Parallel()
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
	for _, tc := range []struct {
		name, body string
		at         string // "" when the example is fine
	}{
		{"plain", cm, ""},
		{"leading separator", "---\n" + cm, ""},
		{"comment between documents", cm + "---\n# c\n---\n" + cm, ""},
		{"end marker after content", cm + "...\n", ""},
		{"no apiVersion", "kind: ConfigMap\n", ""},
		{"null document", cm + "---\nnull\n", ""},
		{"syntax error", cm + "data: [\n", "examples/ex.yaml:"},
		{"over MaxNodes", cm + "data:\n  x: [" + strings.Repeat("a,", 300_000) + "]\n", "examples/ex.yaml:"},
		{"trailing separator", cm + "---\n", "examples/ex.yaml:5"},
		{"trailing separator, no newline", cm + "---", "examples/ex.yaml:5"},
		{"comment after the last separator", cm + "---\n# later\n", "examples/ex.yaml:5"},
		{"blank lines only", "\n\n", "examples/ex.yaml:1"},
		{"content after a separator", "--- {apiVersion: v1, kind: ConfigMap}\n", "examples/ex.yaml:1"},
		{"no kind", "apiVersion: v1\nmetadata: {}\n", "examples/ex.yaml:1"},
		{"a list", "- a\n- b\n", "examples/ex.yaml:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := xpkg.Open(context.Background(), writeExamplesPackage(t, map[string]string{"ex.yaml": tc.body}))
			if err != nil {
				t.Fatal(err)
			}
			res, err := rules.LintPackage(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range res.Diagnostics {
				if d.RuleID == "XP001" || d.RuleID == "XP002" {
					got = append(got, d.String())
				}
			}
			switch {
			case tc.at == "" && len(got) > 0:
				t.Errorf("want no parse diagnostic, got %q", got)
			case tc.at != "" && (len(got) != 1 || !strings.Contains(got[0], tc.at) || !strings.Contains(got[0], "XP001")):
				t.Errorf("want one XP001 at %s, got %q", tc.at, got)
			}
		})
	}
}

// TestExamplesShareTheBudget checks that the examples count against the
// same document budget as the package: each half fits, both do not.
func TestExamplesShareTheBudget(t *testing.T) {
	t.Parallel()
	doc := "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
	dir := writeExamplesPackage(t, map[string]string{"ex.yaml": strings.Repeat(doc, 60)})
	if err := os.WriteFile(filepath.Join(dir, "objects.yaml"), []byte(strings.Repeat(doc, 60)), 0o644); err != nil {
		t.Fatal(err)
	}
	lim := xpkg.Limits{Parser: parser.Limits{MaxDocuments: 100}}
	_, err := xpkg.Open(context.Background(), dir, xpkg.WithLimits(lim))
	var le *limit.Error
	if !errors.As(err, &le) || le.Limit != "MaxDocuments" || le.Max != 100 || !strings.Contains(err.Error(), "examples") {
		t.Fatalf("got %v, want the MaxDocuments limit of 100 while reading the examples", err)
	}
	lim.Parser.MaxDocuments = 200
	p, err := xpkg.Open(context.Background(), dir, xpkg.WithLimits(lim))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Examples.Usage.Documents; got < 120 {
		t.Errorf("examples' usage: %d documents, want the package's counted too", got)
	}
}

// TestExamplesLayerUnreadable checks that an example of an image's
// examples layer that does not parse is an XP001 error at
// .up/examples.yaml, not dropped.
func TestExamplesLayerUnreadable(t *testing.T) {
	t.Parallel()
	p := xpkgtest.NewConfiguration("example").
		WithExample([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n")).
		WithExample([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: [\n"))
	path := p.MustImage(t).XpkgFile(t)
	pkg, err := xpkg.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := rules.LintPackage(context.Background(), pkg)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range res.Diagnostics {
		if d.RuleID == "XP001" && d.Pos.File == xpkg.ExamplesFile {
			found = true
		}
	}
	if !found {
		t.Errorf("no XP001 at %s: %v", xpkg.ExamplesFile, res.Diagnostics)
	}
}
