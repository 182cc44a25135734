package target

import (
	"errors"
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/xpkgkit/xpkgkit/internal/semverv1"
)

// Constraint is a parsed version constraint.
type Constraint interface {
	// Check reports whether v satisfies the constraint.
	Check(v *semver.Version) bool
}

// ErrConstraint is the class of the errors ParseConstraint returns.
var ErrConstraint = errors.New("improper constraint")

// maxV3Text bounds the constraint text the v3.4 engine reads: v3.4 has no
// cap of its own, this one only bounds our work.
const maxV3Text = 64 << 10

// ParseConstraint parses a version constraint as the release's Crossplane
// does: with Masterminds/semver v1.5.0's grammar before v2.3 (package
// semverv1), with github.com/Masterminds/semver/v3 from v2.3. From v2.4
// (crossplane-runtime v2.4.0, semver v3.5.0) a constraint over 512 bytes
// or of more than 32 '||' groups is refused; v2.3 pins v3.4.0, which has
// no caps, so at v2.3 each '||' group is parsed on its own (exactly what
// v3's NewConstraint does) to read past them, and a group over 512 bytes
// is read as its comma-separated comparisons, each parsed on its own and
// all required (a group is their conjunction). One case stays apart: a
// comparison list joined by spaces alone over 512 bytes, which v3.4 reads
// and v3.5 refuses, is refused at v2.3 too. The error wraps ErrConstraint from v2.3, and
// semverv1.ErrInvalid or semverv1.ErrSpaceJoined (comparisons joined by a
// space) before.
func (r Release) ParseConstraint(s string) (Constraint, error) {
	switch r.Semver {
	case SemverV1:
		c, err := semverv1.Parse(s)
		if err != nil {
			return nil, err
		}
		return c, nil
	case SemverV3:
		if len(s) > maxV3Text {
			return nil, fmt.Errorf("%w: longer than %d bytes", ErrConstraint, maxV3Text)
		}
		var or orConstraint
		for _, g := range strings.Split(s, "||") {
			c, err := parseV3Group(g)
			if err != nil {
				return nil, constraintError{err}
			}
			or = append(or, c)
		}
		return or, nil
	}
	c, err := semver.NewConstraint(s)
	if err != nil {
		return nil, constraintError{err}
	}
	return c, nil
}

// constraintError is an error of the v3 module, of class ErrConstraint
// (its text already starts "improper constraint" where it says so).
type constraintError struct{ err error }

func (e constraintError) Error() string        { return e.err.Error() }
func (e constraintError) Unwrap() error        { return e.err }
func (e constraintError) Is(target error) bool { return target == ErrConstraint }

// maxV35Group is semver v3.5.0's cap on a constraint's length, which
// v3.4.0 (Crossplane v2.3) does not have.
const maxV35Group = 512

// parseV3Group parses one '||' group as semver v3.4.0 does: a group within
// v3.5's length cap by the module itself, a longer one comparison by
// comparison (split at its commas).
func parseV3Group(g string) (Constraint, error) {
	if len(g) <= maxV35Group {
		return semver.NewConstraint(g)
	}
	var and andConstraint
	for _, term := range strings.Split(g, ",") {
		c, err := semver.NewConstraint(strings.TrimSpace(term))
		if err != nil {
			return nil, err
		}
		and = append(and, c)
	}
	return and, nil
}

// andConstraint is a group's comparisons parsed one by one.
type andConstraint []*semver.Constraints

func (a andConstraint) Check(v *semver.Version) bool {
	for _, c := range a {
		if !c.Check(v) {
			return false
		}
	}
	return true
}

// orConstraint is '||' groups parsed one by one.
type orConstraint []Constraint

func (o orConstraint) Check(v *semver.Version) bool {
	for _, c := range o {
		if c.Check(v) {
			return true
		}
	}
	return false
}

// ParseVersion parses a version (a tag, a target) as the release's
// Crossplane does: before v2.3 a numeric pre-release identifier with a
// leading zero ("v1.0.0-rc.01") is a version (semver v1.5.0); from v2.3
// it is not.
func (r Release) ParseVersion(s string) (*semver.Version, error) {
	if r.Semver == SemverV1 {
		return semverv1.NewVersion(s)
	}
	return semver.NewVersion(s)
}

// SpaceJoined reports whether err says comparisons were joined by a space,
// which only the v1.5.0 grammar refuses.
func SpaceJoined(err error) bool { return errors.Is(err, semverv1.ErrSpaceJoined) }
