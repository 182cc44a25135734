package rules_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
)

// fuzzParserLimits keeps each fuzz input cheap to parse.
func fuzzParserLimits() parser.Limits {
	return parser.Limits{
		MaxDocumentBytes: 64 << 10, MaxTotalBytes: 1 << 20, MaxDocuments: 256,
		MaxDepth: 64, MaxAliasExpansion: 10_000,
	}
}

// addYAMLSeeds adds every .yaml file under dir (not recursing) no larger
// than max bytes.
func addYAMLSeeds(f *testing.F, dir string, max int64) {
	f.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		if fi, err := e.Info(); err != nil || fi.Size() > max {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
			f.Add(b)
		}
	}
}

// FuzzLint parses an arbitrary stream and lints it with every built-in
// rule. No rule may panic or fail, and the diagnostics must come out
// sorted, each with a rule ID and a valid severity.
func FuzzLint(f *testing.F) {
	addYAMLSeeds(f, filepath.Join("testdata", "seeds"), 64<<10)
	addYAMLSeeds(f, filepath.Join("..", "xpkg", "testdata", "hostile"), 64<<10)
	dirs, _ := filepath.Glob(filepath.Join("testdata", "rules", "*"))
	for _, d := range dirs {
		addYAMLSeeds(f, d, 64<<10)
	}
	for _, name := range []string{"e2e-configuration-dependency", "function-go-templating", "configuration-aws-network"} {
		if b, err := os.ReadFile(filepath.Join(testcorpus.Path(f, name), "package.yaml")); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		ctx := context.Background()
		pkg, err := parser.Parse(ctx, bytes.NewReader(in), parser.WithLimits(fuzzParserLimits()))
		if err != nil {
			return // a stream-level limit: nothing to lint
		}
		res, err := linter.Lint(ctx, pkg, linter.WithRuleSet(rules.Builtin()...))
		if err != nil {
			t.Fatalf("Lint: %v", err)
		}
		for _, fl := range res.Failures {
			t.Errorf("rule failed: %v", fl)
		}
		sorted := slices.Clone(res.Diagnostics)
		linter.SortDiagnostics(sorted)
		if !slices.EqualFunc(sorted, res.Diagnostics, func(a, b linter.Diagnostic) bool {
			return a.Pos == b.Pos && a.RuleID == b.RuleID && a.Message == b.Message
		}) {
			t.Errorf("diagnostics not sorted")
		}
		for _, d := range res.Diagnostics {
			if d.RuleID == "" || !d.Severity.Valid() {
				t.Errorf("diagnostic without rule or severity: %+v", d)
			}
		}
	})
}
