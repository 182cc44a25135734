package deps

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// Crossplane v2.1.0 checks dependency versions and its own version against
// constraints with github.com/Masterminds/semver v1.5.0 (go.mod), whose
// grammar and pre-release rule differ from the v3 module's: constraints are
// joined with ',' only (a space does not separate two of them), and each
// comparison on its own refuses a pre-release version unless its own bound
// names a pre-release, so ">=v1.2.0-0, <v2.0.0" admits no pre-release
// (v3 admits one when any constraint of the group names one). The
// evaluator below follows v1.5.0; versions are compared as the v3 module
// compares them (semantic version precedence in both).

// xpConstraints is a parsed constraint: alternatives ('||') of groups
// (',') of comparisons.
type xpConstraints struct {
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

// maxConstraintLength bounds the constraint text parsed.
const maxConstraintLength = 1024

// parseXPConstraints parses s as Crossplane's semver library does.
func parseXPConstraints(s string) (*xpConstraints, error) {
	if len(s) > maxConstraintLength {
		return nil, fmt.Errorf("constraint longer than %d bytes", maxConstraintLength)
	}
	// "A - B" is ">= A, <= B".
	s = xpRangeRE.ReplaceAllStringFunc(s, func(m string) string {
		sm := xpRangeRE.FindStringSubmatch(m)
		return fmt.Sprintf(">= %s, <= %s", sm[1], sm[11])
	})
	c := &xpConstraints{}
	for _, alt := range strings.Split(s, "||") {
		var group []xpComparison
		for _, part := range strings.Split(alt, ",") {
			cmp, err := parseXPComparison(part)
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

func parseXPComparison(s string) (xpComparison, error) {
	m := xpComparisonRE.FindStringSubmatch(s)
	if m == nil {
		return xpComparison{}, fmt.Errorf("improper constraint %q (Crossplane joins constraints with ',', not spaces)", strings.TrimSpace(s))
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
	v, err := semver.NewVersion(text)
	if err != nil {
		return xpComparison{}, fmt.Errorf("improper constraint %q", strings.TrimSpace(s))
	}
	c.bound = v
	return c, nil
}

// Check reports whether v satisfies the constraint.
func (c *xpConstraints) Check(v *semver.Version) bool {
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
	// A comparison whose bound names no pre-release refuses pre-releases.
	if v.Prerelease() != "" && b.Prerelease() == "" {
		return false
	}
	switch c.op {
	case "!=":
		if !c.dirty {
			return !v.Equal(b)
		}
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
