package ref

import (
	"errors"
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/xpkgkit/xpkgkit/internal/semverv1"
)

// CheckDependency checks a dependency's package reference the way Crossplane
// v2 needs it: a valid reference, naming its registry host, with neither tag
// nor digest (the dependency's version field says which version). Each
// problem found is returned, joined; the errors wrap ErrInvalid,
// ErrNoRegistry, ErrHasTag or ErrHasDigest.
func CheckDependency(s string) (Reference, error) {
	r, err := Parse(s)
	if err != nil {
		return r, err
	}
	var errs []error
	if r.Registry == "" {
		errs = append(errs, fmt.Errorf("%w: %q (Crossplane v2 assumes no default registry; write e.g. xpkg.crossplane.io/%s)", ErrNoRegistry, s, r.Repository))
	}
	if r.Tag != "" {
		errs = append(errs, fmt.Errorf("%w: %q (give the version in the version field, not :%s)", ErrHasTag, s, r.Tag))
	}
	if r.Digest != "" {
		errs = append(errs, fmt.Errorf("%w: %q (give the digest in the version field)", ErrHasDigest, s))
	}
	return r, errors.Join(errs...)
}

// CheckVersion checks a dependency version: a constraint Crossplane's
// Masterminds/semver v1.5.0 parses, such as ">=v1.2.0" or "v1" (see
// CheckConstraint), or a digest "sha256:<64 lower-case hex>". The error
// wraps ErrInvalidVersion.
func CheckVersion(v string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("%w: empty", ErrInvalidVersion)
	}
	if alg, hex, ok := strings.Cut(v, ":"); ok && !strings.ContainsAny(alg, " <>=!~^,|") {
		if alg != "sha256" {
			return fmt.Errorf("%w: %q: a digest version must be sha256:<64 hex digits>", ErrInvalidVersion, v)
		}
		if len(hex) != 64 || !isLowerHex(hex) {
			return fmt.Errorf("%w: %q: a sha256 digest has 64 lower-case hex digits", ErrInvalidVersion, v)
		}
		return nil
	}
	return CheckConstraint(v)
}

// CheckVersionWith is CheckVersion with the constraint read by parse (the
// target release's engine) instead of Masterminds/semver v1.5.0; parse's
// error is wrapped in ErrInvalidVersion.
func CheckVersionWith(v string, parse func(string) error) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("%w: empty", ErrInvalidVersion)
	}
	if alg, _, ok := strings.Cut(v, ":"); ok && !strings.ContainsAny(alg, " <>=!~^,|") {
		return CheckVersion(v)
	}
	if err := parse(v); err != nil {
		return fmt.Errorf("%w: %q is not a semver constraint: %w", ErrInvalidVersion, v, err)
	}
	return nil
}

// CheckConstraint checks a version constraint the way Crossplane parses
// it, with Masterminds/semver v1.5.0 (see package semverv1): where the v3
// module also refuses it, the error says why v3 does; a constraint only
// v1.5.0 refuses, such as comparisons joined by a space, says why v1.5.0
// does. The error wraps ErrInvalidVersion, and semverv1.ErrSpaceJoined when
// a space joins two comparisons.
func CheckConstraint(v string) error {
	_, err := semverv1.Parse(v)
	if err == nil {
		return nil
	}
	if errors.Is(err, semverv1.ErrSpaceJoined) {
		return fmt.Errorf("%w: %q: %w", ErrInvalidVersion, v, err)
	}
	if _, err3 := semver.NewConstraint(v); err3 != nil {
		err = err3
	}
	return fmt.Errorf("%w: %q is not a semver constraint: %w", ErrInvalidVersion, v, err)
}
