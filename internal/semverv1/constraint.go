package semverv1

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// ErrInvalid is the class of the errors Parse returns for a constraint
// Crossplane's parser refuses, but for ErrSpaceJoined.
var ErrInvalid = errors.New("improper constraint")

// ErrSpaceJoined is the class of a constraint whose comparisons are joined
// by a space, such as ">=v1.0.0 <v2.0.0": Masterminds/semver v3 reads it as
// two comparisons, v1.5.0 refuses it.
var ErrSpaceJoined = errors.New("comparisons joined by a space: Crossplane's constraint parser (Masterminds/semver v1.5.0) needs a comma")

// Constraints is a parsed constraint: alternatives ('||') of groups (',')
// of comparisons.
type Constraints struct {
	or [][]xpComparison
}

// xpComparison is one comparison: an operator, a bound, and which parts of
// the bound were wildcards (x, X, *) or left out.
type xpComparison struct {
	op                            string
	bound                         *semver.Version
	dirty, minorDirty, patchDirty bool
}

const xpVersionPattern = `v?([0-9xX*|]+)(\.[0-9xX*|]+)?(\.[0-9xX*|]+)?` +
	`(-([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?` +
	`(\+([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?`

var (
	xpComparisonRE = regexp.MustCompile(`^\s*(!=|>=|=>|<=|=<|~>|>|<|=|~|\^|)\s*(` + xpVersionPattern + `)\s*$`)
	xpRangeRE      = regexp.MustCompile(`\s*(` + xpVersionPattern + `)\s+-\s+(` + xpVersionPattern + `)\s*`)
)

// MaxLength bounds the constraint text Parse reads.
const MaxLength = 1024

// Parse parses s as Crossplane's semver library, Masterminds/semver v1.5.0,
// does: it fails where NewConstraint fails. The error wraps ErrInvalid, and
// ErrSpaceJoined when a space joins two comparisons.
func Parse(s string) (*Constraints, error) {
	if len(s) > MaxLength {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrInvalid, MaxLength)
	}
	// "A - B" is ">= A, <= B".
	s = xpRangeRE.ReplaceAllStringFunc(s, func(m string) string {
		sm := xpRangeRE.FindStringSubmatch(m)
		return fmt.Sprintf(">= %s, <= %s", sm[1], sm[11])
	})
	c := &Constraints{}
	for _, alt := range strings.Split(s, "||") {
		var group []xpComparison
		for _, part := range strings.Split(alt, ",") {
			cmp, err := parseComparison(part)
			if err != nil {
				return nil, err
			}
			group = append(group, cmp)
		}
		c.or = append(c.or, group)
	}
	return c, nil
}

func isWildcard(s string) bool { return s == "x" || s == "X" || s == "*" }

func parseComparison(s string) (xpComparison, error) {
	m := xpComparisonRE.FindStringSubmatch(s)
	if m == nil {
		if parts := spaceJoined(s); parts != nil {
			return xpComparison{}, fmt.Errorf("%w: write %q", ErrSpaceJoined, strings.Join(parts, ", "))
		}
		return xpComparison{}, fmt.Errorf("%w: %q", ErrInvalid, strings.TrimSpace(s))
	}
	c := xpComparison{op: m[1]}
	major, minor, patch, pre := m[3], strings.TrimPrefix(m[4], "."), strings.TrimPrefix(m[5], "."), m[6]
	text := m[2]
	switch {
	case isWildcard(major):
		text, c.dirty = "0.0.0", true
	case isWildcard(minor) || minor == "":
		text, c.dirty, c.minorDirty = major+".0.0"+pre, true, true
	case isWildcard(patch):
		text, c.dirty, c.patchDirty = major+"."+minor+".0"+pre, true, true
	}
	v, err := NewVersion(text)
	if err != nil {
		return xpComparison{}, fmt.Errorf("%w: %q: %v", ErrInvalid, strings.TrimSpace(s), err)
	}
	c.bound = v
	return c, nil
}

// spaceJoined returns the comparisons of s when s is two or more
// comparisons joined by spaces, each of which would parse on its own; nil
// otherwise.
func spaceJoined(s string) []string {
	fields := strings.Fields(s)
	if len(fields) < 2 {
		return nil
	}
	// An operator written apart from its version (">= 1.0.0") is one field
	// of its own: join it to the next.
	var parts []string
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if strings.Trim(f, "!=<>~^") == "" && i+1 < len(fields) {
			i++
			f += fields[i]
		}
		if !xpComparisonRE.MatchString(f) {
			return nil
		}
		parts = append(parts, f)
	}
	if len(parts) < 2 {
		return nil
	}
	return parts
}

// Check reports whether v satisfies the constraint, as v1.5.0's
// Constraints.Check decides.
func (c *Constraints) Check(v *semver.Version) bool {
	for _, group := range c.or {
		ok := true
		for _, cmp := range group {
			if !cmp.check(v) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func (c xpComparison) check(v *semver.Version) bool {
	b := c.bound
	// "!=" with a full version is the only comparison that does not refuse a
	// pre-release version when its bound names none.
	if c.op == "!=" && !c.dirty {
		return !v.Equal(b)
	}
	if v.Prerelease() != "" && b.Prerelease() == "" {
		return false
	}
	switch c.op {
	case "!=":
		if b.Major() != v.Major() {
			return true
		}
		return b.Minor() != v.Minor() && !c.minorDirty
	case ">":
		return v.Compare(b) > 0
	case ">=", "=>":
		return v.Compare(b) >= 0
	case "<", "<=", "=<":
		if !c.dirty {
			if c.op == "<" {
				return v.Compare(b) < 0
			}
			return v.Compare(b) <= 0
		}
		return !(v.Major() > b.Major() || v.Minor() > b.Minor() && !c.minorDirty)
	case "~", "~>":
		return c.tilde(v)
	case "^":
		return !v.LessThan(b) && v.Major() == b.Major()
	default: // "" and "=": a wildcard makes it a tilde
		if c.dirty {
			return c.tilde(v)
		}
		return v.Equal(b)
	}
}

func (c xpComparison) tilde(v *semver.Version) bool {
	b := c.bound
	if v.LessThan(b) {
		return false
	}
	if b.Major() == 0 && b.Minor() == 0 && b.Patch() == 0 && !c.minorDirty && !c.patchDirty {
		return true
	}
	if v.Major() != b.Major() {
		return false
	}
	return v.Minor() == b.Minor() || c.minorDirty
}

// NewVersion parses a version as v1.5.0's NewVersion does: unlike the v3
// module it accepts a numeric pre-release identifier with a leading zero
// ("1.0.0-01", "v2.0.0-rc.01"), which it compares by its number, so the
// version returned carries the identifier without its leading zeros.
func NewVersion(s string) (*semver.Version, error) {
	v, err := semver.NewVersion(s)
	if err == nil || !errors.Is(err, semver.ErrSegmentStartsZero) {
		return v, err
	}
	core, pre, ok := strings.Cut(s, "-")
	if !ok {
		return nil, err
	}
	pre, build, hasBuild := strings.Cut(pre, "+")
	ids := strings.Split(pre, ".")
	for i, id := range ids {
		if len(id) > 1 && id[0] == '0' && strings.Trim(id, "0123456789") == "" {
			ids[i] = strings.TrimLeft(id, "0")
			if ids[i] == "" {
				ids[i] = "0"
			}
		}
	}
	t := core + "-" + strings.Join(ids, ".")
	if hasBuild {
		t += "+" + build
	}
	return semver.NewVersion(t)
}
