package target

import (
	"errors"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"

	"github.com/xpkgkit/xpkgkit/internal/semverv1"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	tests := []struct {
		version, line string
		note          string // a substring of the note; "" for none
		err           bool
	}{
		{"", "v2.4", "", false},
		{"v2.4.0", "v2.4", "", false},
		{"v2.3.4", "v2.3", "", false},
		{"2.3.0", "v2.3", "", false},
		{"v2.1.0-rc.1", "v2.1", "", false},
		{"v1.20.11", "v1.20", "", false},
		{"v2.4.0-rc.0", "v2.4", "", false},
		{"v2.5.0", "v2.4", "newer than every release line", false},
		{"v3.0.0", "v2.4", "newer than every release line", false},
		{"v1.14.0", "v1.20", "older than every release line", false},
		{"v1.21.0", "v1.20", "no release line xpkgkit knows", false},
		{"not-a-version", "", "", true},
	}
	for _, tc := range tests {
		r, err := Resolve(tc.version)
		if (err != nil) != tc.err {
			t.Errorf("Resolve(%q) error = %v, want error %v", tc.version, err, tc.err)
			continue
		}
		if err != nil {
			continue
		}
		if r.Line != tc.line || (tc.note == "") != (r.Note == "") || !strings.Contains(r.Note, tc.note) {
			t.Errorf("Resolve(%q) = %s note %q; want %s note containing %q", tc.version, r.Line, r.Note, tc.line, tc.note)
		}
	}
	if d := Default(); d.Line != DefaultLine || !d.Stable {
		t.Errorf("Default() = %s (stable %v), want the stable line %s", d.Line, d.Stable, DefaultLine)
	}
}

// TestTableOrder checks that the table is ordered, oldest first, and that
// every line names the release its facts were read from.
func TestTableOrder(t *testing.T) {
	t.Parallel()
	rs := Releases()
	for i, r := range rs {
		p, err := semver.NewVersion(r.Patch)
		if err != nil || int(p.Major()) != r.Major || int(p.Minor()) != r.Minor {
			t.Errorf("%s: patch %q is not of the line", r.Line, r.Patch)
		}
		if i > 0 && !r.AtLeast(rs[i-1].Major, rs[i-1].Minor+1) {
			t.Errorf("%s does not follow %s", r.Line, rs[i-1].Line)
		}
	}
}

func TestParseConstraint(t *testing.T) {
	t.Parallel()
	v21, _ := Resolve("v2.1.0")
	v23, _ := Resolve("v2.3.0")
	v24, _ := Resolve("v2.4.0")
	groups := make([]string, 33)
	for i := range groups {
		groups[i] = ">=v1.0.0"
	}
	many := strings.Join(groups, " || ")
	long := ">=v1.0.0" + strings.Repeat(" ", 520) + ", <v3"
	tests := []struct {
		name       string
		r          Release
		constraint string
		ok         bool
		admits     string // a version the constraint admits ("" to skip)
		refuses    string // a version it refuses ("" to skip)
	}{
		{"space joined, v1", v21.Release, ">=v1.14.0 <v3", false, "", ""},
		{"space joined, v3", v23.Release, ">=v1.14.0 <v3", true, "v2.3.0", "v3.0.0"},
		{"minor means x, v3", v23.Release, "v2.3", true, "v2.3.4", "v2.4.0"},
		{"minor means .0, v1", v21.Release, "v2.3", true, "v2.3.0", ""},
		{"greater than a major, v1", v21.Release, ">v2", true, "v2.1.0", ""},
		{"greater than a major, v3", v23.Release, ">v2", true, "v3.0.0", "v2.1.0"},
		{"leading zero pre-release, v1", v21.Release, ">=1.0.0-01", true, "v1.0.0", ""},
		{"leading zero pre-release, v3", v23.Release, ">=1.0.0-01", false, "", ""},
		{"33 groups, v3.4", v23.Release, many, true, "v1.0.0", ""},
		{"33 groups, v3.5", v24.Release, many, false, "", ""},
		{"over 512 bytes in 61 groups, v3.4", v23.Release, strings.Repeat(">=v1.0.0 || ", 60) + ">=v1.0.0", true, "v1.0.0", ""},
		{"over 512 bytes, v3.5", v24.Release, long, false, "", ""},
		{"one group over 512 bytes, v3.4", v23.Release, long, true, "v2.0.0", "v3.0.0"},
		{"one group over 512 bytes of comparisons, v3.4", v23.Release, strings.Repeat(">=v1.0.0, ", 60) + "<v3", true, "v2.9.0", "v0.9.0"},
		{"a bad comparison in a long group, v3.4", v23.Release, strings.Repeat(">=v1.0.0, ", 60) + "<v3!", false, "", ""},
	}
	for _, tc := range tests {
		c, err := tc.r.ParseConstraint(tc.constraint)
		if (err == nil) != tc.ok {
			t.Errorf("%s: ParseConstraint error = %v, want ok %v", tc.name, err, tc.ok)
			continue
		}
		if err != nil {
			if !errors.Is(err, ErrConstraint) && !errors.Is(err, semverv1.ErrInvalid) && !errors.Is(err, semverv1.ErrSpaceJoined) {
				t.Errorf("%s: error %v is of no known class", tc.name, err)
			}
			continue
		}
		if tc.admits != "" && !c.Check(semver.MustParse(tc.admits)) {
			t.Errorf("%s: %s not admitted", tc.name, tc.admits)
		}
		if tc.refuses != "" && c.Check(semver.MustParse(tc.refuses)) {
			t.Errorf("%s: %s admitted", tc.name, tc.refuses)
		}
	}
}

func TestParseVersion(t *testing.T) {
	t.Parallel()
	v21, _ := Resolve("v2.1.0")
	v23, _ := Resolve("v2.3.0")
	if _, err := v21.ParseVersion("v1.0.0-rc.01"); err != nil {
		t.Errorf("v2.1 (semver v1.5.0) refuses v1.0.0-rc.01: %v", err)
	}
	if _, err := v23.ParseVersion("v1.0.0-rc.01"); err == nil {
		t.Error("v2.3 (semver v3) accepts v1.0.0-rc.01")
	}
}
