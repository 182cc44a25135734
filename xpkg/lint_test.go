package xpkg_test

import (
	"slices"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
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
		{name: "image: the caller's facts replace them", source: img.XpkgFile, opts: []linter.Option{linter.WithImageFacts(&linter.ImageFacts{Flattened: true})}, want: []string{"XP502"}},
		{name: "image: rules can be disabled", source: img.XpkgFile, opts: []linter.Option{linter.WithDisabled("XP501")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := xpkg.Open(t.Context(), tc.source(t))
			if err != nil {
				t.Fatal(err)
			}
			res := mustLint(t, p, tc.opts...)
			if got := ruleIDs(res.Diagnostics); !slices.Equal(got, tc.want) {
				t.Errorf("diagnostics %v, want %v", res.Diagnostics, tc.want)
			}
		})
	}
	var nilPkg *xpkg.Package
	if _, err := nilPkg.Lint(t.Context()); err == nil {
		t.Error("Lint of a nil package succeeded")
	}
	if _, err := (&xpkg.Package{}).Lint(t.Context()); err == nil {
		t.Error("Lint of an empty Package value succeeded")
	}
}
