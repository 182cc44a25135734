package rules_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
)

const monolith = "provider-upjet-aws-monolith"

// corpusWarnings lists the warnings (by rule) each real package draws, all
// of them right:
//   - XP103: the package's meta object is v1alpha1, replaced by v1.
//   - XP304: its dependencies use the deprecated provider/configuration/
//     function keys.
//   - XP204, XP205: the e2e package has no license or source annotation.
var corpusWarnings = map[string][]string{
	"configuration-aws-eks":        {"XP103", "XP304"},
	"configuration-aws-network":    {"XP103", "XP304"},
	"platform-ref-aws":             {"XP103", "XP304"},
	"provider-azure":               {"XP103"},
	"provider-gcp":                 {"XP103"},
	"e2e-configuration-dependency": {"XP204", "XP205"},
}

func parseCorpus(tb testing.TB, name string) *parser.Package {
	tb.Helper()
	path := filepath.Join(testcorpus.Path(tb, name), "package.yaml")
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	pkg, err := parser.Parse(context.Background(), f, parser.WithFile(path))
	if err != nil {
		tb.Fatal(err)
	}
	return pkg
}

// corpusTargets are the Crossplane versions every real package is linted
// at, one per release line of the target table, and no target (the
// default line).
var corpusTargets = []string{"v1.20.0", "v2.0.0", "v2.1.0", "v2.2.4", "v2.3.4", "v2.4.0", ""}

// TestCorpusTargets lints every real package but the monolith at every
// release line: none may draw an error at any.
func TestCorpusTargets(t *testing.T) {
	t.Parallel()
	for _, name := range testcorpus.Names() {
		if name == monolith {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			pkg := parseCorpus(t, name)
			for _, target := range corpusTargets {
				res, err := linter.Lint(context.Background(), pkg, linter.WithRuleSet(rules.Builtin()...), linter.WithCrossplaneVersion(target))
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Failures) > 0 {
					t.Errorf("target %q: rule failures: %v", target, res.Failures)
				}
				for _, d := range res.Diagnostics {
					if d.Severity == linter.SeverityError {
						t.Errorf("target %q: error: %v", target, d)
					}
				}
			}
		})
	}
}

// TestCorpus lints every real package: none may draw an error, and the
// warnings must be the ones listed in corpusWarnings. The monolith runs
// only in long, race-free runs (it is 100 MB).
func TestCorpus(t *testing.T) {
	t.Parallel()
	for _, name := range testcorpus.Names() {
		t.Run(name, func(t *testing.T) {
			if name == monolith && (testing.Short() || raceEnabled) {
				t.Skip("the monolith runs without -short and without -race (see BenchmarkLint)")
			}
			t.Parallel()
			pkg := parseCorpus(t, name)
			res, err := linter.Lint(context.Background(), pkg, linter.WithRuleSet(rules.Builtin()...), linter.WithCrossplaneVersion("v1.20.0"))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Failures) > 0 {
				t.Errorf("rule failures: %v", res.Failures)
			}
			var warnings []string
			for _, d := range res.Diagnostics {
				switch d.Severity {
				case linter.SeverityError:
					t.Errorf("error: %v", d)
				case linter.SeverityWarning:
					if !slices.Contains(warnings, d.RuleID) {
						warnings = append(warnings, d.RuleID)
					}
				}
			}
			slices.Sort(warnings)
			if want := corpusWarnings[name]; !slices.Equal(warnings, want) {
				t.Errorf("warnings from rules %v, want %v:\n%v", warnings, want, res.Diagnostics)
			}
		})
	}
}

// BenchmarkLint lints the monolith (2065 CRDs, 102 MB). Compare with
// BenchmarkParse: the parse happens outside the timed loop.
func BenchmarkLint(b *testing.B) {
	pkg := parseCorpus(b, monolith)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := linter.Lint(ctx, pkg, linter.WithRuleSet(rules.Builtin()...))
		if err != nil {
			b.Fatal(err)
		}
		if res.AtOrAbove(linter.SeverityError) {
			b.Fatalf("monolith draws errors: %v", res.Diagnostics)
		}
	}
}

// BenchmarkParse parses the monolith, the baseline BenchmarkLint is
// compared with.
func BenchmarkParse(b *testing.B) {
	path := filepath.Join(testcorpus.Path(b, monolith), "package.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parser.Parse(ctx, bytesReader(data), parser.WithFile(path)); err != nil {
			b.Fatal(err)
		}
	}
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
