package deps

import (
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/ref"
)

// TestCrossplaneNames checks the names Crossplane gives an installed
// dependency (internal/xpkg/name.go ToDNSLabel of the repository) and the
// start of its revisions' names (FriendlyID), which the cache files carry.
func TestCrossplaneNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ ref, name, prefix string }{
		{"xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform", "crossplane-contrib-function-patch-and-transform", "crossplane-contrib-function-patch-and-transform-"},
		{"xpkg.upbound.io/upbound/provider-aws-ec2", "upbound-provider-aws-ec2", "upbound-provider-aws-ec2-"},
		{"registry.example.org:5000/acme/team.pkg_x", "acme-team-pkgx", "acme-team-pkgx-"},
		{"r.example.org/a-very-long-organisation-name/and-a-very-long-package-name-too", "a-very-long-organisation-name-and-a-very-long-package-name-too", "a-very-long-organisation-name-and-a-very-long-pack-"},
		{"r.example.org/a-very-long-organisation-name/and-a-very-long-package-name-that-goes-on", "a-very-long-organisation-name-and-a-very-long-package-name-that", "a-very-long-organisation-name-and-a-very-long-pack-"},
	} {
		if got := ref.InstalledName(tc.ref); got != tc.name {
			t.Errorf("name of %s: got %q, want %q", tc.ref, got, tc.name)
		}
		if got := revisionPrefix(tc.ref); got != tc.prefix {
			t.Errorf("revision prefix of %s: got %q, want %q", tc.ref, got, tc.prefix)
		}
	}
}
