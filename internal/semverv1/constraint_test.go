package semverv1

import (
	"errors"
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
		{"!=1.2.3", "2.0.0-rc.1", true}, // a full "!=" is the one comparison that admits a pre-release
		{"!=1.x", "2.0.0-rc.1", false},
		{"<2.0.0", "1.5.0-rc.1", false},
		{"!=1.x", "2.0.0", true},
		{"!=1.x", "1.5.0", false},
		{"1.0.0 - 1.4.0", "1.4.0", true},
		{"1.0.0 - 1.4.0", "1.4.1", false},
	} {
		c, err := Parse(tc.constraint)
		if err != nil {
			t.Errorf("%q: %v", tc.constraint, err)
			continue
		}
		if got := c.Check(semver.MustParse(tc.version)); got != tc.want {
			t.Errorf("%q on %s: got %v, want %v", tc.constraint, tc.version, got, tc.want)
		}
	}
	for _, tc := range []struct {
		constraint string
		want       error
	}{
		{">=1.0.0 <2.0.0", ErrSpaceJoined},
		{">= 1.0.0 < 2.0.0", ErrSpaceJoined},
		{">=v1.14.0, <v2 || >=v3 <v4", ErrSpaceJoined},
		{"latest", ErrInvalid},
		{">>1.0", ErrInvalid},
		{"1.0.0,", ErrInvalid},
		{"", ErrInvalid},
		{">=1.0.0 latest", ErrInvalid},
		{"1|2", ErrInvalid},
	} {
		_, err := Parse(tc.constraint)
		if !errors.Is(err, tc.want) {
			t.Errorf("%q: got error %v, want %v", tc.constraint, err, tc.want)
		}
	}
}

// TestLeadingZeroPrerelease: v1.5.0 reads a numeric pre-release identifier
// with a leading zero, which the v3 module refuses, and compares it by
// its number.
func TestLeadingZeroPrerelease(t *testing.T) {
	t.Parallel()
	for _, s := range []string{">=1.0.0-01", ">=v2.0.0-rc.01, <v3", "=1.0.0-rc.007+build.1"} {
		if _, err := Parse(s); err != nil {
			t.Errorf("Parse(%q) = %v, want nil", s, err)
		}
	}
	c, err := Parse(">=v2.0.0-rc.02")
	if err != nil {
		t.Fatal(err)
	}
	for v, want := range map[string]bool{"v2.0.0-rc.1": false, "v2.0.0-rc.2": true, "v2.0.0-rc.10": true} {
		if got := c.Check(semver.MustParse(v)); got != want {
			t.Errorf(">=v2.0.0-rc.02 admits %s: %v, want %v", v, got, want)
		}
	}
	if v, err := NewVersion("v1.0.0-rc.01"); err != nil || v.Prerelease() != "rc.1" {
		t.Errorf("NewVersion(v1.0.0-rc.01) = %v, %v", v, err)
	}
}
