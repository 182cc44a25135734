package deps_test

import (
	"testing"

	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/xpkg/deps"
)

func TestDependencyString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		d    *deps.Dependency
		want string
	}{
		{&deps.Dependency{Kind: meta.KindProvider, Package: "xpkg.crossplane.io/crossplane-contrib/provider-nop", Constraint: ">=v0.1.0"},
			"Provider xpkg.crossplane.io/crossplane-contrib/provider-nop >=v0.1.0"},
		{&deps.Dependency{Package: "xpkg.example.org/p"}, "xpkg.example.org/p (no version)"},
		{&deps.Dependency{Constraint: "v1"}, "(no package) v1"},
		{&deps.Dependency{Package: "evil\x1b[2J\nx", Constraint: "v1"}, `"evil\x1b[2J\nx" v1`},
		{nil, "<nil>"},
	} {
		if got := tc.d.String(); got != tc.want {
			t.Errorf("String() = %s, want %s", got, tc.want)
		}
	}
}
