package deps

import (
	"testing"

	"github.com/Masterminds/semver/v3"
)

// TestXPConstraints checks the evaluator against the behaviour of
// Masterminds/semver v1.5.0, the library Crossplane v2.1.0 checks
// constraints with.
func TestXPConstraints(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		constraint string
		version    string
		want       bool
	}{
		{"v1", "1.4.2", true},
		{"v1", "2.0.0", false},
		{"v1", "1.5.0-rc.1", false},
		{"v0", "0.23.1", true},
		{"v0.23.0", "0.23.0", true},
		{"v0.23.0", "0.23.1", false},
		{"=v0.3.1", "0.3.1", true},
		{">=v1.14.1-0", "2.1.0", true},
		{">=v1.14.1-0", "2.1.0-rc.1", true},
		{">=v1.14.0", "2.1.0-rc.1", false},
		{">=v1.2.0-0, <v2.0.0", "1.2.0-rc.1", false},
		{">=v1.2.0-0, <v2.0.0-0", "1.2.0-rc.1", true},
		{">=1.0.0, <1.5.0 || >=2.0.0", "2.1.0", true},
		{">=1.0.0, <1.5.0 || >=2.0.0", "1.6.0", false},
		{"~1.2.0", "1.2.9", true},
		{"~1.2.0", "1.3.0", false},
		{"~>1.2", "1.2.9", true},
		{"^1.2.0", "1.9.0", true},
		{"^1.2.0", "2.0.0", false},
		{"1.x", "1.9.0", true},
		{"1.2.*", "1.2.7", true},
		{"1.2.*", "1.3.0", false},
		{"*", "3.0.0", true},
		{"<2.x", "2.5.0", true}, // v1.5.0 reads "<2.x" as "major at most 2"
		{"<=1.x", "1.9.9", true},
		{"!=1.2.3", "1.2.4", true},
		{"!=1.x", "2.0.0", true},
		{"!=1.x", "1.5.0", false},
		{"1.0.0 - 1.4.0", "1.4.0", true},
		{"1.0.0 - 1.4.0", "1.4.1", false},
	} {
		c, err := parseXPConstraints(tc.constraint)
		if err != nil {
			t.Errorf("%q: %v", tc.constraint, err)
			continue
		}
		if got := c.Check(semver.MustParse(tc.version)); got != tc.want {
			t.Errorf("%q on %s: got %v, want %v", tc.constraint, tc.version, got, tc.want)
		}
	}
	for _, bad := range []string{">=1.0.0 <2.0.0", "latest", ">>1.0", "1.0.0,", ""} {
		if _, err := parseXPConstraints(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

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
		if got := functionName(tc.ref); got != tc.name {
			t.Errorf("name of %s: got %q, want %q", tc.ref, got, tc.name)
		}
		if got := revisionPrefix(tc.ref); got != tc.prefix {
			t.Errorf("revision prefix of %s: got %q, want %q", tc.ref, got, tc.prefix)
		}
	}
}
