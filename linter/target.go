package linter

import (
	"github.com/Masterminds/semver/v3"

	"github.com/xpkgkit/xpkgkit/internal/target"
	"github.com/xpkgkit/xpkgkit/meta"
)

// release returns the Crossplane release line the pass judges for: the
// one WithCrossplaneVersion maps to, else the default line.
func (p *Pass) release() target.Release {
	if p.target.Line == "" {
		return target.Default()
	}
	return p.target.Release
}

// targetName names the target in messages: the version given, else the
// default line.
func (p *Pass) targetName() string {
	if p.CrossplaneVersion != "" {
		return p.CrossplaneVersion
	}
	return p.release().Line
}

// targetVersion is the Crossplane version the pass judges for: the one
// given, else the release the default line was read from (v2.4.0): a
// default target is a target.
func (p *Pass) targetVersion() string {
	if p.CrossplaneVersion != "" {
		return p.CrossplaneVersion
	}
	return p.release().Patch
}

// checkConstraint returns nil when Crossplane of release r reads s as a
// version constraint, else why it does not. Before v2.3 (semver v1.5.0)
// a constraint the v3 module refuses too gets v3's reason, which is the
// clearer one, unless its only fault is a space between comparisons.
func checkConstraint(r target.Release, s string) error {
	_, err := r.ParseConstraint(s)
	if err == nil {
		return nil
	}
	if r.Semver == target.SemverV1 && !target.SpaceJoined(err) {
		if _, err3 := semver.NewConstraint(s); err3 != nil {
			return err3
		}
	}
	return err
}

// functionObjectsIgnored reports whether the package is a Function whose
// objects the target's package manager does not install (from v2.2 a
// filtering establisher installs only the kinds of each package type,
// none for a Function: crossplane commit 36f59bef1,
// internal/controller/pkg/revision/establisher.go FilteringEstablisher).
func (p *Pass) functionObjectsIgnored() bool {
	return p.Kind == meta.KindFunction && !p.release().InstallsFunctionObjects
}
