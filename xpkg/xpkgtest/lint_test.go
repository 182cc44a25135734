package xpkgtest_test

import (
	"bytes"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter/rules"

	"github.com/google/go-cmp/cmp"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

func lint(t *testing.T, p *xpkgtest.Package) []string {
	t.Helper()
	pkg, err := parser.Parse(t.Context(), bytes.NewReader(p.YAML()))
	if err != nil {
		t.Fatal(err)
	}
	res, err := linter.Lint(t.Context(), pkg, linter.WithRuleSet(rules.Builtin()...), linter.WithCrossplaneVersion("v1.20.0"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) > 0 {
		t.Errorf("rules failed: %v", res.Failures)
	}
	var out []string
	for _, d := range res.Diagnostics {
		out = append(out, d.RuleID)
		t.Log(d)
	}
	return out
}

// TestValidPackagesLintClean checks that valid fixtures draw no diagnostic
// at all from the built-in rules.
func TestValidPackagesLintClean(t *testing.T) {
	t.Parallel()
	for name, p := range validPackages() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := lint(t, p); len(got) > 0 {
				t.Errorf("diagnostics: %v", got)
			}
		})
	}
}

// TestBrokenContentLints checks that the content variants draw the
// diagnostic of what they break.
func TestBrokenContentLints(t *testing.T) {
	t.Parallel()
	want := map[xpkgtest.Broken]string{
		xpkgtest.NoMeta:                  "XP101",
		xpkgtest.TwoMetas:                "XP101",
		xpkgtest.BadCrossplaneConstraint: "XP202",
	}
	for b, rule := range want {
		t.Run(b.String(), func(t *testing.T) {
			t.Parallel()
			p, ok := b.Package()
			if !ok {
				t.Fatal("no package")
			}
			got := lint(t, p)
			if !cmp.Equal(got, []string{rule}) {
				t.Errorf("diagnostics %v, want [%s]", got, rule)
			}
		})
	}
}
