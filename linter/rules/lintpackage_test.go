package rules_test

import (
	"slices"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

func TestPackageLint(t *testing.T) {
	t.Parallel()
	fix := xpkgtest.NewProvider("provider-example").WithCRD("example.org", "Widget")
	img := xpkgtest.TwoBaseLayers.MustImage(t)
	cases := []struct {
		name   string
		source func(tb testing.TB) string
		opts   []linter.Option
		want   []string
	}{
		{name: "stream: no image rules", source: fix.PackageYAMLFile},
		{name: "image: its facts reach the linter", source: img.XpkgFile, want: []string{"XP501"}},
		{name: "image: the caller's facts replace them", source: img.XpkgFile, opts: []linter.Option{rules.WithImageFacts(&xpkg.ImageFacts{Flattened: true})}, want: []string{"XP502"}},
		{name: "image: rules can be disabled", source: img.XpkgFile, opts: []linter.Option{linter.WithDisabled("XP501")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := xpkg.Open(t.Context(), tc.source(t))
			if err != nil {
				t.Fatal(err)
			}
			res, err := rules.LintPackage(t.Context(), p, tc.opts...)
			if err != nil || len(res.Failures) > 0 {
				t.Fatalf("LintPackage: %v %v", err, res)
			}
			if got := diagIDs(res.Diagnostics); !slices.Equal(got, tc.want) {
				t.Errorf("diagnostics %v, want %v", res.Diagnostics, tc.want)
			}
		})
	}
	if _, err := rules.LintPackage(t.Context(), nil); err == nil {
		t.Error("Lint of a nil package succeeded")
	}
	if _, err := rules.LintPackage(t.Context(), &xpkg.Package{}); err == nil {
		t.Error("Lint of an empty Package value succeeded")
	}
}

func diagIDs(ds []linter.Diagnostic) []string {
	var ids []string
	for _, d := range ds {
		ids = append(ids, d.RuleID)
	}
	return ids
}
