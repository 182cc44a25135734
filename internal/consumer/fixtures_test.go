package consumer_test

import (
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// admit is the code under test in a user's repository: it accepts a
// package for a catalogue when Crossplane would install it and it declares
// a license.
func admit(pkg *xpkg.Package, res *linter.Result) bool {
	m := pkg.Pkg()
	if m == nil || res.AtOrAbove(linter.SeverityError) {
		return false
	}
	return pkg.Meta[0].Annotations[meta.AnnotationLicense] != ""
}

// TestAdmitWithFixtures is a unit test built on xpkgtest fixtures: each
// case is a package made in memory, opened as a user's program would.
func TestAdmitWithFixtures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		pkg  *xpkgtest.Package
		want bool
	}{
		{"valid provider", xpkgtest.NewProvider("provider-a").WithCRD("example.org", "Widget", "v1", "v1beta1"), true},
		{"no license", xpkgtest.NewConfiguration("configuration-a").WithoutAnnotation(meta.AnnotationLicense), false},
		{"refused: a kind a Provider may not hold", xpkgtest.NewProvider("provider-b").WithObject([]byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n")), false},
		{"function", xpkgtest.NewFunction("function-a"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pkg, err := xpkg.Open(t.Context(), tt.pkg.MustImage(t).XpkgFile(t))
			if err != nil {
				t.Fatal(err)
			}
			res, err := rules.LintPackage(t.Context(), pkg)
			if err != nil {
				t.Fatal(err)
			}
			if got := admit(pkg, res); got != tt.want {
				t.Errorf("admit = %v, want %v; diagnostics %v", got, tt.want, res.Diagnostics)
			}
		})
	}
}
